//go:build k8s

package k8s

import (
	"fmt"
	"testing"
	"time"
)

// Nothing lost at shutdown: a Job's main sends numbered records to a real
// OpenTelemetry Collector (OTLP/HTTP, the batch processor, the file
// exporter) until its last instant, and every record the collector
// acknowledged must be in its sink exactly once, however the pod ends.
// Each case is played by the bare native sidecar (the control: the same
// pod, the collector an init container with restartPolicy Always, no
// tandem) and by the pod as users write it (both in containers, no
// annotation), injected by tandem's webhook at admission in a namespace
// labelled for it, in each mode. The figures are in docs/shutdown-loss.md.

// lossBound is how long a loss test's Job may take from its first
// acknowledged records to its end: the main sends for 10 to 20 s on a
// loaded machine, a collector restart takes up to 10 s of the kubelet's
// back-off.
const lossBound = 3 * time.Minute

// lossParallel makes the webhook installations that inject the tandem
// variants, then lets t run beside the other tests: made while parallel
// tests run, an installation still rolling out would be seen by their
// tandemctl check (an error finding, exit 1).
func lossParallel(t *testing.T) {
	t.Helper()
	webhookInstalled(t)
	if serverMinor >= nativeSidecarsSince {
		nativeWebhookInstalled(t)
	}
	t.Parallel()
}

// eachLossVariant runs play in a parallel subtest per variant; those with
// native sidecars only on a release that has them.
func eachLossVariant(t *testing.T, play func(t *testing.T, variant string)) {
	for _, v := range lossVariants {
		t.Run(v, func(t *testing.T) {
			if v != "classic" {
				requireNativeSidecars(t)
			}
			t.Parallel()
			play(t, v)
		})
	}
}

// mustEnd waits for the Job's end and fails t unless it is want. The
// control's Job must end (its figures are read after it), however it ends:
// that is reported.
func (r lossRun) mustEnd(t *testing.T, variant, want string) {
	t.Helper()
	end, _, err := r.n.waitJob(r.name, lossBound)
	switch {
	case err != nil:
		r.n.dump()
		t.Fatalf("job %s did not end (%v); want %s", r.name, err, want)
	case isControl(variant):
		t.Logf("%s (control): job %s ended %s", variant, r.name, end)
	case end != want:
		r.n.dump()
		t.Fatalf("job %s ended %q; want %s", r.name, end, want)
	}
}

// The main sends 1000 records and exits 0; the collector is stopped after
// it (by the kubelet, or by tandem on the main's done file) and flushes.
func TestLossMainCompletes(t *testing.T) {
	lossParallel(t)
	eachLossVariant(t, func(t *testing.T, v string) {
		r := startLoss(t, lossPlay{variant: v, config: batchedConfig, grace: 30,
			send: []string{"--count", "1000", "--every", "5ms"}}, 100)
		r.mustEnd(t, v, "Complete")
		c := countLoss(t, r.dir)
		if c.acked != 1000 && !isControl(v) {
			t.Errorf("%d records acknowledged; want 1000", c.acked)
		}
		c.assertNone(t, v, "the main completes, "+v)
	})
}

// The Job is deleted while the main sends; the main traps SIGTERM and sends
// on until it is killed (at the end of the grace period it is given: the
// pod's for the bare sidecar, the --termination-grace the webhook gave
// tandem's main).
// What it had acknowledged until then, the collector flushes in its own
// stop, after the main's.
func TestLossJobDeletedWhileDraining(t *testing.T) {
	lossParallel(t)
	eachLossVariant(t, func(t *testing.T, v string) {
		r := startLoss(t, lossPlay{variant: v, config: batchedConfig, grace: 10,
			send: []string{"--drain", "--every", "5ms"}}, 200)
		var atDeletion int
		d := r.n.deleteWatched(r.pod.Metadata.Name, 2*time.Minute, func() {
			atDeletion = len(readNumbers(t, r.dir, "acked"))
			r.n.run(nil, "delete", "job", r.name, "--wait=false")
		})
		r.awaitMain(t, "otlpsend: SIGTERM, draining")
		c := countLoss(t, r.dir)
		if c.acked <= atDeletion && !isControl(v) {
			t.Errorf("%d records acknowledged, %d at the deletion: none while the main drained", c.acked, atDeletion)
		}
		main, _ := d.last.container("main")
		collector, _ := d.last.container("otelcol")
		mainCode, _ := main.exitCode()
		collectorCode, _ := collector.exitCode()
		t.Logf("%s: deletion → every container ended in %s; main exit %d, collector exit %d; %d records acknowledged while the main drained",
			v, d.took.Round(100*time.Millisecond), mainCode, collectorCode, c.acked-atDeletion)
		c.assertNone(t, v, "the Job deleted while the main drains, "+v)
	})
}

