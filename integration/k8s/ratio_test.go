//go:build k8s && k8sbench

package k8s

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// ratioRounds is how many times both Jobs are applied side by side.
const ratioRounds = 3

// Side by side, for the same main (`sleep 2`) and the same proxy: apply →
// Complete with a tandem sidecar on classic containers (done file) and
// with a native sidecar that stops on SIGTERM. Prints the figures and the
// ratio; asserts only that both complete and that tandem's proxy was
// stopped by tandem. The goal is tandem no slower.
func TestRatioTandemVersusNativeSidecar(t *testing.T) {
	requireNativeSidecars(t)
	t.Parallel()
	n := newNamespace(t)
	proxy := []string{"standin", "serve", "--name", "proxy", "--tcp", "127.0.0.1:5432"}
	jobs := map[string]func(name string) *kit.Manifest{
		"tandem": func(name string) *kit.Manifest {
			return ownJob(t, name, withDoneDir(map[string]any{"containers": []any{
				ctr("main", "tandem", "main", "--done-file=/run/tandem/done", "--", "sleep", "2"),
				ctr("proxy", append([]string{"tandem", "sidecar", "--done-file=/run/tandem/done", "--"}, proxy...)...),
			}}))
		},
		"native": func(name string) *kit.Manifest {
			return ownJob(t, name, map[string]any{
				"initContainers": []any{nativeSidecar("proxy", proxy...)},
				"containers":     []any{ctr("main", "sleep", "2")},
			})
		},
	}
	took := map[string][]time.Duration{}
	for round := 1; round <= ratioRounds; round++ {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for kind, make := range jobs {
			name := kind + "-" + string(rune('0'+round))
			start := n.apply(make(name))
			wg.Add(1)
			go func() {
				defer wg.Done()
				end, at, err := n.waitJob(name, jobBound)
				if err != nil || end != "Complete" {
					t.Errorf("job %s: ended %q, %v; want Complete", name, end, err)
					return
				}
				mu.Lock()
				took[kind] = append(took[kind], at.Sub(start))
				mu.Unlock()
			}()
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		logs := n.podLogs(n.onlyPod("tandem-" + string(rune('0'+round))))
		kit.AssertOrder(t, logs, kit.Tandem("main", "cmd-exited"), kit.Tandem("proxy", "done-seen"), kit.Tandem("proxy", "exiting"))
	}
	tandem, native := median(took["tandem"]), median(took["native"])
	t.Logf("apply → Complete, %d rounds side by side: tandem sidecar %v (median %s), native sidecar %v (median %s): ratio tandem/native %.2f",
		ratioRounds, rounded(took["tandem"]), tandem.Round(10*time.Millisecond),
		rounded(took["native"]), native.Round(10*time.Millisecond), tandem.Seconds()/native.Seconds())
}

func median(d []time.Duration) time.Duration {
	s := slices.Sorted(slices.Values(d))
	return s[len(s)/2]
}

func rounded(d []time.Duration) []time.Duration {
	out := make([]time.Duration, len(d))
	for i, v := range d {
		out[i] = v.Round(10 * time.Millisecond)
	}
	return out
}
