// Package admission is the admission side of `tandemctl webhook`:
// AdmissionReview in, JSON patch out, applying the inject package to Pods
// as the API server admits them (controller-runtime's webhook/admission).
//
// One admission: the API server POSTs an AdmissionReview (v1) to /mutate.
// The handler reads it within a size bound, checks that the Pod's namespace
// is selected (the MutatingWebhookConfiguration's namespaceSelector, checked
// again here), names its sidecars (the tandem.sh/sidecars annotation, and
// containers whose image matches --sidecar-image), and runs the same
// injection as `tandemctl inject` on the Pod as a YAML node tree. Image
// ENTRYPOINTs are read with the pod's own pull secrets and its service
// account's, cached by digest. The answer is a JSON patch from the Pod as it
// came to the Pod as injected; a pod that cannot be injected is rejected
// with the same message as `inject` gives (or admitted unchanged with a
// warning under --on-error allow). One JSON log line says what was decided.
//
// What it reads from the cluster (namespace labels, pull credentials) comes
// through the NamespaceLabels and KeychainSource interfaces; the webhook
// package serves the handler and implements them over the API server. What
// it counts (each admission's outcome and reason, each registry lookup's
// result) goes to a Recorder, whose labels are fixed words (recorder.go);
// the webhook/metrics package makes them Prometheus metrics.
package admission
