package main

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/kube/inject"
)

// withCluster makes the cluster's versions those given (or err), and
// counts the reads.
func withCluster(t *testing.T, v inject.ClusterVersions, err error) *int {
	t.Helper()
	reads := 0
	saved := clusterVersions
	clusterVersions = func(context.Context, string) (inject.ClusterVersions, error) {
		reads++
		return v, err
	}
	t.Cleanup(func() { clusterVersions = saved })
	return &reads
}

var (
	newCluster = inject.ClusterVersions{APIServer: "v1.32.2", Kubelets: map[string]string{"n1": "v1.32.2"}}
	oldCluster = inject.ClusterVersions{APIServer: "v1.32.2", Kubelets: map[string]string{"n1": "v1.32.2", "n2": "v1.28.4"}}
)

// --mode auto picks native on a cluster where every version allows it,
// classic elsewhere, and says which and why before the report lines.
func TestInjectModeAuto(t *testing.T) {
	for _, tt := range []struct {
		cluster inject.ClusterVersions
		line    string
		native  bool
	}{
		{newCluster, "tandemctl: --mode auto: native: the API server (v1.32.2) and every node's kubelet (1 node) are at v1.29 or later\n", true},
		{oldCluster, "tandemctl: --mode auto: classic: node n2's kubelet is v1.28.4, before v1.29 (native sidecars off by default)\n", false},
	} {
		withCluster(t, tt.cluster, nil)
		out, stderr, code := run(t, plainJob, "inject", "--mode", "auto", "--resolve", "none", "--image", "localhost/tandem:test", "--kubeconfig", "/k")
		if code != 0 || !strings.HasPrefix(stderr, tt.line) {
			t.Errorf("exit %d, stderr %q; want 0, starting %q", code, stderr, tt.line)
		}
		if got := strings.Contains(out, "restartPolicy: Always"); got != tt.native {
			t.Errorf("native sidecar written: %v; want %v\n%s", got, tt.native, out)
		}
	}
}

// --mode native with a kubeconfig is refused on a cluster older than
// native sidecars: exit 2, the reason, nothing written. Without one,
// inject stays offline and reads nothing.
func TestInjectModeNativeChecked(t *testing.T) {
	reads := withCluster(t, oldCluster, nil)
	out, stderr, code := run(t, plainJob, "inject", "--mode", "native", "--resolve", "none", "--image", "localhost/tandem:test", "--kubeconfig", "/k")
	want := "tandemctl: --mode native: node n2's kubelet is v1.28.4, before v1.29 (native sidecars off by default); use --mode classic, or --mode auto\n"
	if code != 2 || out != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, out, stderr, want)
	}
	t.Setenv("KUBECONFIG", "")
	t.Setenv("TANDEMCTL_KUBECONFIG", "")
	*reads = 0
	if _, stderr, code := run(t, plainJob, "inject", "--mode", "native", "--resolve", "none", "--image", "localhost/tandem:test"); code != 0 || *reads != 0 {
		t.Errorf("without a kubeconfig: exit %d (%s), %d reads; want 0, none", code, stderr, *reads)
	}
}

// --mode auto with no cluster to read, or one that does not answer, is
// classic, which works on every cluster, as --install auto is init-copy;
// the line says why. A kubeconfig that reaches nothing is exit 2.
func TestInjectModeAutoUnread(t *testing.T) {
	real := clusterVersions
	reads := withCluster(t, inject.ClusterVersions{}, errors.New("dial tcp 127.0.0.1:6443: connection refused"))
	t.Setenv("KUBECONFIG", "")
	t.Setenv("TANDEMCTL_KUBECONFIG", "")
	args := []string{"inject", "--mode", "auto", "--install", "auto", "--resolve", "none", "--image", testImage}
	for _, tt := range []struct {
		kubeconfig []string
		mode       string
	}{
		{nil, "tandemctl: --mode auto: classic: offline (no --kubeconfig, TANDEMCTL_KUBECONFIG or KUBECONFIG): the kubelets' versions are not read, and classic works on every cluster\n"},
		{[]string{"--kubeconfig", "/k"}, "tandemctl: --mode auto: classic: the cluster did not answer (--mode auto reads the API server's and the nodes' versions: dial tcp 127.0.0.1:6443: connection refused): the kubelets' versions are not read, and classic works on every cluster\n"},
	} {
		out, stderr, code := run(t, plainJob, append(append(slices.Clone(args[:1]), tt.kubeconfig...), args[1:]...)...)
		if code != 0 || !strings.HasPrefix(stderr, tt.mode) || !strings.Contains(stderr, "tandemctl: --install auto: init-copy: ") ||
			strings.Contains(out, "restartPolicy: Always") || installedBy(t, out) != inject.InitCopy {
			t.Errorf("%q: exit %d, stderr %q; want 0, classic and init-copy, the mode's line %q\n%s", tt.kubeconfig, code, stderr, tt.mode, out)
		}
	}
	if *reads != 2 {
		t.Errorf("%d reads; want 2 (one for each auto, online only)", *reads)
	}
	clusterVersions = real // withCluster's cleanup puts it back too
	missing := filepath.Join(t.TempDir(), "missing")
	out, stderr, code := run(t, plainJob, "inject", "--mode", "auto", "--kubeconfig", missing, "--resolve", "none", "--image", testImage)
	if code != 2 || out != "" || !strings.Contains(stderr, "no such file") {
		t.Errorf("a missing kubeconfig: exit %d, stdout %q, stderr %q; want 2, nothing, the cause", code, out, stderr)
	}
}

