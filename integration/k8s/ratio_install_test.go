//go:build k8s && k8sbench

package k8s

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// startRounds is how many times each pod is started, in turns.
const startRounds = 6

// proxyProbe is the proxy's startupProbe in the shape that has one: in
// native mode it orders the start, in classic mode inject turns it into
// the proxy's start hook.
const proxyProbe = `
      startupProbe:
        tcpSocket: {port: 5432}
        periodSeconds: 1
        failureThreshold: 60`

// startPod is a pod as written without tandem: a main whose first
// instruction prints the time (standin now) and a proxy, a sidecar by
// annotation. PROBE is replaced by the shape's probe, NAME by each
// round's name.
const startPod = `apiVersion: v1
kind: Pod
metadata:
  name: NAME
  annotations:
    tandem.sh/sidecars: proxy
    tandem.sh/stop-signal.proxy: TERM
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  containers:
    - name: main
      image: ` + testImage + `
      imagePullPolicy: Never
      command: [/usr/local/bin/standin, now]
    - name: proxy
      image: ` + testImage + `
      imagePullPolicy: Never
      command: [/usr/local/bin/standin, serve, --name, proxy, --tcp, "0.0.0.0:5432"]PROBE
`

// startWaiting is the plain pod in the start order classic injection gives
// a proxy with a readiness: the proxy first, the main's command waiting
// for it with the shell loop such pods use (every 0.1 s, not the usual
// 1 s: the stricter reference).
const startWaiting = `apiVersion: v1
kind: Pod
metadata:
  name: NAME
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  containers:
    - name: proxy
      image: ` + testImage + `
      imagePullPolicy: Never
      command: [/usr/local/bin/standin, serve, --name, proxy, --tcp, "0.0.0.0:5432"]PROBE
    - name: main
      image: ` + testImage + `
      imagePullPolicy: Never
      command: [sh, -c, "until nc 127.0.0.1 5432 -e true 2>/dev/null; do sleep 0.1; done; exec standin now"]
`

// startNative is startPod with the proxy a bare native sidecar (an init
// container with restartPolicy Always), no tandem.
const startNative = `apiVersion: v1
kind: Pod
metadata:
  name: NAME
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  initContainers:
    - name: proxy
      image: ` + testImage + `
      imagePullPolicy: Never
      restartPolicy: Always
      command: [/usr/local/bin/standin, serve, --name, proxy, --tcp, "0.0.0.0:5432"]PROBE
  containers:
    - name: main
      image: ` + testImage + `
      imagePullPolicy: Never
      command: [/usr/local/bin/standin, now]
`

// startShape is one shape of the proxy: with its startupProbe or none.
type startShape struct {
	name  string
	probe string
}

// The pods started, in the order of each turn's first round: the plain
// pods, then each mode's injections, each followed by the install
// designs tried (installDesigns). The image-volume ones only where the
// cluster mounts image volumes; plain-waiting only for a proxy with a
// readiness, whose classic injection holds the main until it answers.
func startKinds(shape startShape, imageVolumes bool) []string {
	kinds := []string{"plain"}
	if shape.probe != "" {
		kinds = append(kinds, "plain-waiting")
	}
	for _, mode := range []string{"classic", "native"} {
		if mode == "native" {
			kinds = append(kinds, "native-bare")
		}
		kinds = append(kinds, mode+"-init-copy")
		if imageVolumes {
			kinds = append(kinds, mode+"-image-volume")
		}
		for _, d := range installDesigns {
			if slices.Contains(d.modes, mode) {
				kinds = append(kinds, mode+"-"+d.name)
			}
		}
	}
	return kinds
}

// The time from a pod's creation (kubectl apply, run by the test) to its
// main's first instruction, for the same pod as written, injected with
// init-copy and with image-volume (where the cluster mounts them) and the
// install designs tried, in classic and native mode, with the proxy's
// startupProbe: each pod started in turns, one at a time, startRounds
// times. Prints the medians, the ratios and each step's median; asserts
// only that every main started and printed.
func TestRatioStartByInstall(t *testing.T) {
	startByInstall(t, startShape{name: "the proxy with a TCP startupProbe", probe: proxyProbe})
}

// TestRatioStartByInstall with a proxy without probe: nothing but the
// kubelet's own order holds the main.
func TestRatioStartByInstallNoProbe(t *testing.T) {
	startByInstall(t, startShape{name: "the proxy without probe"})
}

