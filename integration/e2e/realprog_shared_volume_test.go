//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// fetchPage is what each pod's main does: one GET from its own nginx.
var fetchPage = []string{"curl", "--silent", "--show-error", "--fail", "--output", "/dev/null", "http://127.0.0.1:8080/index.html"}

// Two pods share their emptyDir's name, so under podman they share the
// volume too (docs/files.md: podman shares volumes between pods). The second
// pod's main finishes first and its done file lands in the first pod's
// volume: the first pod's sidecar ignores it, saying so, because the file
// names another host. Its nginx still serves when the first pod's own main
// (a script ending in tandem done, so with no lifeline) fetches the page;
// then that main's done file stops it.
func TestRealprogSharedVolume(t *testing.T) {
	playSharedVolume(t, "realprog-shared", nil, true)
}

// The same with both mains wrapped by tandem main: the first pod's sidecar
// must not take the other pod's main, which comes and goes through the same
// lifeline path, for its own.
func TestRealprogSharedVolumeWrappedMains(t *testing.T) {
	wrapped := append([]string{"tandem", "main", "--name", "main", "--done-file", "/run/tandem/main.done",
		"--wait-for", "tcp:127.0.0.1:8080", "--", "sh", "-c", "tandem wait --for file:/tmp/go && exec \"$@\"", "sh"}, fetchPage...)
	playSharedVolume(t, "realprog-shared-wrapped", wrapped, false)
}

// playSharedVolume plays realprog/shared-volume.yaml twice with one volume
// name, the first pod's main replaced by firstMain unless nil, and checks
// that the second pod's done file did not stop the first pod's nginx.
func playSharedVolume(t *testing.T, name string, firstMain []string, wantWarning bool) {
	t.Helper()
	shared := fmt.Sprint(name, "-", os.Getpid())
	first := realprogPodSharing(t, "shared-volume.yaml", name+"-first", shared)
	if firstMain != nil {
		first.SetCommand("main", firstMain...)
	}
	second := realprogPodSharing(t, "shared-volume.yaml", name+"-second", shared)
	// The other pod's main is wrapped, and fetches at once. Its tandem starts
	// once nginx listens, so after its sidecar: the order a kubelet keeps
	// when the sidecar comes first with a postStart hook (tandemctl inject).
	second.SetCommand("main", append([]string{"sh", "-c", "tandem wait --for tcp:127.0.0.1:8080 && exec \"$@\"", "sh",
		"tandem", "main", "--name", "main", "--done-file", "/run/tandem/main.done", "--"}, fetchPage...)...)

	pp1 := play(t, first)
	pp1.waitStep(kit.Tandem("web", "cmd-started"), jobBound)
	pp2 := play(t, second)
	pp2.mustEnd(jobBound)
	pp2.exitCodes(map[string]int{"main": 0, "web": 0})
	if wantWarning {
		// The first pod's sidecar saw that file, and said why it ignores it.
		pp1.waitUntil(jobBound, "warning about the other pod's done file", func() bool {
			_, ok := foreignDoneFile(pp1.ctrLogs("web"), second.name)
			return ok
		})
	}
	fetch := time.Now()
	if _, _, err := podman(context.Background(), "exec", pp1.ctrName("main"), "touch", "/tmp/go"); err != nil {
		t.Fatal(err)
	}
	pp1.mustEnd(jobBound)

	pp1.exitCodes(map[string]int{"main": 0, "web": 0})
	logs := pp1.logs()
	if warning, ok := foreignDoneFile(logs, second.name); ok && warning.Field("host") != first.name {
		t.Errorf("the warning names this pod %q; want %q: %v", warning.Field("host"), first.name, warning.Fields)
	}
	kit.MustFind(t, logs, kit.Program("web", `"GET /index.html HTTP/1.1" 200`))
	// The main's done file is logged once it is in place, so the sidecar may
	// see it first: the test's go is what the sidecar's stop must follow.
	done := kit.MustFind(t, logs, kit.Tandem("web", "done-seen"))
	if done.At.Before(fetch) {
		t.Errorf("the sidecar saw the main done at %s, before the main was told to fetch the page at %s",
			done.At.Format(time.StampMicro), fetch.Format(time.StampMicro))
	}
	if done.Field("source") != "done-file" {
		t.Errorf("the sidecar saw the main done through %q; want its done file: %v", done.Field("source"), done.Fields)
	}
	kit.MustFind(t, logs, kit.Tandem("main", "done-written"))
	kit.AssertOrder(t, logs,
		kit.Tandem("web", "done-seen"),
		kit.Tandem("web", "stop-sent"),
		kit.Tandem("web", "exiting"),
	)
}

// foreignDoneFile finds the sidecar's warning about a done file written in
// the pod named host.
func foreignDoneFile(lines []kit.Line, host string) (kit.Line, bool) {
	for _, l := range lines {
		if l.Ctr == "web" && l.Field("event") == "done-file-foreign" && l.Field("file_host") == host {
			return l, true
		}
	}
	return kit.Line{}, false
}
