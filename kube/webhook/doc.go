// Package webhook serves `tandemctl webhook`: the HTTPS server for
// /mutate (the admission package's handler), /healthz and /readyz, with a
// certificate re-read when its files change. Run listens first, then, beside
// serving, watches the certificate and (when given a Bootstrapper) makes it,
// retrying with backoff; until one is loaded a placeholder that no caBundle
// trusts keeps the probes readable. /readyz asks the API server (through
// the APIServer seam) at each call and names every condition it waits for;
// /healthz only says the process serves. It has no API server client (that
// is the kube package's: the bootstrap of the certificate, the API server's
// readiness, the reads behind admissions), so its tests, under the race
// detector in `make test`, compile no client-go. Its metrics are the
// webhook/metrics package's, which reads the served certificate's expiry
// from CertReloader.NotAfter.
package webhook
