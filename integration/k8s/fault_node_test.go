//go:build k8s

package k8s

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
	"golang.org/x/sys/unix"
)

// The node's own restarts under classic-mode Jobs: containerd and the
// kubelet restarted as their service managers restart them, while the
// Jobs' mains are mid-work and their sidecars up. Kubernetes promises that
// containers keep running across both; tandem's part lives in the pod's
// volume and processes, so its Jobs must end as if nothing had happened.
// The subtests run one after the other (each restarts what the others
// use) and, being sequential, before every parallel test of the suite.

// faultJobCount Jobs play each node fault; the last one's main exits 3, so
// that a real non-zero code is seen through the fault too.
const faultJobCount = 5

// faultExitBound is how long the mains and sidecars may take to exit once
// let go: milliseconds, with room for a loaded machine.
const faultExitBound = 30 * time.Second

// kubeletPodsDir is the kubelet's --root-dir/pods (env.sh's K8S_STATE).
const kubeletPodsDir = "/var/lib/tandem-k8s/kubelet/pods"

func TestFaultNode(t *testing.T) {
	requireCluster(t)
	t.Run("ContainerdRestarted", func(t *testing.T) {
		// The mains end, and their sidecars stop, while containerd is
		// down: containerd 1.6's shims keep the exit codes for the new
		// containerd; containerd 2.x reports 255 for them, its own loss
		// (the Job then Fails), while tandem's done files keep the codes.
		jobs := startFaultJobs(t)
		// Asked while containerd runs: without it the node's status may
		// name no runtime.
		jobs.exitsLost = runtimeDropsExitsWhileDown(t)
		nodeFault(t, "stop", "containerd")
		jobs.outputLost = true
		jobs.letGo(t)
		nodeFault(t, "start", "containerd")
		jobs.assertEnded(t, "containerd restarted, the mains ending while it was down")
	})
	t.Run("KubeletRestarted", func(t *testing.T) {
		// The mains end while no kubelet watches: the done files alone
		// stop the sidecars; the kubelet, back, reports what happened.
		jobs := startFaultJobs(t)
		nodeFault(t, "stop", "kubelet")
		jobs.letGo(t)
		nodeFault(t, "start", "kubelet")
		jobs.assertEnded(t, "kubelet restarted, the mains ending while it was down")
	})
	t.Run("BothRestarted", func(t *testing.T) {
		// One after the other, then the mains end on a runtime and a
		// kubelet that never saw them start.
		jobs := startFaultJobs(t)
		nodeFault(t, "restart", "containerd")
		nodeFault(t, "restart", "kubelet")
		jobs.letGo(t)
		jobs.assertEnded(t, "containerd then kubelet restarted, the mains ending after")
	})
	t.Run("MainKilledWhileKubeletDown", testMainKilledWhileKubeletDown)
}

// nodeFault runs fault.sh ACTION NAME; whatever the test does after, the
// component runs again when it ends.
func nodeFault(t *testing.T, action, name string) {
	t.Helper()
	if action == "stop" {
		t.Cleanup(func() {
			if _, err := runFaultScript("start", name); err != nil {
				t.Errorf("putting %s back: %v", name, err)
			}
		})
	}
	start := time.Now()
	out, err := runFaultScript(action, name)
	if err != nil {
		t.Fatalf("fault.sh %s %s: %v\n%s", action, name, err, out)
	}
	t.Logf("%s %s in %s", action, name, time.Since(start).Round(time.Millisecond))
}

func runFaultScript(action, name string) (string, error) {
	ctx, cancel := contextFor(3 * time.Minute)
	defer cancel()
	stdout, stderr, err := kit.Tool{Bin: filepath.Join(repoRoot, "integration", "k8s", "fault.sh")}.Run(ctx, nil, action, name)
	return stdout + stderr, err
}

// faultJob is one Job of a fault, as it ran before the fault.
type faultJob struct {
	name     string
	code     int // what its main exits with
	pod      pod
	mainPID  int // host pids of the containers' PID 1 (their tandem)
	proxyPID int
	done     doneFile // read from the node as the main ended
}

