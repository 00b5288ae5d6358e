// Package metrics is the webhook's Prometheus side (--metrics-listen,
// docs/webhook.md): the admission package's Recorder as counters and
// histograms, the served certificate's expiry as a gauge read at each scrape,
// and the Go runtime's and the process's own collectors, all on a registry of
// their own (not the global default, which any imported library could fill),
// served as /metrics in the text exposition format over plain HTTP.
//
//	tandem_webhook_admissions_total{outcome, reason}
//	tandem_webhook_admission_duration_seconds           histogram
//	tandem_webhook_registry_lookups_total{result}
//	tandem_webhook_registry_lookup_duration_seconds     histogram
//	tandem_webhook_certificate_expiry_timestamp_seconds
//
// The label values are admission's fixed words (admission/recorder.go).
package metrics
