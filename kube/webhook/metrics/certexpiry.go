package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// CertExpiry is the certificate being served (webhook.CertReloader): its
// NotAfter, read again when its files change; false while none is loaded.
type CertExpiry interface {
	NotAfter() (time.Time, bool)
}

// certExpiryCollector asks at each scrape, so the gauge follows every
// reload without the reloader knowing of metrics. While no certificate is
// loaded there is no sample (not a 0 that would read as long expired):
// /readyz says so.
type certExpiryCollector struct {
	certs CertExpiry
	desc  *prometheus.Desc
}

func newCertExpiryCollector(certs CertExpiry) *certExpiryCollector {
	return &certExpiryCollector{certs: certs, desc: prometheus.NewDesc(
		"tandem_webhook_certificate_expiry_timestamp_seconds",
		"NotAfter of the serving certificate, in seconds since the Unix epoch.", nil, nil)}
}

func (c *certExpiryCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *certExpiryCollector) Collect(ch chan<- prometheus.Metric) {
	if c.certs == nil {
		return
	}
	if notAfter, ok := c.certs.NotAfter(); ok {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(notAfter.Unix()))
	}
}
