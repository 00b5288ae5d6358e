//go:build k8s

package k8s

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
	"github.com/tandem-sh/tandem/internal/yamlnode"
)

// plainJobToInject is a Job as written without tandem: a main that talks to a
// proxy once (no retry), and the proxy, which never stops on its own. Its
// startupProbe is the start order: a postStart hook in classic mode, the
// kubelet's own in native mode. (The kubelet probes the pod's IP, so the
// proxy listens on every address.) As it is, the Job never completes.
const plainJobToInject = `apiVersion: batch/v1
kind: Job
metadata:
  name: plain-export
spec:
  backoffLimit: 0
  template:
    metadata:
      annotations:
        tandem.sh/sidecars: proxy
        # The test image sets no STOPSIGNAL: stated, it needs no lookup
        # and no "SIGTERM assumed" warning.
        tandem.sh/stop-signal.proxy: TERM
    spec:
      restartPolicy: Never
      containers:
        - name: export
          image: ` + testImage + `
          imagePullPolicy: Never
          command: [/usr/local/bin/standin, send, --name, pg_dump, "127.0.0.1:5432", COPY orders TO STDOUT]
        - name: proxy
          image: ` + testImage + `
          imagePullPolicy: Never
          command: [/usr/local/bin/standin, serve, --name, proxy, --tcp, "0.0.0.0:5432"]
          startupProbe:
            tcpSocket: {port: 5432}
            periodSeconds: 1
            failureThreshold: 60
`

// `tandemctl inject … | kubectl apply -f -` on the plain Job, in each mode:
// the Job completes, nobody touched a command line.
func TestJobInjectedFromPlain(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"classic", "native"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "native" {
				requireNativeSidecars(t)
			}
			t.Parallel()
			n := newNamespace(t)
			injected := tandemctlInject(t, mode, plainJobToInject)
			checkInjectedShape(t, mode, injected)
			start := n.applyRaw(injected)
			took := n.mustComplete("plain-export", start, nativeBound)
			p := n.onlyPod("plain-export")
			logs := n.podLogs(p)
			exportStatus, _ := p.container("export")
			if code, ended := exportStatus.exitCode(); !ended || code != 0 {
				t.Errorf("export: ended %v with %d; want 0", ended, code)
			}
			kit.MustFind(t, logs, kit.Program("proxy", `received "COPY orders TO STDOUT"`))
			proxy, _ := p.container("proxy")
			proxyCode, _ := proxy.exitCode()
			// In both modes tandem stops the proxy once the export is done
			// (in native mode, before the kubelet's SIGTERM would come):
			// a requested stop, which ends with 0.
			kit.AssertOrder(t, logs, kit.Tandem("export", "cmd-exited"), kit.Tandem("proxy", "done-seen"), kit.Tandem("proxy", "exiting"))
			kit.SidecarGap(t, logs, "export", "proxy", sidecarStopBound)
			if proxyCode != 0 {
				t.Errorf("proxy: exit code %d; want 0 (a requested stop)", proxyCode)
			}
			// Never started again: a classic container of a Never pod is
			// not, and a native one waits for the kubelet's stop, so the
			// kubelet never finds it ended before the export.
			if proxy.RestartCount != 0 {
				t.Errorf("proxy: restartCount %d; want 0", proxy.RestartCount)
			}
			t.Logf("tandemctl inject --mode %s of a plain Job: apply → Complete in %s; proxy exit code %d, restartCount %d",
				mode, took.Round(100*time.Millisecond), proxyCode, proxy.RestartCount)
		})
	}
}

