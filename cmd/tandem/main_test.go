package main

import "testing"

// Signals are caught before parsing only for command lines that surely
// supervise a CMD; any other keeps the default actions until it is parsed.
func TestSupervisesOnlyTheSupervisingCommands(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"tandem", "--", "true"}, true},
		{[]string{"tandem", "run", "--", "true"}, true},
		{[]string{"tandem", "sidecar", "--done-file", "/x", "--", "true"}, true},
		{[]string{"tandem", "main", "--", "true"}, true},
		{[]string{"tandem", "wait", "--for", "file:/x"}, false},
		{[]string{"tandem", "done"}, false},
		{[]string{"tandem", "version"}, false},
		{[]string{"tandem", "--log-level", "debug", "wait"}, false},
		{[]string{"tandem"}, false},
	} {
		if got := supervises(tc.args); got != tc.want {
			t.Errorf("supervises(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