type faultJobs struct {
	n    *namespace
	jobs []*faultJob
	// outputLost: the containers ended while containerd was down, whose
	// CRI copies their output to the kubelet's log files; what they wrote
	// meanwhile is not in `kubectl logs`.
	outputLost bool
	// outputMissing counts the pods whose proxy's last lines are missing.
	outputMissing int
	// exitsLost: the runtime reports 255 for a container that exited
	// while it was down (runtimeDropsExitsWhileDown); runtimeLost counts them.
	exitsLost   bool
	runtimeLost int
}

// runtimeDropsExitsWhileDown: the node's runtime is containerd 2.x, which
// on its start cleans up the shim of a container whose processes all
// exited meanwhile as a leaked one (core/runtime/v2/shim_load.go,
// shouldCleanupShim), so the kubelet gets 255 for it, not its code;
// containerd 1.6's shim hands the exit on.
func runtimeDropsExitsWhileDown(t *testing.T) bool {
	t.Helper()
	ctx, cancel := contextFor(time.Minute)
	defer cancel()
	out, err := kubectl(ctx, nil, "get", "nodes", "-o", "jsonpath={.items[*].status.nodeInfo.containerRuntimeVersion}")
	if err != nil {
		t.Fatalf("the node's runtime: %v", err)
	}
	version := strings.TrimSpace(out)
	if !strings.HasPrefix(version, "containerd://") {
		t.Fatalf("the node's runtime is %q; want containerd://VERSION", version)
	}
	return strings.HasPrefix(version, "containerd://2.")
}

// faultJobSpec is a Job as a team writes it, made classic by tandemctl
// inject: a proxy that serves until stopped, and a main that works until
// the test lets it go (a file in its own emptyDir, written from the node),
// then exits code.
func faultJobSpec(t *testing.T, name string, code int) *kit.Manifest {
	work := fmt.Sprintf("echo working; until [ -e /gate/go ]; do sleep 0.1; done; echo finished; exit %d", code)
	spec := map[string]any{"containers": []any{
		ctr("proxy", "standin", "serve", "--name", "proxy", "--tcp", "127.0.0.1:5432"),
		ctr("work", "sh", "-c", work),
	}}
	spec = withVolume(spec, "gate", "/gate")
	return injected(t, unwrappedJob(t, name, map[string]string{"tandem.sh/sidecars": "proxy"}, spec), "classic")
}

// startFaultJobs applies the Jobs, the last one's main exiting 3, and
// returns once every main is working and every proxy serving.
func startFaultJobs(t *testing.T) *faultJobs {
	t.Helper()
	codes := make([]int, faultJobCount)
	codes[faultJobCount-1] = 3
	return applyFaultJobs(t, codes...)
}

// applyFaultJobs applies one Job per code, named job-0, job-1…, and waits
// until each main works and each proxy serves.
func applyFaultJobs(t *testing.T, codes ...int) *faultJobs {
	t.Helper()
	fj := &faultJobs{n: newNamespace(t)}
	for i, code := range codes {
		j := &faultJob{name: fmt.Sprintf("job-%d", i), code: code}
		fj.n.applyRaw(faultJobSpec(t, j.name, j.code).YAML())
		fj.jobs = append(fj.jobs, j)
	}
	ctx, cancel := contextFor(jobBound)
	defer cancel()
	for _, j := range fj.jobs {
		j.pod = fj.n.waitPod("job-name="+j.name, jobBound, func(p pod) bool {
			work, _ := p.container("work")
			proxy, _ := p.container("proxy")
			return work.running() && proxy.running()
		})
		if !fj.n.follow(ctx, j.pod.Metadata.Name, "work").await(kit.Program("work", "working"), time.Minute) {
			t.Fatalf("%s: the main did not start working within a minute", j.name)
		}
		if !fj.n.follow(ctx, j.pod.Metadata.Name, "proxy").await(kit.Tandem("proxy", "cmd-started"), time.Minute) {
			t.Fatalf("%s: the proxy did not start within a minute", j.name)
		}
		work, _ := j.pod.container("work")
		proxy, _ := j.pod.container("proxy")
		j.mainPID, j.proxyPID = containerPID(t, work.ContainerID), containerPID(t, proxy.ContainerID)
	}
	return fj
}

// emptyDirOnNode is where the kubelet keeps volume of p on this node.
func emptyDirOnNode(p pod, volume string) string {
	return filepath.Join(kubeletPodsDir, p.Metadata.UID, "volumes", "kubernetes.io~empty-dir", volume)
}

