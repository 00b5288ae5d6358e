package metrics

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/rs/zerolog"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/tandem-sh/tandem/kube/inject"
	"github.com/tandem-sh/tandem/kube/webhook/admission"
)

// A Job's pod whose sidecar has no command: injecting it reads the proxy's
// image. Its annotation and image are swapped for the other cases.
const pod = `{"kind":"Pod","apiVersion":"v1","metadata":{"generateName":"export-","namespace":"batch",
"annotations":{"tandem.sh/sidecars":"proxy"}},
"spec":{"containers":[{"name":"main","image":"registry.example/app:1","command":["/app"]},
{"name":"proxy","image":"registry.example/proxy:2"}]}}`

// images knows the proxy, and says cached from its second lookup on.
type images struct {
	mu     sync.Mutex
	served bool
}

func (i *images) Resolve(_ context.Context, image string, _ authn.Keychain) (inject.ImageConfig, bool, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if image != "registry.example/proxy:2" {
		return inject.ImageConfig{}, false, errors.New("MANIFEST_UNKNOWN")
	}
	cached := i.served
	i.served = true
	return inject.ImageConfig{Entrypoint: []string{"/proxy"}}, cached, nil
}

type selected struct{}

func (selected) Labels(context.Context, string) (map[string]string, error) {
	return map[string]string{"tandem.sh/inject": "enabled"}, nil
}

