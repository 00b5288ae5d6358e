//go:build k8s

package k8s

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// What the webhook counted, read as Prometheus reads it: /metrics of each
// replica on its metrics port (examples/webhook/deployment.yaml), reached
// at the pod's IP, which the node routes to over the bridge. Admissions
// spread across the replicas, so a count is the replicas' sum.

// webhookMetricsPort is the Deployment's --metrics-listen.
const webhookMetricsPort = "9090"

// admissionsTimed is the duration histogram's count: one per admission,
// whatever its outcome.
const admissionsTimed = "tandem_webhook_admission_duration_seconds_count"

// lookupsTimed is the lookup histogram's count: one per image lookup.
const lookupsTimed = "tandem_webhook_registry_lookup_duration_seconds_count"

// lookupsRead is the registry lookups that read an image config, from
// the digest cache or the registry: which of the two depends on the
// replica a pod's admission went to and what it read before, so the test
// counts them together.
const lookupsRead = `tandem_webhook_registry_lookups_total{result=~"hit|miss"}`

// admissions is the series of the admissions counter for outcome and
// reason, as webhookScrape keys it.
func admissions(outcome, reason string) string {
	return fmt.Sprintf(`tandem_webhook_admissions_total{outcome=%q,reason=%q}`, outcome, reason)
}

// webhookScrape is one scrape of every replica: which pods answered, and
// each series of tandem's counters and histograms' counts, summed.
type webhookScrape struct {
	pods   []string
	counts map[string]float64
}

// scrapeWebhook scrapes every running replica of the webhook.
func scrapeWebhook(t *testing.T) webhookScrape {
	t.Helper()
	s := webhookScrape{counts: map[string]float64{}}
	for _, p := range runningWebhookPods(t) {
		families := scrapePod(t, p.name, p.ip)
		for _, f := range families {
			addSeries(s.counts, f)
		}
		s.pods = append(s.pods, p.name)
	}
	if len(s.pods) == 0 {
		t.Fatal("no running webhook pod to scrape")
	}
	sort.Strings(s.pods)
	return s
}

type webhookPod struct{ name, ip string }

// runningWebhookPods are the webhook's pods that run and are not going
// away (a pod being deleted leaves the next scrape).
func runningWebhookPods(t *testing.T) []webhookPod {
	t.Helper()
	out := webhookCtl(t, "get", "pods", "-l", "app.kubernetes.io/name=tandem-webhook", "-o",
		`jsonpath={range .items[?(@.status.phase=="Running")]}{.metadata.name} {.status.podIP} {.metadata.deletionTimestamp}{"\n"}{end}`)
	var pods []webhookPod
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			pods = append(pods, webhookPod{name: f[0], ip: f[1]})
		}
	}
	return pods
}

// scrapePod reads one replica's /metrics in the text exposition format.
func scrapePod(t *testing.T, name, ip string) map[string]*dto.MetricFamily {
	t.Helper()
	ctx, cancel := contextFor(10 * time.Second)
	defer cancel()
	url := "http://" + ip + ":" + webhookMetricsPort + "/metrics"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("scrape webhook pod %s: %v", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape webhook pod %s at %s: %s", name, url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("scrape webhook pod %s at %s: %v", name, url, err)
	}
	return families
}

// addSeries adds the series of family f to counts when it is one of
// tandem's counters (each value) or histograms (each count); the
// certificate's gauge and the runtime's own are left out.
func addSeries(counts map[string]float64, f *dto.MetricFamily) {
	if !strings.HasPrefix(f.GetName(), "tandem_webhook_") {
		return
	}
	for _, m := range f.GetMetric() {
		switch {
		case m.Counter != nil:
			counts[seriesKey(f.GetName(), m.GetLabel())] += m.GetCounter().GetValue()
		case m.Histogram != nil:
			counts[seriesKey(f.GetName()+"_count", m.GetLabel())] += float64(m.GetHistogram().GetSampleCount())
		}
	}
}

// seriesKey is name{label="value",...}, labels in name order; name alone
// without labels.
func seriesKey(name string, labels []*dto.LabelPair) string {
	if len(labels) == 0 {
		return name
	}
	pairs := make([]string, 0, len(labels))
	for _, l := range labels {
		pairs = append(pairs, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
	}
	sort.Strings(pairs)
	return name + "{" + strings.Join(pairs, ",") + "}"
}

// since is what changed from before: each series whose sum moved, by how
// much. The same replicas must have answered both scrapes (a replica's
// counters start again at zero).
func (s webhookScrape) since(t *testing.T, before webhookScrape) map[string]float64 {
	t.Helper()
	if !slices.Equal(s.pods, before.pods) {
		t.Fatalf("the webhook's replicas changed between the scrapes: %v, then %v", before.pods, s.pods)
	}
	changed := map[string]float64{}
	for _, key := range slices.Sorted(maps.Keys(s.counts)) {
		if d := s.counts[key] - before.counts[key]; d != 0 {
			changed[key] = d
		}
	}
	return changed
}

// folded is changed with the hits and misses of the lookups counted as
// lookupsRead.
func folded(changed map[string]float64) map[string]float64 {
	f := maps.Clone(changed)
	for _, result := range []string{"hit", "miss"} {
		key := fmt.Sprintf(`tandem_webhook_registry_lookups_total{result=%q}`, result)
		if d, ok := f[key]; ok {
			f[lookupsRead] += d
			delete(f, key)
		}
	}
	return f
}

// assertCounted scrapes until the webhook has timed as many admissions
// since before as want says (an admission is counted once its answer is
// written, a moment after the API server may have read it), at most ten
// seconds, then asserts that exactly want changed (folded). It returns
// the change as scraped.
func assertCounted(t *testing.T, before webhookScrape, want map[string]float64) map[string]float64 {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := scrapeWebhook(t).since(t, before)
		if got[admissionsTimed] >= want[admissionsTimed] || time.Now().After(deadline) {
			if !maps.Equal(folded(got), want) {
				t.Errorf("the webhook's metrics changed by %v; want exactly %v", got, want)
			}
			return got
		}
		time.Sleep(200 * time.Millisecond)
	}
}