// letGo lets every main finish and returns once each main and each proxy
// has exited, seen from the node (whatever runs of the cluster or not).
func (fj *faultJobs) letGo(t *testing.T) {
	t.Helper()
	for _, j := range fj.jobs {
		if err := os.WriteFile(filepath.Join(emptyDirOnNode(j.pod, "gate"), "go"), nil, 0o644); err != nil {
			t.Fatalf("%s: let the main go: %v", j.name, err)
		}
	}
	for _, j := range fj.jobs {
		for what, pid := range map[string]int{"main": j.mainPID, "proxy": j.proxyPID} {
			if err := awaitExit(pid, faultExitBound); err != nil {
				t.Fatalf("%s: the %s's tandem (pid %d): %v", j.name, what, pid, err)
			}
		}
		// Now: the kubelet removes a finished pod's volumes.
		j.done = readDoneFile(t, emptyDirOnNode(j.pod, "tandem"), "work")
	}
}

// awaitExit waits until process pid has exited, through a pidfd: the
// kernel says so, nothing is polled.
func awaitExit(pid int, bound time.Duration) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ESRCH {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pidfd_open: %w", err)
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(bound)
	for {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(time.Until(deadline).Milliseconds()))
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return fmt.Errorf("poll its pidfd: %w", err)
		case n == 0:
			return fmt.Errorf("still running %s later", bound)
		}
		return nil
	}
}

// assertEnded waits for every Job to end as its main said, and checks that
// nothing was lost: each container's real exit code, the done file with
// it, the sidecar stopped by that done file, no container left running.
func (fj *faultJobs) assertEnded(t *testing.T, fault string) {
	t.Helper()
	ended := 0
	for _, j := range fj.jobs {
		if fj.assertJobEnded(t, j) {
			ended++
		}
	}
	t.Logf("fault figures: %s: %d Jobs run, %d ended as their mains said, %d lost", fault, len(fj.jobs), ended, len(fj.jobs)-ended)
	if fj.exitsLost {
		t.Logf("fault figures: %s: the runtime reported 255 for %d of %d containers (its own loss: every done file kept the main's code)",
			fault, fj.runtimeLost, 2*len(fj.jobs))
	}
	if fj.outputLost {
		t.Logf("fault figures: %s: the output written while containerd was down is missing from kubectl logs in %d of %d pods",
			fault, fj.outputMissing, len(fj.jobs))
	}
}

func (fj *faultJobs) assertJobEnded(t *testing.T, j *faultJob) bool {
	t.Helper()
	want := "Complete"
	if j.code != 0 {
		want = "Failed"
	}
	end, _, err := fj.n.waitJob(j.name, jobBound)
	if err != nil || (end != want && !(fj.exitsLost && end == "Failed")) {
		t.Errorf("%s: ended %q (%v); want %s, its main exited %d", j.name, end, err, want, j.code)
		return false
	}
	errors := 0
	p := fj.n.onlyPod(j.name)
	for ctr, code := range map[string]int{"work": j.code, "proxy": 0} {
		got, ok := mustContainer(p, ctr).exitCode()
		if ok && got == 255 && fj.exitsLost {
			fj.runtimeLost++
			errors++ // not as the main said, but the runtime's loss: no test failure
			continue
		}
		if !ok || got != code {
			t.Errorf("%s: container %s terminated %v, exit code %d; want %d", j.name, ctr, ok, got, code)
			errors++
		}
	}
	if j.done.ExitCode != j.code || j.done.Reason != "exited" {
		t.Errorf("%s: the done file said %+v; want reason exited, exitCode %d", j.name, j.done, j.code)
		errors++
	}
	if msg := terminationMessage(mustContainer(p, "proxy")); msg.Reason != "stopped" {
		t.Errorf("%s: the proxy's termination message says %+v; want reason stopped", j.name, msg)
		errors++
	}
	logs := fj.n.podLogs(p)
	if seen, ok := kit.Find(logs, kit.Tandem("proxy", "done-seen")); ok && seen.Field("source") != "done-file" {
		t.Errorf("%s: the proxy stopped on %q; want done-file", j.name, seen.Field("source"))
		errors++
	} else if !ok && !fj.outputLost {
		t.Errorf("%s: the proxy's tandem logged no done-seen:\n%s", j.name, kit.Format(logs))
		errors++
	} else if !ok {
		fj.outputMissing++
	}
	if left := runningTasks(t, p); len(left) > 0 {
		t.Errorf("%s: containers still running on the node: %v", j.name, left)
		errors++
	}
	return errors == 0
}

