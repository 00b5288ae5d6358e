package check

import (
	"crypto/x509"
	"errors"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/tandem-sh/tandem/kube/webhook"
)

const (
	podA, podB = "tandem-webhook-a", "tandem-webhook-b"
	addrA      = "10.244.77.10:8443"
	addrB      = "10.244.77.11:8443"
	hookName   = "tandem/inject.tandem.sh"
	// blocked is what a webhook that cannot be called with
	// failurePolicy Fail does to its namespaces.
	blocked = "with failurePolicy Fail, no pod can be created in the namespaces it selects (jobs)"
)

func TestInstallation(t *testing.T) {
	unreachable := probe{err: errors.New("dial tcp: i/o timeout")}
	cases := []struct {
		name   string
		change func(t *testing.T, f *fixture)
		want   []want
	}{
		{"healthy", func(*testing.T, *fixture) {}, nil},
		{"scaled to zero", func(_ *testing.T, f *fixture) {
			f.cluster.deployments[0].Spec.Replicas, f.cluster.deployments[0].Status.AvailableReplicas = ptr.To[int32](0), 0
			f.cluster.pods = nil
		}, []want{
			{checkReplicas, Error, hookSvc, []string{"scaled to zero", blocked, "kubectl -n tandem-system scale deployment tandem-webhook --replicas=2"}},
			{checkEndpoint, Error, hookSvc, []string{"no running pod of Deployment tandem-webhook answers", blocked}},
		}},
		{"no replica available, pods refuse", func(_ *testing.T, f *fixture) {
			f.cluster.deployments[0].Status.AvailableReplicas = 0
			for i := range f.cluster.pods {
				f.cluster.pods[i].Status.Conditions = nil
			}
			clear(f.prober)
		}, []want{
			{checkReplicas, Error, hookSvc, []string{"none of the 2 replicas", blocked, "describe deployment"}},
			{checkEndpoint, Error, podA, []string{"pod tandem-webhook-a at " + addrA + " does not answer /readyz", "connection refused", blocked, "logs tandem-webhook-a"}},
			{checkEndpoint, Error, podB, []string{"does not answer /readyz", blocked}},
		}},
		{"one of two available, the other refuses", func(_ *testing.T, f *fixture) {
			f.cluster.deployments[0].Status.AvailableReplicas = 1
			f.cluster.pods[1].Status.Conditions = nil
			delete(f.prober, addrB)
		}, []want{
			{checkReplicas, Warning, hookSvc, []string{"1 of the 2 replicas"}},
			{checkEndpoint, Warning, podB, []string{"does not answer /readyz"}},
		}},
		{"both answer not ready", func(_ *testing.T, f *fixture) {
			for addr, p := range f.prober {
				p.status, p.body = 503, "serving certificate: no such file"
				f.prober[addr] = p
			}
		}, []want{
			{checkEndpoint, Error, podA, []string{"answers /readyz with 503 serving certificate: no such file", blocked}},
			{checkEndpoint, Error, podB, []string{"503", blocked}},
		}},
		{"both wait for the API server, on the placeholder certificate", func(t *testing.T, f *fixture) {
			placeholder := newTestCA(t, webhook.PlaceholderName, testNow.Add(year)).cert
			for addr := range f.prober {
				f.prober[addr] = probe{chain: []*x509.Certificate{placeholder}, status: 503,
					body: "waiting for the API server at https://10.96.0.1:443: connection refused\nwaiting for the serving certificate: bootstrap: the first attempt is under way"}
			}
		}, []want{
			{checkEndpoint, Error, podA, []string{"answers /readyz with 503 waiting for the API server at https://10.96.0.1:443: connection refused; waiting for the serving certificate: bootstrap: the first attempt is under way", blocked}},
			{checkEndpoint, Error, podB, []string{"503 waiting for the API server", blocked}},
		}},
		{"pods ready but out of reach from here", func(_ *testing.T, f *fixture) {
			f.prober[addrA], f.prober[addrB] = unreachable, unreachable
		}, []want{
			{checkEndpoint, Warning, podA, []string{"cannot reach pod tandem-webhook-a", "the kubelet finds it ready", "where pod IPs route"}},
			{checkEndpoint, Warning, podB, []string{"cannot reach"}},
		}},
		{"down with failurePolicy Ignore", func(_ *testing.T, f *fixture) {
			f.hook().FailurePolicy = ptr.To(admissionregistrationv1.Ignore)
			f.cluster.deployments[0].Spec.Replicas = ptr.To[int32](0)
			f.cluster.pods = nil
		}, []want{
			{checkReplicas, Error, hookSvc, []string{"scaled to zero", "with failurePolicy Ignore, pods of the namespaces it selects (jobs) are created without tandem"}},
			{checkEndpoint, Error, hookSvc, []string{"created without tandem"}},
		}},
		{"no Deployment named as the Service", func(_ *testing.T, f *fixture) {
			f.cluster.deployments[0].Name = "webhook"
		}, []want{{checkReplicas, Warning, hookSvc, []string{"no Deployment tandem-webhook behind Service tandem-webhook", "went unchecked"}}}},
		{"pod port cannot be told", func(_ *testing.T, f *fixture) {
			f.cluster.deployments[0].Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8443}, {ContainerPort: 9090}}
		}, []want{{checkEndpoint, Warning, hookSvc, []string{"cannot tell which port", "443"}}}},
		{"the only port, unnamed", func(_ *testing.T, f *fixture) {
			f.cluster.deployments[0].Spec.Template.Spec.Containers[0].Ports[0].Name = ""
		}, nil},
		{"caBundle of another CA", func(t *testing.T, f *fixture) {
			f.hook().ClientConfig.CABundle = newTestCA(t, "other-ca", testNow.Add(year)).pem
		}, []want{{checkCertificate, Error, hookName, []string{"the certificate served by pod tandem-webhook-a at " + addrA + ", pod tandem-webhook-b at " + addrB,
			"does not verify against the caBundle for " + serverName, blocked, "rollout restart deployment tandem-webhook"}}}},
		{"caBundle not PEM", func(_ *testing.T, f *fixture) {
			f.hook().ClientConfig.CABundle = []byte("not a certificate")
		}, []want{
			{checkCertificate, Error, hookName, []string{"caBundle holds no PEM certificate", blocked}},
			{checkCertificate, Error, hookName, []string{"does not verify against the caBundle"}},
		}},
		{"empty caBundle", func(_ *testing.T, f *fixture) {
			f.hook().ClientConfig.CABundle = nil
		}, []want{{checkCertificate, Error, hookName, []string{"does not verify against the system's roots (caBundle is empty)", blocked}}}},
		{"certificate for another name", func(t *testing.T, f *fixture) {
			f.serve(f.ca.serving(t, testNow.Add(year), "elsewhere.tandem-system.svc"))
		}, []want{{checkCertificate, Error, hookName, []string{"does not verify", "elsewhere.tandem-system.svc", blocked}}}},
		{"certificate expires in 10 days", func(t *testing.T, f *fixture) {
			f.serve(f.ca.serving(t, testNow.Add(10*day), serverName))
		}, []want{{checkCertificate, Error, hookName, []string{"expires on 2026-12-11, in 10 days"}}}},
		{"certificate expired", func(t *testing.T, f *fixture) {
			f.serve(f.ca.serving(t, testNow.Add(-30*time.Minute), serverName))
		}, []want{{checkCertificate, Error, hookName, []string{"is out of its validity", "expired", blocked}}}},
		{"CA expires in 20 days", func(t *testing.T, f *fixture) {
			f.ca = newTestCA(t, "short-ca", testNow.Add(20*day))
			f.hook().ClientConfig.CABundle = f.ca.pem
			f.serve(f.ca.serving(t, testNow.Add(year), serverName))
		}, []want{{checkCertificate, Error, hookName, []string{`chains to CA "short-ca", which expires on 2026-12-21, in 20 days`}}}},
		{"no namespace labelled", func(_ *testing.T, f *fixture) {
			f.cluster.namespaces[1].Labels = nil
		}, []want{{checkNamespaces, Warning, "tandem.sh/inject=enabled", []string{"no namespace is labelled", "kubectl label namespace NAMESPACE tandem.sh/inject=enabled"}}}},
		{"its own namespace selected", func(_ *testing.T, f *fixture) {
			f.cluster.namespaces[0].Labels = map[string]string{"tandem.sh/inject": "enabled"}
		}, []want{{checkConfig, Error, hookName, []string{"selects its own namespace tandem-system", "kubectl label namespace tandem-system tandem.sh/inject-"}}}},
		{"neither service nor url", func(_ *testing.T, f *fixture) {
			f.hook().ClientConfig.Service = nil
		}, []want{{checkConfig, Error, hookName, []string{"neither service nor url", blocked}}}},
		{"not a webhook of tandem", func(_ *testing.T, f *fixture) {
			f.hook().Name = "inject.example.com"
			f.cluster.deployments = nil
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			tc.change(t, f)
			expectFindings(t, f.run(t, Options{}).Findings, tc.want...)
		})
	}
}
