package integration

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A condition that hangs is bounded by its try's timeout: `tandem wait
// --timeout` exits 1 naming it.

// An exec: probe that never exits is killed at the end of each try and
// reaped by tandem's one reaper: no zombie while tandem runs, nothing left
// running after it.
func TestFaultHangingExecCondition(t *testing.T) {
	t.Parallel()
	pids := inDir(tempDir(t), "probe-pids")
	// exec: splits on white space, and the helper's path has none.
	cond := "exec:" + strings.Join(helper("fault-probe-hang", pids), " ")
	// A try lasts max(1s, interval): 2s, so that the probe (this test
	// binary, slow to start under the race detector on a loaded machine)
	// writes its pid within its try.
	p := startTandem(t, procOptions{}, "wait", "--for", cond, "--timeout", "7s", "--interval", "2s")

	// When the second probe has started, the first one's try is over: it
	// must be gone entirely, not a zombie.
	lines := waitLines(t, pids, 2)
	first, _ := strconv.Atoi(lines[0])
	if state, err := processState(first); err == nil {
		t.Errorf("first probe (pid %d) is still there in state %s after its try ended", first, state)
	}

	if code := p.wait(); code != 1 {
		t.Fatalf("tandem wait exited %d, want 1 (timeout)", code)
	}
	checkTimeoutNames(t, p, cond)
	for _, line := range readLines(pids) {
		pid, _ := strconv.Atoi(line)
		if state, err := processState(pid); err == nil {
			t.Errorf("probe pid %d left behind (state %s) after tandem wait exited", pid, state)
			_ = unix.Kill(pid, unix.SIGKILL)
		}
	}
}

// An http:// condition whose port accepts and never answers: each try ends
// at its timeout, and the wait times out naming it.
func TestFaultHangingHTTPCondition(t *testing.T) {
	t.Parallel()
	server := startFaultServer(t, neverAnswer)
	cond := server.url("/healthz/ready")
	p := startTandem(t, procOptions{}, "wait", "--for", cond, "--for", "file:/", "--timeout", "3s", "--interval", "100ms")
	<-server.got // the probe really connected and asked
	if code := p.wait(); code != 1 {
		t.Fatalf("tandem wait exited %d, want 1 (timeout)", code)
	}
	checkTimeoutNames(t, p, cond)
	if msg := timeoutMessage(t, p); strings.Contains(msg, "file:/") {
		t.Errorf("error %q names file:/, which held", msg)
	}
}

// checkTimeoutNames: tandem's last word names the condition that did not hold.
func checkTimeoutNames(t *testing.T, p *tandemProc, cond string) {
	t.Helper()
	if msg := timeoutMessage(t, p); !strings.Contains(msg, "timed out") || !strings.Contains(msg, cond) {
		t.Errorf("error %q does not say it timed out on %s", msg, cond)
	}
}

// timeoutMessage is the message of the wait-timeout line: a JSON line with
// its event, like every other (no plain text among them).
func timeoutMessage(t *testing.T, p *tandemProc) string {
	t.Helper()
	return p.waitEvent("wait-timeout").Field("message")
}

// processState is the state letter of pid (Z for a zombie), or an error
// when no such process exists.
func processState(pid int) (string, error) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", err
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) == 0 {
		return "", errors.New("short stat")
	}
	return fields[0], nil
}
