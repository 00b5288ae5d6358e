//go:build k8s

package k8s

import (
	"slices"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// The kubelet starts a native sidecar again when its container ends before
// the kubelet has seen the mains' containers end, and a Job under
// restartPolicy OnFailure counts that restart against its backoffLimit. A
// loaded node opens that window for a moment: the runtime reported a
// main's exit 0.3 s after its done file, after the sidecar's own exit, and
// the kubelet listed them a second apart. Here the main's program touches
// its done file itself (any file counts) and runs on 3 s after the
// sidecar's program has stopped, which holds the window open. Injected,
// the sidecar's container waits for the kubelet's stop
// (--await-termination): it is never restarted and the Job completes. The
// control is the same Job without that flag, measured and reported.
func TestNativeSidecarAwaitsKubeletStop(t *testing.T) {
	requireNativeSidecars(t)
	t.Parallel()
	for _, await := range []bool{true, false} {
		name := "injected"
		if !await {
			name = "control without --await-termination"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			n := newNamespace(t)
			m := injected(t, earlyDoneJob(t), "native")
			// Its own program writes the done file: under tandem main,
			// which holds the file's lifeline, only the file tandem
			// writes at the main's end counts.
			m.WithoutTandem("main")
			cmd := m.List("sidecar", "command")
			if !slices.Contains(cmd, "--await-termination") {
				t.Fatalf("the native sidecar's command %q; want --await-termination", cmd)
			}
			if !await {
				m.SetCommand("sidecar", slices.DeleteFunc(cmd, func(a string) bool { return a == "--await-termination" })...)
			}
			start := n.applyRaw(m.YAML())
			end, at, err := n.waitJob("early-done", nativeBound)
			if err != nil {
				t.Fatal(err)
			}
			if !await {
				reason := n.run(nil, "get", "job", "early-done", "-o", `jsonpath={.status.conditions[?(@.type=="Failed")].reason}`)
				// The failed Job's pod is gone: its events say how often
				// the sidecar started.
				starts := n.run(nil, "get", "events", "-o",
					`jsonpath={range .items[?(@.reason=="Started")]}{.involvedObject.fieldPath}={.count} {end}`)
				t.Logf("control: the Job ended %s %s after the apply (failure reason %q); containers started: %s",
					end, at.Sub(start).Round(100*time.Millisecond), reason, starts)
				return
			}
			if end != "Complete" {
				t.Fatalf("the Job ended %s; want Complete", end)
			}
			p := n.onlyPod("early-done")
			sidecar, _ := p.container("sidecar")
			if code, ended := sidecar.exitCode(); sidecar.RestartCount != 0 || !ended || code != 0 {
				t.Errorf("sidecar: restartCount %d, ended %v with %d; want never restarted, 0", sidecar.RestartCount, ended, code)
			}
			assertCodes(t, p, map[string]int{"main": 0})
			// Its program stopped on the done file, its container after
			// the main's end.
			logs := n.podLogs(p)
			kit.AssertOrder(t, logs, kit.Tandem("sidecar", "done-seen"), kit.Tandem("sidecar", "cmd-exited"),
				kit.Tandem("sidecar", "awaiting-stop"), kit.Tandem("sidecar", "exiting"))
			tl := n.podTimeline(p)
			i := tl.index("main", "Exiting", 0)
			if i < 0 {
				t.Fatalf("the main never said Exiting:\n%s", tl)
			}
			mainEnd := tl[i].At
			awaiting := kit.MustFind(t, logs, kit.Tandem("sidecar", "awaiting-stop")).At
			exited := kit.MustFind(t, logs, kit.Tandem("sidecar", "exiting")).At
			if !awaiting.Before(mainEnd) || !exited.After(mainEnd) {
				t.Errorf("the sidecar's tandem awaited its stop at %s and exited at %s; want the main's end (%s) between",
					awaiting.Format("15:04:05.000"), exited.Format("15:04:05.000"), mainEnd.Format("15:04:05.000"))
			}
			t.Logf("injected: the Job completed %s after the apply; the sidecar's container ended %s after the main's program",
				at.Sub(start).Round(100*time.Millisecond), exited.Sub(mainEnd).Round(time.Millisecond))
		})
	}
}

// earlyDoneJob is an OnFailure Job (backoffLimit 0) whose main touches its
// done file, waits for the sidecar's program to have stopped, then runs
// 3 s more; the sidecar runs until SIGTERM.
func earlyDoneJob(t *testing.T) *kit.Manifest {
	main := lifecycle("main", behaviour{await: `grep -q ' sidecar Exiting$' /persistent/sidecar.log && sleep 3`})
	main[len(main)-1] = "touch /run/tandem/main.done; " + main[len(main)-1]
	spec := withVolume(map[string]any{
		"restartPolicy": "OnFailure",
		"containers": []any{
			ctr("sidecar", lifecycle("sidecar", behaviour{forever: true})...),
			ctr("main", main...),
		},
	}, "persistent", "/persistent")
	return unwrappedJob(t, "early-done", sidecarAnnotations("sidecar"), spec)
}
