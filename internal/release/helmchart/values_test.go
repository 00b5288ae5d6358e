package helmchart

import (
	"encoding/json"
	"strings"
	"testing"
)

// field walks obj along path (map keys, or "name=X" to pick a list item
// by its name) and returns what is there, nil when it is absent.
func field(obj any, path ...string) any {
	for _, p := range path {
		if k, v, ok := strings.Cut(p, "="); ok {
			list, _ := obj.([]any)
			obj = nil
			for _, item := range list {
				if m, _ := item.(map[string]any); m != nil && m[k] == v {
					obj = m
				}
			}
			continue
		}
		m, _ := obj.(map[string]any)
		obj = m[p]
	}
	return obj
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

const (
	deploymentKey = "Deployment/tandem-system/tandem-webhook"
	configKey     = "MutatingWebhookConfiguration//tandem"
)

var webhookPath = []string{"webhooks", "name=inject.tandem.sh"}
var containerPath = []string{"spec", "template", "spec", "containers", "name=webhook"}

// TestValuesRenderWhatTheySay: each value a platform team changes shows in
// the object it names.
func TestValuesRenderWhatTheySay(t *testing.T) {
	t.Parallel()
	objs := helmTemplate(t, "charts/tandem",
		"--set", "failurePolicy=Ignore", "--set", "replicas=3", "--set", "podDisruptionBudget.enabled=false",
		"--set", "image.repository=registry.example.com/tandemctl", "--set", "image.tag=v9.9.9",
		"--set", "image.pullPolicy=Always", "--set", "mode=classic", "--set", "install=auto", "--set", "presets=false",
		"--set", "sidecarImages={*cloud-sql-proxy:*,*/envoy:*}",
		"--set", "namespaceSelector.matchLabels.team=batch", "--set", "resources.limits.memory=1Gi")
	webhook := field(objs[configKey], webhookPath...)
	container := field(objs[deploymentKey], containerPath...)
	checks := []struct {
		what      string
		got, want any
	}{
		{"failurePolicy", field(webhook, "failurePolicy"), "Ignore"},
		{"replicas", field(objs[deploymentKey], "spec", "replicas"), 3.0},
		{"image", field(container, "image"), "registry.example.com/tandemctl:v9.9.9"},
		{"imagePullPolicy", field(container, "imagePullPolicy"), "Always"},
		{"mode", field(container, "env", "name=TANDEMCTL_MODE", "value"), "classic"},
		{"install", field(container, "env", "name=TANDEMCTL_INSTALL", "value"), "auto"},
		{"presets", field(container, "env", "name=TANDEMCTL_PRESETS", "value"), "false"},
		{"args", jsonOf(field(container, "args")), `["webhook","--metrics-listen",":9090","--sidecar-image=*cloud-sql-proxy:*","--sidecar-image=*/envoy:*"]`},
		{"namespaceSelector", jsonOf(field(webhook, "namespaceSelector")), `{"matchLabels":{"tandem.sh/inject":"enabled","team":"batch"}}`},
		{"the webhook's own selector", field(container, "env", "name=TANDEMCTL_NAMESPACE_SELECTOR", "value"), "tandem.sh/inject=enabled,team=batch"},
		{"resources", jsonOf(field(container, "resources")), `{"limits":{"memory":"1Gi"},"requests":{"cpu":"50m","memory":"64Mi"}}`},
		{"no PodDisruptionBudget", objs["PodDisruptionBudget/tandem-system/tandem-webhook"] == nil, true},
	}
	for _, c := range checks {
		if jsonOf(c.got) != jsonOf(c.want) {
			t.Errorf("%s: rendered %s, want %s", c.what, jsonOf(c.got), jsonOf(c.want))
		}
	}
}

// TestCertManagerReplacesTheBootstrap: with cert-manager, a Certificate
// (from a self-signed Issuer, or the issuer named) writes the Secret the
// webhook mounts, its CA injector sets caBundle, and the webhook neither
// bootstraps nor has the rights to.
func TestCertManagerReplacesTheBootstrap(t *testing.T) {
	t.Parallel()
	objs := helmTemplate(t, "charts/tandem", "--set", "certificates.source=cert-manager")
	cert := objs["Certificate/tandem-system/tandem-webhook"]
	container := field(objs[deploymentKey], containerPath...)
	checks := []struct {
		what      string
		got, want any
	}{
		{"Certificate's Secret", field(cert, "spec", "secretName"), "tandem-webhook-tls"},
		{"Certificate's names", jsonOf(field(cert, "spec", "dnsNames")), `["tandem-webhook.tandem-system.svc","tandem-webhook.tandem-system.svc.cluster.local"]`},
		{"Certificate's issuer", jsonOf(field(cert, "spec", "issuerRef")), `{"kind":"Issuer","name":"tandem-webhook"}`},
		{"self-signed Issuer", jsonOf(field(objs["Issuer/tandem-system/tandem-webhook"], "spec")), `{"selfSigned":{}}`},
		{"inject-ca-from", field(objs[configKey], "metadata", "annotations", "cert-manager.io/inject-ca-from"), "tandem-system/tandem-webhook"},
		{"mounted Secret", jsonOf(field(objs[deploymentKey], "spec", "template", "spec", "volumes", "name=certs", "secret")), `{"secretName":"tandem-webhook-tls"}`},
		{"no bootstrap", field(container, "env", "name=TANDEMCTL_BOOTSTRAP_SECRET"), nil},
		{"no empty Secret (cert-manager's own)", objs["Secret/tandem-system/tandem-webhook-tls"] == nil, true},
		{"no Secret rights", objs["Role/tandem-system/tandem-webhook"] == nil, true},
		{"no caBundle rights", strings.Contains(jsonOf(objs["ClusterRole//tandem-webhook"]), "mutatingwebhookconfigurations"), false},
	}
	for _, c := range checks {
		if jsonOf(c.got) != jsonOf(c.want) {
			t.Errorf("%s: rendered %s, want %s", c.what, jsonOf(c.got), jsonOf(c.want))
		}
	}
	objs = helmTemplate(t, "charts/tandem", "--set", "certificates.source=cert-manager",
		"--set", "certificates.certManager.issuerRef.kind=ClusterIssuer", "--set", "certificates.certManager.issuerRef.name=corp-ca")
	if got := jsonOf(field(objs["Certificate/tandem-system/tandem-webhook"], "spec", "issuerRef")); got != `{"kind":"ClusterIssuer","name":"corp-ca"}` {
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
	for _, set := range []string{"failurePolicy=Sometimes", "mode=sidecar", "install=copy", "certificates.source=vault", "replicas=two"} {
		_, stderr, err := runHelm(t, "template", "tandem", "charts/tandem", "--set", set)
		value, _, _ := strings.Cut(set, "=")
		if err == nil {
			t.Errorf("--set %s: rendered, want a refusal", set)
		} else if !strings.Contains(stderr, value[strings.LastIndex(value, ".")+1:]) {
			t.Errorf("--set %s: the refusal does not name the value:\n%s", set, stderr)
		}
	}
}