func startByInstall(t *testing.T, shape startShape) {
	requireNativeSidecars(t)
	n := newNamespace(t)
	mounts, _ := clusterMountsImages(t)
	kinds := startKinds(shape, mounts)
	manifests := startManifests(t, shape, kinds)
	load := loadAverage()
	took := map[string][]startTimeline{}
	for round := range startRounds {
		// Each round starts with another kind: none is always first.
		for i := range kinds {
			kind := kinds[(round+i)%len(kinds)]
			name := fmt.Sprintf("%s-%d", kind, round)
			time.Sleep(relistPhase(round))
			took[kind] = append(took[kind], n.startToMain(name, strings.Replace(manifests[kind], "name: NAME", "name: "+name, 1)))
		}
	}
	t.Logf("%s, Kubernetes %s: creation (kubectl apply) → main's first instruction, %d rounds in turns, round r created r/%[3]d s after the previous pod was gone; load average %s at the start, %s at the end",
		shape.name, serverVersion, startRounds, load, loadAverage())
	firsts := map[string]time.Duration{}
	for _, kind := range kinds {
		firsts[kind] = medianOf(took[kind], eventFirstInstruction)
	}
	for _, kind := range kinds {
		t.Logf("%-28s median %5s: %s  %v", kind, firsts[kind].Round(10*time.Millisecond), startRatios(kind, firsts), rounded(firstInstructions(took[kind])))
	}
	t.Logf("each step's median, in seconds from the apply (the runtime's log, %s):\n%s", runtimeLog(), stepTable(kinds, took))
}

// relistPhase is how long after the previous pod is gone round's pods are
// created. The kubelet lists its pods every second and acts on what a list
// shows, and the previous pod is gone just after one such list, so pods
// created at once would all start at the same point of that second, the
// one that favours the pods of fewest passes (the bare ones). Each
// kind is created once at each sixth of the second instead, as pods are
// created at any point of it on a cluster. A chosen offset, not a wait
// for an event: there is none to wait for.
func relistPhase(round int) time.Duration {
	return time.Duration(round) * time.Second / startRounds
}

// startManifests are the pods of kinds, NAME still to replace.
func startManifests(t *testing.T, shape startShape, kinds []string) map[string]string {
	withProbe := func(m string) string { return strings.Replace(m, "PROBE", shape.probe, 1) }
	manifests := map[string]string{"plain": withProbe(startPod), "plain-waiting": withProbe(startWaiting), "native-bare": withProbe(startNative)}
	for _, kind := range kinds {
		if _, written := manifests[kind]; written {
			continue
		}
		mode, install, _ := strings.Cut(kind, "-")
		design, tried := designNamed(install)
		if tried {
			install = "init-copy"
		}
		out, _ := injectManifest(t, []byte(withProbe(startPod)), "--mode", mode, "--install", install)
		if tried {
			out = design.apply(t, out)
		}
		manifests[kind] = string(out)
	}
	return manifests
}

// startRatios is kind's median against the plain pod of the same start
// order, and a native one against the bare native sidecar's.
func startRatios(kind string, firsts map[string]time.Duration) string {
	ratio := func(of string) string {
		return fmt.Sprintf("%.2f× %s", firsts[kind].Seconds()/firsts[of].Seconds(), of)
	}
	out := ratio("plain")
	if _, waits := firsts["plain-waiting"]; waits && strings.HasPrefix(kind, "classic") {
		out += ", " + ratio("plain-waiting")
	}
	if strings.HasPrefix(kind, "native") {
		out += ", " + ratio("native-bare")
	}
	return out
}

// loadAverage is the machine's 1-minute load average, as the figures'
// context.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Fields(string(data))[0]
}

// startToMain applies pod manifest name and returns its start's timeline:
// the time from the apply to its main's first instruction (the time it
// printed) and to each step the runtime logged; then deletes the pod and
// waits until it is gone: the next pod starts alone.
func (n *namespace) startToMain(name, manifest string) startTimeline {
	n.t.Helper()
	start := n.applyRaw([]byte(manifest))
	var ended pod
	err := watch(n, time.Minute, func(p pod) bool {
		main, _ := p.container("main")
		_, done := main.exitCode()
		ended = p
		return done
	}, "pod", name)
	if err != nil {
		n.t.Fatalf("pod %s: its main did not end: %v", name, err)
	}
	logs := n.run(nil, "logs", name, "-c", "main")
	defer n.run(nil, "delete", "pod", name)
	for _, line := range strings.Split(logs, "\n") {
		if at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(line)); err == nil {
			timeline := runtimeSteps(n.t, ended, start)
			timeline[eventFirstInstruction] = at.Sub(start)
			return timeline
		}
	}
	n.t.Fatalf("pod %s: its main printed no time:\n%s", name, logs)
	return nil
}
