package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The policy, its binding and the refusal come out as YAML by default, as a
// JSON List with -o json, the flags written into them.
func TestPolicyOutput(t *testing.T) {
	out, stderr, code := run(t, "", "policy", "--image", "example.com/tandem:v1", "--namespace-selector", "team=data", "--mode", "native")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"kind: MutatingAdmissionPolicy\n", "kind: MutatingAdmissionPolicyBinding\n",
		"kind: ValidatingAdmissionPolicy\n", "kind: ValidatingAdmissionPolicyBinding\n", "team: data", "example.com/tandem:v1", "restartPolicy"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	out, stderr, code = run(t, "", "policy", "--image", "example.com/tandem:v1", "--on-error", "allow", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var list struct {
		Kind  string
		Items []struct{ Kind string }
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("-o json: %v\n%s", err, out)
	}
	kinds := []string{"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}
	if list.Kind != "List" || len(list.Items) != len(kinds) || !slices.EqualFunc(list.Items, kinds, func(i struct{ Kind string }, k string) bool { return i.Kind == k }) {
		t.Errorf("--on-error allow -o json: %+v; want a List of %v (the validating ones warn, replacing reject's)", list, kinds)
	}
	if !strings.Contains(out, `"Warn"`) || strings.Contains(out, `"Deny"`) {
		t.Errorf("--on-error allow: the validating binding must warn, never deny:\n%s", out)
	}
}

// Bad values are named with what is expected; exit 2, nothing written.
func TestPolicyUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--mode", "auto"}, `--mode auto: expected classic or native`},
		{[]string{"--mode", "fast"}, `--mode "fast": expected classic, native or auto`},
		{[]string{"--install", "auto"}, `--install auto: expected init-copy or image-volume`},
		{[]string{"--on-error", "ignore"}, `--on-error "ignore": expected reject or allow`},
		{[]string{"-o", "text"}, `--output "text": expected yaml or json`},
		{[]string{"--namespace-selector", ""}, `--namespace-selector "": expected a label selector, e.g. tandem.sh/inject=enabled (an empty selector matches every namespace`},
		{[]string{"--namespace-selector", "a b c"}, `--namespace-selector "a b c": expected a label selector`},
		{[]string{"--name", "Tandem"}, `--name "Tandem": expected a DNS label`},
		{[]string{"--sidecar", "Bad_Name"}, `--sidecar "Bad_Name": expected a container name`},
		{[]string{"--image", "UPPER:case"}, `--image "UPPER:case": expected an image reference`},
		{[]string{"extra"}, `policy takes no arguments`},
	} {
		out, stderr, code := run(t, "", append([]string{"policy", "--image", "example.com/tandem:v1"}, tt.args...)...)
		if code != 2 || out != "" || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, nothing written, %q", tt.args, code, out, stderr, tt.want)
		}
	}
}

// policy's help offers for --mode and --install what a policy takes: auto
// only from a cluster read, not inject's offline fallback.
func TestPolicyHelpModeAndInstall(t *testing.T) {
	out, _, code := run(t, "", "policy", "--help")
	for _, flag := range []string{"--mode value", "--install value"} {
		i := strings.Index(out, flag)
		if code != 0 || i < 0 {
			t.Fatalf("exit %d, no %s line:\n%s", code, flag, out)
		}
		line, _, _ := strings.Cut(out[i:], "\n")
		if !strings.Contains(line, "auto needs --kubeconfig (or KUBECONFIG)") || strings.Contains(line, "offline") || strings.Contains(line, "read through --kubeconfig") {
			t.Errorf("policy --help offers auto as inject takes it: %q", line)
		}
	}
	missing := filepath.Join(t.TempDir(), "missing")
	if out, stderr, code := run(t, "", "policy", "--image", testImage, "--kubeconfig", missing); code != 2 || out != "" ||
		stderr != "tandemctl: --kubeconfig: kubeconfig \""+missing+"\": stat "+missing+": no such file or directory\n" {
		t.Errorf("a missing kubeconfig: exit %d, stdout %q, stderr %q; want 2, nothing, one naming of it", code, out, stderr)
	}
}
