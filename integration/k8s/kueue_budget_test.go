//go:build k8s

package k8s

import (
	"strings"
	"testing"
	"time"
)

// kueueCrashBudget is the crashing proxy's restart budget
// (tandem.sh/max-restarts.proxy): two restarts after its first run.
const kueueCrashBudget = "2"

// A Job whose needed proxy crash-loops, in the queue with room for one,
// injected by the webhook (in either mode): its main would work ten
// minutes, but tandem gives the proxy up once its restart budget is
// spent, the main sees it lost, and the Job fails within budgetBound. Its
// Workload finishes (Failed) and the Job queued behind it is admitted
// after, and completes.
func TestKueueCrashLoopingProxyReleasesQuota(t *testing.T) {
	t.Parallel()
	kueueInstalled(t)
	eachMode(t, func(t *testing.T, mode string) { kueueCrashLoop(t, mode) })
}

func kueueCrashLoop(t *testing.T, mode string) {
	n := injectingNamespace(t, mode)
	n.kueueQueueFor()
	ww := n.watchWorkloads(kueuePairBound)
	crashing := kueueInjected("tandem.sh/needs", "proxy", "tandem.sh/max-restarts.proxy", kueueCrashBudget)
	start := n.apply(kueueJob(t, "crashing", "sleep 600", []string{"sh", "-c", `echo "proxy: cannot start"; exit 1`}, crashing))
	if _, ok := ww.await("crashing", kueuePairBound, admitted); !ok {
		t.Fatalf("Kueue did not admit the crashing Job within %s", kueuePairBound)
	}
	behindApplied := n.apply(kueueJob(t, "behind", kueueMain, kueueProxy, kueueInjected()))
	end, at, err := n.waitJob("crashing", budgetBound)
	if err != nil || end != "Failed" {
		t.Fatalf("the crashing Job ended %q (%v) within %s of its admission; want Failed", end, err, budgetBound)
	}
	failed, ok := ww.await("crashing", kueuePairBound, finished)
	if !ok || failed.finishedReason != "Failed" {
		t.Fatalf("the crashing Job's Workload: %s; want Finished, Failed", failed.since(start))
	}
	main, _ := n.onlyPod("crashing").container("main")
	if main.State.Terminated == nil || !strings.Contains(main.State.Terminated.Message, "sidecar-lost") ||
		!strings.Contains(main.State.Terminated.Message, "proxy") {
		t.Errorf("the crashing Job's main ended %+v; want the termination message sidecar-lost, naming proxy", main.State.Terminated)
	}
	behindTook := n.mustComplete("behind", behindApplied, kueuePairBound)
	behind, _ := ww.await("behind", kueuePairBound, finished)
	if !admitted(behind) || behind.admitted.Before(failed.finished) {
		t.Errorf("the Job behind was admitted before the crashing Job's Workload finished: crashing %s; behind %s",
			failed.since(start), behind.since(start))
	}
	t.Logf("%s: a needed proxy that always crashes (budget %s restarts): Job Failed %s after apply, its Workload Finished (%s); "+
		"the Job behind admitted %s after that, apply → Complete %s (refused quota meanwhile: %q)",
		mode, kueueCrashBudget, at.Sub(start).Round(100*time.Millisecond), failed.finishedReason,
		behind.admitted.Sub(failed.finished).Round(100*time.Millisecond), behindTook.Round(100*time.Millisecond), behind.pendingMessage)
	t.Logf("Workloads seen from the crashing Job's apply: crashing %s; behind %s", failed.since(start), behind.since(start))
}
