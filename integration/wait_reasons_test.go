package integration

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// On timeout, `tandem wait` and `main --wait-for` name each condition that
// did not hold and the last reason it did not, in the wait-timeout line (a
// field per condition under not_holding, and the message); while waiting,
// the first failure of each kind for a condition is an info line, not a
// debug one, and not repeated at every try.
func TestWaitTimeoutSaysWhy(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"wait", "main"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			dir := tempDir(t)
			port, _ := scUnlistenedPort(t)
			server := startFaultServer(t, answerWith("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n"))
			want := map[string]string{
				"tcp:127.0.0.1:" + strconv.Itoa(port):            "connection refused",
				"file:" + inDir(dir, "missing"):                  "no such file or directory",
				server.url("/ready"):                             "HTTP 503",
				"exec:" + strings.Join(helper("exit", "1"), " "): "exit status 1",
			}
			var flags []string
			flag := map[string]string{"wait": "--for", "main": "--wait-for"}[mode]
			for cond := range want {
				flags = append(flags, flag, cond)
			}
			args := append([]string{"wait", "--timeout", "1s", "--interval", "20ms"}, flags...)
			if mode == "main" {
				args = cmdArgs(append([]string{"main", "--wait-timeout", "1s", "--wait-interval", "20ms",
					"--done-file", inDir(dir, "done")}, flags...), helper("exit", "0"))
			}
			// At info, as a user runs it: debug lines must not be needed.
			p := startTandem(t, procOptions{env: []string{"TANDEM_LOG_LEVEL=info"}}, args...)
			timeout := p.waitEvent("wait-timeout")
			if code := p.wait(); code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			reasons, _ := timeout.Fields["not_holding"].(map[string]any)
			for cond, reason := range want {
				if got := fmt.Sprint(reasons[cond]); got != reason {
					t.Errorf("not_holding[%s] = %q, want %q (line %v)", cond, got, reason, timeout)
				}
				if msg := timeout.Field("message"); !strings.Contains(msg, cond+" ("+reason+")") {
					t.Errorf("message %q does not say %s (%s)", msg, cond, reason)
				}
				told := p.linesWhere(func(l kit.Line) bool { return l.Is("condition-not-holding") && l.Field("condition") == cond })
				if len(told) != 1 || told[0].Field("level") != "info" || told[0].Field("reason") != reason {
					t.Errorf("%s: condition-not-holding lines %v, want one at info with reason %q", cond, told, reason)
				}
			}
			for _, raw := range p.rawLines() {
				if !strings.HasPrefix(raw, "{") {
					t.Errorf("a plain-text line among the JSON lines: %q", raw)
				}
			}
		})
	}
}

// linesWhere is every line logged so far that match accepts.
func (p *tandemProc) linesWhere(match func(kit.Line) bool) []kit.Line {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []kit.Line
	for _, l := range p.lines {
		if match(l) {
			out = append(out, l)
		}
	}
	return out
}
