package integration

import (
	"context"
	"slices"
	"strings"
	"syscall"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tandem-sh/tandem/kube/inject"
)

// A native sidecar through the main's drain, played by the two command
// lines `tandemctl inject --mode native` writes for a Job's main and its
// collector (inject's library, as tandemctl calls it), the shared
// /run/tandem a directory of the test's. The kubelet signals the mains
// first on a deletion and restarts no container of a pod being deleted:
// a collector whose program exits while the main drains is started again
// by its tandem, which then stops it as requested once the main is done,
// and exits 0 on the kubelet's stop that follows.
func TestNativeSidecarRestartedWhileMainDrains(t *testing.T) {
	t.Parallel()
	job := nativeDrainJob(t)
	main, collector := job.start(t)
	first := waitReadyPID(t, job.collectorOut)

	main.signal(syscall.SIGTERM) // the kubelet's, on the Job's deletion: the main alone
	waitLines(t, job.mainOut, 2) // the main's program drains
	waitInDir(t, job.mark, "the main's termination mark", func() bool { return fileExists(job.mark) })
	mustDo(t, syscall.Kill(first, syscall.SIGKILL))
	collector.waitEvent("restarting")
	second, ok := parsePIDLine(waitLines(t, job.collectorOut, 2)[1], "ready")
	if !ok {
		t.Fatalf("the collector's program did not start again: %q", readLines(job.collectorOut))
	}

	mustDo(t, syscall.Kill(main.childPID(), syscall.SIGUSR1)) // the drain ends: the main exits 0
	if code := main.wait(); code != 0 {
		t.Fatalf("the main's tandem exited %d; want 0", code)
	}
	collector.waitEvent("awaiting-stop")
	collector.signal(syscall.SIGTERM) // the kubelet's, once it has seen the main end
	collector.scWantExit(0, "stopped")
	collector.scWantOrder("cmd-started", "restarting", "cmd-started", "done-seen", "stop-sent", "cmd-exited", "awaiting-stop", "exiting")
	t.Logf("collector's program %d SIGKILLed while the main drained, started again as %d, stopped as requested once the main was done", first, second)
}

// The control outside a deletion: the same crash with no termination mark
// (the main runs on, unsignalled) ends the collector's tandem with its
// program's code, so the kubelet restarts the container and counts it.
func TestNativeSidecarCrashOutsideDeletionKeepsCode(t *testing.T) {
	t.Parallel()
	job := nativeDrainJob(t)
	main, collector := job.start(t)
	first := waitReadyPID(t, job.collectorOut)

	mustDo(t, syscall.Kill(first, syscall.SIGKILL))
	if code := collector.wait(); code != 137 {
		t.Fatalf("the collector's tandem exited %d; want its program's 137 (SIGKILL)", code)
	}
	if collector.hasEvent("restarting") {
		t.Fatal("the collector's tandem restarted its program outside a deletion: that is the kubelet's")
	}
	main.signal(syscall.SIGUSR1) // forwarded: the main's program exits 0
	if code := main.wait(); code != 0 {
		t.Fatalf("the main's tandem exited %d; want 0", code)
	}
}

// nativeDrain is a Job's main and collector as native mode writes them,
// the programs the test's helpers: the main records its signals, drains
// on SIGTERM and exits 0 on SIGUSR1; the collector exits 0 on SIGTERM.
type nativeDrain struct {
	main, collector       []string // tandem's argv, without the binary
	mainOut, collectorOut string   // what each program wrote
	mark                  string   // where the main marks its termination
}

// start starts the main's tandem, then the collector's, and returns once
// the main's program runs. That program takes every signal: it would
// outlive its tandem killed at a failed test's end, and hold its output
// (the harness's Wait) open, so it is killed first.
func (d nativeDrain) start(t *testing.T) (main, collector *tandemProc) {
	t.Helper()
	main = startTandem(t, procOptions{}, d.main...)
	collector = startTandem(t, procOptions{}, d.collector...)
	program := waitReadyPID(t, d.mainOut)
	t.Cleanup(func() { _ = syscall.Kill(program, syscall.SIGKILL) })
	return main, collector
}

func nativeDrainJob(t *testing.T) nativeDrain {
	t.Helper()
	dir := tempDir(t)
	d := nativeDrain{mainOut: inDir(dir, "main.out"), collectorOut: inDir(dir, "collector.out"),
		mark: inDir(dir, "main.done.terminating")}
	src := `apiVersion: batch/v1
kind: Job
metadata: {name: export}
spec:
  template:
    metadata:
      annotations: {tandem.sh/sidecars: collector}
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: example.com/export:1
        command: [` + quoteAll(helper("record-signals", d.mainOut, "10", "0")) + `]
      - name: collector
        image: example.com/collector:1
        command: [` + quoteAll(helper("record-signals", d.collectorOut, "15", "0")) + `]
`
	var doc yaml.Node
	mustDo(t, yaml.Unmarshal([]byte(src), &doc))
	opts := inject.Options{Mode: inject.Native, Image: "tandem:test", Version: "test"}
	if r := inject.Resource(context.Background(), doc.Content[0], opts); r.Status != inject.Injected {
		t.Fatalf("inject --mode native: %+v", r)
	}
	var out struct {
		Spec struct {
			Template struct {
				Spec struct {
					InitContainers []nativeDrainContainer `yaml:"initContainers"`
					Containers     []nativeDrainContainer
				}
			}
		}
	}
	mustDo(t, doc.Content[0].Decode(&out))
	for _, c := range append(out.Spec.Template.Spec.InitContainers, out.Spec.Template.Spec.Containers...) {
		argv := onHost(append(c.Command, c.Args...), dir)
		switch c.Name {
		case "main":
			d.main = argv
		case "collector":
			if c.RestartPolicy != "Always" {
				t.Fatalf("the collector is not a native sidecar: restartPolicy %q", c.RestartPolicy)
			}
			d.collector = argv
		}
	}
	if d.main == nil || d.collector == nil {
		t.Fatalf("inject wrote no main or no collector: %+v", out.Spec.Template.Spec)
	}
	t.Logf("main: %q\ncollector: %q", d.main, d.collector)
	return d
}

// nativeDrainContainer is what the test reads of a container inject wrote.
type nativeDrainContainer struct {
	Name          string
	Command, Args []string
	RestartPolicy string `yaml:"restartPolicy"`
}

// onHost is argv as written for the pod, its tandem the binary under test
// (startTandem's) and /run/tandem the test's dir.
func onHost(argv []string, dir string) []string {
	bin := inject.MountPath + "/tandem"
	if len(argv) == 0 || argv[0] != bin {
		return nil
	}
	out := slices.Clone(argv[1:])
	for i, a := range out {
		out[i] = strings.ReplaceAll(a, inject.MountPath+"/", dir+"/")
	}
	return out
}

// quoteAll is argv as a YAML flow sequence's items.
func quoteAll(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = `"` + a + `"`
	}
	return strings.Join(q, ", ")
}
