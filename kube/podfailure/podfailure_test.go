package podfailure

import (
	"strings"
	"testing"
)

// The rules a sidecar's teardown code trips, as the Job controller
// matches them.
func TestTripped(t *testing.T) {
	cases := []struct {
		name string
		rule Rule
		code int32 // 0: not tripped
	}{
		{"FailJob on NotIn [0, 1]", Rule{Action: "FailJob", Operator: "NotIn", Values: []int32{0, 1}}, 143},
		{"FailJob on In [42]", Rule{Action: "FailJob", Operator: "In", Values: []int32{42}}, 0},
		{"FailJob on In [137]: SIGKILL after the grace", Rule{Action: "FailJob", Operator: "In", Values: []int32{137}}, 137},
		{"Ignore on NotIn [1]", Rule{Action: "Ignore", Operator: "NotIn", Values: []int32{1}}, 143},
		{"Count never changes the outcome", Rule{Action: "Count", Operator: "NotIn", Values: []int32{0}}, 0},
		{"a rule for the main alone", Rule{Action: "FailJob", ContainerName: "export", Operator: "NotIn", Values: []int32{0, 1}}, 0},
		{"FailIndex on NotIn [0, 143, 137]", Rule{Action: "FailIndex", Operator: "NotIn", Values: []int32{0, 143, 137}}, 0},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			trips := Tripped([]Rule{tt.rule})
			switch {
			case tt.code == 0 && len(trips) != 0:
				t.Errorf("tripped by %d; want not tripped", trips[0].Code)
			case tt.code != 0 && (len(trips) != 1 || trips[0].Code != tt.code):
				t.Errorf("trips %v; want tripped by %d", trips, tt.code)
			}
		})
	}
}

func TestTripWords(t *testing.T) {
	trip := Tripped([]Rule{{Index: 1, Action: "FailJob", Operator: "NotIn", Values: []int32{0, 1}}})[0]
	msg := trip.Message([]string{"db-proxy"})
	for _, want := range []string{"podFailurePolicy rule 2 (FailJob on exit codes NotIn [0, 1])", `sidecar "db-proxy" can exit 143 at teardown`, "the Job fails at once"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not say %q", msg, want)
		}
	}
	if fix := trip.Fix([]string{"export"}); fix != "add containerName: export to the rule's onExitCodes" {
		t.Errorf("fix %q", fix)
	}
}
