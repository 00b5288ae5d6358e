//go:build k8s

package k8s

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// drainLines is what the app still writes after SIGTERM, one per 100ms: a
// graceful shutdown that logs, as nginx's does for the requests in flight.
const drainLines = 15

// A scale-down deletes the pod: the kubelet sends SIGTERM to both
// containers at once. The shipper's tandem holds it (--outlive-main) until
// the app has drained and exited, then stops the shipper, which flushes:
// no line is lost, and the shipper gets its stop after the app exited.
func TestDeploymentLogShipper(t *testing.T) {
	t.Parallel()
	run := playLogShipper(t, shipperPlay{outlive: true})
	if run.lost > 0 {
		t.Errorf("%d of %d lines lost: %s", run.lost, run.written, run.missing)
	}
	assertShipperOutlived(t, run, "--outlive-main on a kubelet")
}

// assertShipperOutlived asserts that the shipper's tandem held the stop
// until the app had exited, then stopped the shipper, which flushed, and
// that both tandems exited 0. It logs the figures after what.
func assertShipperOutlived(t *testing.T, run shipperRun, what string) {
	t.Helper()
	assertOrder(t, run.logs,
		ev("fluent-bit", "signal-held"),
		ev("web", "cmd-exited"),
		ev("fluent-bit", "done-seen"),
		ev("fluent-bit", "stop-sent"),
		ev("fluent-bit", "exiting"),
	)
	assertOrder(t, run.logs, ev("fluent-bit", "stop-sent"), out("fluent-bit", "fluent-bit: terminated, flushed"))
	for _, c := range []string{"web", "fluent-bit"} {
		if l := mustFind(t, run.logs, ev(c, "exiting")); l.field("exit_code") != "0" {
			t.Errorf("%s: tandem exited %s; want 0", c, l.field("exit_code"))
		}
	}
	appExit := mustFind(t, run.logs, ev("web", "cmd-exited")).At
	stop := mustFind(t, run.logs, ev("fluent-bit", "stop-sent")).At
	t.Logf("%s: %d lines written, %d shipped; the shipper got its stop %s after the app exited; deletion → both ended %s",
		what, run.written, run.shipped, stop.Sub(appExit).Round(time.Microsecond), run.stopTook.Round(time.Millisecond))
}

// Control: the same pod without --outlive-main. The shipper gets SIGTERM
// with the app, flushes what is there and exits while the app still
// drains: lines are lost.
func TestControlLogShipperWithoutOutliveMain(t *testing.T) {
	t.Parallel()
	run := playLogShipper(t, shipperPlay{})
	t.Logf("control without --outlive-main: %d lines written, %d shipped, %d lost", run.written, run.shipped, run.lost)
	if run.lost == 0 {
		t.Error("no line lost without --outlive-main: the control proves nothing")
	}
}

type shipperRun struct {
	logs                   []logLine
	written, shipped, lost int
	missing                string
	stopTook               time.Duration
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
	if !shipper.await(out("fluent-bit", `shipped "line 5"`), time.Minute) {
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
	run.logs = append(parseLogs("web", web.output()), parseLogs("fluent-bit", shipper.output())...)
	sortLines(run.logs)
	run.count(t)
	return run
}

func shipperManifest(t *testing.T, play shipperPlay) *manifest {
	t.Helper()
	m := example(t, "deployment-log-shipper.yaml")
	m.field("spec")["replicas"] = 1
	m.args(t, "web", "standin", "app", "--name", "nginx", "--log", "/var/log/nginx/access.log",
		"--every", "100ms", "--drain", fmt.Sprint(drainLines))
	m.args(t, "fluent-bit", "standin", "ship", "--name", "fluent-bit", "--from", "/var/log/nginx/access.log")
	if !play.outlive {
		cmd := strList(m.container(t, "fluent-bit")["command"])
		m.command(t, "fluent-bit", deleteItem(t, cmd, "--outlive-main=30s")...)
	}
	if len(play.flags) > 0 {
		m.addFlags(t, "fluent-bit", play.flags...)
	}
	if play.image != "" {
		m.container(t, "web")["image"] = play.image
		m.container(t, "fluent-bit")["image"] = play.image
	}
	if play.asPod {
		m.asPod()
	}
	return m
}

// count reads how many lines the app wrote and which the shipper shipped.
func (run *shipperRun) count(t *testing.T) {
	t.Helper()
	wrote := mustFind(t, run.logs, out("web", "nginx: wrote"))
	if _, err := fmt.Sscanf(wrote.Text[strings.Index(wrote.Text, "wrote"):], "wrote %d lines", &run.written); err != nil {
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
}

func deleteItem(t *testing.T, list []string, item string) []string {
	t.Helper()
	for i, v := range list {
		if v == item {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	t.Fatalf("no %q in %q", item, list)
	return nil
}
