//go:build e2e

package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

var (
	tandemctlOnce sync.Once
	tandemctlPath string
	tandemctlErr  error
)

// tandemctlBinary is $TANDEMCTL_BIN (make e2e), else bin/tandemctl from
// `make build`, else one built for this run.
func tandemctlBinary(t *testing.T) string {
	t.Helper()
	tandemctlOnce.Do(func() {
		if bin := os.Getenv("TANDEMCTL_BIN"); bin != "" {
			tandemctlPath = bin
			return
		}
		if bin := filepath.Join(repoRoot, "bin", "tandemctl"); isStaticELF(bin) {
			tandemctlPath = bin
			return
		}
		dir, err := os.MkdirTemp("", "tandemctl-e2e-")
		if err != nil {
			tandemctlErr = err
			return
		}
		tandemctlPath = filepath.Join(dir, "tandemctl")
		build := exec.Command("go", "build", "-trimpath", "-o", tandemctlPath, "./cmd/tandemctl")
		build.Dir = repoRoot
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			tandemctlErr = errors.New("build tandemctl: " + err.Error() + "\n" + string(out))
		}
	})
	if tandemctlErr != nil {
		t.Fatal(tandemctlErr)
	}
	return tandemctlPath
}

// tandemctl runs the binary and fails the test unless it exits 0.
func tandemctl(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	stdout, stderr, code := tandemctlWith(t, "", args...)
	if code != 0 {
		t.Fatalf("tandemctl %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	return stdout, stderr
}

// tandemctlWith runs the binary with stdin and returns its exit code.
func tandemctlWith(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(tandemctlBinary(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("tandemctl %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// inject is what the built tandemctl writes for a plain manifest, as users
// run it: `tandemctl inject --resolve none --image IMAGE -`.
func inject(t *testing.T, plain string) []byte {
	t.Helper()
	out, stderr, code := tandemctlWith(t, plain, "inject", "--resolve", "none", "--image", tandemImage, "-")
	if code != 0 {
		t.Fatalf("tandemctl inject: exit %d\n%s", code, stderr)
	}
	return []byte(out)
}

// The plain export Job of examples/inject, injected by the built
// tandemctl and played: the proxy is stopped once the export is done, so
// the pod (the Job) completes, with nobody having written a tandem command
// line. Without tandemctl the same pod never ends (see
// TestControlClassicJobNeverCompletes).
func TestInjectedJobCompletes(t *testing.T) {
	requirePodman(t)
	out, report := tandemctl(t, "inject", "--resolve", "none", "--image", tandemImage,
		filepath.Join(repoRoot, "examples", "inject", "job-plain.yaml"))
	// --resolve none reads no STOPSIGNAL, but the proxy's preset states
	// it: the report names the preset and assumes nothing.
	if want := "job/orders-export: injected (mains: export; sidecars: cloud-sql-proxy (preset cloud-sql-proxy))\n"; report != want {
		t.Errorf("report %q; want %q", report, want)
	}
	// It is the example, but for the image and version given here.
	golden, err := os.ReadFile(filepath.Join(repoRoot, "examples", "inject", "job-injected.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	versionOut, _ := tandemctl(t, "version")
	version := strings.TrimPrefix(strings.SplitN(versionOut, "\n", 2)[0], "tandemctl ")
	want := strings.Replace(string(golden), "image: ghcr.io/tandem-sh/tandem:latest", "image: "+tandemImage, 1)
	want = strings.Replace(want, `tandem.sh/injected: "latest"`, `tandem.sh/injected: "`+version+`"`, 1)
	if out != want {
		t.Fatalf("bin/tandemctl wrote something else than examples/inject/job-injected.yaml:\n%s", out)
	}

	p := manifestPod(t, "inject/job-injected.yaml", []byte(out), "e2e-inject-job")
	p.Args("cloud-sql-proxy", "standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432", "--listen-after", "500ms")
	// Podman 4.3 does not hold the next container on a postStart hook (seen:
	// the export dialled before the proxy listened), so the export may start
	// before the proxy listens (a kubelet holds it until the hook's
	// `tandem wait` returned): here it retries.
	p.Args("export", "sh", "-c", "until standin send --name pg_dump 127.0.0.1:5432 'COPY orders TO STDOUT'; do sleep 0.1; done")
	_, logs := playJob(t, p, map[string]int{"tandem-install": 0, "export": 0, "cloud-sql-proxy": 0})
	kit.AssertOrder(t, logs,
		kit.Tandem("export", "cmd-started"),
		kit.Tandem("export", "cmd-exited"),
		kit.Tandem("cloud-sql-proxy", "done-seen"),
		kit.Tandem("cloud-sql-proxy", "exiting"),
	)
	kit.SidecarGap(t, logs, "export", "cloud-sql-proxy", sidecarStopBound)
	kit.AssertPresent(t, logs, kit.Program("cloud-sql-proxy", `received "COPY orders TO STDOUT"`))
}
