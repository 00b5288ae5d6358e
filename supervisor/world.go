package supervisor

import (
	"context"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/supervisor/donewatch"
	"github.com/tandem-sh/tandem/supervisor/peers"
	"github.com/tandem-sh/tandem/supervisor/probe"
	"github.com/tandem-sh/tandem/supervisor/process"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// The seams of the engine: small interfaces for what it does to the world,
// so the lifecycle can be tested with fakes (run_test.go); world_real.go
// has the real ones.

// starter starts CMD.
type starter interface {
	Start(argv []string, opts process.Options) (*process.Child, error)
}

// signaller signals CMD's process group and sees whether it is empty.
type signaller interface {
	Signal(pid int, sig unix.Signal, group bool) error
	GroupAlive(pgid int) bool
}

// clock gives the time and timers.
type clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// terminal is the shell's job control: Ctrl-Z, fg.
type terminal interface {
	JobControl() bool
	Take() error
	Give(pgid int) error
	StopSelf() error
}

// quitter POSTs quit URLs and returns when every call answered or timed out.
type quitter interface {
	Quit(ctx context.Context, urls []probe.Target, timeout time.Duration, log zerolog.Logger)
}

// statusWriter writes done, ready and stopped files.
type statusWriter interface {
	Write(path string, f statusfile.File) error
}

// world is everything the engine touches outside itself.
type world struct {
	starter
	signaller
	clock
	terminal
	quitter
	files  statusWriter
	prober probe.Prober
	peers  peers.Finder
	mains  donewatch.MainFinder // a sidecar's `tandem main` peer, in a shared PID namespace
	// mainHolds says whether a live main holds the lifeline of the done
	// file (or whether that cannot be told: then it counts as held).
	mainHolds func(done string) bool
	// markOfMain reads the termination mark of the done file's main:
	// whether one is there, and what it says when it parses
	// (termination_mark.go).
	markOfMain func(done string) (mark *statusfile.File, present bool)
	reaped     <-chan struct{} // a batch of children was reaped (leftovers)
}
