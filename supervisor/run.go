package supervisor

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"
)

// Reasons tandem gives for its own exit (log line and termination log), on
// top of the done file reasons.
const (
	ReasonStopped = "stopped" // sidecar: CMD stopped because the main was done
	ReasonError   = "error"
)

// outcome is how tandem ends.
type outcome struct {
	code   int
	reason string
	signal string
	err    error
}

type supervisor struct {
	cfg        Config
	log        zerolog.Logger
	reaper     *Reaper
	prober     Prober
	peers      PeerFinder
	signals    chan os.Signal
	doneEvents chan DoneEvent
	failures   chan error
}

// Run supervises cfg.Command until it ends and returns the code tandem must
// exit with. err is set when tandem itself failed or was misused.
func Run(ctx context.Context, cfg Config) (int, error) {
	if err := cfg.Validate(); err != nil {
		return ExitCodeOf(err), err
	}
	s := &supervisor{
		cfg: cfg,
		log: cfg.Log,
		// Signal storms: the runtime coalesces pending signals of one kind,
		// and a deep buffer keeps distinct ones from being dropped.
		signals:    make(chan os.Signal, 1024),
		doneEvents: make(chan DoneEvent, 1),
		failures:   make(chan error, 1),
		peers:      &procPeerFinder{procRoot: "/proc", self: os.Getpid()},
	}
	out := s.run(ctx)
	s.finish(out)
	return out.code, out.err
}

func (s *supervisor) run(ctx context.Context) outcome {
	if err := BecomeSubreaper(); err != nil {
		s.log.Warn().Err(err).Msg("cannot become a child subreaper; orphans will go to the real init")
	}
	// SIGCHLD (in StartReaper) and every forwarded signal are registered
	// before CMD starts, so nothing it does early is missed.
	s.reaper = StartReaper()
	s.prober = &realProber{reaper: s.reaper}
	signal.Notify(s.signals, s.caughtSignals()...)
	// Only now can a done signal be received rather than kill tandem or be
	// dropped: tell peers looking in /proc.
	if err := s.reaper.AnnounceListening(); err != nil {
		s.log.Warn().Err(err).Msg("cannot mark tandem as listening; peers will not signal it")
	}
	// No signal.Stop: tandem exits right after Run, and Stop costs one
	// round trip to the runtime's signal-mask thread per signal (about 60):
	// 1 to 2 ms measured on a 2-core machine, on every exit path (bench:
	// SIGUSR2 → tandem exited 1.47 → 0.69 ms median, `tandem -- true`
	// 5.27 → 4.56 ms). Keeping the handlers also means a signal arriving
	// while finish() writes the last log lines is buffered, not fatal.

	switch s.cfg.Mode {
	case ModeSidecar:
		return s.runSidecar(ctx)
	case ModeMain:
		return s.runMain(ctx)
	default:
		c, err := s.start()
		if err != nil {
			return outcome{code: ExitCodeOf(err), reason: ReasonStartFailed, err: err}
		}
		return s.endingOutcome(s.supervise(ctx, c))
	}
}

// caughtSignals is every forwardable signal, less SIGHUP and SIGINT when they
// were ignored at start: catching them would undo the ignore that CMD
// inherits (nohup, background jobs). The Go runtime has already replaced any
// other inherited ignore with its own handler.
func (s *supervisor) caughtSignals() []os.Signal {
	var sigs []os.Signal
	for _, sig := range ForwardableSignals() {
		if (sig == unix.SIGHUP || sig == unix.SIGINT) && signal.Ignored(sig) {
			continue
		}
		sigs = append(sigs, sig)
	}
	return sigs
}

func (s *supervisor) start() (*child, error) {
	c, err := startProcess(s.reaper, s.cfg.Command, spawnOptions{deathSignal: s.cfg.StopSignal, foreground: true})
	if err != nil {
		s.log.Error().Err(err).Strs("argv", s.cfg.Command).Msg("cannot start CMD")
		return nil, err
	}
	s.log.Info().Int("pid", c.pid).Strs("argv", s.cfg.Command).Msg("CMD started")
	return c, nil
}

// ending is how one run of CMD ended.
type ending struct {
	status    Status
	requested bool  // sidecar: tandem stopped CMD because the main was done
	err       error // tandem failed while CMD ran (e.g. cannot write the ready file)
	// terminating: SIGTERM (pod deletion; held or forwarded) or SIGINT
	// arrived while CMD ran. A sidecar must then not restart CMD, as it
	// would not during a backoff: a CMD killed by the forwarded SIGTERM (143)
	// would otherwise come back under --restart on-failure and run until the
	// kubelet's SIGKILL. Not HUP or QUIT: those are also reload and dump
	// requests, after which a crash still deserves a restart.
	terminating bool
}

