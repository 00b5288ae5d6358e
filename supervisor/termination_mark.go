package supervisor

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/signals"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// The termination mark tells a sidecar a pod's deletion from a signal sent
// to its container alone. A deletion signals every container of the pod
// together; the kubelet restarting a sidecar after a failed liveness probe
// (or a `kill` from outside) signals that container only. So a main marks
// its own termination beside its done file, and a sidecar holds its
// termination signal (--outlive-main) only once a main's mark is there,
// looked for every markPoll for markWait: the kubelet stops the containers
// of a pod from one goroutine each, milliseconds apart. No mark by then:
// the signal was this container's alone, and it is forwarded, as a native
// sidecar gets it right after its preStop hook (docs/commands.md).
const (
	markWait  = 2 * time.Second
	markPoll  = 50 * time.Millisecond
	markPolls = int(markWait / markPoll)
)

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

// stopsContainer: sig is one a runtime stops containers with: SIGTERM, or
// the STOPSIGNAL of the stock images (nginx's QUIT, postgres's INT). A main
// does not know its container's, so it takes each of them for the pod's
// stop. SIGQUIT may also be a request for a dump (a JVM's thread dump).
func stopsContainer(sig unix.Signal) bool {
	return sig == unix.SIGTERM || sig == unix.SIGINT || sig == unix.SIGQUIT
}

// markTermination: main, a signal that stops containers came from outside;
// written once, after the signal went on to CMD. A SIGQUIT that asked for
// a dump only lets a sidecar signalled alone meanwhile hold its signal. A
// mark that cannot be written leaves the sidecars to forward their own
// signal: a warning, not a failure of the main.
func (e *engine) markTermination(sig unix.Signal) {
	done := e.cfg.Main.DoneFile
	if e.cfg.Mode != ModeMain || done == "" || e.marked || !stopsContainer(sig) {
		return
	}
	e.marked = true
	f := statusfile.File{Name: e.cfg.Name, Event: statusfile.EventTerminating, Signal: signals.Name(sig)}
	if err := e.w.files.Write(markPath(done), f); err != nil {
		event(e.log.Warn(), cmdline.EventWriteFailed).Err(err).Str("path", markPath(done)).
			Msg("cannot mark the main's termination; its sidecars will not hold their own termination signal")
	}
}

// holdTermination holds the sidecar's termination signal: at once when a
// main has marked its termination (or none can mark it: no done files, a
// shared PID namespace), else provisionally while the mark is looked for.
func (e *engine) holdTermination(r *cmdRun, sig unix.Signal) {
	r.held = true
	if e.anyMainMarked() {
		e.confirmHold(r, sig)
		return
	}
	r.marksLeft = markPolls
	r.outliveEnd = e.w.After(markPoll)
	event(e.log.Info(), cmdline.EventMarkAwaited).Str("signal", signals.Name(sig)).Dur("wait_ms", markWait).
		Msg("termination signal: looking for a main's termination mark before holding it")
}

// lookForMark is the next look for a main's mark during a provisional hold.
func (e *engine) lookForMark(r *cmdRun) {
	sig := e.cfg.Sidecar.TerminationSignal
	switch {
	case e.anyMainMarked():
		e.confirmHold(r, sig)
	case r.marksLeft <= 1:
		e.forwardAlone(r, sig)
	default:
		r.marksLeft--
		r.outliveEnd = e.w.After(markPoll)
	}
}

// confirmHold: the pod is being deleted. The deadline counts from the
// signal's arrival, not from the mark's: less the looks already made.
func (e *engine) confirmHold(r *cmdRun, sig unix.Signal) {
	looked := time.Duration(0)
	if r.marksLeft > 0 {
		looked = time.Duration(markPolls-r.marksLeft+1) * markPoll
	}
	r.marksLeft = 0
	e.deletingOnce.Do(func() { close(e.deleting) })
	r.outliveEnd = e.w.After(max(0, e.cfg.Sidecar.OutliveMain-looked))
	event(e.log.Info(), cmdline.EventSignalHeld).Str("signal", signals.Name(sig)).Dur("outlive_main_ms", e.cfg.Sidecar.OutliveMain).
		Msg("termination signal held: CMD keeps running until the main is done or outlive-main passes")
}

// forwardAlone: no main marked its termination, so the signal came to this
// container alone (a liveness restart): CMD gets it now.
func (e *engine) forwardAlone(r *cmdRun, sig unix.Signal) {
	r.held, r.marksLeft, r.outliveEnd = false, 0, nil
	event(e.log.Info(), cmdline.EventSignalAlone).Str("signal", signals.Name(sig)).Dur("wait_ms", markWait).
		Msg("no main marked its termination: the signal came to this container alone; forwarding it")
	e.forward(r.child, sig)
}

// settleMark decides a provisional hold as CMD exits: one last look.
func (e *engine) settleMark(r *cmdRun) {
	if r.marksLeft == 0 {
		return
	}
	if e.anyMainMarked() {
		e.confirmHold(r, e.cfg.Sidecar.TerminationSignal)
		return
	}
	r.held, r.marksLeft, r.outliveEnd = false, 0, nil
}

// anyMainMarked: a main of the done files marked its termination. Without
// done files no main can mark it, and the signal is held as ever.
func (e *engine) anyMainMarked() bool {
	if len(e.cfg.Sidecar.DoneFiles) == 0 {
		return true
	}
	for _, done := range e.cfg.Sidecar.DoneFiles {
		if e.mainMarked(done) {
			return true
		}
	}
	return false
}
