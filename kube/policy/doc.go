// Package policy writes a MutatingAdmissionPolicy that injects tandem in
// the API server itself, with no webhook running: the injection of
// kube/inject, for the pods whose every program the manifest or a preset
// states, as CEL that this package generates from Go (the presets table,
// the mode, the install, the injector's rules of the command lines).
//
// A policy cannot read an image's registry, run Go, or write half a pod.
// So the CEL first lists what it cannot do for a pod (variables.problems):
// a pod it can handle is injected whole; a pod it cannot is left as it is
// with the tandem.sh/policy annotation saying why, which a
// ValidatingAdmissionPolicy then refuses (--on-error reject) or lets
// through for `tandemctl check` to find (--on-error allow). Limits lists
// what the policy leaves to the webhook or to `tandemctl inject`.
package policy
