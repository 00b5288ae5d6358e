package supervisor

import (
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

// readMark reads the mark of done's main: a bare file, or one that does
// not parse, is there all the same.
func readMark(done string) (*statusfile.File, bool) {
	mark, present, _ := statusfile.Read(markPath(done))
	return mark, present
}

// mainMarked: the main of done marked its termination, in this pod. A mark
// whose host is set and is not ours was written in another pod (a volume
// shared by mistake): ignored, with one warning, as done files are.
func (e *engine) mainMarked(done string) bool {
	mark, present := e.w.markOfMain(done)
	host := statusfile.Hostname()
	if !present || mark == nil || mark.Host == "" || host == "" || mark.Host == host {
		return present
	}
	if !e.foreignMarks[done] {
		e.foreignMarks[done] = true
		event(e.log.Warn(), cmdline.EventMarkForeign).Str("path", markPath(done)).Str("file_host", mark.Host).Str("host", host).
			Msg("termination mark written in another pod (a volume shared by mistake?); ignoring it")
	}
	return false
}

// stopsContainer: sig is the signal the runtime stops this container with:
// --termination-signal when given, else any of SIGTERM and the stock
// images' STOPSIGNALs (nginx's QUIT, postgres's INT), since the main cannot
// know which. Without the flag a SIGQUIT sent for a dump (a JVM's thread
// dump) counts too; with --termination-signal TERM it does not.
func (e *engine) stopsContainer(sig unix.Signal) bool {
	if own := e.cfg.Main.TerminationSignal; own != 0 {
		return sig == own
	}
	return sig == unix.SIGTERM || sig == unix.SIGINT || sig == unix.SIGQUIT
}

// markTermination: main, a signal that stops containers came from outside;
// written once, after the signal went on to CMD. A SIGQUIT that asked for
// a dump only lets a sidecar signalled alone meanwhile hold its signal. A
// mark that cannot be written leaves the sidecars to forward their own
// signal: a warning, not a failure of the main.
func (e *engine) markTermination(sig unix.Signal) {
	done := e.cfg.Main.DoneFile
	if e.cfg.Mode != ModeMain || done == "" || e.marked || !e.stopsContainer(sig) {
		return
	}
	e.marked = true
	f := statusfile.File{Name: e.cfg.Name, Event: statusfile.EventTerminating, Signal: signals.Name(sig)}
	if err := e.w.files.Write(markPath(done), f); err != nil {
		event(e.log.Warn(), cmdline.EventWriteFailed).Err(err).Str("path", markPath(done)).
			Msg("cannot mark the main's termination; its sidecars will not hold their own termination signal")
	}
}
