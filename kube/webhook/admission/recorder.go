package admission

import (
	"time"

	"github.com/tandem-sh/tandem/kube/inject"
)

// Recorder counts admissions and registry lookups (the webhook's
// Prometheus metrics, in the webhook/metrics package). Every label it is
// given comes from the fixed sets below, never from a pod's name or an
// error's text, so a metric's series stay few.
type Recorder interface {
	Admission(outcome Outcome, reason Reason, took time.Duration)
	Lookup(result LookupResult, took time.Duration)
}

// NoRecorder records nothing: the handler without metrics.
type NoRecorder struct{}

func (NoRecorder) Admission(Outcome, Reason, time.Duration) {}
func (NoRecorder) Lookup(LookupResult, time.Duration)       {}

// Outcome is the outcome label of one admission (docs/webhook.md, metrics).
type Outcome string

const (
	OutcomeInjected       Outcome = "injected"
	OutcomeSkipped        Outcome = "skipped"
	OutcomeRejected       Outcome = "rejected"
	OutcomeAllowedOnError Outcome = "allowed-on-error"
)

// outcomeOf maps a decision as logged to its outcome label: an admission
// ignored (not a Pod CREATE) is a skip, and allowed-uninjected is the
// label's allowed-on-error.
func outcomeOf(decision string) Outcome {
	switch decision {
	case Injected:
		return OutcomeInjected
	case Rejected:
		return OutcomeRejected
	case AllowedUninjected:
		return OutcomeAllowedOnError
	default: // Skipped, Ignored
		return OutcomeSkipped
	}
}

// Reason is the reason label: a fixed word, never free text.
type Reason string

// Reasons of an injection: the mode it was made in.
const (
	ReasonClassic = Reason(inject.Classic)
	ReasonNative  = Reason(inject.Native)
)

// Reasons of a skip: beside these, inject's skip causes (opted-out,
// already-injected, no-sidecars; not-an-object and no-pod-template do not
// happen to a Pod).
const (
	ReasonNotPodCreate         Reason = "not-pod-create"
	ReasonNamespaceNotSelected Reason = "namespace-not-selected"
)

// Reasons a pod could not be injected (rejected, or allowed-on-error).
const (
	// ReasonBadObject: the review's object does not read as a Pod.
	ReasonBadObject Reason = "bad-object"
	// ReasonNamespaceLookup: the namespace's labels could not be read.
	ReasonNamespaceLookup Reason = "namespace-lookup"
	// ReasonImageLookup: an image's config or the pod's pull credentials
	// could not be read.
	ReasonImageLookup Reason = "image-lookup"
	// ReasonPodSpec: inject refuses the pod as written (an annotation naming
	// no container, a name tandem needs taken, nothing to run).
	ReasonPodSpec Reason = "pod-spec"
	// ReasonPatch: the injected pod could not be diffed (a bug).
	ReasonPatch Reason = "patch"
)

// LookupResult is the result label of one registry lookup: a config from
// the digest cache (a tag still costs a HEAD), read from the registry, or
// not had.
type LookupResult string

const (
	LookupHit   LookupResult = "hit"
	LookupMiss  LookupResult = "miss"
	LookupError LookupResult = "error"
)
