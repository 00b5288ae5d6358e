package supervisor

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/signals"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// The termination mark tells a sidecar a pod's deletion from a signal sent
// to its container alone (hold.go): a main marks its own termination
// beside its done file, where its sidecars look for it.

// markPath is where the main owning the done file marks its termination.
func markPath(done string) string { return done + ".terminating" }

// mainMarked says whether the main of done has marked its termination.
func mainMarked(done string) bool {
	_, err := os.Lstat(markPath(done))
	return err == nil
}

// markTermination: main, a signal a runtime stops containers with came
// from outside: SIGTERM, or the STOPSIGNAL of the stock images (nginx's
// QUIT, postgres's INT); written once, after the signal went on to CMD.
// SIGQUIT may also be a request for a dump: a mark then only lets a
// sidecar signalled alone meanwhile hold its signal. A mark that
// cannot be written leaves the sidecars to forward their own signal: a
// warning, not a failure of the main.
func (e *engine) markTermination(sig unix.Signal) {
	done := e.cfg.Main.DoneFile
	stops := sig == unix.SIGTERM || sig == unix.SIGINT || sig == unix.SIGQUIT
	if e.cfg.Mode != ModeMain || done == "" || e.marked || !stops {
		return
	}
	e.marked = true
	f := statusfile.File{Name: e.cfg.Name, Event: statusfile.EventTerminating, Signal: signals.Name(sig)}
	if err := e.w.files.Write(markPath(done), f); err != nil {
		event(e.log.Warn(), cmdline.EventWriteFailed).Err(err).Str("path", markPath(done)).
			Msg("cannot mark the main's termination; its sidecars will not hold their own termination signal")
	}
}
