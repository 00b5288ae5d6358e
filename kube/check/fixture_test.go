package check

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// testNow is the time the tests' checks run at.
var testNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

const (
	hookNS     = "tandem-system"
	hookSvc    = "tandem-webhook"
	serverName = hookSvc + "." + hookNS + ".svc"
	jobsNS     = "jobs"
	year       = 365 * 24 * time.Hour
	day        = 24 * time.Hour
)

// fixture is a cluster with the webhook installed as examples/webhook/
// does, healthy: two ready replicas serving a certificate of the caBundle's
// CA, and one namespace labelled.
type fixture struct {
	cluster *fakeCluster
	prober  fakeProber
	ca      testCA
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ca := newTestCA(t, "tandem-webhook-ca", testNow.Add(5*year))
	hookLabels := map[string]string{"app.kubernetes.io/name": hookSvc}
	f := &fixture{ca: ca, prober: fakeProber{}, cluster: &fakeCluster{
		namespaces: []corev1.Namespace{namespace(hookNS, nil), namespace(jobsNS, map[string]string{"tandem.sh/inject": "enabled"})},
		configs: []admissionregistrationv1.MutatingWebhookConfiguration{{
			ObjectMeta: metav1.ObjectMeta{Name: "tandem"},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{
				Name: "inject.tandem.sh",
				ClientConfig: admissionregistrationv1.WebhookClientConfig{CABundle: ca.pem,
					Service: &admissionregistrationv1.ServiceReference{Namespace: hookNS, Name: hookSvc, Path: ptr.To("/mutate"), Port: ptr.To[int32](443)}},
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tandem.sh/inject": "enabled"}},
				FailurePolicy:     ptr.To(admissionregistrationv1.Fail),
			}},
		}},
		deployments: []appsv1.Deployment{{
			ObjectMeta: metav1.ObjectMeta{Namespace: hookNS, Name: hookSvc},
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2), Selector: &metav1.LabelSelector{MatchLabels: hookLabels},
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{ServiceAccountName: hookSvc, Containers: []corev1.Container{{Name: "webhook",
					Ports: []corev1.ContainerPort{{Name: "https", ContainerPort: 8443}}}}}}},
			Status: appsv1.DeploymentStatus{AvailableReplicas: 2},
		}},
	}}
	f.cluster.roles, f.cluster.bindings = examplesWebhookRBAC(t)
	serving := ca.serving(t, testNow.Add(year), hookSvc, hookSvc+"."+hookNS, serverName)
	for i, ip := range []string{"10.244.77.10", "10.244.77.11"} {
		pod := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: hookNS, Name: hookSvc + "-" + string(rune('a'+i)), Labels: hookLabels},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip,
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
		f.cluster.pods = append(f.cluster.pods, pod)
		f.prober[ip+":8443"] = probe{chain: chainOf(serving), status: 200, body: "ok"}
	}
	return f
}

func (f *fixture) hook() *admissionregistrationv1.MutatingWebhook {
	return &f.cluster.configs[0].Webhooks[0]
}

// serve makes every replica serve cert.
func (f *fixture) serve(cert tls.Certificate) {
	for addr := range f.prober {
		f.prober[addr] = probe{chain: chainOf(cert), status: 200, body: "ok"}
	}
}

func (f *fixture) run(t *testing.T, opts Options) Report {
	t.Helper()
	if opts.StuckAfter == 0 {
		opts.StuckAfter = time.Minute
	}
	r, err := checker{cluster: f.cluster, prober: f.prober, now: testNow}.run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func chainOf(cert tls.Certificate) []*x509.Certificate {
	var chain []*x509.Certificate
	for _, der := range cert.Certificate {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			panic(err)
		}
		chain = append(chain, c)
	}
	return chain
}

func namespace(name string, labels map[string]string) corev1.Namespace {
	return corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// want is a finding as a test expects it: its check, severity and name,
// and words its message or fix must hold.
type want struct {
	check    string
	severity Severity
	name     string
	says     []string
}

// expectFindings checks that got are exactly wants, in order.
func expectFindings(t *testing.T, got []Finding, wants ...want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("%d findings, want %d:\n%s", len(got), len(wants), dump(got))
	}
	for i, w := range wants {
		g := got[i]
		if g.Check != w.check || g.Severity != w.severity || g.Name != w.name {
			t.Errorf("finding %d is %s %s %s, want %s %s %s", i, g.Severity, g.Check, g.Name, w.severity, w.check, w.name)
		}
		text := g.Message + "\nfix: " + g.Fix
		for _, s := range w.says {
			if !strings.Contains(text, s) {
				t.Errorf("finding %d does not say %q:\n%s", i, s, text)
			}
		}
	}
}

func dump(findings []Finding) string {
	var b strings.Builder
	_ = renderText(&b, Report{Findings: findings})
	return b.String()
}
