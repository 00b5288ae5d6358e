package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/lifeline"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// lifelineMain is the end of `tandem main --done-file` and nothing else:
// it holds the done file's lifeline, says "held", and on a byte from
// trigger takes t0, writes the done file and releases the lifeline, as
// tandem main does after its CMD exited. t0 and the moment of the release
// (unix nanoseconds) are printed after, off the measured path; then it waits for trigger's EOF, so its own
// exit is not in the figure either. EOF before a trigger ends it quietly.
func lifelineMain(done string, trigger io.Reader, out io.Writer) error {
	h, err := lifeline.Hold(lifeline.Of(done), statusfile.Hostname())
	if err != nil {
		return err
	}
	defer h.Release()
	if _, err := io.WriteString(out, "held\n"); err != nil {
		return err
	}
	var b [1]byte
	if _, err := io.ReadFull(trigger, b[:]); err != nil {
		return nil
	}
	t0 := time.Now()
	err = statusfile.Write(done, statusfile.File{Name: "bench", Event: statusfile.EventDone, Reason: statusfile.ReasonExited})
	h.Release()
	released := time.Now()
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(out, "%d %d\n", t0.UnixNano(), released.UnixNano()); err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, trigger)
	return nil
}

// helperFloorLifelineKill is the floor of "main killed → CMD gone": the
// least a Go watcher of a lifeline can do. It starts CMD, waits for the FIFO
// at LIFELINE to appear (polling: the floor is what follows), opens it, and
// reads on its own thread (no poller) until end-of-file; then SIGTERM to
// CMD, wait, exit. No done file read, no logging.
func helperFloorLifelineKill(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "floor-lifeline-kill LIFELINE CMD...")
		return 2
	}
	path, argv := args[0], args[1:]
	cmd := startCMD(argv)
	if cmd == nil {
		return 1
	}
	fd := -1
	for fd < 0 {
		var err error
		if fd, err = unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0); err != nil {
			time.Sleep(time.Millisecond)
		}
	}
	var b [1]byte
	for {
		n, err := unix.Read(fd, b[:])
		if err == unix.EINTR || n > 0 {
			continue
		}
		break // EOF: no writer holds it
	}
	_ = cmd.Process.Signal(unix.SIGTERM)
	_ = cmd.Wait()
	return 0
}
