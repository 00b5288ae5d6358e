// Package webhook serves `tandemctl webhook`: the HTTPS server for
// /mutate (the admission package's handler), /healthz and /readyz, with a
// certificate re-read when its files change. It has no API server client
// (that is the kube package's: the bootstrap of the certificate, the reads
// behind admissions), so its tests, under the race detector in `make
// test`, compile no client-go. Its metrics are the webhook/metrics
// package's, which reads the served certificate's expiry from
// CertReloader.NotAfter.
package webhook