// On a release without native sidecars, `tandemctl inject --mode native`
// with a kubeconfig refuses, naming the API server's release, and writes
// nothing; offline (no kubeconfig: the manifests may be for another
// cluster) it writes the native sidecar, and the API server refuses it as
// it is applied (a container has no restartPolicy there): no Job is made,
// so none waits for ever on a sidecar run as a plain init container.
func TestJobInjectedNativeRefusedWithoutNativeSidecars(t *testing.T) {
	t.Parallel()
	requireCluster(t)
	if serverMinor >= nativeSidecarsSince {
		t.Skipf("Kubernetes %s has native sidecars: TestJobInjectedFromPlain/native plays the same Job", serverVersion)
	}
	n := newNamespace(t)
	ctx, cancel := contextFor(kubectlTimeout)
	defer cancel()
	out, _, err := kit.Tool{Bin: tandemctlBin()}.Run(ctx, []byte(plainJobToInject),
		"inject", "--resolve", "none", "--image", tandemImage, "--mode", "native", "--kubeconfig", os.Getenv("KUBECONFIG"), "-")
	want := "--mode native: the API server is " + serverVersion + ", before v1.29 (native sidecars off by default); use --mode classic, or --mode auto"
	if err == nil || !strings.Contains(err.Error(), want) || out != "" {
		t.Errorf("tandemctl inject --mode native --kubeconfig on %s: %v, wrote %d bytes; want refused with %q, nothing written",
			serverVersion, err, len(out), want)
	}

	// Offline: no kubeconfig, from the flag or the environment.
	offline := exec.CommandContext(ctx, tandemctlBin(), "inject", "--resolve", "none", "--image", tandemImage, "--mode", "native", "-")
	offline.Env = append(os.Environ(), "KUBECONFIG=", "TANDEMCTL_KUBECONFIG=")
	offline.Stdin = strings.NewReader(plainJobToInject)
	injected, err := offline.Output()
	if err != nil {
		t.Fatalf("tandemctl inject --mode native, offline: %v", err)
	}
	if _, err := n.try(injected, "apply", "-f", "-"); err == nil || !strings.Contains(err.Error(), "restartPolicy") {
		t.Fatalf("kubectl apply of the offline native-mode Job on %s: %v; want it refused for its unknown restartPolicy", serverVersion, err)
	} else {
		t.Logf("Kubernetes %s refuses the offline native-mode Job: %v", serverVersion, err)
	}
	if jobs := n.run(nil, "get", "jobs", "-o", "name"); strings.TrimSpace(jobs) != "" {
		t.Errorf("jobs made all the same: %s", jobs)
	}
}

// tandemctlInject injects the plain Job in mode.
func tandemctlInject(t *testing.T, mode, manifest string) []byte {
	t.Helper()
	injected, report := injectManifest(t, []byte(manifest), "--mode", mode)
	if want := "job/plain-export: injected (mains: export; sidecars: proxy)\n"; report != want {
		t.Errorf("tandemctl's report: %q; want %q", report, want)
	}
	return injected
}

// checkInjectedShape asserts how each mode wraps the proxy: a classic
// container or an init container with restartPolicy Always, both under
// `tandem sidecar`.
func checkInjectedShape(t *testing.T, mode string, injected []byte) {
	t.Helper()
	ctx, cancel := contextFor(kubectlTimeout)
	defer cancel()
	asJSON, err := kubectl(ctx, injected, "create", "--dry-run=client", "--validate=false", "-o", "json", "-f", "-")
	if err != nil {
		t.Fatalf("tandemctl's output:\n%s\n%v", injected, err)
	}
	m := kit.Parse(t, "tandemctl's output", []byte(asJSON))
	inInit := m.IsInit("proxy")
	cmd := m.List("proxy", "command")
	restartPolicy := yamlnode.ScalarAt(m.Container("proxy"), "restartPolicy")
	want := "sidecar"
	if mode == "native" {
		if !inInit || restartPolicy != "Always" {
			t.Errorf("native mode: proxy in initContainers %v, restartPolicy %v; want an init container with restartPolicy Always", inInit, restartPolicy)
		}
	} else if inInit {
		t.Error("classic mode: the proxy became an init container")
	}
	if len(cmd) < 2 || cmd[0] != "/run/tandem/tandem" || cmd[1] != want || !slices.Contains(cmd, "--") {
		t.Errorf("%s mode: proxy command %q; want /run/tandem/tandem %s … --", mode, cmd, want)
	}
}
