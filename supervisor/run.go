package supervisor

import (
	"context"
	"os"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/supervisor/catch"
	"github.com/tandem-sh/tandem/supervisor/lifeline"
	"github.com/tandem-sh/tandem/supervisor/peers"
	"github.com/tandem-sh/tandem/supervisor/process"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// engine runs one tandem: one goroutine (the caller of run) owns CMD's life
// and reads every event; everything else only sends to it.
type engine struct {
	cfg      Config
	log      zerolog.Logger
	w        world
	signals  <-chan os.Signal
	lifeline *lifeline.Holder              // main's done file's, or a sidecar's stopped file's
	deletion *deletion                     // the pod's deletion: the sidecar's hold, the main's mark
	stop     stopSettings                  // what each run's stop is given
	policy   signalPolicy                  // what a signal means
	ready    readyFile                     // sidecar: the ready file each run writes
	run      func(context.Context) outcome // the mode's: runCmd, runSidecar, runMain
	ranking                                // which of the events pending at once the loops take first
	// What one mode keeps (sidecar_mode.go, main_mode.go): the zero value
	// in the others, whose nil channels are never ready.
	sidecarState
	mainState
}

// Run supervises cfg.Command until it ends. It returns nil when tandem must
// exit 0, else an *exitcode.Error with the code (already logged unless it is a
// usage error).
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.validate(); err != nil {
		return &exitcode.Error{Code: exitcode.Usage, Err: err}
	}
	if err := process.BecomeSubreaper(); err != nil {
		event(cfg.Log.Warn(), cmdline.EventSubreaperFailed).Err(err).Msg("cannot become a child subreaper; orphans will go to the real init")
	}
	// The reaper registers SIGCHLD, and every forwarded signal is registered
	// (package catch), before CMD starts, so nothing it does early is missed.
	w := realWorld()
	sigs := catch.Caught()
	// Only now can a done signal be received rather than kill tandem or be
	// dropped: tell peers looking in /proc.
	if err := process.StartReaper().NameThread(peers.ListeningMark); err != nil {
		event(cfg.Log.Warn(), cmdline.EventListeningFailed).Err(err).Msg("cannot mark tandem as listening; peers will not signal it")
	}
	// No signal.Stop: tandem exits right after Run, Stop costs a round trip
	// to the runtime per signal (milliseconds on every exit path), and a
	// signal arriving while the last lines are written stays buffered.
	e := newEngine(cfg, w, sigs)
	e.newSource = func() (doneSource, error) { return newDoneWatcher(cfg, w, e.deletion) }
	return e.finish(e.run(ctx))
}

// newEngine builds the engine for cfg's mode: the one place the mode is
// chosen, with its state and its run.
func newEngine(cfg Config, w world, sigs <-chan os.Signal) *engine {
	e := &engine{cfg: cfg, log: cfg.Log, w: w, signals: sigs, deletion: newDeletion(cfg, w), stop: newStopSettings(cfg),
		policy: newSignalPolicy(cfg), ready: newReadyFile(cfg)}
	e.run = e.runCmd
	switch cfg.Mode {
	case ModeSidecar:
		e.sidecarState = newSidecarState()
		e.run = e.runSidecar
	case ModeMain:
		e.mainState = newMainState(cfg.Main)
		e.run = e.runMain
	}
	return e
}

// runCmd: `tandem run`, CMD alone.
func (e *engine) runCmd(ctx context.Context) outcome {
	c, err := e.start()
	if err != nil {
		return startFailed(err)
	}
	return endingOutcome(e.log, e.supervise(ctx, c), e.cfg.SuccessCodes)
}

// holdLifeline holds the lifeline of the file this tandem will write, of
// kind (a main's done file, a sidecar's stopped file). Where that cannot
// work, its readers fall back on the file alone: say so, go on.
func holdLifeline(file string, kind lifeline.Kind, log zerolog.Logger) *lifeline.Holder {
	h, err := lifeline.HoldAs(lifeline.Of(file), statusfile.Hostname(), kind)
	if err != nil {
		event(log.Warn(), cmdline.EventLifelineMissing).Err(err).
			Msg("no lifeline: if this tandem is killed outright, its sidecars will not notice")
		return nil
	}
	return h
}

func (e *engine) start() (*process.Child, error) {
	c, err := e.w.Start(e.cfg.Command, process.Options{DeathSignal: e.cfg.StopSignal, Foreground: true, ReportStops: true})
	if err != nil {
		event(e.log.Error(), cmdline.EventStartFailed).Err(err).Strs("argv", e.cfg.Command).Msg("cannot start CMD")
		return nil, err
	}
	event(e.log.Info(), cmdline.EventCmdStarted).Int("pid", c.Pid).Strs("argv", e.cfg.Command).Msg("CMD started")
	return c, nil
}

// finish writes the last log line and the termination log, and gives Run's
// result.
func (e *engine) finish(out outcome) error {
	ev := event(e.log.Info(), cmdline.EventExiting)
	if out.err != nil {
		ev = event(e.log.Error(), cmdline.EventExiting).Err(out.err)
	}
	ev.Int("exit_code", out.code).Str("reason", out.reason).Msg("tandem exiting")
	if e.cfg.TerminationLog != "" {
		rec := terminationRecord{Name: e.cfg.Name, Mode: e.cfg.Mode.String(), ExitCode: out.code,
			Reason: out.reason, Signal: out.signal, Time: e.w.Now().UTC()}
		if out.err != nil {
			rec.Error = out.err.Error()
		}
		kept, err := writeTerminationLog(e.cfg.TerminationLog, rec)
		switch {
		case err != nil:
			// Only a path given, or the default found writable at start,
			// gets here: either way the user expects the file.
			event(e.log.Warn(), cmdline.EventTerminationLog).Err(err).Str("path", e.cfg.TerminationLog).
				Msg("cannot write the termination log")
		case kept:
			event(e.log.Info(), cmdline.EventTerminationKept).Str("path", e.cfg.TerminationLog).
				Msg("CMD wrote its own termination message; kept")
		}
	}
	return out.asError()
}
