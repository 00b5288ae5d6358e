package helmchart

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// repoRoot is the module's root, where `go tool helm` finds go.mod.
var repoRoot = filepath.Join("..", "..", "..")

// object is one rendered Kubernetes object, as JSON decodes it.
type object = map[string]any

// helmTemplate runs `helm template` (Helm's own command, a tool in go.mod)
// on the chart in the checkout, or on chart, with args, and returns the
// objects by kind/namespace/name.
func helmTemplate(t *testing.T, chart string, args ...string) map[string]object {
	t.Helper()
	out, stderr, err := runHelm(t, append([]string{"template", "tandem", chart}, args...)...)
	if err != nil {
		t.Fatalf("helm template %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return objects(t, out)
}

func runHelm(t *testing.T, args ...string) (stdout []byte, stderr string, err error) {
	t.Helper()
	bin, err := helmBin()
	if err != nil {
		t.Fatalf("build helm (go tool helm): %v", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = repoRoot
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	stdout, err = cmd.Output()
	return stdout, errOut.String(), err
}

// helmBin is the helm executable `go tool helm` runs, built once (and kept
// in the build cache): `go tool` itself takes seconds to check it is fresh.
var helmBin = sync.OnceValues(func() (string, error) {
	cmd := exec.Command("go", "tool", "-n", "helm")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
})

// kustomize is `kubectl kustomize examples/webhook`, through kustomize's
// own library, by kind/namespace/name.
func kustomize(t *testing.T) map[string]object {
	t.Helper()
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).
		Run(filesys.MakeFsOnDisk(), filepath.Join(repoRoot, "examples", "webhook"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := res.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	return objects(t, out)
}

// objects parses a multi-document YAML stream; a key seen twice fails.
func objects(t *testing.T, stream []byte) map[string]object {
	t.Helper()
	objs := map[string]object{}
	for _, doc := range bytes.Split(stream, []byte("\n---")) {
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			t.Fatalf("%v in:\n%s", err, doc)
		}
		var obj object
		if err := json.Unmarshal(js, &obj); err != nil {
			t.Fatal(err)
		}
		if obj == nil {
			continue
		}
		key := key(obj)
		if _, dup := objs[key]; dup {
			t.Fatalf("%s rendered twice", key)
		}
		objs[key] = obj
	}
	return objs
}

func key(obj object) string {
	meta, _ := obj["metadata"].(map[string]any)
	return strings.Join([]string{str(obj["kind"]), str(meta["namespace"]), str(meta["name"])}, "/")
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// TestDefaultRenderIsExamplesWebhook: the chart with its defaults renders
// the very objects of examples/webhook/, field for field.
func TestDefaultRenderIsExamplesWebhook(t *testing.T) {
	t.Parallel()
	want := kustomize(t)
	got := helmTemplate(t, "charts/tandem")
	sameObjects(t, got, want)
	if len(want) != 12 {
		t.Errorf("examples/webhook renders %d objects, this test was written for 12", len(want))
	}
}

// sameObjects fails for every object that only one side has or that
// differs.
func sameObjects(t *testing.T, got, want map[string]object) {
	t.Helper()
	for _, d := range differences(got, want) {
		t.Error(d)
	}
}

// differences names each object only one side has, and prints both sides
// of each that differs.
func differences(got, want map[string]object) []string {
	var diffs []string
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			diffs = append(diffs, k+": in examples/webhook, not rendered by the chart")
			continue
		}
		if !reflect.DeepEqual(g, w) {
			gj, _ := json.MarshalIndent(g, "", " ")
			wj, _ := json.MarshalIndent(w, "", " ")
			diffs = append(diffs, fmt.Sprintf("%s differs:\nchart: %s\nexamples/webhook: %s", k, gj, wj))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, k+": rendered by the chart, not in examples/webhook")
		}
	}
	sort.Strings(diffs)
	return diffs
}

// TestDifferencesSeesAChange is the control: the comparison names a
// changed object and an extra one.
func TestDifferencesSeesAChange(t *testing.T) {
	t.Parallel()
	want := kustomize(t)
	got := helmTemplate(t, "charts/tandem", "--set", "replicas=3", "--set", "certificates.source=cert-manager")
	diffs := strings.Join(differences(got, want), "\n")
	for _, k := range []string{"Deployment/tandem-system/tandem-webhook differs", "Certificate/tandem-system/tandem-webhook: rendered by the chart"} {
		if !strings.Contains(diffs, k) {
			t.Errorf("differences do not name %q:\n%s", k, diffs)
		}
	}
}
