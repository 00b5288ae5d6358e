//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// drainLines is what the app still writes after SIGTERM, one per 100ms: a
// graceful shutdown that logs, as nginx's does for the requests in flight.
const drainLines = 15

// podStopTimeout is `podman pod stop -t`: the pod's
// terminationGracePeriodSeconds would do, but the stand-ins need far less.
const podStopTimeout = 20 * time.Second

// Deleting the pod (podman pod stop: SIGTERM to every container at once)
// loses no line: the shipper holds its SIGTERM until the app has drained and
// exited, then flushes, and its container stops last.
func TestDeploymentLogShipper(t *testing.T) {
	run := playLogShipper(t, "e2e-log-shipper", true)
	if run.lost > 0 {
		t.Errorf("%d of %d lines lost: %s", run.lost, run.written, run.missing)
	}
	if !run.shipperLast {
		t.Errorf("the shipper stopped at %s, before the app at %s", run.shipperEnd, run.appEnd)
	}
	run.pp.exitCodes(map[string]int{"install-tandem": 0, "web": 0, "fluent-bit": 0})
	assertOrder(t, run.logs,
		event{"web", "cmd-exited"},
		event{"fluent-bit", "done-seen"},
		event{"fluent-bit", "stop-sent"},
		event{"fluent-bit", "exiting"},
	)
	assertOrder(t, run.logs,
		event{"fluent-bit", "stop-sent"},
		event{"fluent-bit", "fluent-bit: terminated, flushed"},
	)
	assertPresent(t, run.logs,
		event{"fluent-bit", "signal-held"},
		// SIGQUIT, nginx's graceful shutdown (--rewrite TERM:QUIT).
		event{"web", "nginx: quit, draining"},
	)
	t.Logf("with --outlive-main: %d lines written, %d shipped; the shipper stopped %s after the app; pod stop took %s",
		run.written, run.shipped, run.shipperEnd.Sub(run.appEnd).Round(time.Millisecond), run.stopTook.Round(time.Millisecond))
}

// Control: the same pod without --outlive-main. The shipper gets SIGTERM with
// the app, flushes what is there and exits, while the app is still writing:
// the drained lines are lost and the sidecar stops first.
func TestControlLogShipperWithoutOutliveMain(t *testing.T) {
	run := playLogShipper(t, "e2e-control-shipper", false)
	t.Logf("control without --outlive-main: %d lines written, %d shipped, %d lost; shipper stopped first: %v (%s before the app)",
		run.written, run.shipped, run.lost, !run.shipperLast, run.appEnd.Sub(run.shipperEnd).Round(time.Millisecond))
	if run.lost == 0 {
		t.Error("no line lost without --outlive-main: the control proves nothing")
	}
	if run.shipperLast {
		t.Error("the shipper stopped after the app without --outlive-main: the control proves nothing")
	}
}

type shipperRun struct {
	pp                     *playedPod
	logs                   []logLine
	written, shipped, lost int
	missing                string
	appEnd, shipperEnd     time.Time
	shipperLast            bool
	stopTook               time.Duration
}

// playLogShipper plays the Deployment's pod, lets the app log for a while,
// stops the pod as a deletion would, and counts the lines.
func playLogShipper(t *testing.T, name string, outlive bool) shipperRun {
	t.Helper()
	p := examplePod(t, "deployment-log-shipper.yaml", name)
	p.args(t, "web", "standin", "app", "--name", "nginx", "--log", "/var/log/nginx/access.log",
		"--every", "100ms", "--drain", fmt.Sprint(drainLines))
	p.args(t, "fluent-bit", "standin", "ship", "--name", "fluent-bit", "--from", "/var/log/nginx/access.log")
	if !outlive {
		p.dropFlag(t, "fluent-bit", "--outlive-main")
	}
	pp := play(t, p)
	pp.waitForLine("fluent-bit", `shipped "line 5"`, 30*time.Second)

	start := time.Now()
	if _, _, err := podman(context.Background(), "pod", "stop", "--time", fmt.Sprint(int(podStopTimeout.Seconds())), pp.name); err != nil {
		t.Fatal(err)
	}
	run := shipperRun{pp: pp, stopTook: time.Since(start)}
	if !pp.waitExited(time.Second, "web", "fluent-bit") {
		t.Fatal("containers still running after podman pod stop")
	}
	run.logs = pp.logs()
	wrote, ok := find(run.logs, "web", "nginx: wrote")
	if !ok {
		t.Fatal("the app did not say how many lines it wrote")
	}
	if _, err := fmt.Sscanf(strings.TrimPrefix(wrote.Text, "nginx: "), "wrote %d lines", &run.written); err != nil {
		t.Fatalf("%q: %v", wrote.Text, err)
	}
	shipped := map[string]bool{}
	for _, l := range run.logs {
		if line, ok := strings.CutPrefix(l.Text, "fluent-bit: shipped "); ok && l.Ctr == "fluent-bit" {
			shipped[line] = true
		}
	}
	run.shipped = len(shipped)
	var missing []string
	for i := 1; i <= run.written; i++ {
		kind := "line"
		if i > run.written-drainLines {
			kind = "drain"
		}
		if line := fmt.Sprintf("%q", fmt.Sprintf("%s %d", kind, i)); !shipped[line] {
			missing = append(missing, line)
		}
	}
	run.lost, run.missing = len(missing), strings.Join(missing, ", ")
	// When the app and the shipper exited, as their tandem saw it.
	appExit, ok1 := find(run.logs, "web", "cmd-exited")
	shipperExit, ok2 := find(run.logs, "fluent-bit", "cmd-exited")
	if !ok1 || !ok2 {
		t.Fatal("no CMD exited line from web or fluent-bit")
	}
	run.appEnd, run.shipperEnd = appExit.At, shipperExit.At
	run.shipperLast = run.shipperEnd.After(run.appEnd)
	return run
}

// waitForLine polls the logs of ctr until a line contains text.
func (pp *playedPod) waitForLine(ctr, text string, bound time.Duration) {
	pp.t.Helper()
	deadline := time.Now().Add(bound)
	for time.Now().Before(deadline) {
		stdout, _, err := podman(context.Background(), "logs", pp.ctrName(ctr))
		if err == nil && strings.Contains(stdout, text) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	pp.t.Fatalf("no line of %s contains %q within %s", ctr, text, bound)
}
