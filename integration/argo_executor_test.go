package integration

import (
	"slices"
	"syscall"
	"testing"

	"github.com/tandem-sh/tandem/kube/inject"
)

// An Argo Workflows step, played with the command lines inject writes for
// it, in either mode: the proxy's tandem runs inside Argo's executor, which
// sends it SIGTERM as soon as the main container has ended, while Argo's
// wait still uploads the step's outputs. That SIGTERM reaches neither the
// proxy nor tandem's idea of the pod's end: the proxy keeps running (in
// classic mode a crash of it meanwhile is restarted: tandem's restarts are
// the kubelet's there), and it stops, exit 0, once wait has ended too; in
// native mode its container then waits for the kubelet's stop.
func TestSidecarUnderArgoExecutorOutlivesWait(t *testing.T) {
	t.Parallel()
	for _, mode := range []inject.Mode{inject.Classic, inject.Native} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			argoStepPlayed(t, mode)
		})
	}
}

func argoStepPlayed(t *testing.T, mode inject.Mode) {
	dir := tempDir(t)
	written := argoStepCommands(t, mode)
	proxyOut, waitOut, mainOut := inDir(dir, "proxy-signals"), inDir(dir, "wait-signals"), inDir(dir, "main-signals")
	proxy := startTandem(t, procOptions{}, cmdArgs(local(t, inject.WithoutExecutor(written["proxy"]), dir),
		helper("record-signals", proxyOut, "15"))...)
	firstPID := waitReadyPID(t, proxyOut)
	wait := startTandem(t, procOptions{}, cmdArgs(local(t, written["wait"], dir), helper("record-signals", waitOut, "10"))...)
	waitReadyPID(t, waitOut)
	main := startTandem(t, procOptions{}, cmdArgs(local(t, written["main"], dir), helper("record-signals", mainOut, "10"))...)
	waitReadyPID(t, mainOut)

	main.signal(syscall.SIGUSR1) // the step's main ends of itself
	if code := main.wait(); code != 0 {
		t.Fatalf("main exited %d; want 0", code)
	}
	proxy.signal(syscall.SIGTERM) // Argo's executor, at the main's end
	proxy.waitEvent("signal-dropped")
	if mode == inject.Classic {
		mustDo(t, syscall.Kill(firstPID, syscall.SIGKILL))
		proxy.waitEvent("restarting")
		waitLines(t, proxyOut, 2) // the program started again: "ready PID"
	}
	wait.signal(syscall.SIGUSR1) // wait has saved the outputs
	if code := wait.wait(); code != 0 {
		t.Fatalf("wait exited %d; want 0", code)
	}
	if mode == inject.Native {
		// The proxy has stopped; its container waits for the kubelet's
		// stop, which the executor passes on once the kubelet has seen
		// main and wait end.
		proxy.waitEvent("awaiting-stop")
		proxy.signal(syscall.SIGTERM)
	}
	proxy.scWantExit(0, "stopped")
	if proxy.hasEvent("signal-alone") || proxy.hasEvent("termination-mark-awaited") {
		t.Errorf("the executor's SIGTERM was taken for a signal to stop on:\n%s", proxy.rawLines())
	}
	if got := readLines(proxyOut); slices.Contains(got[:len(got)-1], "15") {
		t.Errorf("the proxy's program recorded %q; want no SIGTERM before its stop", got)
	}
}

// argoStepCommands are the command lines inject writes for a step pod as
// Argo's controller makes it, by container.
func argoStepCommands(t *testing.T, mode inject.Mode) map[string][]string {
	t.Helper()
	src := `apiVersion: v1
kind: Pod
metadata: {name: step, annotations: {tandem.sh/sidecars: proxy}}
spec:
  restartPolicy: Never
  containers:
    - name: wait
      image: argoexec:1
      command: [argoexec, wait]
    - name: main
      image: app:1
      command: [/var/run/argo/argoexec, emissary, --loglevel, info, --, /app]
    - name: proxy
      image: proxy:1
      command: [/var/run/argo/argoexec, emissary, --loglevel, info, --, /proxy]
`
	commands := injectedCommands(t, src, mode)
	if executor := commands["proxy"][:5]; !slices.Equal(executor, []string{"/var/run/argo/argoexec", "emissary", "--loglevel", "info", "--"}) {
		t.Fatalf("proxy's written command %q: want Argo's executor first", commands["proxy"])
	}
	return commands
}
