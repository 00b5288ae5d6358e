// Package webhook serves `tandemctl webhook`: the HTTPS server for
// /mutate (the admission package's handler), /healthz and /readyz, with a
// certificate re-read when its files change; the bootstrap of that
// certificate where no cert-manager is installed (a Secret and the
// caBundle of its configuration); and the API server client behind the
// admission package's NamespaceLabels and KeychainSource. Its metrics are
// the webhook/metrics package's, which reads the served certificate's
// expiry from CertReloader.NotAfter.
package webhook