// The main's PID 1 is SIGKILLed from the node mid-stream (a cgroup OOM
// kill): the collector is stopped after it (by the kubelet, or by tandem on
// the lost lifeline) and flushes.
func TestLossMainKilled(t *testing.T) {
	lossParallel(t)
	eachLossVariant(t, func(t *testing.T, v string) {
		r := startLoss(t, lossPlay{variant: v, config: batchedConfig, grace: 30,
			send: []string{"--every", "5ms"}}, 300)
		atKill := r.kill(t, v, "main", "")
		r.mustEnd(t, v, "Failed")
		c := countLoss(t, r.dir)
		t.Logf("%s: the main SIGKILLed with %d records acknowledged", v, atKill)
		c.assertNone(t, v, "the main killed, "+v)
	})
}

// collectorConfigs: the usual configuration, which holds acknowledged
// records in memory (any collector killed loses them, tandem or not), and
// the one that holds none once it has answered.
var collectorConfigs = []struct{ name, config string }{
	{"batched", batchedConfig},
	{"unbuffered", unbufferedConfig},
}

// eachCollectorConfig runs play for each configuration and variant; what
// names both.
func eachCollectorConfig(t *testing.T, play func(t *testing.T, variant, config, what string)) {
	for _, cfg := range collectorConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			t.Parallel()
			eachLossVariant(t, func(t *testing.T, v string) { play(t, v, cfg.config, cfg.name+", "+v) })
		})
	}
}

// assertCrashLoss: the main sends one record at a time, so at the crash
// at most one, atKill+1, was in flight: written or held by the collector,
// its answer lost, then sent again. That one may be in the sink twice (at
// least once is what a retrying sender gets). Nothing else is twice; with
// the unbuffered configuration nothing is lost; with the batched one only
// records acknowledged up to the crash (what the collector held in memory).
// A control's figures are only reported.
func (c lossCount) assertCrashLoss(t *testing.T, variant, config string, atKill int, what string) {
	t.Helper()
	c.report(t, what)
	if isControl(variant) {
		return
	}
	inFlight := atKill + 1
	for _, n := range c.duplicated {
		if n != inFlight {
			t.Errorf("%s: record %d in the sink twice; only %d, in flight at the crash, may be", what, n, inFlight)
		}
	}
	for _, n := range c.lost {
		if config != batchedConfig || n > inFlight {
			t.Errorf("%s: acknowledged record %d lost (%d acknowledged at the crash)", what, n, atKill)
		}
	}
	if c.acked == 0 {
		t.Errorf("%s: no record acknowledged: nothing proved", what)
	}
}

// The collector is SIGKILLed once mid-stream and started again (by the
// kubelet for the bare sidecar and in native mode, by tandem's --restart
// always in classic mode); the main retries what was not acknowledged
// meanwhile and completes.
func TestLossCollectorCrash(t *testing.T) {
	lossParallel(t)
	eachCollectorConfig(t, func(t *testing.T, v, config, what string) {
		r := startLoss(t, lossPlay{variant: v, config: config, grace: 30,
			send: []string{"--count", "1500", "--every", "5ms"}}, 300)
		atKill := r.kill(t, v, "otelcol", "otelcol-contrib")
		r.mustEnd(t, v, "Complete")
		countLoss(t, r.dir).assertCrashLoss(t, v, config, atKill,
			fmt.Sprintf("the collector killed at %d acknowledged, %s", atKill, what))
	})
}

// The Job is deleted and, while the main drains, the collector is
// SIGKILLed: tandem starts it again in either mode (the main still needs
// it); the kubelet does not, in a pod being deleted (the bare control).
// A 30 s grace period: under tandem the main drains 15 s, time for the
// test to see the drain and kill, tandem's 1 s back-off and the
// collector's start on a loaded node, with records still to send.
func TestLossCollectorCrashWhileDraining(t *testing.T) {
	lossParallel(t)
	eachCollectorConfig(t, func(t *testing.T, v, config, what string) {
		r := startLoss(t, lossPlay{variant: v, config: config, grace: 30,
			send: []string{"--drain", "--every", "5ms"}}, 200)
		// Found before the deletion, killed as soon as the main drains:
		// under tandem the main drains 15 s, the collector's stop follows.
		collector := r.pidOf(t, v, "otelcol", "otelcol-contrib")
		var atKill int
		d := r.n.deleteWatched(r.pod.Metadata.Name, 2*time.Minute, func() {
			r.n.run(nil, "delete", "job", r.name, "--wait=false")
			r.awaitDraining(t)
			atKill = r.killPID(t, collector, "otelcol")
		})
		c := countLoss(t, r.dir)
		t.Logf("%s: collector killed while the main drained; %d records acknowledged after it; deletion → every container ended in %s",
			v, c.acked-atKill, d.took.Round(100*time.Millisecond))
		// Classic tandem holds the collector's stop for the main and
		// restarts it meanwhile; native-mode tandem restarts it while the
		// main's termination mark says the pod is being deleted. The
		// kubelet restarts no container of a pod being deleted: the bare
		// control's main drains into a dead collector (reported).
		if !isControl(v) && c.acked <= atKill {
			t.Errorf("%s: no record acknowledged after the collector's crash: tandem did not start it again while the main drained", v)
		}
		c.assertCrashLoss(t, v, config, atKill, fmt.Sprintf("the collector killed while the main drains, at %d acknowledged, %s", atKill, what))
	})
}
