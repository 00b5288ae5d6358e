//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// What realprog/log-shipper.yaml's app writes, and how often the test plays
// it: five times, since tail -F has been seen to lose the last lines in
// 3 runs of 5.
const (
	shipperRuns = 5
	bursts      = 5
	burstLines  = 2000
	stopDelay   = 2 * time.Second // the manifest's --stop-delay: above tail's 1 s poll
)

// tail -F, polling once a second, does not read to the end on SIGTERM. With
// --stop-delay, its sidecar waits before the stop signal, tail reads once
// more, and every line the app wrote is shipped: in every one of
// shipperRuns runs.
func TestRealprogLogShipperDrains(t *testing.T) {
	for i := 1; i <= shipperRuns; i++ {
		// One failed run says it all; the others would only wait as long.
		ok := t.Run(fmt.Sprint("run-", i), func(t *testing.T) {
			p := realprogPod(t, "log-shipper.yaml", fmt.Sprint("realprog-shipper-", i))
			_, logs := playJob(t, p, map[string]int{"app": 0, "shipper": 0})
			kit.AssertOrder(t, logs, kit.MainThenStop("app", "shipper")...)
			done := kit.MustFind(t, logs, kit.Tandem("shipper", "done-seen"))
			stop := kit.MustFind(t, logs, kit.Tandem("shipper", "stop-sent"))
			if waited := stop.At.Sub(done.At); waited < stopDelay {
				t.Errorf("the stop signal came %s after the done file; --stop-delay is %s", waited, stopDelay)
			}
			missing, last := unshipped(logs)
			if len(missing) > 0 {
				t.Errorf("%d of %d lines not shipped, the first: %q", len(missing), bursts*burstLines, missing[0])
			}
			appExit := kit.MustFind(t, logs, kit.Tandem("app", "cmd-exited"))
			t.Logf("drain: the last line was shipped %s after the app exited; the stop signal followed the done file by %s",
				last.Sub(appExit.At).Round(time.Millisecond), stop.At.Sub(done.At).Round(time.Millisecond))
		})
		if !ok {
			break
		}
	}
}

// Control: without --stop-delay, the stop signal comes a millisecond after
// the app's end, before tail's next read, and the last lines are lost.
// How many is the programs' timing: measured and reported, not asserted.
func TestRealprogControlLogShipperWithoutStopDelay(t *testing.T) {
	p := realprogPod(t, "log-shipper.yaml", "realprog-shipper-nodelay")
	p.DropFlag("shipper", "--stop-delay")
	pp := play(t, p)
	pp.mustEnd(jobBound)
	missing, _ := unshipped(pp.logs())
	t.Logf("control without --stop-delay: %d of %d lines not shipped", len(missing), bursts*burstLines)
}

// unshipped lists the lines the app wrote that the shipper did not print,
// and says when it printed the last of those it did.
func unshipped(logs []kit.Line) (missing []string, last time.Time) {
	shipped := map[string]bool{}
	for _, l := range logs {
		if l.Ctr == "shipper" && l.Fields == nil && strings.HasPrefix(l.Text, "burst ") {
			shipped[l.Text] = true
			last = l.At
		}
	}
	for b := 1; b <= bursts; b++ {
		for n := 1; n <= burstLines; n++ {
			if line := fmt.Sprintf("burst %d line %d", b, n); !shipped[line] {
				missing = append(missing, line)
			}
		}
	}
	return missing, last
}
