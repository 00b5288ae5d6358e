//go:build k8s

package k8s

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
	"github.com/tandem-sh/tandem/internal/cmdline"
	"golang.org/x/sys/unix"
)

// The loss tests' pod: otlpsend (the main) sends numbered records to the
// collector on 127.0.0.1:4318; both write to a hostPath directory of the
// test's (the main its sent and acked files, the collector's file exporter
// the sink), which the test reads once the pod has ended.

// The collector's configurations. Both keep the sink across a restart of
// the collector: without append (or rotation) the file exporter truncates
// its file when it starts again.
const (
	// batchedConfig is the usual one: the batch processor (which answers
	// the sender as soon as it holds the records) before the file exporter
	// (which buffers its writes and flushes them every second).
	batchedConfig = `receivers: {otlp: {protocols: {http: {endpoint: "127.0.0.1:4318"}}}}
processors: {batch: {}}
exporters: {file: {path: /out/sink.jsonl, append: true}}
service:
  telemetry: {metrics: {level: none}}
  pipelines: {logs: {receivers: [otlp], processors: [batch], exporters: [file]}}
`
	// unbufferedConfig holds nothing in memory once it has answered: no
	// batch processor (the receiver answers once the exporter has
	// written) and the file exporter unbuffered (with rotation set it
	// writes each batch through).
	unbufferedConfig = `receivers: {otlp: {protocols: {http: {endpoint: "127.0.0.1:4318"}}}}
exporters: {file: {path: /out/sink.jsonl, rotation: {max_megabytes: 100}}}
service:
  telemetry: {metrics: {level: none}}
  pipelines: {logs: {receivers: [otlp], exporters: [file]}}
`
)

// lossVariants: the bare native sidecar (the control, in a namespace no
// webhook injects in) and the same pod as users write it, injected by
// tandem's webhook at admission in a namespace labelled for it, in each
// mode.
var lossVariants = []string{"bare", "classic", "native"}

// isControl: the bare native sidecar. What it loses is the kubelet's and
// the collector's doing, and varies with the node's load (the kubelet's
// stop may come before the filelog receiver's last poll): the point of
// the table, so it is measured and reported, never asserted.
func isControl(variant string) bool { return variant == "bare" }

// lossPlay is one pod of a loss test.
type lossPlay struct {
	variant string   // one of lossVariants
	config  string   // the collector's
	send    []string // otlpsend's flags
	grace   int      // terminationGracePeriodSeconds
}

// lossJob is the Job of play writing into dir. In the bare variant the
// collector is a native sidecar; else both are in containers, as users
// write them, with no annotation: the webhook finds the collector by its
// image (its preset).
func lossJob(t *testing.T, name, dir string, play lossPlay) *kit.Manifest {
	t.Helper()
	out := []any{map[string]any{"name": "out", "mountPath": "/out"}}
	main := map[string]any{"name": "main", "image": senderImage, "imagePullPolicy": "Never",
		"command": append([]any{"otlpsend", "--dir", "/out"}, anys(play.send)...), "volumeMounts": out}
	collector := map[string]any{"name": "otelcol", "image": collectorImage, "imagePullPolicy": "Never",
		"command":      []any{"/otelcol-contrib", "--config=env:OTELCOL_CONFIG"},
		"env":          []any{map[string]any{"name": "OTELCOL_CONFIG", "value": play.config}},
		"volumeMounts": out}
	spec := map[string]any{"terminationGracePeriodSeconds": play.grace,
		"volumes": []any{map[string]any{"name": "out", "hostPath": map[string]any{"path": dir, "type": "Directory"}}}}
	if play.variant == "bare" {
		collector["restartPolicy"] = "Always"
		spec["initContainers"] = []any{collector}
		spec["containers"] = []any{main}
		return ownJob(t, name, spec)
	}
	spec["containers"] = []any{main, collector}
	return ownJob(t, name, spec)
}

