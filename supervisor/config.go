package supervisor

import (
	"fmt"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"
)

// Mode is which command tandem runs as.
type Mode int

const (
	ModeRun Mode = iota
	ModeSidecar
	ModeMain
)

func (m Mode) String() string {
	return [...]string{"run", "sidecar", "main"}[m]
}

// StopWhen says which done files count (sidecar --stop-when).
type StopWhen int

const (
	StopWhenAny StopWhen = iota
	StopWhenSuccess
)

// RestartPolicy is sidecar --restart.
type RestartPolicy int

const (
	RestartNever RestartPolicy = iota
	RestartOnFailure
	RestartAlways
)

// Config is everything Run needs; the CLI fills it from flags.
type Config struct {
	Mode    Mode
	Command []string
	Log     zerolog.Logger
	Name    string

	Grace          time.Duration
	StopSignal     unix.Signal
	Rewrite        map[unix.Signal]unix.Signal
	ChildOnly      bool
	SuccessCodes   []int
	TerminationLog string

	// sidecar and main
	DoneFiles  []string
	DoneSignal unix.Signal
	QuitURLs   []string

	// sidecar
	StopWhen     StopWhen
	OutliveMain  time.Duration
	ReadyWhen    []Condition
	ReadyFile    string
	Restart      RestartPolicy
	PollInterval time.Duration

	// main
	WaitFor      []Condition
	WaitTimeout  time.Duration
	WaitInterval time.Duration
	Peers        PeerOptions
}

// PeerOptions says which sidecar peers to signal (main and done).
type PeerOptions struct {
	Enabled bool
	Names   []string
	Timeout time.Duration
}

// Defaults from SPEC.
const (
	DefaultGrace        = 10 * time.Second
	DefaultPollInterval = time.Second
	DefaultWaitTimeout  = 5 * time.Minute
	DefaultWaitInterval = 250 * time.Millisecond
	DefaultPeerTimeout  = 30 * time.Second
)

// Validate rejects what cannot work, before anything starts.
func (c *Config) Validate() error {
	if len(c.Command) == 0 {
		return UsageError("missing CMD: expected `tandem %s [flags] -- CMD [ARG...]`", c.Mode)
	}
	if c.Grace < 0 {
		return UsageError("--grace %s: expected a duration of 0 or more, e.g. 10s", c.Grace)
	}
	if c.StopSignal == 0 {
		c.StopSignal = unix.SIGTERM
	}
	if c.DoneSignal == 0 {
		c.DoneSignal = unix.SIGUSR2
	}
	for _, code := range c.SuccessCodes {
		if code < 0 || code > maxExitCode {
			return UsageError("--success-code %d: expected an exit code from 0 to 255", code)
		}
	}
	switch c.Mode {
	case ModeSidecar:
		if c.PollInterval <= 0 {
			return UsageError("--poll-interval %s: expected a duration above 0, e.g. 1s", c.PollInterval)
		}
		if c.OutliveMain < 0 {
			return UsageError("--outlive-main %s: expected a duration of 0 (off) or more", c.OutliveMain)
		}
		if len(c.ReadyWhen) > 0 && c.ReadyFile == "" {
			return UsageError("--ready-when needs --ready-file PATH: the file that announces readiness")
		}
		if c.DoneSignal == unix.SIGTERM || !isForwardable(c.DoneSignal) {
			return UsageError("--done-signal %s: expected a catchable signal other than SIGTERM, e.g. USR2", SignalName(c.DoneSignal))
		}
	case ModeMain:
		if c.WaitTimeout <= 0 {
			return UsageError("--wait-timeout %s: expected a duration above 0, e.g. 5m", c.WaitTimeout)
		}
		if c.WaitInterval <= 0 {
			return UsageError("--wait-interval %s: expected a duration above 0, e.g. 250ms", c.WaitInterval)
		}
		if len(c.DoneFiles) > 1 {
			return UsageError("--done-file given %d times: main writes one done file", len(c.DoneFiles))
		}
	}
	for _, u := range c.QuitURLs {
		if _, err := parseHTTPURL(u); err != nil {
			return &CodedError{Code: ExitUsage, Err: fmt.Errorf("--quit-url: %w", err)}
		}
	}
	return nil
}
