//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// podStopTimeout is `podman pod stop -t`: the pod's
// terminationGracePeriodSeconds would do, but the stand-ins need far less.
const podStopTimeout = 20 * time.Second

// Deleting the pod (podman pod stop: SIGTERM to every container at once)
// loses no line: the shipper holds its SIGTERM until the app has drained and
// exited, then flushes, and its container stops last.
func TestDeploymentLogShipper(t *testing.T) {
	run := playLogShipper(t, "e2e-log-shipper", true)
	if run.Lost > 0 {
		t.Errorf("%d of %d lines lost: %s", run.Lost, run.Written, run.Missing)
	}
	if !run.shipperLast {
		t.Errorf("the shipper stopped at %s, before the app at %s", run.shipperEnd, run.appEnd)
	}
	run.pp.exitCodes(map[string]int{"install-tandem": 0, "web": 0, "fluent-bit": 0})
	kit.AssertOrder(t, run.logs, kit.MainThenStop("web", "fluent-bit")...)
	kit.AssertOrder(t, run.logs,
		kit.Tandem("fluent-bit", "stop-sent"),
		kit.Program("fluent-bit", "fluent-bit: terminated, flushed"),
	)
	kit.AssertPresent(t, run.logs,
		kit.Tandem("fluent-bit", "signal-held"),
		// SIGQUIT, nginx's graceful shutdown (--rewrite TERM:QUIT).
		kit.Program("web", "nginx: quit, draining"),
	)
	t.Logf("with --outlive-main: %d lines written, %d shipped; the shipper stopped %s after the app; pod stop took %s",
		run.Written, run.Shipped, run.shipperEnd.Sub(run.appEnd).Round(time.Millisecond), run.stopTook.Round(time.Millisecond))
}

// Control: the same pod without --outlive-main. The shipper gets SIGTERM with
// the app, flushes what is there and exits, while the app is still writing:
// the drained lines are lost and the sidecar stops first. The runtime's
// and the programs' timing: measured and reported, not asserted.
func TestControlLogShipperWithoutOutliveMain(t *testing.T) {
	run := playLogShipper(t, "e2e-control-shipper", false)
	t.Logf("control without --outlive-main: %d lines written, %d shipped, %d lost; shipper stopped first: %v (%s before the app)",
		run.Written, run.Shipped, run.Lost, !run.shipperLast, run.appEnd.Sub(run.shipperEnd).Round(time.Millisecond))
}

type shipperRun struct {
	kit.ShipperCount
	pp                 *playedPod
	logs               []kit.Line
	appEnd, shipperEnd time.Time
	shipperLast        bool
	stopTook           time.Duration
}

// playLogShipper plays the Deployment's pod, lets the app log for a while,
// stops the pod as a deletion would, and counts the lines.
func playLogShipper(t *testing.T, name string, outlive bool) shipperRun {
	t.Helper()
	p := examplePod(t, "deployment-log-shipper.yaml", name)
	kit.LogShipperApps(p.Manifest)
	if !outlive {
		p.DropFlag("fluent-bit", "--outlive-main")
	}
	pp := play(t, p)
	pp.waitForLine("fluent-bit", `shipped "line 5"`, 30*time.Second)

	start := time.Now()
	if _, _, err := podman(context.Background(), "pod", "stop", "--time", fmt.Sprint(int(podStopTimeout.Seconds())), pp.name); err != nil {
		t.Fatal(err)
	}
	run := shipperRun{pp: pp, stopTook: time.Since(start)}
	if !pp.waitExited(exitedAfterStop, "web", "fluent-bit") {
		t.Fatal("containers still running after podman pod stop")
	}
	run.logs = pp.logs()
	count, err := kit.CountShipped(run.logs, kit.DrainLines)
	if err != nil {
		t.Fatal(err)
	}
	run.ShipperCount = count
	// When the app and the shipper exited, as their tandem saw it.
	appExit, ok1 := kit.Find(run.logs, kit.Tandem("web", "cmd-exited"))
	shipperExit, ok2 := kit.Find(run.logs, kit.Tandem("fluent-bit", "cmd-exited"))
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

// The shipper's container signalled alone (`podman kill --signal TERM`, as
// the kubelet stops a sidecar whose liveness probe failed): no main marked
// its termination, so the shipper's tandem does not hold the signal for
// --outlive-main's 30 s but forwards it after its short look for a mark,
// while the app runs on untouched.
func TestLogShipperSignalledAlone(t *testing.T) {
	p := examplePod(t, "deployment-log-shipper.yaml", "e2e-shipper-alone")
	kit.LogShipperApps(p.Manifest)
	pp := play(t, p)
	pp.waitForLine("fluent-bit", `shipped "line 5"`, 30*time.Second)
	if _, _, err := podman(context.Background(), "kill", "--signal", "TERM", pp.ctrName("fluent-bit")); err != nil {
		t.Fatal(err)
	}
	if !pp.waitExited(20*time.Second, "fluent-bit") {
		t.Fatal("the shipper did not exit within 20 s of its SIGTERM: held for --outlive-main?")
	}
	if st := pp.state("web"); st.Status != "running" {
		t.Errorf("web is %s after the shipper alone was signalled; want running", st.Status)
	}
	logs := pp.logs()
	kit.AssertOrder(t, logs,
		kit.Tandem("fluent-bit", "termination-mark-awaited"),
		kit.Tandem("fluent-bit", "signal-alone"),
	)
	if _, held := kit.Find(logs, kit.Tandem("fluent-bit", "signal-held")); held {
		t.Error("the signal to the shipper alone was held as the pod's deletion")
	}
	if _, marked := kit.Find(logs, kit.Tandem("web", "termination-grace")); marked {
		t.Error("the app's tandem saw a termination signal: it was not sent")
	}
}
