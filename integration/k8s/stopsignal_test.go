//go:build k8s

package k8s

import (
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// quitImage is testImage with STOPSIGNAL SIGQUIT (images.sh), as nginx's
// image: on pod deletion containerd sends its containers SIGQUIT.
const quitImage = "localhost/tandem-k8s/tools-quit:test"

// The log-shipper pod on an image whose STOPSIGNAL is SIGQUIT, deleted
// with `kubectl delete pod` (grace 60 s). The shipper's tandem, told that
// QUIT is its termination signal, holds it until the app has drained and
// exited, then stops the shipper (SIGTERM), which flushes: no line lost.
func TestLogShipperStopSignalQuit(t *testing.T) {
	t.Parallel()
	run := playLogShipper(t, shipperPlay{outlive: true, flags: []string{"--termination-signal=QUIT"}, image: quitImage, asPod: true})
	if run.Lost > 0 {
		t.Errorf("%d of %d lines lost: %s", run.Lost, run.Written, run.Missing)
	}
	// What containerd sent is what the shipper's tandem held.
	if held := kit.MustFind(t, run.logs, kit.Tandem("fluent-bit", "signal-held")); held.Field("signal") != "SIGQUIT" {
		t.Errorf("the shipper's tandem held %q; want SIGQUIT (the image's STOPSIGNAL)", held.Field("signal"))
	}
	assertShipperOutlived(t, run, "STOPSIGNAL SIGQUIT, --termination-signal QUIT")
}

// Control: the same image and pod without --termination-signal QUIT (the
// shipper keeps --outlive-main=30s). SIGQUIT is not the signal tandem
// holds, so it forwards it at once: the shipper flushes what is there and
// exits while the app still drains, and its lines are lost. Asserted:
// tandem's part, that it held nothing; the rest (which ended first, the
// lines lost) is the kubelet's timing and the programs': reported.
func TestControlStopSignalQuitWithoutFlag(t *testing.T) {
	t.Parallel()
	run := playLogShipper(t, shipperPlay{outlive: true, image: quitImage, asPod: true})
	if held, ok := kit.Find(run.logs, kit.Tandem("fluent-bit", "signal-held")); ok {
		t.Errorf("the shipper's tandem held %s without --termination-signal QUIT", held)
	}
	shipperExit, _ := kit.Find(run.logs, kit.Tandem("fluent-bit", "cmd-exited"))
	appExit, _ := kit.Find(run.logs, kit.Tandem("web", "cmd-exited"))
	_, flushed := kit.Find(run.logs, kit.Program("fluent-bit", "fluent-bit: quit, flushed"))
	exited, _ := kit.Find(run.logs, kit.Tandem("fluent-bit", "exiting"))
	t.Logf("control, STOPSIGNAL SIGQUIT without --termination-signal: the shipper (flushed: %v) ended %s before the app; %d lines written, %d shipped, %d lost; its tandem exited %s",
		flushed, appExit.At.Sub(shipperExit.At).Round(time.Millisecond), run.Written, run.Shipped, run.Lost, exited.Field("exit_code"))
}
