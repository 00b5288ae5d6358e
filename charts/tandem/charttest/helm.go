// Package charttest renders charts/tandem with Helm's own command (the
// tool go.mod pins) for the chart's tests, which sit beside it here;
// .helmignore keeps this folder out of the packaged chart.
package charttest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"
)

// RepoRoot is the module's root, where `go tool helm` finds go.mod: the
// first directory up from the test's own (a package's folder, wherever it
// is) that holds go.mod. The source file's path would not do: -trimpath
// makes it the import path.
var RepoRoot = func() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}()

// Chart is the chart in the checkout, relative to RepoRoot.
const Chart = "charts/tandem"

// Object is one rendered Kubernetes object, as JSON decodes it.
type Object = map[string]any

// Template runs `helm template` on chart (a directory or an archive) with
// args, and returns the objects by kind/namespace/name.
func Template(t *testing.T, chart string, args ...string) map[string]Object {
	t.Helper()
	out, stderr, err := Run(t, append([]string{"template", "tandem", chart}, args...)...)
	if err != nil {
		t.Fatalf("helm template %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return Objects(t, out)
}

// Run runs helm with args in RepoRoot.
func Run(t *testing.T, args ...string) (stdout []byte, stderr string, err error) {
	t.Helper()
	bin, err := helmBin()
	if err != nil {
		t.Fatalf("build helm (go tool helm): %v", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = RepoRoot
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	stdout, err = cmd.Output()
	return stdout, errOut.String(), err
}

// helmBin is the helm executable `go tool helm` runs, built once (and kept
// in the build cache): `go tool` itself takes seconds to check it is fresh.
var helmBin = sync.OnceValues(func() (string, error) {
	cmd := exec.Command("go", "tool", "-n", "helm")
	cmd.Dir = RepoRoot
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
})

// Objects parses a multi-document YAML stream; a key seen twice fails.
func Objects(t *testing.T, stream []byte) map[string]Object {
	t.Helper()
	objs := map[string]Object{}
	for _, doc := range bytes.Split(stream, []byte("\n---")) {
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			t.Fatalf("%v in:\n%s", err, doc)
		}
		var obj Object
		if err := json.Unmarshal(js, &obj); err != nil {
			t.Fatal(err)
		}
		if obj == nil {
			continue
		}
		key := Key(obj)
		if _, dup := objs[key]; dup {
			t.Fatalf("%s rendered twice", key)
		}
		objs[key] = obj
	}
	return objs
}

// Key is kind/namespace/name.
func Key(obj Object) string {
	meta, _ := obj["metadata"].(map[string]any)
	return strings.Join([]string{str(obj["kind"]), str(meta["namespace"]), str(meta["name"])}, "/")
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// Field walks obj along path (map keys, or "name=X" to pick a list item
// by its name) and returns what is there, nil when it is absent.
func Field(obj any, path ...string) any {
	for _, p := range path {
		if k, v, ok := strings.Cut(p, "="); ok {
			list, _ := obj.([]any)
			obj = nil
			for _, item := range list {
				if m, _ := item.(map[string]any); m != nil && m[k] == v {
					obj = m
				}
			}
			continue
		}
		m, _ := obj.(map[string]any)
		obj = m[p]
	}
	return obj
}

// JSON is v as compact JSON, for comparing rendered values.
func JSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The objects the tests look into.
const (
	DeploymentKey = "Deployment/tandem-system/tandem-webhook"
	ConfigKey     = "MutatingWebhookConfiguration//tandem"
)

// ContainerPath is the webhook container within the Deployment.
var ContainerPath = []string{"spec", "template", "spec", "containers", "name=webhook"}
