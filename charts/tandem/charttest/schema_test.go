package charttest

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"sigs.k8s.io/yaml"
)

// schemaNode is the part of a JSON schema the chart's uses.
type schemaNode struct {
	Type                 any                    `json:"type"`
	Properties           map[string]*schemaNode `json:"properties"`
	AdditionalProperties any                    `json:"additionalProperties"`
	Items                *schemaNode            `json:"items"`
}

// TestSchemaAndValuesHoldTheSameValues: every value of values.yaml is in
// values.schema.json and the other way round, and every object of the
// schema that lists its properties refuses others (a typo fails the
// install instead of being ignored). values.yaml is where a value is
// commented; the schema is what Helm checks.
func TestSchemaAndValuesHoldTheSameValues(t *testing.T) {
	t.Parallel()
	var schema schemaNode
	readChartFile(t, "values.schema.json", &schema)
	var values map[string]any
	readChartFile(t, "values.yaml", &values)
	var inValues, inSchema []string
	walkValues("", values, &schema, &inValues)
	walkSchema("", &schema, &inSchema, t)
	sort.Strings(inValues)
	sort.Strings(inSchema)
	for _, v := range inValues {
		if !slices.Contains(inSchema, v) {
			t.Errorf("%s is in values.yaml, not in values.schema.json", v)
		}
	}
	for _, v := range inSchema {
		if !slices.Contains(inValues, v) {
			t.Errorf("%s is in values.schema.json, not in values.yaml (every value is written, commented, in values.yaml)", v)
		}
	}
}

// kubernetesTypes are values that are a Kubernetes type's fields (the
// schema lists them to refuse a typo) rather than the chart's own values:
// neither walk names their fields.
var kubernetesTypes = []string{"certificates.certManager.issuerRef", "affinity"}

func readChartFile(t *testing.T, name string, into any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(RepoRoot, Chart, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// walkValues names each value of values.yaml down to where the schema
// stops listing properties (a free map such as nodeSelector, or a
// Kubernetes type such as affinity's terms).
func walkValues(prefix string, v map[string]any, s *schemaNode, names *[]string) {
	for k, child := range v {
		name := prefix + k
		*names = append(*names, name)
		sub, _ := child.(map[string]any)
		if node := s.Properties[k]; node != nil && sub != nil && node.Properties != nil && !slices.Contains(kubernetesTypes, name) {
			walkValues(name+".", sub, node, names)
		}
	}
}

// walkSchema names each property of the schema, and fails an object that
// lists properties but does not refuse others.
func walkSchema(prefix string, s *schemaNode, names *[]string, t *testing.T) {
	if s.Properties != nil && s.AdditionalProperties != false {
		t.Errorf("schema of %q lists properties without \"additionalProperties\": false", prefix)
	}
	if s.Items != nil {
		walkSchema(prefix+"[]", s.Items, &[]string{}, t)
	}
	for k, child := range s.Properties {
		*names = append(*names, prefix+k)
		if slices.Contains(kubernetesTypes, prefix+k) {
			walkSchema(prefix+k+".", child, &[]string{}, t)
		} else if child.Properties != nil {
			walkSchema(prefix+k+".", child, names, t)
		} else if child.Items != nil {
			walkSchema(prefix+k+"[]", child.Items, &[]string{}, t)
		}
	}
}
