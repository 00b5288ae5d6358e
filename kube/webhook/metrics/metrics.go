package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tandem-sh/tandem/kube/webhook/admission"
)

// durationBuckets span an admission answered in process (a few hundred
// microseconds) to one that waits on registries up to the API server's
// timeout (10 s at most by default).
var durationBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// Metrics records admissions and lookups and serves them.
type Metrics struct {
	registry          *prometheus.Registry
	admissions        *prometheus.CounterVec
	admissionDuration prometheus.Histogram
	lookups           *prometheus.CounterVec
	lookupDuration    prometheus.Histogram
	mode              *prometheus.GaugeVec
	install           *prometheus.GaugeVec
}

var _ admission.Recorder = (*Metrics)(nil)

// New registers the webhook's metrics, the certificate's expiry read from
// certs, and the Go runtime's and the process's collectors.
func New(certs CertExpiry) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		admissions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tandem_webhook_admissions_total",
			Help: "Admission reviews answered, by outcome (injected, skipped, rejected, allowed-on-error) and reason.",
		}, []string{"outcome", "reason"}),
		admissionDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "tandem_webhook_admission_duration_seconds",
			Help:    "Time from an admission review's arrival to its answer written.",
			Buckets: durationBuckets,
		}),
		lookups: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tandem_webhook_registry_lookups_total",
			Help: "Image config lookups, by result: hit (from the digest cache), miss (read from the registry), error.",
		}, []string{"result"}),
		lookupDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "tandem_webhook_registry_lookup_duration_seconds",
			Help:    "Time of one image config lookup, whatever its result.",
			Buckets: durationBuckets,
		}),
		mode: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tandem_webhook_mode",
			Help: "1 for the mode the webhook injects in (classic or native), with the reason: as --mode said, or what --mode auto read of the API server's and the kubelets' versions.",
		}, []string{"mode", "reason"}),
		install: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tandem_webhook_install",
			Help: "1 for how the webhook installs tandem (init-copy or image-volume), with the reason: as --install said, or what --install auto read of the API server's, the kubelets' and the container runtimes' versions.",
		}, []string{"install", "reason"}),
	}
	// Every result from the start: a rate over a series that appears late
	// misses its first increase.
	for _, r := range []admission.LookupResult{admission.LookupHit, admission.LookupMiss, admission.LookupError} {
		m.lookups.WithLabelValues(string(r))
	}
	m.registry.MustRegister(m.admissions, m.admissionDuration, m.lookups, m.lookupDuration, m.mode, m.install,
		newCertExpiryCollector(certs),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *Metrics) Admission(outcome admission.Outcome, reason admission.Reason, took time.Duration) {
	m.admissions.WithLabelValues(string(outcome), string(reason)).Inc()
	m.admissionDuration.Observe(took.Seconds())
}

func (m *Metrics) Lookup(result admission.LookupResult, took time.Duration) {
	m.lookups.WithLabelValues(string(result)).Inc()
	m.lookupDuration.Observe(took.Seconds())
}

// Mode records the mode the webhook injects in and why; a later call
// replaces the earlier one, so one series is 1 at a time.
func (m *Metrics) Mode(mode, reason string) {
	m.mode.Reset()
	m.mode.WithLabelValues(mode, reason).Set(1)
}

// Install records how the webhook installs tandem and why; a later call
// replaces the earlier one, so one series is 1 at a time.
func (m *Metrics) Install(install, reason string) {
	m.install.Reset()
	m.install.WithLabelValues(install, reason).Set(1)
}

// Handler serves the registry in the text exposition format (or what the
// scraper asks for).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}
