package supervisor

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/signals"
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
func (d *deletion) mainMarked(done string) bool {
	mark, present := d.markOf(done)
	host := statusfile.Hostname()
	if !present || mark == nil || mark.Host == "" || host == "" || mark.Host == host {
		return present
	}
	if !d.foreign[done] {
		d.foreign[done] = true
		event(d.log.Warn(), cmdline.EventMarkForeign).Str("path", markPath(done)).Str("file_host", mark.Host).Str("host", host).
			Msg("termination mark written in another pod (a volume shared by mistake?); ignoring it")
	}
	return false
}

// stopsContainer: sig is the signal the runtime stops this container with:
// --termination-signal when given, else any of SIGTERM and the stock
// images' STOPSIGNALs (nginx's QUIT, postgres's INT), since the main cannot
// know which. Without the flag a SIGQUIT sent for a dump (a JVM's thread
// dump) counts too; with --termination-signal TERM it does not.
func (d *deletion) stopsContainer(sig unix.Signal) bool {
	if own := d.ownSignal; own != 0 {
		return sig == own
	}
	return sig == unix.SIGTERM || sig == unix.SIGINT || sig == unix.SIGQUIT
}

// markTermination: main, a signal that stops containers came from outside;
// written once, after the signal went on to CMD. A SIGQUIT that asked for
// a dump only lets a sidecar signalled alone meanwhile hold its signal. A
// mark that cannot be written leaves the sidecars to forward their own
// signal: a warning, not a failure of the main.
func (d *deletion) markTermination(sig unix.Signal) {
	done := d.doneFile
	if done == "" || d.marked || !d.stopsContainer(sig) {
		return
	}
	d.marked = true
	f := statusfile.File{Name: d.name, Event: statusfile.EventTerminating, Signal: signals.Name(sig)}
	if err := d.files.Write(markPath(done), f); err != nil {
		event(d.log.Warn(), cmdline.EventWriteFailed).Err(err).Str("path", markPath(done)).
			Msg("cannot mark the main's termination; its sidecars will not hold their own termination signal")
	}
}

// terminationGrace is what a main's CMD gets to exit after sig, a signal
// from outside, before SIGKILL: --termination-grace after the pod's stop
// signal (stopsContainer: the signals the main marks its termination on),
// so its done file is written in time for the sidecars, which
// --outlive-main holds until then, to keep the rest of the pod's grace
// period for their own stop (docs/commands.md). 0: no limit of tandem's,
// or a stop already under way (stopping) that has its own.
func (d *deletion) terminationGrace(sig unix.Signal, stopping bool) time.Duration {
	if d.termination <= 0 || stopping || !d.stopsContainer(sig) {
		return 0
	}
	event(d.log.Info(), cmdline.EventTerminationGrace).Str("signal", signals.Name(sig)).Dur("termination_grace_ms", d.termination).
		Msg("the pod is stopping: CMD has termination-grace to exit before SIGKILL")
	return d.termination
}