func anys(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// assertInjected fails t unless the webhook injected p in mode: its
// annotation, the main under tandem main, and the collector under tandem
// sidecar where mode puts it, with its preset's 1 s stop delay (the pod
// names no sidecar: only the preset makes the collector one).
func assertInjected(t *testing.T, p pod, mode string) {
	t.Helper()
	if v, ok := p.Metadata.Annotations["tandem.sh/injected"]; !ok {
		t.Fatalf("pod %s not injected by the webhook: no tandem.sh/injected", p.Metadata.Name)
	} else {
		t.Logf("pod %s injected at admission in %s mode (tandem.sh/injected: %s)", p.Metadata.Name, mode, v)
	}
	main, _ := p.spec("main")
	if len(main.Command) < 2 || main.Command[1] != cmdline.CmdMain {
		t.Errorf("main runs %q; want it under tandem main", main.Command)
	}
	collector, _ := p.spec("otelcol")
	wrapped := len(collector.Command) > 1 && collector.Command[1] == cmdline.CmdSidecar
	delay := slices.Index(collector.Command, "--stop-delay")
	if !wrapped || delay < 0 || delay+1 >= len(collector.Command) || collector.Command[delay+1] != "1s" {
		t.Errorf("the collector runs %q; want it under tandem sidecar with its preset's --stop-delay 1s", collector.Command)
	}
	native := slices.ContainsFunc(p.Spec.InitContainers, func(c containerSpec) bool { return c.Name == "otelcol" })
	if want := mode == "native"; native != want || (collector.RestartPolicy == "Always") != want {
		t.Errorf("%s mode: the collector an init container %v, restartPolicy %q; want a native sidecar %v", mode, native, collector.RestartPolicy, want)
	}
	restart := slices.Index(collector.Command, "--"+cmdline.FlagRestart)
	want := map[string]string{"classic": cmdline.RestartAlways, "native": cmdline.RestartDuringDeletion}[mode]
	if restart < 0 || restart+1 >= len(collector.Command) || collector.Command[restart+1] != want {
		t.Errorf("%s mode: the collector runs %q; want --%s %s", mode, collector.Command, cmdline.FlagRestart, want)
	}
}

// lossRun is a loss test's pod, running, with its main's output followed.
type lossRun struct {
	n    *namespace
	name string
	dir  string
	pod  pod
	main *logStream
}

// startLoss applies play's Job and returns once both containers run and the
// main has had acked records acknowledged.
func startLoss(t *testing.T, play lossPlay, acked int) lossRun {
	t.Helper()
	if err := lossImages(); err != nil {
		t.Fatal(err)
	}
	r := lossRun{n: lossNamespace(t, play.variant), name: "loss-" + play.variant, dir: t.TempDir()}
	// The collector runs as its image's user, 10001.
	if err := os.Chmod(r.dir, 0o777); err != nil {
		t.Fatal(err)
	}
	r.n.apply(lossJob(t, r.name, r.dir, play))
	r.pod = r.n.waitPod("job-name="+r.name, jobBound, func(p pod) bool {
		main, _ := p.container("main")
		return main.running()
	})
	if play.variant != "bare" {
		assertInjected(t, r.pod, play.variant)
	} else if v, ok := r.pod.Metadata.Annotations["tandem.sh/injected"]; ok {
		t.Fatalf("the control's pod was injected (tandem.sh/injected: %s); want it as written", v)
	}
	ctx, cancel := contextFor(5 * time.Minute)
	t.Cleanup(cancel)
	r.main = r.n.follow(ctx, r.pod.Metadata.Name, "main")
	// The containers' output, tandem's events in it, is gone with the pod:
	// kept for a failure.
	collector := r.n.follow(ctx, r.pod.Metadata.Name, "otelcol")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the main's output:\n%s\nthe collector's output:\n%s", r.main.output(), collector.output())
		}
	})
	r.awaitMain(t, fmt.Sprintf("otlpsend: acked %d", acked))
	return r
}

// lossNamespace is a variant's namespace: one the webhook injects in, in
// the variant's mode; none for the bare control.
func lossNamespace(t *testing.T, variant string) *namespace {
	t.Helper()
	if variant == "bare" {
		return newNamespace(t)
	}
	return injectingNamespace(t, variant)
}

func (r lossRun) awaitMain(t *testing.T, text string) {
	t.Helper()
	if !r.main.await(kit.Program("main", text), 2*time.Minute) {
		t.Fatalf("the main never said %q:\n%s", text, r.main.output())
	}
}

// kill SIGKILLs the program of container c (pidOf) and returns how many
// records had been acknowledged then.
func (r lossRun) kill(t *testing.T, variant, c, comm string) int {
	t.Helper()
	return r.killPID(t, r.pidOf(t, variant, c, comm), c)
}

// pidOf is the program of container c: its PID 1 in the bare variant,
// else the child of its tandem (whose PID 1 that is) named comm.
func (r lossRun) pidOf(t *testing.T, variant, c, comm string) int {
	t.Helper()
	p := r.n.waitPod("job-name="+r.name, jobBound, func(pod) bool { return true })
	cs, ok := p.container(c)
	if !ok || !cs.running() {
		t.Fatalf("container %s not running: %+v", c, cs)
	}
	pid := containerPID(t, cs.ContainerID)
	if variant != "bare" && comm != "" {
		pid = childNamed(t, pid, comm)
	}
	return pid
}

// killPID SIGKILLs pid, the program of container c, and returns how many
// records had been acknowledged then.
func (r lossRun) killPID(t *testing.T, pid int, c string) int {
	t.Helper()
	if err := unix.Kill(pid, unix.SIGKILL); err != nil {
		t.Fatalf("kill -KILL %d (%s): %v", pid, c, err)
	}
	return len(readNumbers(t, r.dir, "acked"))
}

// awaitDraining returns once the main has written that it drains (its
// SIGTERM came), read on the node: the container's log comes seconds late
// on a loaded node, after a main that drains for 5 s may have ended.
func (r lossRun) awaitDraining(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for len(readNumbers(t, r.dir, "draining")) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the main never said it drains:\n%s", r.main.output())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// childNamed is the child of pid whose command is comm. A child is listed
// under the thread that started it: every thread of a Go program may.
func childNamed(t *testing.T, pid int, comm string) int {
	t.Helper()
	lists, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var all []string
	for _, list := range lists {
		children, _ := os.ReadFile(list)
		all = append(all, strings.Fields(string(children))...)
	}
	for _, f := range all {
		name, _ := os.ReadFile("/proc/" + f + "/comm")
		if strings.TrimSpace(string(name)) == comm {
			child, _ := strconv.Atoi(f)
			return child
		}
	}
	t.Fatalf("no child %s of pid %d (children: %v)", comm, pid, all)
	return 0
}
