//go:build k8s

package k8s

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/internal/release/helmchart"
)

// The chart charts/tandem as a platform team runs it: Helm's own command
// (the tool go.mod pins) installs it from the node's registry, upgrades it
// to another image while pods are created, and uninstalls it.
const (
	helmChartVersion = "v0.0.0-helmtest"
	helmUpgradeImage = "localhost/tandem-k8s/tandemctl:upgraded"
)

// helmCmd runs `helm args...` in the module (go tool helm), with Helm's
// own state in home, and returns its output; a failure fails the test.
func helmCmd(t *testing.T, home string, args ...string) string {
	t.Helper()
	ctx, cancel := contextFor(5 * time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append([]string{"tool", "helm"}, args...)...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "HELM_CONFIG_HOME="+home+"/config", "HELM_CACHE_HOME="+home+"/cache", "HELM_DATA_HOME="+home+"/data")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// helmValues are what this cluster needs changed (as webhookOverlay does
// for the kustomization): the images under test, the API at the node's
// address, image configs over plain HTTP, classic injection.
func helmValues(t *testing.T, tag string) []string {
	t.Helper()
	env, err := json.Marshal([]map[string]string{
		{"name": "KUBERNETES_SERVICE_HOST", "value": nodeIP},
		{"name": "KUBERNETES_SERVICE_PORT", "value": "6443"},
		{"name": "TANDEMCTL_IMAGE", "value": tandemImage},
		{"name": "TANDEMCTL_INSECURE_REGISTRY", "value": registryHost},
	})
	if err != nil {
		t.Fatal(err)
	}
	return []string{"--set", "image.repository=localhost/tandem-k8s/tandemctl", "--set", "image.tag=" + tag,
		"--set", "image.pullPolicy=Never", "--set", "mode=classic", "--set-json", "extraEnv=" + string(env)}
}

// TestHelmInstallUpgradeUninstall: helm install from the registry, an
// injected Job completes; helm upgrade to another image tag rolls the
// webhook while pods are created, none refused; helm upgrade with
// install=auto injects a Job that completes, with no tandem-install where
// the cluster mounts image volumes and with it elsewhere; helm uninstall
// leaves no object of the chart, and tandemctl check finds no webhook of
// tandem.
func TestHelmInstallUpgradeUninstall(t *testing.T) {
	requireCluster(t)
	startNodeRegistry(t)
	restore := setKustomizeInstallAside(t)
	home := t.TempDir()
	if err := importTandemctlImage(home, tandemctlImage, helmUpgradeImage); err != nil {
		t.Fatal(err)
	}
	ref := pushChart(t, home)
	chartVersion, _ := helmchart.Version(helmChartVersion)
	install := append([]string{"install", "tandem", ref, "--version", chartVersion, "--plain-http"}, helmValues(t, "test")...)
	t.Logf("helm install:\n%s", helmCmd(t, home, install...))
	serving(t)
	t.Run("PodsRunRestricted", assertRestrictedNamespace)
	t.Run("InjectedJobCompletes", func(t *testing.T) {
		n, took := plainJobInjected(t)
		if injected := n.injectedPods(); len(injected) != 1 || countTrue(injected) != 1 {
			t.Errorf("pods injected: %v; want the one pod", injected)
		}
		t.Logf("plain Job under the chart's webhook: apply → Complete in %s", took.Round(time.Millisecond))
	})
	t.Run("UpgradeRefusesNone", func(t *testing.T) {
		n := newNamespace(t)
		n.enableInjection()
		upgrade := []string{"upgrade", "tandem", ref, "--version", chartVersion, "--plain-http", "--reuse-values", "--set", "image.tag=upgraded"}
		r := burstDuring(t, n, "helm", func() { helmCmd(t, home, upgrade...) })
		c := count(r.attempts)
		c.failOthers(t)
		if c.refused > 0 || c.uninjected > 0 {
			t.Errorf("helm upgrade refused %d and left %d uninjected of %d pods; want none: %s", c.refused, c.uninjected, c.attempted, c.refusedSpan())
		}
		n.assertStored(c)
		images := webhookCtl(t, "get", "pods", "-l", "app.kubernetes.io/name=tandem-webhook", "-o", "jsonpath={.items[*].spec.containers[0].image}")
		for _, image := range strings.Fields(images) {
			if image != helmUpgradeImage {
				t.Errorf("after helm upgrade a webhook pod runs %s, want %s", image, helmUpgradeImage)
			}
		}
		t.Logf("helm upgrade during a burst: %s", c)
	})
	t.Run("InstallAutoJobCompletes", func(t *testing.T) {
		helmCmd(t, home, "upgrade", "tandem", ref, "--version", chartVersion, "--plain-http", "--reuse-values", "--set", "install=auto")
		serving(t)
		mounts, runtimes := clusterMountsImages(t)
		n, took := plainJobInjected(t)
		p := n.onlyPod("export")
		copied := slices.ContainsFunc(p.Spec.InitContainers, func(c containerSpec) bool { return c.Name == "tandem-install" })
		if copied == mounts {
			t.Errorf("install=auto on Kubernetes %s, runtimes %v: tandem-install in the pod: %v; want it only where image volumes cannot be mounted", serverVersion, runtimes, copied)
		}
		t.Logf("install=auto (tandem-install: %v): apply → Complete in %s", copied, took.Round(time.Millisecond))
	})
	t.Run("UninstallLeavesNothing", func(t *testing.T) {
		t.Logf("helm uninstall:\n%s", helmCmd(t, home, "uninstall", "tandem", "--wait", "--timeout", "3m"))
		assertNothingLeft(t)
	})
	restore()
}

// assertRestrictedNamespace: the chart's namespace enforces the restricted
// Pod Security Standard and its webhook pods were admitted there (serving
// waited for them); a pod without the chart's securityContext is refused
// there, so the enforcement is real on this release. No Secret rule is
// granted by default.
func assertRestrictedNamespace(t *testing.T) {
	level := webhookCtl(t, "get", "namespace", webhookNamespace, "-o", "jsonpath={.metadata.labels.pod-security\\.kubernetes\\.io/enforce}")
	if level != "restricted" {
		t.Fatalf("namespace %s enforces %q, want restricted", webhookNamespace, level)
	}
	ready := webhookCtl(t, "get", "deployment", "tandem-webhook", "-o", "jsonpath={.status.readyReplicas}")
	if ready != "2" {
		t.Errorf("ready webhook replicas under restricted: %q, want 2", ready)
	}
	bare := []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"bare","namespace":"` + webhookNamespace +
		`"},"spec":{"containers":[{"name":"c","image":"` + tandemctlImage + `"}]}}`)
	ctx, cancel := contextFor(time.Minute)
	defer cancel()
	_, err := kubectl(ctx, bare, "apply", "--dry-run=server", "-f", "-")
	if err == nil || !strings.Contains(err.Error(), "violates PodSecurity") {
		t.Errorf("a pod without securityContext in %s: %v; want refused as violating PodSecurity restricted", webhookNamespace, err)
	}
	rules := webhookCtl(t, "get", "clusterrole", "tandem-webhook", "-o", "jsonpath={.rules[*].resources}")
	if strings.Contains(rules, "secrets") {
		t.Errorf("the webhook's ClusterRole grants Secrets by default: %s", rules)
	}
	t.Logf("namespace %s enforces restricted; webhook replicas ready: %s; ClusterRole resources: %s", webhookNamespace, ready, rules)
}

