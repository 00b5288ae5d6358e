//go:build k8s

package k8s

import (
	"testing"
)

// The installation as `tandemctl check` sees it with nothing more than the
// ClusterRole tandem-check: healthy, then with a caBundle of another CA,
// then scaled to zero; each time put back as it was. It changes the
// webhook every other test shares, so it is not parallel: it runs alone,
// before the parallel tests, after or before TestWebhook.
func TestCheckInstallation(t *testing.T) {
	webhookInstalled(t)
	waitWebhookRollout(t)
	n := newNamespace(t)
	kubeconfig := checkerKubeconfig(t, n)
	t.Run("Healthy", func(t *testing.T) { assertHealthy(t, kubeconfig, n) })
	t.Run("WrongCABundle", func(t *testing.T) {
		patchCABundle(t, otherCA(t))
		run := runCheck(t, kubeconfig, "-n", n.name, "-o", "json")
		certs := errorsIn(only(run.findings(t), "webhook-certificate"))
		if run.code != 1 || len(certs) == 0 {
			t.Fatalf("check with another CA in caBundle: exit %d; want 1 and a certificate error:\n%s", run.code, run.stdout)
		}
		mustContain(t, "the certificate finding", certs[0].Message,
			"does not verify against the caBundle", "with failurePolicy Fail, no pod can be created")
	})
	t.Run("ScaledToZero", func(t *testing.T) {
		scaleWebhookToZero(t)
		run := runCheck(t, kubeconfig, "-n", n.name, "-o", "json")
		findings := run.findings(t)
		replicas, endpoints := errorsIn(only(findings, "webhook-replicas")), errorsIn(only(findings, "webhook-endpoint"))
		if run.code != 1 || len(replicas) != 1 || len(endpoints) != 1 {
			t.Fatalf("check of the webhook scaled to zero: exit %d; want 1, a replicas and an endpoint error:\n%s", run.code, run.stdout)
		}
		mustContain(t, "the replicas finding", replicas[0].Message, "Deployment tandem-webhook is scaled to zero", "no pod can be created")
		mustContain(t, "the endpoint finding", endpoints[0].Message, "no running pod of Deployment tandem-webhook answers")
	})
	t.Run("HealthyAgain", func(t *testing.T) { assertHealthy(t, kubeconfig, n) })
}

// assertHealthy: check exits 0, reached every replica and verified the
// certificate each serves (no endpoint or certificate finding at all).
func assertHealthy(t *testing.T, kubeconfig string, n *namespace) {
	t.Helper()
	run := runCheck(t, kubeconfig, "-n", n.name, "-o", "json")
	findings := run.findings(t)
	if run.code != 0 || len(errorsIn(findings)) > 0 {
		t.Errorf("check of a healthy install: exit %d; want 0 and no error:\n%s", run.code, run.stdout)
	}
	if seen := append(only(findings, "webhook-endpoint"), only(findings, "webhook-certificate")...); len(seen) > 0 {
		t.Errorf("check did not see the endpoints and certificate clean: %+v", seen)
	}
	text := runCheck(t, kubeconfig, "-n", n.name)
	mustContain(t, "check's report", text.stdout, "and 1 webhook of tandem)")
	t.Logf("tandemctl check with the ClusterRole tandem-check:\n%s", text.stdout)
}