// newHandler is the real /mutate handler over fakes, recording to r (nil:
// nothing).
func newHandler(t testing.TB, r admission.Recorder, img *images, onError inject.OnError) *admission.Handler {
	t.Helper()
	h, err := admission.NewHandler(admission.Config{
		Inject:     inject.Options{Mode: inject.Classic, Image: "localhost/tandem:test", Version: "v9"},
		OnError:    onError,
		Selector:   labels.SelectorFromSet(labels.Set{"tandem.sh/inject": "enabled"}),
		Namespaces: selected{}, Images: img, Logger: zerolog.Nop(), Recorder: r,
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// admit posts a review of obj to h, as the API server does.
func admit(t *testing.T, h http.Handler, obj string) {
	t.Helper()
	if code := serve(h, reviewBody(t, obj)); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
}

func serve(h http.Handler, body []byte) int {
	req := httptest.NewRequest(http.MethodPost, "/mutate", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

// reviewBody is the review of a CREATE of obj.
func reviewBody(t testing.TB, obj string) []byte {
	t.Helper()
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{UID: "u", Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
			Namespace: "batch", Operation: admissionv1.Create},
	}
	review.Request.Object.Raw = []byte(obj)
	body, err := json.Marshal(review)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// scrape reads /metrics as Prometheus would.
func scrape(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("content type %q; want the text exposition format", ct)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return families
}

// sample is the value of the series of family with exactly these labels
// (a counter's value, a histogram's count, a gauge's value); -1 if none.
func sample(families map[string]*dto.MetricFamily, family string, want map[string]string) float64 {
	for _, m := range families[family].GetMetric() {
		if len(m.GetLabel()) != len(want) {
			continue
		}
		match := true
		for _, l := range m.GetLabel() {
			match = match && want[l.GetName()] == l.GetValue()
		}
		switch {
		case !match:
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		}
	}
	return -1
}

// After N admissions of each kind through the real handler, /metrics
// counts each, and the lookups behind them.
func TestScrapeCountsAdmissions(t *testing.T) {
	m := New(nil)
	img := &images{}
	reject, allow := newHandler(t, m, img, inject.Reject), newHandler(t, m, img, inject.Allow)
	gone := strings.Replace(pod, "registry.example/proxy:2", "registry.example/gone:1", 1)
	noSidecars := strings.Replace(pod, `"tandem.sh/sidecars":"proxy"`, `"team":"x"`, 1)
	kinds := []struct {
		h       http.Handler
		obj     string
		n       int
		outcome admission.Outcome
		reason  admission.Reason
	}{
		{reject, pod, 4, admission.OutcomeInjected, admission.ReasonClassic},
		{reject, noSidecars, 3, admission.OutcomeSkipped, admission.Reason(inject.NoSidecars)},
		{reject, gone, 2, admission.OutcomeRejected, admission.ReasonImageLookup},
		{allow, gone, 1, admission.OutcomeAllowedOnError, admission.ReasonImageLookup},
	}
	total := 0
	for _, k := range kinds {
		for range k.n {
			admit(t, k.h, k.obj)
		}
		total += k.n
	}
	families := scrape(t, m)
	for _, k := range kinds {
		labels := map[string]string{"outcome": string(k.outcome), "reason": string(k.reason)}
		if got := sample(families, "tandem_webhook_admissions_total", labels); got != float64(k.n) {
			t.Errorf("admissions %v: %v; want %d", labels, got, k.n)
		}
	}
	if got := sample(families, "tandem_webhook_admission_duration_seconds", nil); got != float64(total) {
		t.Errorf("admission durations observed: %v; want %d", got, total)
	}
	// The injected pods read the proxy once, then from the cache; the
	// three refused ones fail their lookup.
	for result, want := range map[admission.LookupResult]float64{admission.LookupMiss: 1, admission.LookupHit: 3, admission.LookupError: 3} {
		if got := sample(families, "tandem_webhook_registry_lookups_total", map[string]string{"result": string(result)}); got != want {
			t.Errorf("lookups %s: %v; want %v", result, got, want)
		}
	}
	if got := sample(families, "tandem_webhook_registry_lookup_duration_seconds", nil); got != 7 {
		t.Errorf("lookup durations observed: %v; want 7", got)
	}
	if families["go_goroutines"] == nil || families["process_start_time_seconds"] == nil {
		t.Error("no go_goroutines or process_start_time_seconds: the runtime's collectors are missing")
	}
}

// Before any lookup, each result is there at 0 (a rate needs its start).
func TestLookupResultsStartAtZero(t *testing.T) {
	families := scrape(t, New(nil))
	for _, r := range []string{"hit", "miss", "error"} {
		if got := sample(families, "tandem_webhook_registry_lookups_total", map[string]string{"result": r}); got != 0 {
			t.Errorf("lookups %s: %v; want 0", r, got)
		}
	}
	if _, ok := families["tandem_webhook_certificate_expiry_timestamp_seconds"]; ok {
		t.Error("a certificate expiry without a certificate; want no sample")
	}
}

type fixedExpiry time.Time

func (f fixedExpiry) NotAfter() (time.Time, bool) { return time.Time(f), true }

// The metrics live on their own registry: the global default is untouched.
func TestOwnRegistry(t *testing.T) {
	notAfter := time.Date(2031, 5, 4, 3, 2, 1, 0, time.UTC)
	a, b := New(fixedExpiry(notAfter)), New(nil) // two would panic on one registry
	a.Admission(admission.OutcomeInjected, admission.ReasonClassic, time.Millisecond)
	if got := sample(scrape(t, b), "tandem_webhook_admissions_total", map[string]string{"outcome": "injected", "reason": "classic"}); got != -1 {
		t.Errorf("an admission recorded in one Metrics shows in another: %v", got)
	}
	if got := sample(scrape(t, a), "tandem_webhook_certificate_expiry_timestamp_seconds", nil); got != float64(notAfter.Unix()) {
		t.Errorf("expiry %v; want %d", got, notAfter.Unix())
	}
}

// The mode gauge says the mode and why, one series at a time.
func TestModeGauge(t *testing.T) {
	m := New(nil)
	m.Mode("classic", "kubelet-before-1.29")
	m.Mode("native", "all-at-1.29-or-later")
	families := scrape(t, m)
	if got := sample(families, "tandem_webhook_mode", map[string]string{"mode": "native", "reason": "all-at-1.29-or-later"}); got != 1 {
		t.Errorf("native: %v; want 1", got)
	}
	if got := sample(families, "tandem_webhook_mode", map[string]string{"mode": "classic", "reason": "kubelet-before-1.29"}); got != -1 {
		t.Errorf("the earlier mode is still there: %v; want no sample", got)
	}
}

// The install gauge says the install and why, one series at a time.
func TestInstallGauge(t *testing.T) {
	m := New(nil)
	m.Install("image-volume", "all-with-image-volumes")
	m.Install("init-copy", "runtime-without-image-volumes")
	families := scrape(t, m)
	if got := sample(families, "tandem_webhook_install", map[string]string{"install": "init-copy", "reason": "runtime-without-image-volumes"}); got != 1 {
		t.Errorf("init-copy: %v; want 1", got)
	}
	if got := sample(families, "tandem_webhook_install", map[string]string{"install": "image-volume", "reason": "all-with-image-volumes"}); got != -1 {
		t.Errorf("the earlier install is still there: %v; want no sample", got)
	}
}
