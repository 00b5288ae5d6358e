package supervisor

import (
	"fmt"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/exitcode"
	"github.com/tandem-sh/tandem/supervisor/peers"
	"github.com/tandem-sh/tandem/supervisor/probe"
	"github.com/tandem-sh/tandem/supervisor/signals"
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

// Config is everything Run needs, parsed and typed by the CLI. Defaults
// gives every default; Run checks it (validate) without changing it.
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
	PollInterval      time.Duration
	StopDelay         time.Duration
	StoppedFile       string
	MainStartTimeout  time.Duration
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
)

// validate rejects what cannot work, before anything starts. It names the
// flag, the value and what would be accepted.
func (c *Config) validate() error {
	if len(c.Command) == 0 {
		return fmt.Errorf("missing CMD: expected `tandem %s [flags] -- CMD [ARG...]`", c.Mode)
	}
	if c.Grace < 0 {
		return fmt.Errorf("--%s %s: expected a duration of 0 or more, e.g. 10s", cmdline.FlagGrace, c.Grace)
	}
	if c.StopSignal < 1 {
		return fmt.Errorf("--%s %d: expected a signal such as TERM", cmdline.FlagStopSignal, c.StopSignal)
	}
	for _, code := range c.SuccessCodes {
		if code < 0 || code > exitcode.Max {
			return fmt.Errorf("--%s %d: expected an exit code from 0 to 255", cmdline.FlagSuccessCode, code)
		}
	}
	switch c.Mode {
	case ModeSidecar:
		return c.Sidecar.validate()
	case ModeMain:
		return c.Main.validate()
	}
	return nil
}

func (s *SidecarConfig) validate() error {
	for _, d := range []struct {
		flag  string
		value time.Duration
	}{{cmdline.FlagOutliveMain, s.OutliveMain}, {cmdline.FlagStopDelay, s.StopDelay}, {cmdline.FlagMainStartTimeout, s.MainStartTimeout}} {
		if d.value < 0 {
			return fmt.Errorf("--%s %s: expected a duration of 0 (off) or more", d.flag, d.value)
		}
	}
	if s.PollInterval <= 0 {
		return fmt.Errorf("--%s %s: expected a duration above 0, e.g. 1s", cmdline.FlagPollInterval, s.PollInterval)
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

func (m *MainConfig) validate() error {
	if m.WaitTimeout <= 0 {
		return fmt.Errorf("--%s %s: expected a duration above 0, e.g. 5m", cmdline.FlagWaitTimeout, m.WaitTimeout)
	}
	if m.WaitInterval <= 0 {
		return fmt.Errorf("--%s %s: expected a duration above 0, e.g. 250ms", cmdline.FlagWaitInterval, m.WaitInterval)
	}
	if m.Peers.Timeout <= 0 {
		return fmt.Errorf("--%s %s: expected a duration above 0, e.g. 30s", cmdline.FlagPeerTimeout, m.Peers.Timeout)
	}
	return m.validateNeeds()
}

// StopWhen says which done files count (sidecar --stop-when).
type StopWhen int

const (
	StopWhenAny StopWhen = iota
	StopWhenSuccess
)

// ParseStopWhen reads --stop-when.
func ParseStopWhen(s string) (StopWhen, error) {
	switch s {
	case cmdline.StopWhenAny:
		return StopWhenAny, nil
	case cmdline.StopWhenSuccess:
		return StopWhenSuccess, nil
	}
	return 0, fmt.Errorf("--%s %q: expected %s or %s", cmdline.FlagStopWhen, s, cmdline.StopWhenAny, cmdline.StopWhenSuccess)
}

// RestartPolicy is sidecar --restart.
type RestartPolicy int

const (
	RestartNever RestartPolicy = iota
	RestartOnFailure
	RestartAlways
)

// ParseRestart reads --restart.
func ParseRestart(s string) (RestartPolicy, error) {
	switch s {
	case "never":
		return RestartNever, nil
	case "on-failure":
		return RestartOnFailure, nil
	case "always":
		return RestartAlways, nil
	}
	return 0, fmt.Errorf("--%s %q: expected never, on-failure or always", cmdline.FlagRestart, s)
}
