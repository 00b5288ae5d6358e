//go:build k8s

package k8s

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// imageVolumesSince is the first minor release whose API server and
// kubelet mount image volumes by default (the ImageVolume gate: beta and
// on in 1.35, GA in 1.36).
const imageVolumesSince = 35

// `tandemctl inject --install image-volume` of the plain Job, in each
// mode: no tandem-install init container, tandem run from the tandem
// image mounted read-only at /run/tandem-bin, and the Job completes as
// with init-copy. Where the cluster cannot mount image volumes, the test
// skips after asserting that --install auto picks init-copy there.
func TestInstallImageVolume(t *testing.T) {
	t.Parallel()
	requireImageVolumes(t)
	for _, mode := range []string{"classic", "native"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "native" {
				requireNativeSidecars(t)
			}
			t.Parallel()
			n := newNamespace(t)
			injected, report := injectManifest(t, []byte(plainJobToInject), "--mode", mode, "--install", "image-volume")
			if want := "job/plain-export: injected (mains: export; sidecars: proxy)\n"; report != want {
				t.Errorf("tandemctl's report: %q; want %q", report, want)
			}
			checkImageVolumeShape(t, injected)
			start := n.applyRaw(injected)
			took := n.mustComplete("plain-export", start, nativeBound)
			p := n.onlyPod("plain-export")
			for _, c := range append(p.Spec.InitContainers, p.Spec.Containers...) {
				if c.Name == "tandem-install" {
					t.Error("the pod has a tandem-install container")
				}
			}
			if _, ran := p.container("tandem-install"); ran {
				t.Error("a tandem-install container ran")
			}
			for _, name := range []string{"export", "proxy"} {
				status, _ := p.container(name)
				if code, ended := status.exitCode(); !ended || code != 0 {
					t.Errorf("%s: ended %v with %d; want 0", name, ended, code)
				}
			}
			logs := n.podLogs(p)
			kit.MustFind(t, logs, kit.Program("proxy", `received "COPY orders TO STDOUT"`))
			kit.AssertOrder(t, logs, kit.Tandem("export", "cmd-exited"), kit.Tandem("proxy", "done-seen"), kit.Tandem("proxy", "exiting"))
			t.Logf("--mode %s --install image-volume: apply → Complete in %s, no tandem-install", mode, took.Round(100*time.Millisecond))
		})
	}
}

// requireImageVolumes asserts what --install auto picks on this cluster,
// against the test's own reading of its versions, and skips t, naming
// them, where image volumes cannot be mounted.
func requireImageVolumes(t *testing.T) {
	t.Helper()
	requireCluster(t)
	mounts, runtimes := clusterMountsImages(t)
	want := "init-copy"
	if mounts {
		want = "image-volume"
	}
	_, report := injectManifest(t, []byte(plainJobToInject), "--install", "auto", "--kubeconfig", os.Getenv("KUBECONFIG"))
	if prefix := "tandemctl: --install auto: " + want + ": "; !strings.HasPrefix(report, prefix) {
		t.Fatalf("--install auto on Kubernetes %s, runtimes %v: %q; want it to start %q", serverVersion, runtimes, report, prefix)
	}
	if !mounts {
		t.Skipf("Kubernetes %s on %v mounts no image volumes (1.%d+ on containerd 2.1+ or CRI-O 1.31+); --install auto picks init-copy there: %s",
			serverVersion, runtimes, imageVolumesSince, strings.SplitN(report, "\n", 2)[0])
	}
}

// clusterMountsImages is the test's own reading of the cluster: can every
// node mount image volumes? It returns the nodes' runtimes too.
func clusterMountsImages(t *testing.T) (bool, []string) {
	t.Helper()
	ctx, cancel := contextFor(kubectlTimeout)
	defer cancel()
	out, err := kubectl(ctx, nil, "get", "nodes", "-o", "jsonpath={.items[*].status.nodeInfo.containerRuntimeVersion}")
	if err != nil {
		t.Fatal(err)
	}
	runtimes := strings.Fields(out)
	mounts := serverMinor >= imageVolumesSince && len(runtimes) > 0
	for _, r := range runtimes {
		mounts = mounts && runtimeMountsImages(r)
	}
	return mounts, runtimes
}

// runtimeMountsImages reads a node's runtime (containerd://2.4.2): is it
// containerd 2.1+ or CRI-O 1.31+?
func runtimeMountsImages(runtime string) bool {
	name, version, _ := strings.Cut(runtime, "://")
	parts := strings.SplitN(strings.TrimPrefix(version, "v"), ".", 3)
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	switch name {
	case "containerd":
		return major > 2 || major == 2 && minor >= 1
	case "cri-o":
		return major > 1 || major == 1 && minor >= 31
	}
	return false
}

// checkImageVolumeShape asserts what --install image-volume writes: the
// tandem image as a volume, mounted read-only at /run/tandem-bin in both
// containers beside the tandem emptyDir, tandem run from there, and no
// tandem-install.
func checkImageVolumeShape(t *testing.T, injected []byte) {
	t.Helper()
	m := kit.Parse(t, "tandemctl's output", injected)
	text := string(injected)
	for _, want := range []string{
		"- name: tandem-bin\n          image:\n            reference: " + tandemImage + "\n            pullPolicy: IfNotPresent\n",
		"- name: tandem\n          emptyDir: {}\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the injected Job has not %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "tandem-install") {
		t.Errorf("the injected Job has a tandem-install container:\n%s", text)
	}
	for _, name := range []string{"export", "proxy"} {
		if cmd := m.List(name, "command"); len(cmd) == 0 || cmd[0] != "/run/tandem-bin/tandem" {
			t.Errorf("%s's command %q; want /run/tandem-bin/tandem …", name, cmd)
		}
	}
}
