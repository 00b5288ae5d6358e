package apiclient

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
)

const examplesDir = "../../../examples/webhook"

// exampleObjects decodes every object of examples/webhook strictly (an
// unknown or misspelt field fails), and checks the kustomization lists
// every file.
func exampleObjects(t *testing.T) []runtime.Object {
	t.Helper()
	var k struct{ Resources []string }
	data, err := os.ReadFile(filepath.Join(examplesDir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &k); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(examplesDir, "*.yaml"))
	decoder := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
	var objs []runtime.Object
	for _, f := range files {
		if filepath.Base(f) == "kustomization.yaml" {
			continue
		}
		if !slices.Contains(k.Resources, filepath.Base(f)) {
			t.Errorf("%s is not in kustomization.yaml", filepath.Base(f))
		}
		data, _ := os.ReadFile(f)
		for _, doc := range bytes.Split(data, []byte("\n---\n")) {
			obj, _, err := decoder.Decode(doc, nil, nil)
			if err != nil {
				t.Fatalf("%s: %v", filepath.Base(f), err)
			}
			objs = append(objs, obj)
		}
	}
	return objs
}

// The pieces of the kustomization name each other consistently.
func TestExampleIsConsistent(t *testing.T) {
	var dep *appsv1.Deployment
	var mwc *admissionregistrationv1.MutatingWebhookConfiguration
	var role *rbacv1.Role
	var svc *corev1.Service
	for _, o := range exampleObjects(t) {
		switch o := o.(type) {
		case *appsv1.Deployment:
			dep = o
		case *admissionregistrationv1.MutatingWebhookConfiguration:
			mwc = o
		case *rbacv1.Role:
			role = o
		case *corev1.Service:
			svc = o
		}
	}
	if dep == nil || mwc == nil || role == nil || svc == nil {
		t.Fatal("the kustomization lacks a Deployment, Service, Role or MutatingWebhookConfiguration")
	}
	env := map[string]string{}
	c := dep.Spec.Template.Spec.Containers[0]
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	if !slices.Equal(role.Rules[0].ResourceNames, []string{env["TANDEMCTL_BOOTSTRAP_SECRET"]}) {
		t.Errorf("the Role names secret %v; the webhook bootstraps %q", role.Rules[0].ResourceNames, env["TANDEMCTL_BOOTSTRAP_SECRET"])
	}
	hook := mwc.Webhooks[0]
	if mwc.Name != "tandem" || hook.ClientConfig.Service.Name != "tandem-webhook" || svc.Name != "tandem-webhook" {
		t.Errorf("configuration %q calls service %q, the Service is %q; want tandem and tandem-webhook (the flags' defaults)",
			mwc.Name, hook.ClientConfig.Service.Name, svc.Name)
	}
	if hook.NamespaceSelector.MatchLabels["tandem.sh/inject"] != "enabled" || *hook.FailurePolicy != admissionregistrationv1.Fail {
		t.Errorf("namespaceSelector %v, failurePolicy %v; want tandem.sh/inject=enabled and Fail", hook.NamespaceSelector, *hook.FailurePolicy)
	}
	lookup, err := time.ParseDuration(env["TANDEMCTL_LOOKUP_TIMEOUT"])
	if err != nil || hook.TimeoutSeconds == nil || lookup >= time.Duration(*hook.TimeoutSeconds)*time.Second/2 {
		t.Errorf("lookup timeout %q in timeoutSeconds %v; want it under half", env["TANDEMCTL_LOOKUP_TIMEOUT"], hook.TimeoutSeconds)
	}
	sc := c.SecurityContext
	if *dep.Spec.Replicas < 2 || sc == nil || !*sc.ReadOnlyRootFilesystem || !*dep.Spec.Template.Spec.SecurityContext.RunAsNonRoot ||
		c.ReadinessProbe == nil || c.LivenessProbe == nil || c.Resources.Requests.Cpu().IsZero() {
		t.Error("the Deployment lacks two replicas, a read-only root, non-root, probes or requests")
	}
}

// The Deployment serves metrics on the port its annotations tell
// Prometheus to scrape.
func TestExampleExposesMetrics(t *testing.T) {
	var dep *appsv1.Deployment
	for _, o := range exampleObjects(t) {
		if d, ok := o.(*appsv1.Deployment); ok {
			dep = d
		}
	}
	if dep == nil {
		t.Fatal("the kustomization lacks a Deployment")
	}
	c := dep.Spec.Template.Spec.Containers[0]
	var port *corev1.ContainerPort
	for i := range c.Ports {
		if c.Ports[i].Name == "metrics" {
			port = &c.Ports[i]
		}
	}
	if port == nil || port.ContainerPort != 9090 {
		t.Fatalf("ports %+v; want containerPort 9090 named metrics", c.Ports)
	}
	i := slices.Index(c.Args, "--metrics-listen")
	if i < 0 || i+1 >= len(c.Args) || c.Args[i+1] != ":9090" {
		t.Errorf("args %q; want --metrics-listen :9090", c.Args)
	}
	for key, want := range map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "9090", "prometheus.io/path": "/metrics"} {
		if got := dep.Spec.Template.Annotations[key]; got != want {
			t.Errorf("pod template annotation %s = %q; want %q", key, got, want)
		}
	}
}

// The webhook has no side effects, so the API server sends it dry runs
// (kubectl apply --dry-run=server) instead of refusing them.
func TestExampleDeclaresNoSideEffects(t *testing.T) {
	for _, o := range exampleObjects(t) {
		if mwc, ok := o.(*admissionregistrationv1.MutatingWebhookConfiguration); ok {
			for _, hook := range mwc.Webhooks {
				if hook.SideEffects == nil || *hook.SideEffects != admissionregistrationv1.SideEffectClassNone {
					t.Errorf("webhook %s: sideEffects %v; want None", hook.Name, hook.SideEffects)
				}
			}
		}
	}
}
