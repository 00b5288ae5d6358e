//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// startRegistry runs Debian's docker-registry (distribution) on 127.0.0.1
// at a free port, with its own storage, until the test ends, and returns
// its HOST:PORT. Without the binary the test skips, unless
// TANDEM_E2E_REQUIRED is set (CI installs it).
func startRegistry(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("docker-registry")
	if err != nil {
		if os.Getenv("TANDEM_E2E_REQUIRED") != "" {
			t.Fatal("TANDEM_E2E_REQUIRED is set, but docker-registry is not in PATH (.ci/run installs it)")
		}
		t.Skip("docker-registry not in PATH (apt-get install docker-registry)")
	}
	return kit.StartLoopbackRegistry(t, bin)
}

// pushImage builds an image FROM scratch with containerfile's
// instructions and pushes it to the registry as ref; the local copy is
// removed.
func pushImage(t *testing.T, ref, instructions string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "marker"), []byte("tandemctl e2e\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	containerfile := "FROM scratch\nCOPY marker /marker\n" + instructions
	if err := os.WriteFile(filepath.Join(dir, "Containerfile"), []byte(containerfile), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := podmanBuild(ref, filepath.Join(dir, "Containerfile"), dir); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = exec.Command("podman", "rmi", ref).Run() }()
	if out, err := exec.Command("podman", "push", "--quiet", "--tls-verify=false", ref).CombinedOutput(); err != nil {
		t.Fatalf("podman push %s: %v\n%s", ref, err, out)
	}
}

// registryPod names its images (export, proxy) and none of their commands.
const registryPod = `apiVersion: v1
kind: Pod
metadata:
  name: export
  annotations:
    tandem.sh/sidecars: cloud-sql-proxy
spec:
  restartPolicy: Never
  containers:
    - name: export
      image: %s
      # Podman does not wait for postStart hooks: the export retries.
      args:
        - until standin send --name pg_dump 127.0.0.1:5432 'COPY orders TO STDOUT'; do sleep 0.1; done
    - name: cloud-sql-proxy
      image: %s
`

// A Pod whose containers say no command: tandemctl reads their images'
// ENTRYPOINT, CMD and STOPSIGNAL from a real registry over plain HTTP,
// merges them as Kubernetes does (the proxy: ENTRYPOINT + CMD; the export:
// ENTRYPOINT + the manifest's args), and the pod, played with those
// programs, completes.
func TestInjectResolvesFromRegistry(t *testing.T) {
	requirePodman(t)
	registry := startRegistry(t)
	proxyImage := registry + "/tandem-e2e/proxy:test"
	exportImage := registry + "/tandem-e2e/export:test"
	pushImage(t, proxyImage, `ENTRYPOINT ["standin", "serve", "--name", "cloud-sql-proxy"]
CMD ["--tcp", "127.0.0.1:5432"]
STOPSIGNAL SIGINT
`)
	pushImage(t, exportImage, `ENTRYPOINT ["sh", "-c"]
CMD ["echo the CMD that args replace; exit 3"]
`)
	manifest := fmt.Sprintf(registryPod, exportImage, proxyImage)

	// The images are for this machine's platform only.
	out, report, code := tandemctlWith(t, manifest, "inject", "--image", tandemImage, "--insecure-registry", registry, "--platform", "linux/arm64", "-")
	if code != 1 || out != manifest || !strings.Contains(report, "no image for platform linux/arm64 (image ") ||
		!strings.Contains(report, " is for linux/"+runtime.GOARCH+"): set --platform to the nodes' platform, or") {
		t.Errorf("--platform linux/arm64: exit %d, report %q; want exit 1, the pod unchanged, both platforms named", code, report)
	}

	// go-containerregistry speaks plain HTTP to 127.0.0.1 by itself; the
	// flag is for other hosts, and must not get in the way.
	out, report, code = tandemctlWith(t, manifest, "inject", "--image", tandemImage, "--insecure-registry", registry, "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, report)
	}
	if want := "pod/export: injected (mains: export; sidecars: cloud-sql-proxy)\n"; report != want {
		t.Errorf("report %q; want %q", report, want)
	}
	p := manifestPod(t, "a Pod injected from the registry", []byte(out), "e2e-inject-registry")
	for ctr, want := range map[string][]string{
		"cloud-sql-proxy": {"standin", "serve", "--name", "cloud-sql-proxy", "--tcp", "127.0.0.1:5432"},
		"export":          {"sh", "-c", "until standin send --name pg_dump 127.0.0.1:5432 'COPY orders TO STDOUT'; do sleep 0.1; done"},
	} {
		if got := p.List(ctr, "args"); strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("%s args %q; want %q", ctr, got, want)
		}
	}
	if got := strings.Join(p.List("cloud-sql-proxy", "command"), " "); !strings.Contains(got, "--termination-signal INT --") {
		t.Errorf("proxy command %q; want --termination-signal INT from the image's STOPSIGNAL", got)
	}
	_, logs := playJob(t, p, map[string]int{"tandem-install": 0, "export": 0, "cloud-sql-proxy": 0})
	kit.AssertPresent(t, logs, kit.Program("cloud-sql-proxy", `received "COPY orders TO STDOUT"`))
}