// --mode native checked against a cluster whose nodes cannot be read is
// judged by its API server; from TANDEMCTL_MODE, a refusal names it.
func TestInjectModeNativeAPIServerAlone(t *testing.T) {
	withCluster(t, inject.ClusterVersions{APIServer: "v1.30.2"}, errors.New("the nodes' kubelet versions (list nodes): forbidden"))
	args := []string{"inject", "--resolve", "none", "--image", testImage, "--kubeconfig", "/k"}
	if out, stderr, code := run(t, plainJob, append(args, "--mode", "native")...); code != 0 || !strings.Contains(out, "restartPolicy: Always") {
		t.Errorf("a 1.30 API server, nodes unread: exit %d, stderr %q; want 0, native", code, stderr)
	}
	withCluster(t, inject.ClusterVersions{APIServer: "v1.27.16"}, nil)
	t.Setenv("TANDEMCTL_MODE", "native")
	out, stderr, code := run(t, plainJob, args...)
	want := "tandemctl: TANDEMCTL_MODE native: the API server is v1.27.16, before v1.29 (native sidecars off by default); use --mode classic, or --mode auto\n"
	if code != 2 || out != "" || stderr != want {
		t.Errorf("TANDEMCTL_MODE=native on 1.27: exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, out, stderr, want)
	}
}

// The webhook settles its mode at start: --mode native on a cluster older
// than native sidecars is refused with the reason (exit 2); --mode auto
// logs the choice and its reason (event mode).
func TestWebhookMode(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	webhook := func(mode string) (string, int) {
		// The taken metrics port ends the webhook once it has started.
		_, stderr, code := run(t, "", "webhook", "--kubeconfig", writeKubeconfig(t, "http://127.0.0.1:1"), "--resolve", "none",
			"--image", testImage, "--mode", mode, "--listen", "127.0.0.1:0", "--cert-dir", t.TempDir(), "--shutdown-delay", "0s",
			"--metrics-listen", ln.Addr().String())
		return stderr, code
	}
	withCluster(t, oldCluster, nil)
	if stderr, code := webhook("native"); code != 2 || !strings.Contains(stderr, "--mode native: node n2's kubelet is v1.28.4, before v1.29") {
		t.Errorf("native on an old cluster: exit %d, stderr %q; want 2 and the reason", code, stderr)
	}
	stderr, _ := webhook("auto")
	if !strings.Contains(stderr, `"event":"mode","mode":"classic","reason":"kubelet-before-1.29"`) {
		t.Errorf("auto on an old cluster: stderr %q; want the mode line, classic, with its reason", stderr)
	}
}

// refreshCluster reads the cluster again each interval; onModeChange
// reports a choice only when it changed; a failed read keeps the mode and
// is reported.
func TestRefreshMode(t *testing.T) {
	var mu sync.Mutex
	reads := []inject.ClusterVersions{newCluster, {}, oldCluster, oldCluster, newCluster}
	saved := clusterVersions
	clusterVersions = func(context.Context, string) (inject.ClusterVersions, error) {
		mu.Lock()
		defer mu.Unlock()
		if len(reads) == 0 {
			return newCluster, nil
		}
		v := reads[0]
		reads = reads[1:]
		if v.APIServer == "" {
			return v, errors.New("connection refused")
		}
		return v, nil
	}
	t.Cleanup(func() { clusterVersions = saved })
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	// Before clusterVersions is put back (cleanups run last first): the
	// loop must be gone, not still reading it.
	t.Cleanup(func() { cancel(); <-stopped })
	changes := make(chan inject.Mode, 10)
	failures := make(chan error, 10)
	go func() {
		defer close(stopped)
		refreshCluster(ctx, time.Millisecond, "", onModeChange(inject.ChooseMode(newCluster),
			func(c inject.ModeChoice) { changes <- c.Mode }), func(err error) { failures <- err })
	}()
	for _, want := range []inject.Mode{inject.Classic, inject.Native} {
		select {
		case got := <-changes:
			if got != want {
				t.Fatalf("change to %s; want %s", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no change to %s", want)
		}
	}
	if len(failures) != 1 {
		t.Errorf("%d failed reads reported; want 1", len(failures))
	}
	select {
	case got := <-changes:
		t.Errorf("a change to %s with nothing changed", got)
	case <-time.After(50 * time.Millisecond):
	}
}