// terminationMessage is what tandem wrote to the container's
// /dev/termination-log (docs/events.md).
func terminationMessage(cs containerStatus) (msg struct{ Reason string }) {
	if cs.State.Terminated != nil {
		_ = json.Unmarshal([]byte(cs.State.Terminated.Message), &msg)
	}
	return msg
}

func mustContainer(p pod, name string) containerStatus {
	cs, _ := p.container(name)
	return cs
}

// doneFile is what a done file says (docs/files.md).
type doneFile struct {
	Reason   string `json:"reason"`
	ExitCode int    `json:"exitCode"`
}

func readDoneFile(t *testing.T, dir, main string) doneFile {
	t.Helper()
	var d doneFile
	data, err := os.ReadFile(filepath.Join(dir, main+".done"))
	if err == nil {
		err = json.Unmarshal(data, &d)
	}
	if err != nil {
		t.Errorf("the done file of %s in %s: %v", main, dir, err)
	}
	return d
}

// runningTasks names the containers of p whose task containerd still
// has running.
func runningTasks(t *testing.T, p pod) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancel()
	out, _, err := kit.Tool{Bin: "ctr"}.Run(ctx, nil, "--address", "/var/lib/tandem-k8s/containerd/containerd.sock",
		"--namespace", "k8s.io", "tasks", "ls")
	if err != nil {
		t.Fatalf("ctr tasks ls: %v", err)
	}
	var left []string
	for _, cs := range append(p.Status.ContainerStatuses, p.Status.InitContainerStatuses...) {
		id := strings.TrimPrefix(cs.ContainerID, "containerd://")
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[0] == id && f[2] == "RUNNING" {
				left = append(left, cs.Name)
			}
		}
	}
	return left
}

// A main's PID 1 SIGKILLed from the node while no kubelet runs: no done
// file, no kubelet to see it. The lifeline stops the sidecar all the same,
// before the kubelet is back; the kubelet then finds both ended and the
// Job fails with the main's 137.
func testMainKilledWhileKubeletDown(t *testing.T) {
	fj := applyFaultJobs(t, 0)
	j := fj.jobs[0]
	nodeFault(t, "stop", "kubelet")
	if err := unix.Kill(j.mainPID, unix.SIGKILL); err != nil {
		t.Fatalf("kill -KILL %d (the main's PID 1): %v", j.mainPID, err)
	}
	killed := time.Now()
	if err := awaitExit(j.proxyPID, faultExitBound); err != nil {
		t.Fatalf("the proxy's tandem, with the kubelet down and its main killed: %v", err)
	}
	stopped := time.Since(killed)
	nodeFault(t, "start", "kubelet")
	back := time.Now()
	end, _, err := fj.n.waitJob(j.name, lifelineBound)
	if err != nil || end != "Failed" {
		t.Fatalf("the Job ended %q (%v); want Failed", end, err)
	}
	p := fj.n.onlyPod(j.name)
	pj := playedJob{n: fj.n, pod: p}
	pj.exitCodes(map[string]int{"work": 137, "proxy": 0})
	seen := kit.MustFind(t, fj.n.podLogs(p), kit.Tandem("proxy", "done-seen"))
	if seen.Field("source") != "lost" {
		t.Errorf("the proxy saw the end through %q; want lost (the lifeline)", seen.Field("source"))
	}
	if proxy := mustContainer(p, "proxy"); proxy.State.Terminated == nil || !proxy.State.Terminated.FinishedAt.Before(back) {
		t.Errorf("the proxy's container did not finish before the kubelet was back: %+v", proxy.State.Terminated)
	}
	if _, err := os.Stat(filepath.Join(emptyDirOnNode(j.pod, "tandem"), "work.done")); err == nil {
		t.Errorf("a done file exists for a main SIGKILLed outright")
	}
	ended := 0
	if !t.Failed() {
		ended = 1
	}
	t.Logf("fault figures: main SIGKILLed while the kubelet was down: 1 Job run, %d ended Failed with its main's 137, "+
		"the sidecar stopped by the lifeline %s after the kill, with no kubelet", ended, stopped.Round(time.Millisecond))
}