// supervise owns CMD's life until it exits: forwards signals, reacts to the
// done condition, holds SIGTERM for --outlive-main. Everything else only
// sends events here.
func (s *supervisor) supervise(ctx context.Context, c *child) ending {
	childGone := make(chan struct{})
	stopReadiness := s.startReadiness(ctx)
	defer stopReadiness()
	var (
		stopping    bool
		failure     error
		heldTERM    bool
		terminating bool
		outliveEnd  <-chan time.Time
	)
	beginStop := func() {
		if !stopping {
			stopping = true
			go s.stopChild(ctx, c, childGone)
		}
	}
	for {
		select {
		case received := <-s.signals:
			sig := received.(unix.Signal) // signal.Notify delivers syscall.Signal, which unix.Signal is
			isDone := s.cfg.Mode == ModeSidecar && sig == s.cfg.DoneSignal
			terminating = terminating || (!isDone && (sig == unix.SIGTERM || sig == unix.SIGINT))
			switch {
			case isDone:
				s.logDone(DoneEvent{Source: "done-signal", SeenAt: time.Now()})
				beginStop()
			case sig == unix.SIGTERM && s.cfg.OutliveMain > 0 && !heldTERM && !stopping:
				heldTERM = true
				outliveEnd = time.After(s.cfg.OutliveMain)
				s.log.Info().Dur("outlive_main", s.cfg.OutliveMain).
					Msg("SIGTERM held: CMD keeps running until the main is done or outlive-main passes")
			default:
				s.forward(c, sig)
			}
		case ev := <-s.doneEvents:
			s.logDone(ev)
			beginStop()
		case <-outliveEnd:
			outliveEnd = nil
			s.log.Info().Dur("outlive_main", s.cfg.OutliveMain).Msg("outlive-main passed before the main was done; forwarding SIGTERM")
			s.forward(c, unix.SIGTERM)
		case err := <-s.failures:
			s.log.Error().Err(err).Msg("tandem failed; stopping CMD")
			failure = err
			beginStop()
		case st := <-c.exited:
			close(childGone)
			s.logExit(c, st)
			s.stopLeftovers(c.pid)
			return ending{status: st, requested: stopping && failure == nil, err: failure, terminating: terminating}
		}
	}
}

func (s *supervisor) forward(c *child, sig unix.Signal) {
	to := sig
	if rewritten, ok := s.cfg.Rewrite[sig]; ok {
		to = rewritten
	}
	if err := signalProcess(c.pid, to, !s.cfg.ChildOnly); err != nil {
		s.log.Warn().Err(err).Str("signal", SignalName(to)).Msg("cannot forward signal")
		return
	}
	s.log.Debug().Str("received", SignalName(sig)).Str("sent", SignalName(to)).Int("pid", c.pid).
		Bool("group", !s.cfg.ChildOnly).Msg("signal forwarded")
}

func (s *supervisor) logDone(ev DoneEvent) {
	e := s.log.Info().Str("source", ev.Source)
	if ev.Path != "" {
		e = e.Str("path", ev.Path)
	}
	if ev.Status != nil {
		e = e.Int("main_exit_code", ev.Status.ExitCode).Str("main", ev.Status.Name).
			Dur("after_file_time", ev.SeenAt.Sub(ev.Status.Time))
	}
	e.Msg("main is done")
}

func (s *supervisor) logExit(c *child, st Status) {
	e := s.log.Info().Int("pid", c.pid).Int("exit_code", st.ExitCode())
	if st.Signal != 0 {
		e = e.Str("signal", SignalName(st.Signal))
	}
	e.Dur("ran", time.Since(c.started)).Msg("CMD exited")
}

// endingOutcome turns how CMD ended into tandem's exit code.
func (s *supervisor) endingOutcome(end ending) outcome {
	switch {
	case end.err != nil:
		return outcome{code: ExitCodeOf(end.err), reason: ReasonError, err: end.err}
	case end.requested:
		if end.status.Signal == unix.SIGKILL {
			s.log.Warn().Msg("CMD had to be killed after grace; the stop was requested, so the exit code is 0")
		}
		return outcome{code: 0, reason: ReasonStopped}
	}
	return outcome{
		code:   reportedCode(end.status.ExitCode(), s.cfg.SuccessCodes),
		reason: end.status.Reason(),
		signal: end.status.SignalName(),
	}
}

// startReadiness writes the ready file once every --ready-when holds, and
// returns a function that stops probing and removes the file.
func (s *supervisor) startReadiness(ctx context.Context) func() {
	if s.cfg.ReadyFile == "" {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		if _, err := waitConditions(ctx, s.prober, s.cfg.ReadyWhen, readyProbeInterval, 0, s.log); err != nil {
			return
		}
		err := WriteStatusFile(s.cfg.ReadyFile, StatusFile{Name: s.cfg.Name, Event: EventReady, Reason: ReasonReady})
		if err != nil {
			s.failures <- err
			return
		}
		s.log.Info().Str("path", s.cfg.ReadyFile).Msg("ready file written")
	}()
	return func() {
		cancel()
		<-finished
		if err := os.Remove(s.cfg.ReadyFile); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.log.Warn().Err(err).Str("path", s.cfg.ReadyFile).Msg("cannot remove ready file")
		}
	}
}

// readyProbeInterval: readiness gates the main's start, so probe often; a
// probe is one stat, dial or small request.
const readyProbeInterval = 100 * time.Millisecond

// finish writes the last log line and the termination log.
func (s *supervisor) finish(out outcome) {
	e := s.log.Info()
	if out.err != nil {
		e = s.log.Error().Err(out.err)
	}
	e.Int("exit_code", out.code).Str("reason", out.reason).Msg("tandem exiting")
	if s.cfg.TerminationLog == "" {
		return
	}
	rec := terminationRecord{Name: s.cfg.Name, Mode: s.cfg.Mode.String(), ExitCode: out.code,
		Reason: out.reason, Signal: out.signal, Time: time.Now().UTC()}
	if out.err != nil {
		rec.Error = out.err.Error()
	}
	if err := writeTerminationLog(s.cfg.TerminationLog, rec); err != nil {
		s.log.Debug().Err(err).Str("path", s.cfg.TerminationLog).Msg("termination log not written")
	}
}

// endsTandem are the signals that end tandem while no CMD runs (main's wait,
// a sidecar's restart backoff): there is nobody to forward them to.
func endsTandem(sig unix.Signal) bool {
	switch sig {
	case unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT:
		return true
	}
	return false
}
