package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tandem-sh/tandem/kube/inject"
)

// gracePod is a Job's pod with a 10 s grace period, a main and two
// sidecars, fb (3 s for its stop) declared before vec (5 s).
const gracePod = `apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    tandem.sh/sidecars: fb,vec
    tandem.sh/sidecar-grace.fb: 3s
    tandem.sh/sidecar-grace.vec: 5s
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 10
  containers:
  - {name: m, image: app:1, command: [/m]}
  - {name: fb, image: app:1, command: [/fb]}
  - {name: vec, image: app:1, command: [/vec]}
`

// The grace split inject writes, played with the written command lines
// (classic mode): the pod is deleted while its main and both sidecars'
// programs ignore SIGTERM, so each uses all its time; the kubelet's
// SIGTERM reaches every container at once. The main is killed after its
// --termination-grace, then vec, the last declared, is stopped and killed
// after its --grace, then fb: each sidecar's stop signal comes before the
// kubelet's SIGKILL at the end of the 10 s period.
func TestWrittenGraceSplitPlayed(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	argv := injectedArgv(t, gracePod, dir)
	procs := map[string]*tandemProc{}
	for _, name := range []string{"fb", "vec", "m"} {
		procs[name] = startTandem(t, procOptions{}, cmdArgs(argv[name], helper("ignore-term", inDir(dir, name+".out")))...)
		// Its program ignores SIGTERM once it says it is ready.
		waitReadyPID(t, inDir(dir, name+".out"))
	}
	for _, name := range []string{"m", "fb", "vec"} {
		procs[name].signal(syscall.SIGTERM)
	}
	for _, name := range []string{"m", "vec", "fb"} {
		procs[name].wait()
	}
	const period = 10 * time.Second
	start := procs["m"].waitEvent("termination-grace")
	timeline := []string{"main killed " + logGap(start, procs["m"].waitEvent("kill-sent")).String()}
	var last time.Duration
	for _, name := range []string{"vec", "fb"} {
		stop := logGap(start, procs[name].waitEvent("stop-sent"))
		timeline = append(timeline, fmt.Sprintf("%s stop signal %s", name, stop))
		if stop >= period {
			t.Errorf("%s got its stop signal %s after the pod's: not before the kubelet's SIGKILL at %s", name, stop, period)
		}
		if stop < last {
			t.Errorf("%s got its stop signal %s after the pod's, before vec's (%s), the sidecar declared after it", name, stop, last)
		}
		last = stop
	}
	t.Logf("after the pod's SIGTERM: %s", strings.Join(timeline, "; "))
}

// injectedArgv injects pod in classic mode and returns each container's
// tandem arguments, after the binary and before the program, its files
// in dir.
func injectedArgv(t *testing.T, pod, dir string) map[string][]string {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(pod), &doc); err != nil {
		t.Fatal(err)
	}
	r := inject.Resource(context.Background(), doc.Content[0], inject.Options{Mode: inject.Classic, Install: inject.InitCopy,
		Image: "ghcr.io/tandem-sh/tandem:v1.0.0", Version: "v1.0.0"})
	if r.Status != inject.Injected {
		t.Fatalf("inject: %s", r)
	}
	var out struct {
		Spec struct {
			Containers []struct {
				Name    string
				Command []string
			}
		}
	}
	if err := doc.Content[0].Decode(&out); err != nil {
		t.Fatal(err)
	}
	argv := map[string][]string{}
	for _, c := range out.Spec.Containers {
		end := slices.Index(c.Command, "--")
		if end < 1 {
			t.Fatalf("container %s: command %q", c.Name, c.Command)
		}
		for _, arg := range c.Command[1:end] {
			argv[c.Name] = append(argv[c.Name], strings.ReplaceAll(arg, inject.MountPath+"/", dir+"/"))
		}
	}
	return argv
}
