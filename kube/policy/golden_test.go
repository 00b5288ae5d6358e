package policy

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/presets"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the generator")

// The generator's output, for each mode and install, is the one in
// testdata/golden, which a reader can check and apply (the cluster tests
// apply what tandemctl writes). go test ./kube/policy -update rewrites it.
func TestGolden(t *testing.T) {
	for _, tt := range []struct {
		name    string
		mode    inject.Mode
		install inject.Install
		onError inject.OnError
	}{
		{"classic-init-copy", inject.Classic, inject.InitCopy, inject.Reject},
		{"native-image-volume", inject.Native, inject.ImageVolume, inject.Allow},
	} {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := Generate(Options{Name: "tandem", Mode: tt.mode, Install: tt.install, Image: "ghcr.io/tandem-sh/tandem:v1.0.0",
				Version: "v1.0.0", Sidecars: []string{"db-proxy"}, Presets: presets.Builtin(), OnError: tt.onError,
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{inject.InjectKey: "enabled"}}})
			if err != nil {
				t.Fatal(err)
			}
			var docs []string
			for _, o := range objs.List() {
				out, err := yaml.Marshal(o)
				if err != nil {
					t.Fatal(err)
				}
				docs = append(docs, string(out))
			}
			got := strings.Join(docs, "---\n")
			path := filepath.Join("testdata", "golden", tt.name+".yaml")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("the policy differs from %s (go test ./kube/policy -update rewrites it):\n%s", path, got)
			}
		})
	}
}

// What a policy cannot be written for is refused, naming the value.
func TestGenerateRefuses(t *testing.T) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}
	for _, tt := range []struct {
		opts Options
		want string
	}{
		{Options{Mode: inject.Auto, Install: inject.InitCopy, Image: "i", NamespaceSelector: sel}, `mode "auto": expected classic or native`},
		{Options{Mode: inject.Classic, Install: inject.InstallAuto, Image: "i", NamespaceSelector: sel}, `install "auto": expected init-copy or image-volume`},
		{Options{Mode: inject.Classic, Install: inject.InitCopy, NamespaceSelector: sel}, "image: expected the tandem image"},
		{Options{Mode: inject.Classic, Install: inject.InitCopy, Image: "i"}, "namespace selector: expected one"},
	} {
		if _, err := Generate(tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v; want %q", tt.opts, err, tt.want)
		}
	}
}
