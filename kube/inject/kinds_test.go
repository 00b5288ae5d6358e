package inject

import (
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// Every kind with a pod template is injected there, and only there.
func TestKinds(t *testing.T) {
	template := "metadata:\n  annotations:\n    tandem.sh/sidecars: side\nspec:\n" + sprintf(twoContainers, "app:1")
	indent := func(s string, n int) string {
		pad := strings.Repeat(" ", n)
		return pad + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+pad) + "\n"
	}
	tests := []struct {
		kind, src string
		path      []string
	}{
		{"Pod", "apiVersion: v1\nkind: Pod\n" + strings.Replace(template, "metadata:\n", "metadata:\n  name: r\n", 1), nil},
		{"CronJob", "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: r\nspec:\n  schedule: '@daily'\n  jobTemplate:\n    spec:\n      template:\n" + indent(template, 8),
			[]string{"spec", "jobTemplate", "spec", "template"}},
	}
	for kind, apiVersion := range map[string]string{"Job": "batch/v1", "Deployment": "apps/v1", "StatefulSet": "apps/v1", "DaemonSet": "apps/v1", "ReplicaSet": "apps/v1"} {
		tests = append(tests, struct {
			kind, src string
			path      []string
		}{kind, "apiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata:\n  name: r\nspec:\n  template:\n" + indent(template, 4), []string{"spec", "template"}})
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			r, out := injectYAML(t, tt.src, testOptions())
			if want := strings.ToLower(tt.kind) + "/r: injected (mains: main; sidecars: side)"; r.String() != want {
				t.Fatalf("report %q; want %q", r, want)
			}
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			tmpl := yamlnode.Path(doc.Content[0], tt.path...)
			if got := yamlnode.ScalarAt(yamlnode.Path(tmpl, "metadata", "annotations"), InjectedKey); got != "v1.2.3" {
				t.Errorf("%s at %v = %q; want v1.2.3\n%s", InjectedKey, tt.path, got, out)
			}
			if got := yamlnode.ScalarAt(contentOf(yamlnode.Path(tmpl, "spec", "initContainers"))[0], "name"); got != InstallContainer {
				t.Errorf("first init container %q; want %s", got, InstallContainer)
			}
			if strings.Count(out, InjectedKey) != 1 {
				t.Errorf("%s written more than once:\n%s", InjectedKey, out)
			}
		})
	}
}

// A template without metadata gets it before its spec.
func TestTemplateWithoutMetadata(t *testing.T) {
	opts := testOptions()
	opts.Sidecars = []string{"side"}
	src := "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  template:\n    spec:\n" +
		strings.ReplaceAll(sprintf(twoContainers, "app:1"), "\n  ", "\n      ")[0:]
	src = strings.Replace(src, "    spec:\n  containers:", "    spec:\n      containers:", 1)
	r, out := injectYAML(t, src, opts)
	if r.Status != Injected {
		t.Fatalf("%s\n%s", r, src)
	}
	want := "  template:\n    metadata:\n      annotations:\n        kubectl.kubernetes.io/default-container: main\n        tandem.sh/injected: \"v1.2.3\"\n    spec:\n"
	if !strings.Contains(out, want) {
		t.Errorf("output does not contain\n%s\n%s", want, out)
	}
}

// tandem-install asks for no privilege and runs as a user of its own,
// whatever the pod says (the "restricted" Pod Security Standard).
func TestInstallContainerSecurity(t *testing.T) {
	for _, podSecurity := range []string{"", "  securityContext:\n    runAsNonRoot: true\n", "  securityContext:\n    runAsUser: 0\n"} {
		r, out := injectYAML(t, pod(podSecurity+sprintf(twoContainers, "app:1")), testOptions())
		if r.Status != Injected {
			t.Fatalf("%s", r)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		security := yamlnode.Lookup(contentOf(yamlnode.Path(doc.Content[0], "spec", "initContainers"))[0], "securityContext")
		for key, want := range map[string]string{"runAsNonRoot": "true", "runAsUser": nonRootUID, "allowPrivilegeEscalation": "false", "readOnlyRootFilesystem": "true"} {
			if got := yamlnode.ScalarAt(security, key); got != want {
				t.Errorf("pod security %q: tandem-install %s = %q; want %q", podSecurity, key, got, want)
			}
		}
		if drop, _ := yamlnode.StringsOf(yamlnode.Path(security, "capabilities", "drop")); len(drop) != 1 || drop[0] != "ALL" {
			t.Errorf("capabilities dropped: %q; want [ALL]", drop)
		}
		if got := yamlnode.ScalarAt(yamlnode.Lookup(security, "seccompProfile"), "type"); got != "RuntimeDefault" {
			t.Errorf("seccompProfile %q; want RuntimeDefault", got)
		}
	}
}
