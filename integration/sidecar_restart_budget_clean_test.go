package integration

import (
	"encoding/json"
	"strings"
	"testing"
)

// --restart always restarts a CMD that exits cleanly too, and
// --max-restarts counts those exits. A sidecar that gives up on its CMD
// is never a success, even when the last exit was clean: tandem exits 1,
// reason restart-limit, and its error line, its last line and the
// termination message all say the same thing, calling the exits exits
// rather than crashes.
func TestSidecarRestartBudgetSpentOnCleanExits(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	termLog := inDir(dir, "termination-log")
	p := startTandem(t, procOptions{}, cmdArgs(
		[]string{"sidecar", "--restart", "always", "--max-restarts", "1", "--restart-window", "10m",
			"--done-file", inDir(dir, "done"), "--termination-log", termLog},
		helper("exit", "0"))...)
	p.scWantExit(1, "restart-limit")
	limit := p.waitEvent("restart-limit")
	msg := limit.Field("message")
	if limit.Field("level") != "error" || limit.Num("exits") != 2 || limit.Num("crashes") != 0 || limit.Num("exit_code") != 0 ||
		!strings.Contains(msg, "2 times within 10m0s (--max-restarts 1)") || strings.Contains(msg, "crashed") {
		t.Fatalf("restart-limit line: %v; want 2 exits, no crash, CMD's last code 0", limit)
	}
	if exiting := p.waitEvent("exiting"); exiting.Field("level") != "error" || !strings.Contains(exiting.Field("error"), "2 times") {
		t.Fatalf("last line %v; want an error that says why", exiting)
	}
	var rec struct {
		ExitCode int
		Reason   string
		Error    string
	}
	if err := json.Unmarshal([]byte(waitFile(t, termLog)), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.ExitCode != 1 || rec.Reason != "restart-limit" || !strings.Contains(rec.Error, "2 times within 10m0s") {
		t.Fatalf("termination message %+v; want exitCode 1, reason restart-limit and the error", rec)
	}
}
