//go:build k8s

package k8s

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// graceJob is a Job as written before tandem: an app that ignores SIGTERM
// (a shell that traps it to nothing) and writes a numbered line to a
// shared file every 100 ms, saying each on its stdout, and a log shipper
// that ships once a second and needs 3 s to flush on SIGTERM. A 30 s
// grace period, of which the annotation keeps 15 s (the most inject
// allows: half) for the sidecar: the app is killed after 15 s, the
// shipper has flushed by 18 s, and the 12 s left are a loaded kubelet's
// (its SIGTERMs to the two containers can come seconds apart).
func graceJob(t *testing.T) *kit.Manifest {
	t.Helper()
	const log = "/var/log/app/app.log"
	spec := withVolume(map[string]any{
		"terminationGracePeriodSeconds": 30,
		"containers": []any{
			ctr("app", "sh", "-c", `trap '' TERM; i=0
while :; do i=$((i+1)); echo "line $i" >>`+log+`; echo "app: wrote line $i"; sleep 0.1; done`),
			ctr("shipper", "standin", "ship", "--name", "shipper", "--from", log, "--every", "1s", "--flush-time", "3s"),
		},
	}, "logs", "/var/log/app")
	return unwrappedJob(t, "grace", map[string]string{
		"tandem.sh/sidecars":            "shipper",
		"tandem.sh/stop-signal.shipper": "TERM",
		"tandem.sh/sidecar-grace":       "15s",
	}, spec)
}

// The Job is deleted while its app ignores SIGTERM. inject split the 30 s
// grace period: the app's tandem kills it after its --termination-grace
// (15 s), the shipper's tandem, which held the SIGTERM while the app lived,
// then stops the shipper, which flushes in 3 s and exits 0: every line
// the app wrote reaches the shipper's output, before the kubelet's SIGKILL.
func TestJobDeletedTerminationGrace(t *testing.T) {
	t.Parallel()
	run := playGraceJob(t, true)
	shipper, _ := run.last.container("shipper")
	if code, ended := shipper.exitCode(); !ended || code != 0 {
		t.Errorf("shipper: ended %v with %d; want exit 0 (its own, after the flush)", ended, code)
	}
	if run.lost > 0 || run.written == 0 {
		t.Errorf("%d of %d lines lost: %s", run.lost, run.written, run.missing)
	}
	grace := kit.MustFind(t, run.logs, kit.Tandem("app", "termination-grace"))
	if grace.Num("termination_grace_ms") != 15000 {
		t.Errorf("the app's termination grace: %s; want 15000 ms (30 s period − 15 s for the sidecar)", grace.Field("termination_grace_ms"))
	}
	kit.AssertOrder(t, run.logs,
		kit.Tandem("shipper", "signal-held"),
		kit.Tandem("app", "cmd-exited"),
		kit.Tandem("shipper", "done-seen"),
		kit.Tandem("shipper", "stop-sent"),
		kit.Program("shipper", "flushed"))
	kit.AssertOrder(t, run.logs, kit.Tandem("shipper", "stop-sent"), kit.Tandem("shipper", "exiting"))
	if l := kit.MustFind(t, run.logs, kit.Tandem("shipper", "exiting")); l.Field("exit_code") != "0" {
		t.Errorf("shipper's tandem exited %s; want 0", l.Field("exit_code"))
	}
	appExit := kit.MustFind(t, run.logs, kit.Tandem("app", "cmd-exited"))
	shipperExit := kit.MustFind(t, run.logs, kit.Tandem("shipper", "exiting"))
	t.Logf("with the split: %d lines written, all shipped; app killed %s after the SIGTERM, shipper done %s after it; deletion → all ended %s",
		run.written, appExit.At.Sub(grace.At).Round(time.Millisecond), shipperExit.At.Sub(grace.At).Round(time.Millisecond), run.took.Round(time.Millisecond))
}

