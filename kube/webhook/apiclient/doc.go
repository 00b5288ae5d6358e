// Package apiclient is the webhook's side of the API server, through client-go's
// typed clients of the two groups it uses: the reads behind admissions (a
// namespace's labels, a pod's pull secrets: the admission package's
// NamespaceLabels and KeychainSource), and the bootstrap of the serving
// certificate where no cert-manager is installed (a Secret and the
// caBundle of the webhook's configuration). tandemctl check finds the API
// server with RESTConfig.
package apiclient
