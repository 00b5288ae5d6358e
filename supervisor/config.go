package supervisor

import (
	"fmt"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/signals"
	"github.com/tandem-sh/tandem/supervisor/peers"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

// Mode is which command tandem runs as.
type Mode int

const (
	ModeRun Mode = iota
	ModeSidecar
	ModeMain
)

func (m Mode) String() string {
	return [...]string{cmdline.CmdRun, cmdline.CmdSidecar, cmdline.CmdMain}[m]
}

// Config is everything Run needs, parsed and typed by the CLI, which
// checks each value as it reads it (its range too), naming the text given.
// Defaults gives every default; Validate checks what the values say
// together, without changing them: the CLI before anything starts, and
// Run again.
type Config struct {
	Mode    Mode
	Command []string
	Log     zerolog.Logger
	Name    string

	Grace          time.Duration
	StopSignal     unix.Signal
	Rewrite        map[unix.Signal]unix.Signal // to signals.Drop: not forwarded
	ChildOnly      bool
	SuccessCodes   []int
	TerminationLog string

	Sidecar SidecarConfig // ModeSidecar only
	Main    MainConfig    // ModeMain only
}

// SidecarConfig is what only `tandem sidecar` has.
type SidecarConfig struct {
	DoneFiles         []string
	DoneSignal        unix.Signal
	StopWhen          StopWhen
	QuitURLs          []probe.Target
	TerminationSignal unix.Signal
	OutliveMain       time.Duration
	ReadyWhen         []probe.Condition
	ReadyFile         string
	Restart           RestartPolicy
	MaxRestarts       int           // 0: no limit
	RestartWindow     time.Duration // the time --max-restarts counts within
	PollInterval      time.Duration
	StopDelay         time.Duration
	StoppedFile       string
	MainStartTimeout  time.Duration
	// AwaitTermination: after a requested stop, the container stays up,
	// CMD stopped, until its stop signal: a native sidecar that ends
	// before the kubelet has seen its mains end is started again.
	AwaitTermination bool
}

// MainConfig is what only `tandem main` has.
type MainConfig struct {
	DoneFile     string
	DoneSignal   unix.Signal
	QuitURLs     []probe.Target
	WaitFor      []probe.Condition
	WaitTimeout  time.Duration
	WaitInterval time.Duration
	Peers        peers.Options
	Needs        []string // ready files of the sidecars CMD cannot work without
	// TerminationGrace: after the pod's stop signal from outside, CMD gets
	// this long before SIGKILL, so the sidecars keep the rest of the pod's
	// grace period; 0: no limit of tandem's.
	TerminationGrace time.Duration
	// TerminationSignal: the signal the runtime stops this container with
	// (its STOPSIGNAL); 0 when not given, and then SIGTERM, SIGINT and
	// SIGQUIT each count, since the main cannot know which it is.
	TerminationSignal unix.Signal
}

// Defaults is the one place where defaults live; the CLI shows them.
func Defaults(mode Mode) Config {
	return Config{
		Mode:       mode,
		Log:        zerolog.Nop(),
		Grace:      10 * time.Second,
		StopSignal: unix.SIGTERM,
		Sidecar: SidecarConfig{
			DoneSignal:        unix.SIGUSR2,
			TerminationSignal: unix.SIGTERM,
			PollInterval:      time.Second,
			RestartWindow:     DefaultRestartWindow,
		},
		Main: MainConfig{
			DoneSignal:   unix.SIGUSR2,
			WaitTimeout:  5 * time.Minute,
			WaitInterval: DefaultWaitInterval,
			Peers:        peers.Options{Timeout: DefaultPeerTimeout},
		},
	}
}

// Defaults shared with `tandem wait` and `tandem done`.
const (
	DefaultWaitInterval = 250 * time.Millisecond
	DefaultPeerTimeout  = 30 * time.Second
	// DefaultRestartWindow is sidecar --restart-window's.
	DefaultRestartWindow = 10 * time.Minute
)

// Validate rejects what cannot work, before anything starts: settings
// that contradict each other, or that no single value shows. It names the
// flag, the value and what would be accepted; the settings of other modes
// are not looked at.
func (c *Config) Validate() error { return c.validate() }

func (c *Config) validate() error {
	if len(c.Command) == 0 {
		return fmt.Errorf("missing CMD: expected `tandem %s [flags] -- CMD [ARG...]`", c.Mode)
	}
	switch c.Mode {
	case ModeSidecar:
		return c.Sidecar.validate()
	case ModeMain:
		if err := c.Main.validateNeeds(); err != nil {
			return err
		}
		if s := c.Main.TerminationSignal; s != 0 && !signals.Forwardable(s) {
			return fmt.Errorf("--%s %s: expected a catchable signal, e.g. TERM or QUIT", cmdline.FlagTerminationSignal, signals.Name(s))
		}
		return c.Main.needsOnce()
	}
	return nil
}

func (s *SidecarConfig) validate() error {
	if err := s.restartBudget(); err != nil {
		return err
	}
	if err := s.ownFilesApart(); err != nil {
		return err
	}
	if len(s.ReadyWhen) > 0 && s.ReadyFile == "" {
		return fmt.Errorf("--%s needs --%s PATH: the file that announces readiness", cmdline.FlagReadyWhen, cmdline.FlagReadyFile)
	}
	if !signals.Forwardable(s.TerminationSignal) {
		return fmt.Errorf("--%s %s: expected a catchable signal, e.g. TERM or QUIT", cmdline.FlagTerminationSignal, signals.Name(s.TerminationSignal))
	}
	if s.DoneSignal == unix.SIGTERM || s.DoneSignal == s.TerminationSignal || !signals.Forwardable(s.DoneSignal) {
		return fmt.Errorf("--%s %s: expected a catchable signal other than SIGTERM and the termination signal, e.g. USR2",
			cmdline.FlagDoneSignal, signals.Name(s.DoneSignal))
	}
	return nil
}

// restartBudget: --max-restarts counts the restarts --restart makes,
// within --restart-window; either without the other would look like a
// limit and be none. A window equal to the default cannot be told from
// none given.
func (s *SidecarConfig) restartBudget() error {
	if s.MaxRestarts > 0 && s.Restart == RestartNever {
		return fmt.Errorf("--%s %d: has no effect without --%s on-failure or always", cmdline.FlagMaxRestarts, s.MaxRestarts, cmdline.FlagRestart)
	}
	if s.MaxRestarts == 0 && s.RestartWindow != 0 && s.RestartWindow != DefaultRestartWindow {
		return fmt.Errorf("--%s %s: has no effect without --%s N, the restarts it counts; expected both, e.g. --%s 5 --%s %s",
			cmdline.FlagRestartWindow, s.RestartWindow, cmdline.FlagMaxRestarts, cmdline.FlagMaxRestarts, cmdline.FlagRestartWindow, s.RestartWindow)
	}
	return nil
}

// ownFilesApart: a file the sidecar writes must not be one it waits for
// (it would see itself done), nor its other file.
func (s *SidecarConfig) ownFilesApart() error {
	for _, own := range []struct{ flag, path, example string }{
		{cmdline.FlagReadyFile, s.ReadyFile, "/run/tandem/proxy.ready"},
		{cmdline.FlagStoppedFile, s.StoppedFile, "/run/tandem/proxy.stopped"},
	} {
		for _, done := range s.DoneFiles {
			if own.path != "" && SamePath(own.path, done) {
				return fmt.Errorf("--%s %q is also a --%s: the sidecar would wait for its own file; expected another path such as %s",
					own.flag, own.path, cmdline.FlagDoneFile, own.example)
			}
		}
	}
	if s.ReadyFile != "" && s.StoppedFile != "" && SamePath(s.ReadyFile, s.StoppedFile) {
		return fmt.Errorf("--%s %q is also the --%s; expected two paths such as /run/tandem/proxy.ready and /run/tandem/proxy.stopped",
			cmdline.FlagStoppedFile, s.StoppedFile, cmdline.FlagReadyFile)
	}
	return nil
}

// needsOnce: each sidecar's ready file is needed once, however spelled.
func (m *MainConfig) needsOnce() error {
	for i, r := range m.Needs {
		for _, earlier := range m.Needs[:i] {
			switch {
			case r == earlier:
				return fmt.Errorf("--%s %q: given twice; expected each sidecar's ready file once", cmdline.FlagNeeds, r)
			case SamePath(r, earlier):
				return fmt.Errorf("--%s %q: the same file as --%s %q; expected each sidecar's ready file once",
					cmdline.FlagNeeds, r, cmdline.FlagNeeds, earlier)
			}
		}
	}
	return nil
}

// StopWhen says which done files count (sidecar --stop-when).
type StopWhen int

const (
	StopWhenAny StopWhen = iota
	StopWhenSuccess
	// StopWhenDeletion: the done condition counts only once the pod is being
	// deleted (the termination signal held by --outlive-main); before that
	// the main's end is a restart to come (restartPolicy: Always).
	StopWhenDeletion
)

// RestartPolicy is sidecar --restart.
type RestartPolicy int

const (
	RestartNever RestartPolicy = iota
	RestartOnFailure
	RestartAlways
	// RestartDuringDeletion: whatever its code, but only while the pod is
	// being deleted (a main marked its termination) and a main still
	// drains; else tandem ends with CMD's code and the runtime restarts
	// the container (a native sidecar: the kubelet, which restarts no
	// container of a pod being deleted).
	RestartDuringDeletion
)
