package integration

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"
)

// runStormSize is how many orphans each storm leaves to tandem.
const runStormSize = 1000

// run-spawn-cats N CAT: start N copies of cat(1) reading our stdin, and exit
// without waiting for them: they become orphans. Raw ForkExec keeps no pidfd
// per child, so a thousand of them cost no file descriptors here.
func helperRunSpawnCats(args []string) int {
	n, _ := strconv.Atoi(args[0])
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return 91
	}
	attr := &syscall.ProcAttr{Files: []uintptr{0, devNull.Fd(), devNull.Fd()}}
	for range n {
		if _, err := syscall.ForkExec(args[1], []string{"cat"}, attr); err != nil {
			fmt.Fprintln(os.Stderr, "run-spawn-cats:", err)
			return 91
		}
	}
	runtime.KeepAlive(devNull) // attr holds only its number
	return 0
}

// spawnOrphans runs run-spawn-cats with stdin r, waits for it, and returns
// once its N cats have been handed to the nearest reaper.
func spawnOrphans(n, cat string, r *os.File) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	spawner := exec.Command(self, helperArg, "run-spawn-cats", n, cat)
	spawner.Stdin, spawner.Stderr = r, os.Stderr
	return spawner.Run()
}

// run-storm N CAT OUT: leave two batches of N orphaned cats, each batch
// blocked on a pipe of its own, and a SIGTERM-ignoring holder that lives
// until stdin hangs up; write "spawned" to OUT. On the first stdin line,
// close batch 1's pipe: N orphans exit at once while CMD runs. On the second
// line exit 7: batch 2's pipe closes with CMD, so N orphans die with it.
func helperRunStorm(args []string) int {
	n, cat, out := args[0], args[1], args[2]
	r1, w1, err := os.Pipe()
	if err != nil {
		return 90
	}
	r2, w2, err := os.Pipe()
	if err != nil {
		return 90
	}
	if err := spawnOrphans(n, cat, r1); err != nil {
		fmt.Fprintln(os.Stderr, "run-storm:", err)
		return 90
	}
	if err := spawnOrphans(n, cat, r2); err != nil {
		fmt.Fprintln(os.Stderr, "run-storm:", err)
		return 90
	}
	r1.Close()
	r2.Close()
	self, _ := os.Executable()
	holder := exec.Command(self, helperArg, "run-hold")
	holder.Stdin = os.Stdin
	if err := holder.Start(); err != nil {
		return 90
	}
	appendLine(out, "spawned")
	stdin := bufio.NewReader(os.Stdin)
	if _, err := stdin.ReadString('\n'); err != nil {
		return 90
	}
	w1.Close()
	appendLine(out, "released")
	if _, err := stdin.ReadString('\n'); err != nil {
		return 90
	}
	// w2 closes with our exit, in the same instant as batch 2's deaths; until
	// then its finalizer must not close it.
	runtime.KeepAlive(w2)
	return 7
}

// TestRunReapsOrphanStorm: orphans are reparented to tandem, as PID 1 of a
// PID namespace and, when it is not PID 1, because it made itself a child
// subreaper; a storm of them exiting at once leaves no zombie, both while
// CMD runs and when CMD exits in the same batch as a second storm.
func TestRunReapsOrphanStorm(t *testing.T) {
	cat := runLookCat(t)
	for _, mode := range runModes {
		t.Run(mode.name, func(t *testing.T) {
			out := inDir(tempDir(t), "storm")
			stdin, release := runStdinPipe(t)
			// The holder ignores SIGTERM and stays until we hang up its stdin:
			// it keeps tandem running after CMD exits, for the last check.
			// --grace bounds that wait should the test fail first.
			p := startTandem(t, runOpts(t, mode.pid1, procOptions{stdin: stdin}),
				cmdArgs([]string{"run", "--grace", "1m"}, helper("run-storm", strconv.Itoa(runStormSize), cat, out))...)
			runKillGroupOnFailure(t, p, mode.pid1)
			stdin.Close()
			tandemPID := p.cmd.Process.Pid
			waitLines(t, out, 1)

			// The spawners have exited: every cat must now be tandem's child.
			var batch []int
			for _, kid := range runChildren(t, tandemPID) {
				if kid.comm == "cat" {
					batch = append(batch, kid.pid)
				}
			}
			if len(batch) != 2*runStormSize {
				t.Fatalf("%d cats have tandem (pid %d) as parent, want %d: orphans were not reparented to tandem",
					len(batch), tandemPID, 2*runStormSize)
			}
			// Which cat reads which pipe is unknown: watch them all, and
			// count those gone after each storm.
			pidfds := openPidfds(t, batch)

			fmt.Fprintln(release, "storm 1")
			waitLines(t, out, 2)
			reaped := waitReapedN(t, pidfds, runStormSize)
			if zombies := runZombies(t, tandemPID); len(zombies) > 0 {
				t.Fatalf("after storm 1, while CMD runs: %d zombies of tandem: %v", len(zombies), zombies[:min(5, len(zombies))])
			}

			fmt.Fprintln(release, "storm 2")
			if got := p.waitEvent("cmd-exited").Num("exit_code"); got != 7 {
				t.Fatalf("CMD exited %d, want 7", got)
			}
			var rest []pidfd
			for _, fd := range pidfds {
				if !reaped[fd] {
					rest = append(rest, fd)
				}
			}
			waitReaped(t, rest)
			if p.hasEvent("exiting") {
				t.Fatal("tandem exited while the holder was still in CMD's group")
			}
			if zombies := runZombies(t, tandemPID); len(zombies) > 0 {
				t.Fatalf("after CMD exited with storm 2: %d zombies of tandem: %v", len(zombies), zombies[:min(5, len(zombies))])
			}

			release.Close() // the holder goes; tandem may end
			if code := p.wait(); code != 7 {
				t.Fatalf("tandem exited %d, want CMD's 7", code)
			}
		})
	}
}
