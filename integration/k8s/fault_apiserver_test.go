//go:build k8s

package k8s

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// The API server restarted while the webhook serves. Every admission reads
// its namespace's labels from the API, so meanwhile the webhook can admit
// nothing: its /readyz says what it waits for, its /healthz stays 200 (the
// kubelet must not restart it for another component's outage), and once
// the API answers again it admits without a restart of its own.

// recoveredStreak is how many admissions in a row, injected, count as the
// webhook admitting again.
const recoveredStreak = 100

// apiServerBound is how long the webhook may take to see the API server
// gone or back, and admissions to succeed again after it is back (the
// kubelet posts each replica's readiness, the endpoints follow).
const apiServerBound = time.Minute

// apiServerOutage is how long the API server stays down: more than the
// readiness probe's three failures two seconds apart
// (examples/webhook/deployment.yaml), less than the node controller's
// grace before it marks the node NotReady (40 s).
const apiServerOutage = 12 * time.Second

// TestFaultAPIServerRestart stops kube-apiserver as a service manager
// would, watches each replica's /readyz and /healthz meanwhile, starts it
// again, and counts the admissions refused until the webhook admits again.
func TestFaultAPIServerRestart(t *testing.T) {
	webhookInstalled(t)
	waitWebhookRollout(t)
	n := newNamespace(t)
	n.enableInjection()
	client := adminClient(t)
	ca := readWebhookBundle(t, client).CA
	pods := runningWebhookPods(t)
	started, restarts := processStarts(t, pods), webhookRestarts(t)

	since := time.Now()
	down := faultAPIServer(t, "stop")
	whileAPIServerDown(t, pods, ca)
	// The outage lasts long enough for the kubelet to have marked both
	// replicas unready, as a real one does: its length is the fault's.
	time.Sleep(time.Until(down.Add(apiServerOutage)))
	back := faultAPIServer(t, "start")
	// Admissions from the moment the API answers again.
	b := &burst{client: client, ns: n.name, prefix: "restarted", dryRun: true}
	finish := startBurst(t, b, recoveredStreak)
	for _, p := range pods {
		awaitProbe(t, p, ca, "/readyz", http.StatusOK)
	}
	readyAgain := time.Since(back)
	recovered := b.awaitStreak(t, recoveredStreak, apiServerBound)
	c := count(finish())
	c.failOthers(t)
	if now := processStarts(t, pods); !maps.Equal(now, started) {
		t.Errorf("the webhook's processes started at %v, now %v; want the same processes, never restarted", started, now)
	}
	if now := webhookRestarts(t); !maps.Equal(now, restarts) {
		t.Errorf("the webhook's restartCounts were %v, now %v; want unchanged", restarts, now)
	}
	assertOutageLogged(t, pods, since)
	assertClusterHealthy(t, client)
	t.Logf("API server down for %s; each replica's /readyz 200 %s after it answered again; admissions since then: %s; refusals %s; %d in a row admitted from %s",
		back.Sub(down).Round(time.Millisecond), readyAgain.Round(time.Millisecond), c, c.refusedSpan(), recoveredStreak, recovered.Round(time.Millisecond))
	t.Logf("fault figures: API server restarted: down %s; %d admissions (dry run) after it was back, %d injected, %d refused (until %s), 0 uninjected; webhook restarts 0",
		back.Sub(down).Round(time.Second), c.attempted, c.injected, c.refused, recovered.Round(time.Millisecond))
}

// whileAPIServerDown: each replica's /readyz says it waits for the API
// server, its /healthz stays 200.
func whileAPIServerDown(t *testing.T, pods []webhookPod, ca []byte) {
	t.Helper()
	for _, p := range pods {
		body := awaitProbe(t, p, ca, "/readyz", http.StatusServiceUnavailable)
		mustContain(t, "/readyz of "+p.name+" while the API server is down", body, "waiting for the API server at https://"+nodeIP+":6443")
		if status, body := probe(p, ca, "/healthz"); status != http.StatusOK {
			t.Errorf("webhook pod %s: /healthz %d %q while the API server is down; want 200: the kubelet would restart it", p.name, status, body)
		}
		t.Logf("webhook pod %s, API server down: /readyz 503 %q, /healthz 200", p.name, strings.TrimSpace(body))
	}
}

