package charttest

import (
	"strings"
	"testing"
)

var webhookPath = []string{"webhooks", "name=inject.tandem.sh"}

// TestValuesRenderWhatTheySay: each value a platform team changes shows in
// the object it names.
func TestValuesRenderWhatTheySay(t *testing.T) {
	t.Parallel()
	objs := Template(t, Chart,
		"--set", "failurePolicy=Ignore", "--set", "replicas=3", "--set", "podDisruptionBudget.enabled=false",
		"--set", "image.repository=registry.example.com/tandemctl", "--set", "image.tag=v9.9.9",
		"--set", "image.pullPolicy=Always", "--set", "mode=classic", "--set", "install=auto", "--set", "presets=false",
		"--set", "sidecarImages={*cloud-sql-proxy:*,*/envoy:*}",
		"--set", "namespaceSelector.matchLabels.team=batch", "--set", "resources.limits.memory=1Gi",
		"--set", "lookupTimeout=5s", "--set", "priorityClassName=system-cluster-critical",
		"--set", "nodeSelector.pool=system", "--set", "tolerations[0].key=dedicated", "--set", "tolerations[0].operator=Exists",
		"--set", "imagePullSecrets[0].name=mirror", "--set", "affinity.podAntiAffinity=null",
		"--set", "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key=pool",
		"--set", "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator=Exists")
	pod := Field(objs[DeploymentKey], "spec", "template", "spec")
	webhook := Field(objs[ConfigKey], webhookPath...)
	container := Field(objs[DeploymentKey], ContainerPath...)
	checks := []struct {
		what      string
		got, want any
	}{
		{"failurePolicy", Field(webhook, "failurePolicy"), "Ignore"},
		{"replicas", Field(objs[DeploymentKey], "spec", "replicas"), 3.0},
		{"image", Field(container, "image"), "registry.example.com/tandemctl:v9.9.9"},
		{"imagePullPolicy", Field(container, "imagePullPolicy"), "Always"},
		{"mode", Field(container, "env", "name=TANDEMCTL_MODE", "value"), "classic"},
		{"install", Field(container, "env", "name=TANDEMCTL_INSTALL", "value"), "auto"},
		{"presets", Field(container, "env", "name=TANDEMCTL_PRESETS", "value"), "false"},
		{"args", JSON(Field(container, "args")), `["webhook","--metrics-listen",":9090","--sidecar-image=*cloud-sql-proxy:*","--sidecar-image=*/envoy:*"]`},
		{"namespaceSelector (replacing the default)", JSON(Field(webhook, "namespaceSelector")), `{"matchLabels":{"team":"batch"}}`},
		{"the webhook's own selector", Field(container, "env", "name=TANDEMCTL_NAMESPACE_SELECTOR", "value"), "team=batch"},
		{"lookupTimeout", Field(container, "env", "name=TANDEMCTL_LOOKUP_TIMEOUT", "value"), "5s"},
		{"priorityClassName", Field(pod, "priorityClassName"), "system-cluster-critical"},
		{"nodeSelector", JSON(Field(pod, "nodeSelector")), `{"pool":"system"}`},
		{"tolerations", JSON(Field(pod, "tolerations")), `[{"key":"dedicated","operator":"Exists"}]`},
		{"imagePullSecrets", JSON(Field(pod, "imagePullSecrets")), `[{"name":"mirror"}]`},
		{"affinity", JSON(Field(pod, "affinity")), `{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"pool","operator":"Exists"}]}]}}}`},
		{"resources", JSON(Field(container, "resources")), `{"limits":{"memory":"1Gi"},"requests":{"cpu":"50m","memory":"64Mi"}}`},
		{"no PodDisruptionBudget", objs["PodDisruptionBudget/tandem-system/tandem-webhook"] == nil, true},
	}
	for _, c := range checks {
		if JSON(c.got) != JSON(c.want) {
			t.Errorf("%s: rendered %s, want %s", c.what, JSON(c.got), JSON(c.want))
		}
	}
}