// pushChart packages charts/tandem as make release does and pushes it with
// helm push to the node's registry; it returns the chart's oci:// reference.
func pushChart(t *testing.T, home string) string {
	t.Helper()
	path, err := helmchart.Package(filepath.Join(repoRoot, "charts", "tandem"), home, helmChartVersion, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ref := "oci://" + helmchart.Ref(registryHost)
	helmCmd(t, home, "push", path, strings.TrimSuffix(ref, "/"+helmchart.Name), "--plain-http")
	return ref
}

func serving(t *testing.T) {
	t.Helper()
	ctx, cancel := contextFor(4 * time.Minute)
	defer cancel()
	if err := waitWebhookServing(ctx, webhookNamespace, "tandem"); err != nil {
		t.Fatal(err)
	}
}

// assertNothingLeft: no object the chart made is left, and tandemctl check
// finds no webhook of tandem.
func assertNothingLeft(t *testing.T) {
	t.Helper()
	left, err := kubectl(context.Background(), nil, "get", "namespaces,mutatingwebhookconfigurations,clusterroles,clusterrolebindings",
		"-l", "app.kubernetes.io/name=tandem-webhook", "-o", "name")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(left) != "" {
		t.Errorf("after helm uninstall these are left:\n%s", left)
	}
	run := runCheck(t, "", "-A")
	if !strings.Contains(run.stdout, "and 0 webhooks of tandem)") || strings.Contains(run.stdout, " webhook-") {
		t.Errorf("tandemctl check after helm uninstall (exit %d) sees a webhook of tandem:\n%s", run.code, run.stdout)
	}
	t.Logf("tandemctl check after helm uninstall:\n%s", run.stdout)
}

// setKustomizeInstallAside removes the kustomization's webhook when an
// earlier test of the run installed it (its objects have the chart's
// names), and returns what installs it again for the tests after.
func setKustomizeInstallAside(t *testing.T) (restore func()) {
	t.Helper()
	out, _ := kubectl(context.Background(), nil, "get", "mutatingwebhookconfigurations", "-o", "name")
	if !strings.Contains(out, "mutatingwebhookconfiguration.admissionregistration.k8s.io/tandem\n") {
		return func() {}
	}
	ctx, cancel := contextFor(4 * time.Minute)
	defer cancel()
	if _, err := kubectl(ctx, nil, "delete", "--wait", "namespaces,mutatingwebhookconfigurations,clusterroles,clusterrolebindings",
		"-l", "app.kubernetes.io/name=tandem-webhook"); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := doInstallWebhook(); err != nil {
			t.Fatalf("install the kustomization's webhook again: %v", err)
		}
	}
}
