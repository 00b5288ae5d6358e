package supervisor

import (
	"fmt"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
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

// Config is everything Run needs, parsed and typed by the CLI, which
// checks each value as it reads it (its range too), naming the text given.
// Defaults gives every default; Run checks what the values say together
// (validate) without changing it.
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
	// TerminationGrace: after the pod's stop signal (TERM or INT from
	// outside), CMD gets this long before SIGKILL, so the sidecars keep the
	// rest of the pod's grace period; 0: no limit of tandem's.
	TerminationGrace time.Duration
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
			RestartWindow:     10 * time.Minute,
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

// validate rejects what cannot work, before anything starts: settings
// that contradict each other, or that no single value shows. It names the
// flag, the value and what would be accepted.
func (c *Config) validate() error {
	if len(c.Command) == 0 {
		return fmt.Errorf("missing CMD: expected `tandem %s [flags] -- CMD [ARG...]`", c.Mode)
	}
	switch c.Mode {
	case ModeSidecar:
		return c.Sidecar.validate()
	case ModeMain:
		return c.Main.validateNeeds()
	}
	return nil
}

func (s *SidecarConfig) validate() error {
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
)
