//go:build k8s

package k8s

import (
	"regexp"
	"strings"
	"testing"
)

// A classic Job held by its sidecar: `tandemctl check` finds it (exit 1),
// names the pod, the Job and the container that holds it, and prints the
// fix. The same Job injected as the fix says completes, and check then
// finds nothing wrong in the namespace.
func TestCheckHeldJob(t *testing.T) {
	t.Parallel()
	n := newNamespace(t)
	job := ownJob(t, "export", heldPodSpec()).YAML()
	n.applyRaw(job)
	p := n.waitHeld("export")

	run, f := n.awaitHeldFinding(p)
	if run.code != 1 || f.Severity != "error" {
		t.Errorf("check -o json: exit %d, severity %q; want 1 and error", run.code, f.Severity)
	}
	mustContain(t, "the finding's message", f.Message,
		`main container "work" ended, "proxy" still runs, so Job export cannot complete`)
	mustContain(t, "the finding's fix", f.Fix,
		"run tandemctl inject --sidecar proxy on the manifest of Job export",
		"annotate the pod template tandem.sh/sidecars: \"proxy\"",
		"kubectl label namespace "+n.name+" tandem.sh/inject=enabled")
	text := runCheck(t, "", n.checkArgs()...)
	if text.code != 1 {
		t.Errorf("check: exit %d; want 1", text.code)
	}
	// The pod is held one more second by now: the time in the message moves.
	_, heldWhy, _ := strings.Cut(f.Message, ": ")
	mustContain(t, "check's report", text.stdout,
		"ERROR held-pod "+n.name+"/"+p.Metadata.Name+"\n", "held for ", heldWhy, "fix: "+f.Fix)
	t.Logf("tandemctl check found the held Job:\n%s", text.stdout)

	// The fix: the Job injected with the sidecars it names, created again.
	sidecars := regexp.MustCompile(`tandemctl inject --sidecar (\S+) `).FindStringSubmatch(f.Fix)
	if sidecars == nil {
		t.Fatalf("the fix names no sidecar to inject: %s", f.Fix)
	}
	injected, _ := injectManifest(t, job, "--sidecar", sidecars[1])
	n.run(nil, "delete", "job", "export", "--cascade=foreground", "--timeout=1m")
	n.mustComplete("export", n.applyRaw(injected), jobBound)
	clean := runCheck(t, "", n.checkArgs("-o", "json")...)
	if clean.code != 0 || len(only(clean.findings(t), "held-pod")) != 0 {
		t.Errorf("check after the fix: exit %d; want 0 and no held pod:\n%s", clean.code, clean.stdout)
	}
}
