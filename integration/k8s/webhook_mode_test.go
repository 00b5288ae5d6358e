//go:build k8s

package k8s

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// The webhook settles --mode native against the cluster it serves, as a
// platform team starts it with its kubeconfig: on a release before native
// sidecars it refuses to start (exit 2, the API server's release named),
// so no pod is ever given sidecars the API server drops; from v1.29 it
// starts in native mode.
func TestWebhookModeNativeAsTheCluster(t *testing.T) {
	t.Parallel()
	requireCluster(t)
	ctx, cancel := contextFor(kubectlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, tandemctlBin(), "webhook", "--kubeconfig", os.Getenv("KUBECONFIG"),
		"--resolve", "none", "--image", tandemImage, "--mode", "native", "--listen", "127.0.0.1:0",
		"--metrics-listen", "", "--cert-dir", t.TempDir(), "--shutdown-delay", "0s")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	scanner := bufio.NewScanner(stderr)
	for scanner.Scan() {
		line := scanner.Text()
		lines = append(lines, line)
		if strings.Contains(line, `"event":"mode"`) {
			// Started: stop it as its Deployment would.
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	code := 0
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	}
	said := strings.Join(lines, "\n")
	if serverMinor < nativeSidecarsSince {
		want := "--mode native: the API server is " + serverVersion + ", before v1.29 (native sidecars off by default); use --mode classic, or --mode auto"
		if code != 2 || !strings.Contains(said, want) || strings.Contains(said, `"event":"mode"`) {
			t.Fatalf("tandemctl webhook --mode native on %s: exit %d, said:\n%s\nwant exit 2 and %q before it starts", serverVersion, code, said, want)
		}
		return
	}
	if !strings.Contains(said, `"event":"mode","mode":"native"`) {
		t.Fatalf("tandemctl webhook --mode native on %s: exit %d, said:\n%s\nwant it started in native mode", serverVersion, code, said)
	}
}
