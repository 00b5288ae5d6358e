//go:build k8s

package k8s

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// A second installation of examples/webhook/, in native mode, for the
// tests that need pods injected at admission in each mode at once (the
// loss tests). The webhook takes its mode from its flags only, so a
// namespace chooses it by its label: tandem.sh/inject=enabled selects the
// shared classic installation, tandem.sh/inject=native this one. Its own
// namespace, configuration and cluster roles keep the two apart.
const (
	nativeWebhookNamespace = "tandem-native"
	nativeInjectLabel      = "native"
)

// nativeWebhookOverlay: the classic overlay (webhookOverlay, in
// ../overlay) moved to its own namespace, its cluster-scoped objects
// named -native, in native mode, one replica, selecting namespaces
// labelled tandem.sh/inject=native (its configuration and its own
// check). The test op fails the kustomization if the rule of the configuration's
// name moves in rbac.yaml.
const nativeWebhookOverlay = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: ` + nativeWebhookNamespace + `
resources:
  - ../overlay
transformers:
  - |-
    apiVersion: builtin
    kind: PrefixSuffixTransformer
    metadata: {name: cluster-scoped}
    suffix: -native
    fieldSpecs:
      - {kind: ClusterRole, path: metadata/name}
      - {kind: ClusterRoleBinding, path: metadata/name}
      - {kind: MutatingWebhookConfiguration, path: metadata/name}
patches:
  - patch: |
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: tandem-webhook, namespace: tandem-system}
      spec:
        replicas: 1
        template:
          spec:
            containers:
              - name: webhook
                env:
                  - {name: TANDEMCTL_MODE, value: native}
                  - {name: TANDEMCTL_INSTALL, value: init-copy}
                  - {name: TANDEMCTL_WEBHOOK_CONFIG, value: tandem-native}
                  - {name: TANDEMCTL_NAMESPACE_SELECTOR, value: tandem.sh/inject=` + nativeInjectLabel + `}
  - target: {kind: MutatingWebhookConfiguration}
    patch: |
      - {op: replace, path: /webhooks/0/namespaceSelector, value: {matchLabels: {tandem.sh/inject: ` + nativeInjectLabel + `}}}
  - target: {kind: ClusterRole, name: tandem-webhook}
    patch: |
      - {op: test, path: /rules/2/resourceNames, value: [tandem]}
      - {op: replace, path: /rules/2/resourceNames, value: [tandem-native]}
`

// nativeWebhookInstalled installs the native-mode webhook, once a run,
// after the classic one (whose tandemctl image it runs). The loss tests
// call it before they turn parallel (lossParallel).
func nativeWebhookInstalled(t *testing.T) {
	t.Helper()
	requireCluster(t)
	requireNativeSidecars(t)
	if err := installNativeOnce(); err != nil {
		t.Fatal(err)
	}
}

var installNativeOnce = sync.OnceValue(func() error {
	if err := installOnce(); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "tandem-webhook-native-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if _, err := writeWebhookOverlay(work); err != nil {
		return err
	}
	native := filepath.Join(work, "native")
	if err := os.MkdirAll(native, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(native, "kustomization.yaml"), []byte(nativeWebhookOverlay), 0o644); err != nil {
		return err
	}
	return applyWebhook(native, nativeWebhookNamespace, "tandem-native")
})

// injectingNamespace is a new namespace labelled for the installation of
// the webhook that injects in mode (classic or native), once its replicas
// are ready (a test before may have replaced one).
func injectingNamespace(t *testing.T, mode string) *namespace {
	t.Helper()
	if mode == "native" {
		nativeWebhookInstalled(t)
		n := newNamespace(t)
		n.labelInjection(nativeInjectLabel)
		return n
	}
	webhookInstalled(t)
	waitWebhookRollout(t)
	n := newNamespace(t)
	n.enableInjection()
	return n
}
