package main

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/kube/inject"
)

// clusterOn is a one-node cluster of the API server and kubelet at k8s,
// on runtime.
func clusterOn(k8s string, runtimes ...string) inject.ClusterVersions {
	v := inject.ClusterVersions{APIServer: k8s, Kubelets: map[string]string{}, Runtimes: map[string]string{}}
	for i, r := range runtimes {
		name := "n" + string(rune('1'+i))
		v.Kubelets[name], v.Runtimes[name] = k8s, r
	}
	return v
}

// imageVolumeWritten is the tandem image as an image volume, as inject
// writes it.
const imageVolumeWritten = `
      - name: tandem-bin
        image:
          reference: localhost/tandem:test
          pullPolicy: IfNotPresent
`

// installedBy says how out installs tandem, failing t on a mix.
func installedBy(t *testing.T, out string) inject.Install {
	t.Helper()
	volume, copyInit := strings.Contains(out, imageVolumeWritten), strings.Contains(out, "name: tandem-install")
	bin, copied := strings.Contains(out, "- /run/tandem-bin/tandem\n"), strings.Contains(out, "- /run/tandem/tandem\n")
	switch {
	case volume && bin && !copyInit && !copied:
		return inject.ImageVolume
	case copyInit && copied && !volume && !bin:
		return inject.InitCopy
	}
	t.Fatalf("neither install whole: image volume %v, runs /run/tandem-bin/tandem %v, tandem-install %v, runs /run/tandem/tandem %v:\n%s",
		volume, bin, copyInit, copied, out)
	return ""
}

// --install auto picks image-volume where the API server, the kubelets
// and every runtime allow it, init-copy elsewhere, and says which and why
// before the report lines.
func TestInjectInstallAuto(t *testing.T) {
	for _, tt := range []struct {
		name    string
		cluster inject.ClusterVersions
		line    string
		install inject.Install
	}{
		{"containerd 2.1.0", clusterOn("v1.35.0", "containerd://2.1.0"),
			"tandemctl: --install auto: image-volume: the API server (v1.35.0) and every node's kubelet are at v1.35 or later, and every node's runtime mounts image volumes (1 node)\n", inject.ImageVolume},
		{"cri-o 1.31", clusterOn("v1.36.0", "cri-o://1.31.1"), "tandemctl: --install auto: image-volume: ", inject.ImageVolume},
		{"containerd 1.7", clusterOn("v1.35.0", "containerd://1.7.27"),
			"tandemctl: --install auto: init-copy: node n1's runtime is containerd://1.7.27, which mounts no image volumes (containerd 2.1+ or CRI-O 1.31+)\n", inject.InitCopy},
		{"a mixed cluster", clusterOn("v1.37.2", "containerd://2.4.2", "containerd://1.7.27"),
			"tandemctl: --install auto: init-copy: node n2's runtime is containerd://1.7.27", inject.InitCopy},
		{"API server 1.34", clusterOn("v1.34.1", "containerd://2.1.0"),
			"tandemctl: --install auto: init-copy: the API server is v1.34.1, before v1.35 (image volumes off by default)\n", inject.InitCopy},
	} {
		withCluster(t, tt.cluster, nil)
		out, stderr, code := run(t, plainJob, "inject", "--install", "auto", "--resolve", "none", "--image", testImage, "--kubeconfig", "/k")
		if code != 0 || !strings.HasPrefix(stderr, tt.line) {
			t.Errorf("%s: exit %d, stderr %q; want 0, starting %q", tt.name, code, stderr, tt.line)
		}
		if got := installedBy(t, out); got != tt.install {
			t.Errorf("%s: installed by %s; want %s", tt.name, got, tt.install)
		}
	}
}

// Offline (no kubeconfig: the manifests may be for any cluster) --install
// auto reads nothing and is init-copy, and says so; --install
// image-volume is written as asked, from the environment too.
func TestInjectInstallOffline(t *testing.T) {
	reads := withCluster(t, clusterOn("v1.37.2", "containerd://2.4.2"), nil)
	t.Setenv("KUBECONFIG", "")
	t.Setenv("TANDEMCTL_KUBECONFIG", "")
	out, stderr, code := run(t, plainJob, "inject", "--install", "auto", "--resolve", "none", "--image", testImage)
	want := "tandemctl: --install auto: init-copy: offline (no --kubeconfig, TANDEMCTL_KUBECONFIG or KUBECONFIG): the nodes' runtimes are not read, and init-copy works on every cluster\n"
	if code != 0 || !strings.HasPrefix(stderr, want) || *reads != 0 || installedBy(t, out) != inject.InitCopy {
		t.Errorf("exit %d, stderr %q, %d reads; want 0, starting %q, none", code, stderr, *reads, want)
	}
	t.Setenv("TANDEMCTL_INSTALL", "image-volume")
	out, stderr, code = run(t, plainJob, "inject", "--resolve", "none", "--image", testImage)
	if code != 0 || *reads != 0 || installedBy(t, out) != inject.ImageVolume || strings.Contains(stderr, "--install") {
		t.Errorf("TANDEMCTL_INSTALL=image-volume: exit %d, stderr %q, %d reads; want 0, image-volume, nothing said, none", code, stderr, *reads)
	}
}

