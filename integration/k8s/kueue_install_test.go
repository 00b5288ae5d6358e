//go:build k8s

package k8s

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Kueue, its manager built from its Go module (build-kueue.sh) and
// installed from the module's own config/default: its CRDs, manager,
// webhooks and internal certificate management, with the changes this
// offline, shared cluster needs and nothing else.

const (
	kueueNamespace = "kueue-system"
	kueueImage     = "localhost/tandem-k8s/kueue/kueue:v0.17.0"
	// kueueTestLabel marks the namespaces whose Jobs and pods Kueue's
	// webhooks see: the Kueue tests' own.
	kueueTestLabel = "tandem.sh/kueue-test"
	// kueueFlavor is the one ResourceFlavor the tests' ClusterQueues share.
	kueueFlavor = "tandem-test"
	// kueueBuildTimeout bounds a cold build of the manager (the cache holds
	// it after).
	kueueBuildTimeout = 30 * time.Minute
	// kueueReadyBound: the manager's start, its certificates made and
	// mounted (the kubelet refreshes a Secret's volume within about a
	// minute), its webhooks answering.
	kueueReadyBound = 4 * time.Minute
)

var kueueInstall = sync.OnceValue(installKueue)

// kueueInstalled installs Kueue once a run; the tests share it.
func kueueInstalled(t *testing.T) { requireInstalled(t, kueueInstall) }

func installKueue() error {
	ctx, cancel := context.WithTimeout(context.Background(), kueueBuildTimeout)
	defer cancel()
	manager, err := buildCached(ctx, "build-kueue.sh")
	if err != nil {
		return err
	}
	// As Kueue's own (distroless) image: the manager at /manager, its
	// non-root user.
	containerfile := "FROM scratch\nCOPY manager /manager\nUSER 65532:65532\nENTRYPOINT [\"/manager\"]\n"
	if err := importImage(ctx, kueueImage, filepath.Dir(manager), containerfile); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "tandem-kueue-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	module, err := goModuleDir(ctx, "sigs.k8s.io/kueue@v0.17.0")
	if err != nil {
		return err
	}
	rel, _ := filepath.Rel(work, filepath.Join(module, "config", "default"))
	if err := os.WriteFile(filepath.Join(work, "kustomization.yaml"), []byte(fmt.Sprintf(kueueOverlay, rel)), 0o644); err != nil {
		return err
	}
	if out, err := kubectl(ctx, nil, "apply", "--server-side", "-k", work); err != nil {
		return fmt.Errorf("apply Kueue: %v: %s", err, out)
	}
	return awaitKueueServing(ctx)
}

// awaitKueueServing waits until the manager has rolled out and its
// webhooks answer: the shared ResourceFlavor, which they admit, is
// created then.
func awaitKueueServing(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, kueueReadyBound)
	defer cancel()
	if out, err := kubectl(ctx, nil, "-n", kueueNamespace, "rollout", "status", "deployment/kueue-controller-manager",
		"--timeout="+kueueReadyBound.String()); err != nil {
		return fmt.Errorf("Kueue's manager rollout: %v: %s\nits logs:\n%s", err, out, kueueLogs())
	}
	flavor := []byte("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: " + kueueFlavor + "}\n")
	for {
		// Refused until the webhooks' certificate is in their caBundle
		// and in the manager's mounted Secret.
		out, err := kubectl(ctx, flavor, "apply", "-f", "-")
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("Kueue's webhooks did not admit a ResourceFlavor within %s: %v: %s\nthe manager's logs:\n%s",
				kueueReadyBound, err, out, kueueLogs())
		case <-time.After(time.Second):
		}
	}
}

// kueueLogs is the end of the manager's log, for a failed install.
func kueueLogs() string {
	logs, _ := kubectl(context.Background(), nil, "-n", kueueNamespace, "logs", "deployment/kueue-controller-manager", "--tail=30")
	return logs
}

// kueueOverlay installs config/default as shipped (namespace
// kueue-system, internal certificate management), with: the image built
// here, never pulled; the API at the node's address (no kube-proxy routes
// the kubernetes Service); every webhook of both configurations limited
// to the namespaces labelled kueueTestLabel (as shipped they see every
// Job and pod of the cluster, failurePolicy Fail: the rest of the suite's
// would wait on Kueue); no visibility APIService (an aggregated API the
// tests do not use, which every client's discovery and every namespace's
// deletion would wait on while the manager is not serving). %s: the
// module's config/default.
const kueueOverlay = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - %s
images:
  - name: us-central1-docker.pkg.dev/k8s-staging-images/kueue/kueue
    newName: localhost/tandem-k8s/kueue/kueue
    newTag: v0.17.0
patches:
  - patch: |
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: kueue-controller-manager, namespace: ` + kueueNamespace + `}
      spec:
        template:
          spec:
            containers:
              - name: manager
                imagePullPolicy: Never
                env:
                  - {name: KUBERNETES_SERVICE_HOST, value: "` + nodeIP + `"}
                  - {name: KUBERNETES_SERVICE_PORT, value: "6443"}
  - patch: |
      apiVersion: admissionregistration.k8s.io/v1
      kind: MutatingWebhookConfiguration
      metadata: {name: kueue-mutating-webhook-configuration}
      webhooks:
        - name: mjob.kb.io
          namespaceSelector: {matchLabels: {` + kueueTestLabel + `: "true"}}
  - patch: |
      $patch: delete
      apiVersion: apiregistration.k8s.io/v1
      kind: APIService
      metadata: {name: v1beta1.visibility.kueue.x-k8s.io}
  - patch: |
      $patch: delete
      apiVersion: apiregistration.k8s.io/v1
      kind: APIService
      metadata: {name: v1beta2.visibility.kueue.x-k8s.io}
replacements:
  - source: {kind: MutatingWebhookConfiguration, fieldPath: "webhooks.[name=mjob.kb.io].namespaceSelector"}
    targets:
      - select: {kind: MutatingWebhookConfiguration}
        fieldPaths: ["webhooks.*.namespaceSelector"]
        options: {create: true}
      - select: {kind: ValidatingWebhookConfiguration}
        fieldPaths: ["webhooks.*.namespaceSelector"]
        options: {create: true}
`
