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

// Argo Workflows, built from its Go module (build-argo.sh) and installed
// from the module's own manifests: the CRDs, the controller and its RBAC,
// with the changes this offline cluster needs and nothing else.

const (
	argoNamespace          = "argo"
	argoControllerImage    = "localhost/tandem-k8s/argo/workflow-controller:v4.0.5"
	argoExecImage          = "localhost/tandem-k8s/argo/argoexec:v4.0.5"
	argoControllerSelector = "app=workflow-controller"
	// argoBuildTimeout bounds a cold build of both programs (the cache
	// holds them after).
	argoBuildTimeout = 30 * time.Minute
)

var argoInstall = sync.OnceValue(installArgo)

// argoInstalled installs Argo once a run; the tests share it.
func argoInstalled(t *testing.T) { requireInstalled(t, argoInstall) }

func installArgo() error {
	ctx, cancel := context.WithTimeout(context.Background(), argoBuildTimeout)
	defer cancel()
	built, err := buildCached(ctx, "build-argo.sh")
	if err != nil {
		return err
	}
	if err := importArgoImages(ctx, built); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "tandem-argo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	manifests, err := argoManifests(ctx)
	if err != nil {
		return err
	}
	rel, _ := filepath.Rel(work, manifests)
	for file, text := range map[string]string{
		"kustomization.yaml": fmt.Sprintf(argoOverlay, rel),
		"namespace.yaml":     "apiVersion: v1\nkind: Namespace\nmetadata: {name: " + argoNamespace + "}\n",
	} {
		if err := os.WriteFile(filepath.Join(work, file), []byte(text), 0o644); err != nil {
			return err
		}
	}
	if out, err := kubectl(ctx, nil, "apply", "--server-side", "-k", work); err != nil {
		return fmt.Errorf("apply Argo: %v: %s", err, out)
	}
	if out, err := kubectl(ctx, nil, "-n", argoNamespace, "rollout", "status", "deployment/workflow-controller", "--timeout=3m"); err != nil {
		logs, _ := kubectl(context.Background(), nil, "-n", argoNamespace, "logs", "-l", argoControllerSelector, "--tail=30")
		return fmt.Errorf("Argo's controller rollout: %v: %s\nits logs:\n%s", err, out, logs)
	}
	return nil
}

// argoManifests is the manifests/ directory of the module build-argo.sh
// built, in the module cache.
func argoManifests(ctx context.Context) (string, error) {
	dir, err := goModuleDir(ctx, "github.com/argoproj/argo-workflows/v4@v4.0.5")
	return filepath.Join(dir, "manifests"), err
}

// importArgoImages imports both programs FROM scratch, as Argo's
// distroless images hold them: the controller as its non-root user, the
// executor at /bin (the controller runs `argoexec init` and `argoexec
// wait` by the PATH).
func importArgoImages(ctx context.Context, built string) error {
	for image, program := range map[string]string{
		argoControllerImage: "FROM scratch\nCOPY workflow-controller /bin/workflow-controller\nUSER 8737\nENTRYPOINT [\"/bin/workflow-controller\"]\n",
		argoExecImage:       "FROM scratch\nCOPY argoexec /bin/argoexec\nENV PATH=/bin\nENTRYPOINT [\"/bin/argoexec\"]\n",
	} {
		if err := importImage(ctx, image, built, program); err != nil {
			return err
		}
	}
	return nil
}

// argoOverlay installs the controller as manifests/cluster-install does
// (its CRDs, the controller, the controller's RBAC; not the UI's server),
// with: the images built here, never pulled; the API at the node's
// address for the controller and for the executor in the steps' pods (no
// kube-proxy routes the kubernetes Service). %s: the module's manifests/.
const argoOverlay = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: ` + argoNamespace + `
resources:
  - namespace.yaml
  - %[1]s/base/crds/minimal
  - %[1]s/base/workflow-controller
  - %[1]s/cluster-install-no-crds/workflow-controller-rbac
images:
  - name: quay.io/argoproj/workflow-controller
    newName: localhost/tandem-k8s/argo/workflow-controller
    newTag: v4.0.5
patches:
  - patch: |
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: workflow-controller}
      spec:
        template:
          spec:
            containers:
              - name: workflow-controller
                imagePullPolicy: Never
                args: [--executor-image, ` + argoExecImage + `, --executor-image-pull-policy, Never]
                env:
                  - {name: KUBERNETES_SERVICE_HOST, value: "` + nodeIP + `"}
                  - {name: KUBERNETES_SERVICE_PORT, value: "6443"}
  - patch: |
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: workflow-controller-configmap}
      data:
        executor: |
          env:
            - {name: KUBERNETES_SERVICE_HOST, value: "` + nodeIP + `"}
            - {name: KUBERNETES_SERVICE_PORT, value: "6443"}
`
