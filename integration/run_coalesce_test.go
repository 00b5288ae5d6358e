package integration

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"
)

// run-die-together N CAT OUT: leave N orphaned cats reading our stdin, write
// "spawned" to OUT, then read stdin to its end and exit 5: CMD and the N
// orphans all see the same end of file and exit in the same instant.
func helperRunDieTogether(args []string) int {
	if err := spawnOrphans(args[0], args[1], os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "run-die-together:", err)
		return 90
	}
	appendLine(args[2], "spawned")
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 5
}

// TestRunCoalescedExit: SIGCHLD coalesces, so one signal can stand for CMD
// and hundreds of orphans exiting together; tandem must still find CMD's
// status among them, exit with its code and leave no zombie behind.
func TestRunCoalescedExit(t *testing.T) {
	const orphans, rounds = 300, 3
	cat := runLookCat(t)
	for _, mode := range runModes {
		t.Run(mode.name, func(t *testing.T) {
			for round := range rounds {
				out := inDir(tempDir(t), "spawned")
				stdin, hangUp := runStdinPipe(t)
				p := startTandem(t, runOpts(t, mode.pid1, procOptions{stdin: stdin}),
					cmdArgs([]string{"run"}, helper("run-die-together", strconv.Itoa(orphans), cat, out))...)
				runKillGroupOnFailure(t, p, mode.pid1)
				stdin.Close()
				waitLines(t, out, 1)
				var cats []int
				for _, kid := range runChildren(t, p.cmd.Process.Pid) {
					if kid.comm == "cat" {
						cats = append(cats, kid.pid)
					}
				}
				if len(cats) != orphans {
					t.Fatalf("round %d: %d cats are tandem's children, want %d", round, len(cats), orphans)
				}
				pidfds := openPidfds(t, cats)
				hangUp.Close()
				if code := p.wait(); code != 5 {
					t.Fatalf("round %d: tandem exited %d, want CMD's 5", round, code)
				}
				// Every orphan was in CMD's group, which tandem empties
				// before it exits.
				for _, fd := range pidfds {
					if !fd.exited(0) {
						t.Fatalf("round %d: an orphan in CMD's group outlived tandem", round)
					}
				}
			}
		})
	}
}
