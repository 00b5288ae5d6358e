package integration

import (
	"strconv"
	"strings"
	"testing"
)

// TestRunSuccessCode: --success-code N reports CMD's exit code N as 0 and
// leaves every other code alone; the log keeps the real code.
func TestRunSuccessCode(t *testing.T) {
	for _, tt := range []struct {
		flags      []string
		exit, want int
	}{
		{[]string{"--success-code", "3"}, 3, 0},
		{[]string{"--success-code", "3"}, 4, 4},
		{[]string{"--success-code", "3"}, 0, 0},
		{[]string{"--success-code", "3"}, 1, 1},
		{[]string{"--success-code", "3", "--success-code", "4"}, 4, 0},
		{[]string{"--success-code", "3", "--success-code", "4"}, 3, 0},
		{[]string{"--success-code", "3", "--success-code", "4"}, 5, 5},
	} {
		t.Run(strings.Join(tt.flags, " ")+" exit "+strconv.Itoa(tt.exit), func(t *testing.T) {
			p := startTandem(t, procOptions{}, cmdArgs(append([]string{"run"}, tt.flags...), helper("exit", strconv.Itoa(tt.exit)))...)
			if code := p.wait(); code != tt.want {
				t.Fatalf("CMD exited %d: tandem exited %d, want %d", tt.exit, code, tt.want)
			}
			if got := p.waitEvent("cmd-exited").Num("exit_code"); got != tt.exit {
				t.Errorf("\"CMD exited\" logged %d, want the real code %d", got, tt.exit)
			}
		})
	}
}
