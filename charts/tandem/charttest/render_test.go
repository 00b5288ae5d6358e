package charttest

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// kustomize is `kubectl kustomize examples/webhook`, through kustomize's
// own library, by kind/namespace/name.
func kustomize(t *testing.T) map[string]Object {
	t.Helper()
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).
		Run(filesys.MakeFsOnDisk(), filepath.Join(RepoRoot, "examples", "webhook"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := res.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	return Objects(t, out)
}

// TestDefaultRenderIsExamplesWebhook: the chart with its defaults renders
// the very objects of examples/webhook/, field for field.
func TestDefaultRenderIsExamplesWebhook(t *testing.T) {
	t.Parallel()
	want := kustomize(t)
	got := Template(t, Chart)
	sameObjects(t, got, want)
	if len(want) != 12 {
		t.Errorf("examples/webhook renders %d objects, this test was written for 12", len(want))
	}
}

// sameObjects fails for every object that only one side has or that
// differs.
func sameObjects(t *testing.T, got, want map[string]Object) {
	t.Helper()
	for _, d := range differences(got, want) {
		t.Error(d)
	}
}

// differences names each object only one side has, and prints both sides
// of each that differs.
func differences(got, want map[string]Object) []string {
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
	got := Template(t, Chart, "--set", "replicas=3", "--set", "certificates.source=cert-manager")
	diffs := strings.Join(differences(got, want), "\n")
	for _, k := range []string{"Deployment/tandem-system/tandem-webhook differs", "Certificate/tandem-system/tandem-webhook: rendered by the chart"} {
		if !strings.Contains(diffs, k) {
			t.Errorf("differences do not name %q:\n%s", k, diffs)
		}
	}
}