// Control: the same injected Job without the app's --termination-grace.
// The app uses the whole grace period, the shipper's tandem holds its stop
// for it, and the kubelet SIGKILLs both at the end: no flush. The codes
// and the flush are the kubelet's doing: reported, not asserted.
func TestControlJobDeletedWithoutTerminationGrace(t *testing.T) {
	t.Parallel()
	run := playGraceJob(t, false)
	app, _ := run.last.container("app")
	shipper, _ := run.last.container("shipper")
	appCode, _ := app.exitCode()
	shipperCode, _ := shipper.exitCode()
	_, flushed := kit.Find(run.logs, kit.Program("shipper", "flushed"))
	t.Logf("control without --termination-grace: app exit %d, shipper exit %d (137: the kubelet's SIGKILL), shipper flushed %v; %d lines written, %d lost; deletion → every container ended %s",
		appCode, shipperCode, flushed, run.written, run.lost, run.took.Round(time.Millisecond))
}

type graceRun struct {
	deleted
	logs          []kit.Line
	written, lost int
	missing       string
}

// playGraceJob injects graceJob (without the app's --termination-grace
// unless split), runs it until the app has written 20 lines, deletes the
// Job and follows both containers to their end.
func playGraceJob(t *testing.T, split bool) graceRun {
	t.Helper()
	n := newNamespace(t)
	m := injected(t, graceJob(t), "classic")
	app, shipper := m.List("app", "command"), m.List("shipper", "command")
	if !hasFlag(app, "--termination-grace", "15s") || !hasFlag(shipper, "--grace", "15s") {
		t.Fatalf("inject wrote app %q, shipper %q; want --termination-grace 15s and --grace 15s", app, shipper)
	}
	if !split {
		m.DropFlag("app", "--termination-grace")
	}
	n.applyRaw(m.YAML())
	p := n.waitPod("job-name=grace", jobBound, func(p pod) bool {
		a, _ := p.container("app")
		s, _ := p.container("shipper")
		return a.running() && s.running()
	})
	ctx, cancel := contextFor(3 * time.Minute)
	defer cancel()
	appOut := n.follow(ctx, p.Metadata.Name, "app")
	shipperOut := n.follow(ctx, p.Metadata.Name, "shipper")
	if !appOut.await(kit.Program("app", "wrote line 20"), time.Minute) {
		t.Fatalf("the app wrote no line 20 within a minute:\n%s", appOut.output())
	}
	run := graceRun{deleted: n.deleteWatched(p.Metadata.Name, 90*time.Second, func() {
		n.run(nil, "delete", "job", "grace", "--wait=false")
	})}
	if !appOut.ended(30*time.Second) || !shipperOut.ended(30*time.Second) {
		t.Fatal("the containers' output did not end within 30 s of their end")
	}
	run.logs = append(kit.ParseLogs("app", appOut.output()), kit.ParseLogs("shipper", shipperOut.output())...)
	kit.SortByTime(run.logs)
	run.written, run.lost, run.missing = countGraceLines(run.logs)
	return run
}

// countGraceLines reads what the app said it wrote and what the shipper
// shipped.
func countGraceLines(lines []kit.Line) (written, lost int, missing string) {
	shipped := map[string]bool{}
	var wrote []string
	for _, l := range lines {
		if line, ok := strings.CutPrefix(l.Text, "shipper: shipped "); ok && l.Ctr == "shipper" {
			shipped[line] = true
		}
		if line, ok := strings.CutPrefix(l.Text, "app: wrote "); ok && l.Ctr == "app" {
			wrote = append(wrote, fmt.Sprintf("%q", line))
		}
	}
	var lostLines []string
	for _, line := range wrote {
		if !shipped[line] {
			lostLines = append(lostLines, line)
		}
	}
	return len(wrote), len(lostLines), strings.Join(lostLines, ", ")
}

// hasFlag tells whether command has flag followed by value.
func hasFlag(command []string, flag, value string) bool {
	i := slices.Index(command, flag)
	return i >= 0 && i+1 < len(command) && command[i+1] == value || slices.Contains(command, flag+"="+value)
}
