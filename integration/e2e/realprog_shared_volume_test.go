//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// Two pods share their emptyDir's name, so, under podman, the volume
// (issue 16, defect 4). The second pod's main finishes first and its done
// file lands in the first pod's volume too: the first pod's sidecar ignores
// it, saying so, because the file names another host. Its nginx still
// serves when the first pod's own main (a script ending in tandem done)
// fetches the page; then that main's done file stops it.
func TestRealprogSharedVolume(t *testing.T) {
	shared := fmt.Sprint("shared-", os.Getpid())
	first := realprogPodSharing(t, "shared-volume.yaml", "realprog-shared-first", shared)
	second := realprogPodSharing(t, "shared-volume.yaml", "realprog-shared-second", shared)
	// The other pod's main is wrapped, and goes at once.
	second.setList(t, "main", "command", []string{"tandem", "main", "--name", "main", "--done-file", "/run/tandem/main.done",
		"--wait-for", "tcp:127.0.0.1:8080", "--", "curl", "--silent", "--show-error", "--fail", "--output", "/dev/null", "http://127.0.0.1:8080/index.html"})

	pp1 := play(t, first)
	pp1.waitStep(tandemDid("web", "cmd-started"), jobBound)
	pp2 := play(t, second)
	pp2.mustEnd(jobBound)
	pp2.exitCodes(map[string]int{"main": 0, "web": 0})

	// The first pod's sidecar saw that file, and said why it ignores it.
	pp1.waitUntil(jobBound, "warning about the other pod's done file", func() bool {
		_, ok := foreignDoneFile(pp1.ctrLogs("web"), second.name)
		return ok
	})
	fetch := time.Now()
	if _, _, err := podman(context.Background(), "exec", pp1.ctrName("main"), "touch", "/tmp/go"); err != nil {
		t.Fatal(err)
	}
	pp1.mustEnd(jobBound)

	pp1.exitCodes(map[string]int{"main": 0, "web": 0})
	logs := pp1.logs()
	warning, _ := foreignDoneFile(logs, second.name)
	if warning.field("host") != first.name {
		t.Errorf("the warning names this pod %q; want %q: %v", warning.field("host"), first.name, warning.Fields)
	}
	mustFind(t, logs, programSaid("web", `"GET /index.html HTTP/1.1" 200`))
	// The main's done file is logged once it is in place, so the sidecar may
	// see it first: the test's go is what the sidecar's stop must follow.
	if done := mustFind(t, logs, tandemDid("web", "done-seen")); done.At.Before(fetch) {
		t.Errorf("the sidecar saw the main done at %s, before the main was told to fetch the page at %s",
			done.At.Format(time.StampMicro), fetch.Format(time.StampMicro))
	}
	mustFind(t, logs, tandemDid("main", "done-written"))
	assertSteps(t, logs,
		tandemDid("web", "done-seen"),
		tandemDid("web", "stop-sent"),
		tandemDid("web", "exiting"),
	)
}

// foreignDoneFile finds the sidecar's warning about a done file written in
// the pod named host.
// TODO(events): match its event field once the warning has one.
func foreignDoneFile(lines []logLine, host string) (logLine, bool) {
	for _, l := range lines {
		if l.Ctr == "web" && l.field("level") == "warn" && l.field("file_host") == host {
			return l, true
		}
	}
	return logLine{}, false
}
