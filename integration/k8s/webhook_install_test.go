//go:build k8s

package k8s

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// The webhook as examples/webhook/ installs it, with the test's images:
// an overlay changes nothing else than what this cluster lacks.
const (
	tandemctlImage   = "localhost/tandem-k8s/tandemctl:test"
	webhookNamespace = "tandem-system"
	// nodeIP is where pods reach the API server (env.sh's NODE_IP).
	nodeIP = "10.244.77.1"
)

// webhookOverlay: the test images; the API at the node's address (no
// kube-proxy routes the kubernetes Service's ClusterIP); image configs
// read from the node's registry over plain HTTP.
const webhookOverlay = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - %s
images:
  - name: ghcr.io/tandem-sh/tandemctl
    newName: localhost/tandem-k8s/tandemctl
    newTag: test
patches:
  - patch: |
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: tandem-webhook
        namespace: tandem-system
      spec:
        template:
          spec:
            containers:
              - name: webhook
                imagePullPolicy: Never
                env:
                  - {name: KUBERNETES_SERVICE_HOST, value: "` + nodeIP + `"}
                  - {name: KUBERNETES_SERVICE_PORT, value: "6443"}
                  - {name: TANDEMCTL_IMAGE, value: "` + tandemImage + `"}
                  - {name: TANDEMCTL_INSECURE_REGISTRY, value: "` + registryHost + `"}
                  # The webhook's tests assert classic injection with the
                  # tandem-install copy; --mode auto and --install auto are
                  # proved on their own (TestModeAutoByRelease,
                  # TestHelmInstallUpgradeUninstall).
                  - {name: TANDEMCTL_MODE, value: classic}
                  - {name: TANDEMCTL_INSTALL, value: init-copy}
`

// installWebhook starts the node's registry for the test, and installs the
// webhook (webhookInstalled).
func installWebhook(t *testing.T) {
	t.Helper()
	requireCluster(t)
	startNodeRegistry(t)
	webhookInstalled(t)
}

// webhookInstalled installs the webhook, once a run: builds and imports
// the tandemctl image, applies the overlay, and waits until both replicas
// are ready and the caBundle is set. What it applied is removed at the end
// of the run by down.sh. The tests that use it share it: those that change
// it are not parallel, so they run one after the other, before the
// parallel ones (the loss tests, which install it before they turn
// parallel), which only have pods admitted.
func webhookInstalled(t *testing.T) {
	t.Helper()
	requireCluster(t)
	if err := installOnce(); err != nil {
		t.Fatal(err)
	}
}

var installOnce = sync.OnceValue(doInstallWebhook)

func doInstallWebhook() error {
	work, err := os.MkdirTemp("", "tandem-webhook-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := importTandemctlImage(work, tandemctlImage); err != nil {
		return err
	}
	overlay, err := writeWebhookOverlay(work)
	if err != nil {
		return err
	}
	return applyWebhook(overlay, webhookNamespace, "tandem")
}

// importTandemctlImage builds the tandemctl image of the binary under
// test (Dockerfile.tandemctl, its context staged in work) and imports it
// into the cluster's containerd as each of tags.
func importTandemctlImage(work string, tags ...string) error {
	ctx := filepath.Join(work, "image")
	if err := os.MkdirAll(filepath.Join(ctx, "bin"), 0o755); err != nil {
		return err
	}
	for src, dst := range map[string]string{tandemctlBin(): "tandemctl", "/etc/ssl/certs/ca-certificates.crt": "ca-certificates.crt"} {
		if _, _, err := (kit.Tool{Bin: "cp"}).Run(context.Background(), nil, src, filepath.Join(ctx, "bin", dst)); err != nil {
			return err
		}
	}
	importImage := kit.Tool{Bin: filepath.Join(repoRoot, "integration", "k8s", "import-image.sh")}
	for _, tag := range tags {
		if _, _, err := importImage.Run(context.Background(), nil, tag, filepath.Join(repoRoot, "Dockerfile.tandemctl"), ctx); err != nil {
			return fmt.Errorf("import the tandemctl image as %s: %w", tag, err)
		}
	}
	return nil
}

// writeWebhookOverlay writes webhookOverlay of examples/webhook/ into
// work/overlay and returns that directory.
func writeWebhookOverlay(work string) (string, error) {
	overlay := filepath.Join(work, "overlay")
	rel, _ := filepath.Rel(overlay, filepath.Join(repoRoot, "examples", "webhook"))
	if err := os.MkdirAll(overlay, 0o755); err != nil {
		return "", err
	}
	return overlay, os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(fmt.Sprintf(webhookOverlay, rel)), 0o644)
}

// applyWebhook applies the kustomization in dir, and waits until the
// installation it makes serves (waitWebhookServing).
func applyWebhook(dir, namespace, config string) error {
	c, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if _, err := kubectl(c, nil, "apply", "-k", dir); err != nil {
		return err
	}
	return waitWebhookServing(c, namespace, config)
}

// waitWebhookServing waits until the Deployment tandem-webhook of
// namespace has rolled out and the caBundle of the
// MutatingWebhookConfiguration config is set: from then on it admits.
func waitWebhookServing(c context.Context, namespace, config string) error {
	if out, err := kubectl(c, nil, "-n", namespace, "rollout", "status", "deployment/tandem-webhook", "--timeout=3m"); err != nil {
		logs, _ := kubectl(context.Background(), nil, "-n", namespace, "logs", "-l", "app.kubernetes.io/name=tandem-webhook", "--tail=20")
		return fmt.Errorf("%v: %s\nwebhook logs:\n%s", err, out, logs)
	}
	for c.Err() == nil {
		ca, _ := kubectl(c, nil, "get", "mutatingwebhookconfiguration", config, "-o", "jsonpath={.webhooks[0].clientConfig.caBundle}")
		if strings.TrimSpace(ca) != "" {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("the caBundle of mutatingwebhookconfiguration %s was not set: %w", config, c.Err())
}

// enableInjection labels n's namespace for the webhook.
func (n *namespace) enableInjection() {
	n.labelInjection("enabled")
}

// labelInjection labels n's namespace tandem.sh/inject=value: the
// installation of the webhook whose namespaceSelector asks for value
// injects its pods.
func (n *namespace) labelInjection(value string) {
	n.t.Helper()
	n.run(nil, "label", "namespace", n.name, "tandem.sh/inject="+value)
}

// webhookPods names the webhook's pods.
func webhookPods(t *testing.T) []string {
	t.Helper()
	out, err := kubectl(context.Background(), nil, "-n", webhookNamespace, "get", "pods", "-l",
		"app.kubernetes.io/name=tandem-webhook", "-o", "jsonpath={.items[*].metadata.name}")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(out)
}