// assertOutageLogged: each replica logged the outage once as it began and
// once as it ended, not at every probe.
func assertOutageLogged(t *testing.T, pods []webhookPod, since time.Time) {
	t.Helper()
	for _, p := range pods {
		logs := webhookCtl(t, "logs", p.name, "--since-time="+since.UTC().Format(time.RFC3339))
		events := map[string]int{}
		for _, line := range strings.Split(logs, "\n") {
			if l, ok := kit.ParseJSON(line); ok {
				events[l.Field("event")]++
			}
		}
		if events["api-server-unreachable"] != 1 || events["api-server-reachable"] != 1 {
			t.Errorf("webhook pod %s logged api-server-unreachable %d times and api-server-reachable %d times; want once each:\n%s",
				p.name, events["api-server-unreachable"], events["api-server-reachable"], logs)
		}
	}
}

// faultAPIServer runs fault.sh ACTION kube-apiserver and returns when it
// returned (start: once the API answers). Until it is started again, the
// test's end starts it, so no later test finds the cluster without it.
func faultAPIServer(t *testing.T, action string) time.Time {
	t.Helper()
	if out, err := runFaultScript(action, "kube-apiserver"); err != nil {
		t.Fatalf("fault.sh %s kube-apiserver: %v\n%s", action, err, out)
	}
	if action == "stop" {
		t.Cleanup(func() {
			ctx, cancel := contextFor(10 * time.Second)
			defer cancel()
			if _, err := kubectl(ctx, nil, "get", "--raw", "/readyz"); err != nil {
				if out, err := runFaultScript("start", "kube-apiserver"); err != nil {
					t.Errorf("fault.sh start kube-apiserver: %v\n%s", err, out)
				}
			}
		})
	}
	return time.Now()
}

// probe GETs path on the replica's HTTPS port, trusting ca.
func probe(p webhookPod, ca []byte, path string) (int, string) {
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca)
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: servedName}}}
	resp, err := c.Get("https://" + p.ip + ":8443" + path)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// awaitProbe waits until path answers status, at most apiServerBound,
// and returns the body.
func awaitProbe(t *testing.T, p webhookPod, ca []byte, path string, status int) string {
	t.Helper()
	deadline := time.Now().Add(apiServerBound)
	for {
		got, body := probe(p, ca, path)
		if got == status {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook pod %s: %s answers %d %q after %s; want %d", p.name, path, got, body, apiServerBound, status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// processStarts is each replica's process_start_time_seconds, read from
// the replica itself: it changes if the process was restarted, whatever
// the API server was told.
func processStarts(t *testing.T, pods []webhookPod) map[string]float64 {
	t.Helper()
	starts := map[string]float64{}
	for _, p := range pods {
		f := scrapePod(t, p.name, p.ip)["process_start_time_seconds"]
		if f == nil || len(f.GetMetric()) != 1 {
			t.Fatalf("webhook pod %s: no process_start_time_seconds in its metrics", p.name)
		}
		starts[p.name] = f.GetMetric()[0].GetGauge().GetValue()
	}
	return starts
}

// webhookRestarts is each webhook pod's container restartCount.
func webhookRestarts(t *testing.T) map[string]string {
	t.Helper()
	out := webhookCtl(t, "get", "pods", "-l", "app.kubernetes.io/name=tandem-webhook", "-o",
		`jsonpath={range .items[*]}{.metadata.name}={.status.containerStatuses[0].restartCount}{"\n"}{end}`)
	counts := map[string]string{}
	for _, line := range strings.Fields(out) {
		name, count, _ := strings.Cut(line, "=")
		counts[name] = count
	}
	return counts
}
