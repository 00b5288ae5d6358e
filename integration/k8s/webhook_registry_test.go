//go:build k8s

package k8s

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// The registry the webhook reads image configs from: Debian's
// docker-registry on the node's address, which pods reach. Plain HTTP
// (--insecure-registry). The kubelet does not pull from it: the same image
// is imported into containerd under the same name (imagePullPolicy: Never).
const (
	registryHost = nodeIP + ":5077"
	// appImage's ENTRYPOINT is a main's whole program: a container that
	// names no command gets it from the registry through the webhook.
	appImage = registryHost + "/tandem-k8s/app:test"
)

// startNodeRegistry runs the registry until the test ends and pushes
// appImage into it.
func startNodeRegistry(t *testing.T) {
	t.Helper()
	kit.StartRegistry(t, "docker-registry", registryHost)
	// FROM the tools image, with an ENTRYPOINT that is a main's work and
	// exits 0; no RUN.
	work := t.TempDir()
	containerfile := fmt.Sprintf("FROM %s\nENTRYPOINT [\"sh\", \"-c\", \"echo work from the image entrypoint; sleep 1\"]\n", testImage)
	if err := os.WriteFile(filepath.Join(work, "Containerfile"), []byte(containerfile), 0o644); err != nil {
		t.Fatal(err)
	}
	imp := exec.Command(filepath.Join(repoRoot, "integration", "k8s", "import-image.sh"), appImage, filepath.Join(work, "Containerfile"), work)
	if out, err := imp.CombinedOutput(); err != nil {
		t.Fatalf("import %s: %v: %s", appImage, err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	push := exec.CommandContext(ctx, "flock", "/tmp/podman.lock", "podman", "push", "--quiet", "--tls-verify=false", appImage)
	if out, err := push.CombinedOutput(); err != nil {
		t.Fatalf("push %s: %v: %s", appImage, err, out)
	}
}

// pullSecret gives n the secret the tests' pods name in imagePullSecrets,
// which the webhook reads (through its pull-secret keychain) to ask the registry.
func (n *namespace) pullSecret() {
	n.t.Helper()
	n.run(nil, "create", "secret", "docker-registry", "regcred", "--docker-server="+registryHost,
		"--docker-username=tandem", "--docker-password=test")
}