// TestCertManagerReplacesTheBootstrap: with cert-manager, a Certificate
// (from a self-signed Issuer, or the issuer named) writes the Secret the
// webhook mounts, its CA injector sets caBundle, and the webhook neither
// bootstraps nor has the rights to.
func TestCertManagerReplacesTheBootstrap(t *testing.T) {
	t.Parallel()
	objs := Template(t, Chart, "--set", "certificates.source=cert-manager")
	cert := objs["Certificate/tandem-system/tandem-webhook"]
	container := Field(objs[DeploymentKey], ContainerPath...)
	checks := []struct {
		what      string
		got, want any
	}{
		{"Certificate's Secret", Field(cert, "spec", "secretName"), "tandem-webhook-tls"},
		{"Certificate's names", JSON(Field(cert, "spec", "dnsNames")), `["tandem-webhook.tandem-system.svc","tandem-webhook.tandem-system.svc.cluster.local"]`},
		{"Certificate's issuer", JSON(Field(cert, "spec", "issuerRef")), `{"kind":"Issuer","name":"tandem-webhook"}`},
		{"self-signed Issuer", JSON(Field(objs["Issuer/tandem-system/tandem-webhook"], "spec")), `{"selfSigned":{}}`},
		{"inject-ca-from", Field(objs[ConfigKey], "metadata", "annotations", "cert-manager.io/inject-ca-from"), "tandem-system/tandem-webhook"},
		{"mounted Secret", JSON(Field(objs[DeploymentKey], "spec", "template", "spec", "volumes", "name=certs", "secret")), `{"secretName":"tandem-webhook-tls"}`},
		{"no bootstrap", Field(container, "env", "name=TANDEMCTL_BOOTSTRAP_SECRET"), nil},
		{"no empty Secret (cert-manager's own)", objs["Secret/tandem-system/tandem-webhook-tls"] == nil, true},
		{"no Secret rights", objs["Role/tandem-system/tandem-webhook"] == nil, true},
		{"no caBundle rights", strings.Contains(JSON(objs["ClusterRole//tandem-webhook"]), "mutatingwebhookconfigurations"), false},
	}
	for _, c := range checks {
		if JSON(c.got) != JSON(c.want) {
			t.Errorf("%s: rendered %s, want %s", c.what, JSON(c.got), JSON(c.want))
		}
	}
	objs = Template(t, Chart, "--set", "certificates.source=cert-manager",
		"--set", "certificates.certManager.issuerRef.kind=ClusterIssuer", "--set", "certificates.certManager.issuerRef.name=corp-ca")
	if got := JSON(Field(objs["Certificate/tandem-system/tandem-webhook"], "spec", "issuerRef")); got != `{"kind":"ClusterIssuer","name":"corp-ca"}` {
		t.Errorf("issuerRef: rendered %s, want the ClusterIssuer corp-ca", got)
	}
	if objs["Issuer/tandem-system/tandem-webhook"] != nil {
		t.Error("an Issuer is rendered beside the issuer named")
	}
}

// TestBadValuesAreRefused: a value outside what the webhook takes fails
// the render, naming the value and what was expected.
func TestBadValuesAreRefused(t *testing.T) {
	t.Parallel()
	for _, set := range []string{"failurePolicy=Sometimes", "mode=sidecar", "install=copy", "certificates.source=vault", "replicas=two",
		"lookupTimeout=soon", "tolerations[0].operator=Maybe"} {
		_, stderr, err := Run(t, "template", "tandem", Chart, "--set", set)
		value, _, _ := strings.Cut(set, "=")
		if err == nil {
			t.Errorf("--set %s: rendered, want a refusal", set)
		} else if !strings.Contains(stderr, value[strings.LastIndex(value, ".")+1:]) {
			t.Errorf("--set %s: the refusal does not name the value:\n%s", set, stderr)
		}
	}
}
