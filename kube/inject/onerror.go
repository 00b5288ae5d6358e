package inject

import "fmt"

// OnError is what becomes of a pod that cannot be injected, at admission
// (the webhook's and the admission policy's --on-error).
type OnError string

const (
	// Reject refuses the pod with the reason and the fix: a Job whose
	// sidecar is silently left unwrapped never completes.
	Reject OnError = "reject"
	// Allow admits the pod as it was, saying why (the webhook's log, the
	// policy's tandem.sh/policy annotation, which `tandemctl check`
	// reports).
	Allow OnError = "allow"
)

// ParseOnError reads --on-error.
func ParseOnError(s string) (OnError, error) {
	switch OnError(s) {
	case Reject, Allow:
		return OnError(s), nil
	}
	return "", fmt.Errorf("on-error %q: expected reject or allow", s)
}
