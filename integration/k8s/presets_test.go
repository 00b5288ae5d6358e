//go:build k8s

package k8s

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// The real cloud-sql-proxy, built from its Go module at the release the
// preset was read at, in an image of its real repository name: the
// webhook knows it by that name alone.

const (
	cloudSQLProxyModule  = "github.com/GoogleCloudPlatform/cloud-sql-proxy/v2@v2.25.3"
	cloudSQLProxyImage   = "localhost/cloud-sql-connectors/cloud-sql-proxy:2.25.3"
	cloudSQLProxyTimeout = 20 * time.Minute // a first build downloads the module's dependencies
)

var cloudSQLProxyBuild = sync.OnceValue(buildCloudSQLProxyImage)

// buildCloudSQLProxyImage builds the proxy (static, as its own release is)
// and imports it FROM scratch, as its distroless image holds it.
func buildCloudSQLProxyImage() error {
	work, err := os.MkdirTemp("", "tandem-cloud-sql-proxy-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	ctx, cancel := context.WithTimeout(context.Background(), cloudSQLProxyTimeout)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "install", "-trimpath", "-ldflags", "-s -w", cloudSQLProxyModule)
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOBIN="+work)
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go install %s: %v: %s", cloudSQLProxyModule, err, out)
	}
	containerfile := "FROM scratch\nCOPY cloud-sql-proxy /cloud-sql-proxy\nUSER 65532\nENTRYPOINT [\"/cloud-sql-proxy\"]\n"
	if err := os.WriteFile(filepath.Join(work, "Containerfile"), []byte(containerfile), 0o644); err != nil {
		return err
	}
	imp := exec.CommandContext(ctx, filepath.Join(repoRoot, "integration", "k8s", "import-image.sh"), cloudSQLProxyImage, filepath.Join(work, "Containerfile"), work)
	if out, err := imp.CombinedOutput(); err != nil {
		return fmt.Errorf("import %s: %v: %s", cloudSQLProxyImage, err, out)
	}
	return nil
}

// presetJob is a Job with no tandem annotation: an export and the real
// proxy, started offline (a static token, an explicit port: it asks the
// Cloud SQL API nothing before it serves) with its health checks and its
// quit endpoint, exactly as its users start it.
func presetJob(t *testing.T, name, export string) *kit.Manifest {
	t.Helper()
	proxy := map[string]any{
		"name": "cloud-sql-proxy", "image": cloudSQLProxyImage, "imagePullPolicy": "Never",
		"command": []any{"/cloud-sql-proxy"},
		"args":    []any{"--token", "offline", "--port", "5432", "--health-check", "--quitquitquit", "my-project:europe-west1:orders"},
	}
	return ownJob(t, name, map[string]any{
		"terminationGracePeriodSeconds": 30,
		"containers":                    []any{ctr("export", "sh", "-c", export), proxy},
	})
}

// presetNamespace is a namespace the webhook injects in, with the proxy's
// image imported.
func presetNamespace(t *testing.T) *namespace {
	t.Helper()
	n := admittingNamespace(t)
	if err := cloudSQLProxyBuild(); err != nil {
		t.Fatal(err)
	}
	return n
}

// The preset alone: injected, the export started once the proxy's own
// /startup answered, the proxy asked to quit on its admin port when the
// export was done (exit 0), the Job Complete.
func TestPresetCloudSQLProxyJobCompletes(t *testing.T) {
	n := presetNamespace(t)
	pj := playJob(t, n, presetJob(t, "preset-export",
		"tandem wait --for tcp:127.0.0.1:5432 --timeout 10s && echo export reached the proxy"))
	spec, _ := pj.pod.spec("cloud-sql-proxy")
	if !strings.Contains(strings.Join(spec.Command, " "), "--quit-url http://127.0.0.1:9091/quitquitquit") {
		t.Errorf("proxy command %v; want tandem sidecar --quit-url http://127.0.0.1:9091/quitquitquit", spec.Command)
	}
	pj.exitCodes(map[string]int{"export": 0, "cloud-sql-proxy": 0})
	kit.AssertOrder(t, pj.logs,
		kit.Tandem("cloud-sql-proxy", "ready-written"),
		kit.Tandem("export", "cmd-started"),
		kit.Program("export", "export reached the proxy"))
	// quit-called is logged once the call has its outcome: the proxy logs
	// the request and exits, often before its answer is out (then
	// answered false); both come after the export's end, in either order.
	kit.AssertOrder(t, pj.logs,
		kit.Tandem("export", "cmd-exited"),
		kit.Tandem("cloud-sql-proxy", "quit-called"))
	kit.AssertOrder(t, pj.logs,
		kit.Tandem("export", "cmd-exited"),
		kit.Program("cloud-sql-proxy", "/quitquitquit received request"))
	quit, _ := kit.Find(pj.logs, kit.Tandem("cloud-sql-proxy", "quit-called"))
	t.Logf("cloud-sql-proxy %s by its preset: ready from /startup, quit on /quitquitquit (%q, status %q), exit 0; apply → Complete in %s",
		cloudSQLProxyImage, quit.Text, quit.Field("status"), pj.took.Round(100*time.Millisecond))
}

// Essential by default: the proxy killed outright (its PID 1, from the
// node) stops the export, and the Job fails at once rather than run on.
func TestPresetCloudSQLProxyKilledJobFails(t *testing.T) {
	n := presetNamespace(t)
	const name = "preset-export-killed"
	m := presetJob(t, name, "echo export started; exec sleep 3600")
	n.apply(m)
	killed := sigkillProxy(t, n, name, kit.Program("export", "export started"))
	end, at, err := n.waitJob(name, needsBound)
	if err != nil || end != "Failed" {
		t.Fatalf("job %s: ended %q (%v) within %s of its proxy's kill; want Failed", name, end, err, needsBound)
	}
	logs := n.podLogs(n.onlyPod(name))
	kit.AssertPresent(t, logs, kit.Tandem("export", "sidecar-lost"))
	t.Logf("proxy SIGKILLed: the Job Failed %s after the kill", at.Sub(killed).Round(100*time.Millisecond))
}
