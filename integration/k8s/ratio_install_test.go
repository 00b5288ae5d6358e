//go:build k8s && k8sbench

package k8s

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// startRounds is how many times each pod is started, in turns.
const startRounds = 8

// startPod is a pod as written without tandem: a main whose first
// instruction prints the time (standin now) and a proxy, a sidecar by
// annotation, whose startupProbe orders the start in native mode. NAME is
// replaced by each round's name.
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
      command: [/usr/local/bin/standin, serve, --name, proxy, --tcp, "0.0.0.0:5432"]
      startupProbe:
        tcpSocket: {port: 5432}
        periodSeconds: 1
        failureThreshold: 60
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
      command: [/usr/local/bin/standin, serve, --name, proxy, --tcp, "0.0.0.0:5432"]
      startupProbe:
        tcpSocket: {port: 5432}
        periodSeconds: 1
        failureThreshold: 60
  containers:
    - name: main
      image: ` + testImage + `
      imagePullPolicy: Never
      command: [/usr/local/bin/standin, now]
`

// The pods started, in the order of each turn's first round.
var startKinds = []string{"plain", "classic-init-copy", "classic-image-volume", "native-bare", "native-init-copy", "native-image-volume"}

// The time from a pod's creation (kubectl apply, run by the test) to its
// main's first instruction, for the same pod as written, injected with
// init-copy and with image-volume, in classic and native mode: each pod
// started in turns, one at a time, startRounds times. Prints the medians
// and the ratios; asserts only that every main started and printed.
func TestRatioStartByInstall(t *testing.T) {
	requireNativeSidecars(t)
	requireImageVolumes(t)
	n := newNamespace(t)
	manifests := map[string]string{"plain": startPod, "native-bare": startNative}
	for _, kind := range startKinds {
		if _, written := manifests[kind]; !written {
			mode, install, _ := strings.Cut(kind, "-")
			out, _ := injectManifest(t, []byte(startPod), "--mode", mode, "--install", install)
			manifests[kind] = string(out)
		}
	}
	load := loadAverage()
	took := map[string][]time.Duration{}
	for round := range startRounds {
		// Each round starts with another kind: none is always first.
		for i := range startKinds {
			kind := startKinds[(round+i)%len(startKinds)]
			name := fmt.Sprintf("%s-%d", kind, round)
			took[kind] = append(took[kind], n.startToMain(name, strings.Replace(manifests[kind], "name: NAME", "name: "+name, 1)))
		}
	}
	t.Logf("creation (kubectl apply) → main's first instruction, %d rounds in turns; load average %s at the start, %s at the end",
		startRounds, load, loadAverage())
	plain, bare := median(took["plain"]), median(took["native-bare"])
	for _, kind := range startKinds {
		m := median(took[kind])
		vsBare := ""
		if strings.HasPrefix(kind, "native") {
			vsBare = fmt.Sprintf(", %.2f× native-bare", m.Seconds()/bare.Seconds())
		}
		t.Logf("%-20s median %5s: %.2f× plain%s  %v", kind, m.Round(10*time.Millisecond), m.Seconds()/plain.Seconds(), vsBare, rounded(took[kind]))
	}
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

// startToMain applies pod manifest name and returns the time from the
// apply to its main's first instruction (the time it printed), then
// deletes the pod and waits until it is gone: the next pod starts alone.
func (n *namespace) startToMain(name, manifest string) time.Duration {
	n.t.Helper()
	start := n.applyRaw([]byte(manifest))
	err := watch(n, time.Minute, func(p pod) bool {
		main, _ := p.container("main")
		_, ended := main.exitCode()
		return ended
	}, "pod", name)
	if err != nil {
		n.t.Fatalf("pod %s: its main did not end: %v", name, err)
	}
	logs := n.run(nil, "logs", name, "-c", "main")
	defer n.run(nil, "delete", "pod", name)
	for _, line := range strings.Split(logs, "\n") {
		if at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(line)); err == nil {
			return at.Sub(start)
		}
	}
	n.t.Fatalf("pod %s: its main printed no time:\n%s", name, logs)
	return 0
}
