// Package podfailure finds the rules of a Job's podFailurePolicy that a
// sidecar's own exit at teardown would trip. When a pod fails, the Job
// controller matches onExitCodes against every terminated container with a
// non-zero code, init containers (and so native sidecars) included, unless
// the rule names containerName. A rule written for the main's codes
// (FailJob on NotIn [0, 1], so that a 1 is retried) then fails the Job at
// the main's first 1, because the proxy's 143 after its teardown SIGTERM
// matches it. `tandemctl check` reports such rules, and inject warns.
package podfailure

import (
	"fmt"
	"slices"
	"strings"
)

// Rule is one podFailurePolicy rule's onExitCodes, as the Job states it.
type Rule struct {
	Index         int // its place in the rules, from 0
	Action        string
	ContainerName string // "" when the rule matches every container
	Operator      string // In or NotIn
	Values        []int32
}

// TeardownCodes are the codes a sidecar exits with when it is stopped, as
// the kubelet stops it: SIGTERM's 143, and SIGKILL's 137 after the grace.
var TeardownCodes = []int32{143, 137}

// Trip is a rule that a sidecar's teardown code matches.
type Trip struct {
	Rule Rule
	Code int32
}

// Tripped lists the rules that would fail (FailJob, FailIndex) or
// uncount (Ignore) a pod because of a sidecar's teardown code rather than
// its mains'. A rule that names a container is meant for it; Count does
// what no rule would.
func Tripped(rules []Rule) []Trip {
	return TrippedBy(rules, TeardownCodes)
}

// TrippedBy is Tripped for sidecars that exit with codes at teardown
// (only 137 for a proxy told to exit 0 on SIGTERM).
func TrippedBy(rules []Rule, codes []int32) []Trip {
	var trips []Trip
	for _, r := range rules {
		if r.ContainerName != "" || r.Action == "Count" {
			continue
		}
		for _, code := range codes {
			if r.matches(code) {
				trips = append(trips, Trip{Rule: r, Code: code})
				break
			}
		}
	}
	return trips
}

// matches is the Job controller's test of one exit code.
func (r Rule) matches(code int32) bool {
	switch r.Operator {
	case "In":
		return slices.Contains(r.Values, code)
	case "NotIn":
		return !slices.Contains(r.Values, code)
	}
	return false
}

// String names the rule as a reader finds it in the Job.
func (r Rule) String() string {
	values := make([]string, len(r.Values))
	for i, v := range r.Values {
		values[i] = fmt.Sprint(v)
	}
	return fmt.Sprintf("podFailurePolicy rule %d (%s on exit codes %s [%s])", r.Index+1, r.Action, r.Operator, strings.Join(values, ", "))
}

// Message says what the trip does; Fix how to mend it, for the mains.
func (t Trip) Message(sidecars []string) string {
	return fmt.Sprintf("%s matches every container, and sidecar %s can exit %d at teardown: a failed pod that the rule meant to judge by its main's code is judged by the sidecar's instead (%s)",
		t.Rule, quoteAll(sidecars), t.Code, consequence(t.Rule.Action))
}

func (t Trip) Fix(mains []string) string {
	if len(mains) == 1 {
		return fmt.Sprintf("add containerName: %s to the rule's onExitCodes", mains[0])
	}
	return fmt.Sprintf("write the rule once per main container, each with its containerName (%s)", strings.Join(mains, ", "))
}

func consequence(action string) string {
	switch action {
	case "Ignore":
		return "the failure is not counted, and the Job retries for ever"
	case "FailIndex":
		return "the index fails at once"
	}
	return "the Job fails at once instead of retrying"
}

func quoteAll(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(quoted, ", ")
}