// With a kubeconfig, --install image-volume on a cluster that cannot
// mount image volumes is refused: exit 2, the reason, nothing written.
func TestInjectInstallImageVolumeChecked(t *testing.T) {
	withCluster(t, clusterOn("v1.37.2", "containerd://1.6.20"), nil)
	out, stderr, code := run(t, plainJob, "inject", "--install", "image-volume", "--resolve", "none", "--image", testImage, "--kubeconfig", "/k")
	want := "tandemctl: --install image-volume: node n1's runtime is containerd://1.6.20, which mounts no image volumes (containerd 2.1+ or CRI-O 1.31+); use --install init-copy, or --install auto\n"
	if code != 2 || out != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, out, stderr, want)
	}
}

// A value that is no install is exit 2, naming it and the expected ones.
func TestInjectInstallBadValue(t *testing.T) {
	for _, args := range [][]string{{"inject", "--install", "volume"}, {"webhook", "--install", "volume"}} {
		out, stderr, code := run(t, plainJob, append(args, "--resolve", "none", "--image", testImage)...)
		want := `tandemctl: --install "volume": expected image-volume, init-copy or auto`
		if code != 2 || out != "" || !strings.HasPrefix(stderr, want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2, nothing, %q", args[0], code, out, stderr, want)
		}
	}
}

// The webhook settles its install at start: image-volume on a cluster
// without image volumes is refused (exit 2); auto logs the choice and its
// reason (event install).
func TestWebhookInstall(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	webhook := func(install string) (string, int) {
		// The taken metrics port ends the webhook once it has started.
		_, stderr, code := run(t, "", "webhook", "--kubeconfig", writeKubeconfig(t, "http://127.0.0.1:1"), "--resolve", "none",
			"--image", testImage, "--install", install, "--listen", "127.0.0.1:0", "--cert-dir", t.TempDir(), "--shutdown-delay", "0s",
			"--metrics-listen", ln.Addr().String())
		return stderr, code
	}
	withCluster(t, clusterOn("v1.34.0", "containerd://2.1.0"), nil)
	if stderr, code := webhook("image-volume"); code != 2 || !strings.Contains(stderr, "--install image-volume: the API server is v1.34.0, before v1.35") {
		t.Errorf("image-volume on a 1.34 cluster: exit %d, stderr %q; want 2 and the reason", code, stderr)
	}
	withCluster(t, clusterOn("v1.37.2", "containerd://2.4.2"), nil)
	stderr, _ := webhook("auto")
	if !strings.Contains(stderr, `"event":"install","install":"image-volume","reason":"all-with-image-volumes"`) {
		t.Errorf("auto on a 1.37 cluster on containerd 2.4.2: stderr %q; want the install line, image-volume, with its reason", stderr)
	}
}

// onInstallChange reports a choice only when it changed: a node on an
// older runtime joining makes it init-copy, its leaving image-volume.
func TestRefreshInstall(t *testing.T) {
	modern, mixed := clusterOn("v1.37.2", "containerd://2.4.2"), clusterOn("v1.37.2", "containerd://2.4.2", "containerd://1.7.27")
	reads := []inject.ClusterVersions{modern, mixed, mixed, modern}
	var mu sync.Mutex
	saved := clusterVersions
	clusterVersions = func(context.Context, string) (inject.ClusterVersions, error) {
		mu.Lock()
		defer mu.Unlock()
		if len(reads) == 0 {
			return modern, nil
		}
		v := reads[0]
		reads = reads[1:]
		return v, nil
	}
	t.Cleanup(func() { clusterVersions = saved })
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	t.Cleanup(func() { cancel(); <-stopped })
	changes := make(chan inject.Install, 10)
	go func() {
		defer close(stopped)
		refreshCluster(ctx, time.Millisecond, "", onInstallChange(inject.ChooseInstall(modern),
			func(c inject.InstallChoice) { changes <- c.Install }), func(err error) { t.Error(err) })
	}()
	for _, want := range []inject.Install{inject.InitCopy, inject.ImageVolume} {
		select {
		case got := <-changes:
			if got != want {
				t.Fatalf("change to %s; want %s", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no change to %s", want)
		}
	}
	select {
	case got := <-changes:
		t.Errorf("a change to %s with nothing changed", got)
	case <-time.After(50 * time.Millisecond):
	}
}
