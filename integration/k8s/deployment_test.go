//go:build k8s

package k8s

import (
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// A scale-down deletes the pod: the kubelet sends SIGTERM to both
// containers at once. The shipper's tandem holds it (--outlive-main) until
// the app has drained and exited, then stops the shipper, which flushes:
// no line is lost, and the shipper gets its stop after the app exited.
func TestDeploymentLogShipper(t *testing.T) {
	t.Parallel()
	run := playLogShipper(t, shipperPlay{outlive: true})
	if run.Lost > 0 {
		t.Errorf("%d of %d lines lost: %s", run.Lost, run.Written, run.Missing)
	}
	assertShipperOutlived(t, run, "--outlive-main on a kubelet")
}

// assertShipperOutlived asserts that the shipper's tandem held the stop
// until the app had exited, then stopped the shipper, which flushed, and
// that both tandems exited 0. It logs the figures after what.
func assertShipperOutlived(t *testing.T, run shipperRun, what string) {
	t.Helper()
	kit.AssertOrder(t, run.logs, kit.MainThenStop("web", "fluent-bit",
		kit.Tandem("fluent-bit", "signal-held"),
	)...)
	kit.AssertOrder(t, run.logs, kit.Tandem("fluent-bit", "stop-sent"), kit.Program("fluent-bit", "fluent-bit: terminated, flushed"))
	for _, c := range []string{"web", "fluent-bit"} {
		if l := kit.MustFind(t, run.logs, kit.Tandem(c, "exiting")); l.Field("exit_code") != "0" {
			t.Errorf("%s: tandem exited %s; want 0", c, l.Field("exit_code"))
		}
	}
	appExit := kit.MustFind(t, run.logs, kit.Tandem("web", "cmd-exited")).At
	stop := kit.MustFind(t, run.logs, kit.Tandem("fluent-bit", "stop-sent")).At
	t.Logf("%s: %d lines written, %d shipped; the shipper got its stop %s after the app exited; deletion → both ended %s",
		what, run.Written, run.Shipped, stop.Sub(appExit).Round(time.Microsecond), run.stopTook.Round(time.Millisecond))
}

// Control: the same pod without --outlive-main. The shipper gets SIGTERM
// with the app, flushes what is there and exits while the app still
// drains: lines are lost. How many is the kubelet's timing and the
// programs': measured and reported, not asserted.
func TestControlLogShipperWithoutOutliveMain(t *testing.T) {
	t.Parallel()
	run := playLogShipper(t, shipperPlay{})
	t.Logf("control without --outlive-main: %d lines written, %d shipped, %d lost", run.Written, run.Shipped, run.Lost)
}

type shipperRun struct {
	kit.ShipperCount
	logs     []kit.Line
	stopTook time.Duration
}

// shipperPlay says how playLogShipper varies the example's pod.
type shipperPlay struct {
	outlive bool     // keep the shipper's --outlive-main=30s
	flags   []string // more flags for the shipper's tandem
	image   string   // both containers' image; "" keeps testImage
	// asPod plays the pod template as a bare Pod and deletes it with
	// `kubectl delete pod` (no replacement comes); else the Deployment is
	// scaled to zero.
	asPod bool
}

// playLogShipper plays the Deployment (one replica), lets the app log for
// a while, deletes its pod, and counts the lines.
func playLogShipper(t *testing.T, play shipperPlay) shipperRun {
	t.Helper()
	n := newNamespace(t)
	m := shipperManifest(t, play)
	n.apply(m)
	p := n.waitPod("app=web", jobBound, func(p pod) bool {
		web, _ := p.container("web")
		shipper, _ := p.container("fluent-bit")
		return web.running() && shipper.running()
	})
	ctx, cancel := contextFor(3 * time.Minute)
	defer cancel()
	web := n.follow(ctx, p.Metadata.Name, "web")
	shipper := n.follow(ctx, p.Metadata.Name, "fluent-bit")
	if !shipper.await(kit.Program("fluent-bit", `shipped "line 5"`), time.Minute) {
		t.Fatalf("the shipper shipped no line 5 within a minute:\n%s", shipper.output())
	}

	start := time.Now()
	if play.asPod {
		n.run(nil, "delete", "pod", p.Metadata.Name, "--wait=false")
	} else {
		n.run(nil, "scale", "deployment/web", "--replicas=0")
	}
	if !web.ended(90*time.Second) || !shipper.ended(90*time.Second) {
		t.Fatal("the containers' output did not end within 90 s of the pod's deletion")
	}
	run := shipperRun{stopTook: time.Since(start)}
	run.logs = append(kit.ParseLogs("web", web.output()), kit.ParseLogs("fluent-bit", shipper.output())...)
	kit.SortByTime(run.logs)
	count, err := kit.CountShipped(run.logs, kit.DrainLines)
	if err != nil {
		t.Fatal(err)
	}
	run.ShipperCount = count
	return run
}

func shipperManifest(t *testing.T, play shipperPlay) *kit.Manifest {
	t.Helper()
	m := example(t, "deployment-log-shipper.yaml")
	m.Set(1, "spec", "replicas")
	kit.LogShipperApps(m)
	if !play.outlive {
		m.DropFlag("fluent-bit", "--outlive-main")
	}
	if len(play.flags) > 0 {
		m.AddFlags("fluent-bit", play.flags...)
	}
	if play.image != "" {
		m.SetContainerField("web", "image", play.image)
		m.SetContainerField("fluent-bit", "image", play.image)
	}
	if play.asPod {
		m.AsPod()
	}
	return m
}
