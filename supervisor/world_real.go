package supervisor

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/lifeline"
	"github.com/tandem-sh/tandem/supervisor/peers"
	"github.com/tandem-sh/tandem/supervisor/probe"
	"github.com/tandem-sh/tandem/supervisor/process"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

type realProcesses struct{}

var (
	_ starter   = realProcesses{}
	_ signaller = realProcesses{}
)

func (realProcesses) Start(argv []string, opts process.Options) (*process.Child, error) {
	return process.Start(argv, opts)
}

func (realProcesses) Signal(pid int, sig unix.Signal, group bool) error {
	return process.Signal(pid, sig, group)
}

func (realProcesses) GroupAlive(pgid int) bool { return process.GroupAlive(pgid) }

type realClock struct{}

var _ clock = realClock{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

type realTerminal struct{}

var _ terminal = realTerminal{}

func (realTerminal) JobControl() bool    { return process.JobControl() }
func (realTerminal) Take() error         { return process.TakeTerminal() }
func (realTerminal) Give(pgid int) error { return process.GiveTerminal(pgid) }
func (realTerminal) StopSelf() error     { return process.StopSelf() }

type realFiles struct{}

var _ statusWriter = realFiles{}

func (realFiles) Write(path string, f statusfile.File) error { return statusfile.Write(path, f) }

type httpQuitter struct{}

var _ quitter = httpQuitter{}

// Quit POSTs every URL at once. A failure is logged, never fatal: the stop
// signal follows.
func (httpQuitter) Quit(ctx context.Context, urls []probe.Target, timeout time.Duration, log zerolog.Logger) {
	var wg sync.WaitGroup
	for _, target := range urls {
		wg.Go(func() {
			code, err := probe.Request(ctx, "POST", target, timeout)
			switch {
			case errors.Is(err, probe.ErrNoAnswer):
				event(log.Info(), cmdline.EventQuitCalled).Str("url", target.String()).Bool("answered", false).
					Msg("quit URL took the request and closed without answering (a program that exits at once does)")
			case err != nil:
				event(log.Warn(), cmdline.EventQuitFailed).Str("url", target.String()).Err(err).Msg("quit URL call failed")
			case code < 200 || code > 299:
				event(log.Warn(), cmdline.EventQuitFailed).Str("url", target.String()).Int("status", code).Msg("quit URL answered with an error status")
			default:
				event(log.Info(), cmdline.EventQuitCalled).Str("url", target.String()).Int("status", code).Bool("answered", true).Msg("quit URL called")
			}
		})
	}
	wg.Wait()
}

// realWorld is the process's real world; it starts the one reaper.
func realWorld() world {
	finder := peers.NewProcFinder()
	return world{
		starter:    realProcesses{},
		signaller:  realProcesses{},
		clock:      realClock{},
		terminal:   realTerminal{},
		quitter:    httpQuitter{},
		files:      realFiles{},
		prober:     &probe.Real{},
		peers:      finder,
		mains:      finder,
		mainHolds:  mainHoldsLifeline,
		markOfMain: readMark,
		reaped:     process.StartReaper().Reaped(),
	}
}

// mainHoldsLifeline: a live tandem main of this pod holds done's lifeline.
// A lifeline that cannot be read (permission, no FIFOs on the volume)
// cannot tell: it counts as held.
func mainHoldsLifeline(done string) bool {
	line, err := lifeline.Watch(lifeline.Of(done), statusfile.Hostname())
	if line != nil {
		line.Close()
	}
	var unusable *lifeline.UnusableError
	return err == nil || errors.As(err, &unusable)
}
