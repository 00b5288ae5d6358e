package supervisor

import (
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// deletion is the pod's deletion as this tandem sees it, and the one owner
// of what tandem decides about it; no other type reads its state. A
// sidecar's side: the hold of its termination signal under --outlive-main
// (hold.go), the termination marks of its mains (termination_mark.go), and
// --stop-when deletion's gate (donesource.go), which opens as the hold is
// confirmed. A main's side: its own termination mark and
// --termination-grace. Each side is the zero value in the other modes: a
// deletion without --outlive-main never holds, one without a done file
// marks nothing. Only the engine's goroutine calls it; its decisions are
// returned (holdStep, a grace, a done event), and the loops act on them.
type deletion struct {
	log zerolog.Logger

	// The sidecar's side.
	outlive   time.Duration // --outlive-main; 0 never holds
	signal    unix.Signal   // --termination-signal: the signal the hold holds
	doneFiles []string
	clock     clock
	mainHolds func(done string) bool // world's: a main holds done's lifeline
	markOf    func(done string) (mark *statusfile.File, present bool)
	foreign   map[string]bool // the termination marks of another pod already warned of
	state     holdState
	looksLeft int              // provisional: looks for a mark still to make
	timer     <-chan time.Time // provisional: the next look; confirmed: the deadline
	deleting  chan struct{}    // closed as the hold is confirmed: --stop-when deletion's gate
	gated     doneSource       // --stop-when deletion: the done condition behind the gate

	// The main's side.
	name        string
	files       statusWriter
	doneFile    string        // the main's done file: its mark is written beside it
	ownSignal   unix.Signal   // main --termination-signal; 0: TERM, INT and QUIT each count
	termination time.Duration // --termination-grace; 0: no limit of tandem's
	marked      bool          // the main's mark is written
}

// newDeletion is the deletion as cfg's mode sees it, on w.
func newDeletion(cfg Config, w world) *deletion {
	d := &deletion{log: cfg.Log, clock: w.clock, mainHolds: w.mainHolds, markOf: w.markOfMain,
		foreign: map[string]bool{}, deleting: make(chan struct{}), name: cfg.Name, files: w.files}
	switch cfg.Mode {
	case ModeSidecar:
		sc := cfg.Sidecar
		d.outlive, d.signal, d.doneFiles = sc.OutliveMain, sc.TerminationSignal, sc.DoneFiles
	case ModeMain:
		d.doneFile, d.ownSignal, d.termination = cfg.Main.DoneFile, cfg.Main.TerminationSignal, cfg.Main.TerminationGrace
	}
	return d
}

// gate puts inner behind --stop-when deletion's gate: its condition counts
// once the pod is being deleted (deletionGate).
func (d *deletion) gate(inner doneSource) doneSource {
	d.gated = inner
	return deletionGate{inner: inner, deleting: d.deleting}
}

// afterMains: under --stop-when deletion, a termination signal (the caller
// says whether sig is one) is the pod's deletion reaching this sidecar
// after its mains ended on it: no hold to take (no --outlive-main, or no
// main left to outlive, as the kubelet stops a native sidecar only after
// the mains), a main's termination mark there and the done condition
// holding. The stop is then the requested one, ended with 0, not the
// program's code on a signal.
func (d *deletion) afterMains(termination bool) (doneEvent, bool) {
	if d.gated == nil || !termination || d.state != holdNone || d.open() || !d.anyMarked() {
		return doneEvent{}, false
	}
	ev, done := d.gated.check()
	return ev, done && ev.Err == nil
}

// podDeleting: a main of this pod marked its termination, so the pod is
// being deleted (the signal that stops a container reached the mains,
// which the kubelet sends on a deletion before any native sidecar's).
// Without done files no main can tell it: never.
func (d *deletion) podDeleting() bool {
	for _, done := range d.doneFiles {
		if d.mainMarked(done) {
			return true
		}
	}
	return false
}
