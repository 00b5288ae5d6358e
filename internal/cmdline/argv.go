package cmdline

import (
	"strconv"
	"time"
)

// The builders write tandem's command lines for tandemctl's injection. A
// zero field writes no flag. Argv of run, sidecar and main ends with "--":
// CMD follows, in the container's args.

// Run is `tandem run`, which wraps a native sidecar.
type Run struct {
	Binary string // argv[0]: the path of tandem in the container
	Name   string
}

// Argv is BINARY run [--name NAME] --.
func (r Run) Argv() []string {
	a := start(r.Binary, CmdRun)
	a.value(FlagName, r.Name)
	return append(a, EndOfFlags)
}

// Main is `tandem main`.
type Main struct {
	Binary      string
	Name        string
	DoneFile    string
	SignalPeers bool
	Peers       []string
	DoneSignal  string
	Needs       []string // the ready files of the sidecars it cannot work without
	QuitURLs    []string // POSTed when CMD ends, for sidecars tandem does not wrap
	// TerminationGrace: CMD's time after the pod's stop signal, the rest
	// of the grace period kept for the sidecars.
	TerminationGrace time.Duration
	// TerminationSignal: the signal the runtime stops it with, when the
	// manifest states it; "" leaves TERM, INT and QUIT each counting.
	TerminationSignal string
}

// Argv is BINARY main [--name NAME] [--done-file PATH] [--signal-peers]
// [--peer NAME]... [--done-signal SIG] [--needs READY_FILE]... [--quit-url URL]...
// [--termination-grace D] [--termination-signal SIG] --.
func (m Main) Argv() []string {
	a := start(m.Binary, CmdMain)
	a.value(FlagName, m.Name)
	a.value(FlagDoneFile, m.DoneFile)
	a.boolean(FlagSignalPeers, m.SignalPeers)
	a.values(FlagPeer, m.Peers)
	a.value(FlagDoneSignal, m.DoneSignal)
	a.values(FlagNeeds, m.Needs)
	a.values(FlagQuitURL, m.QuitURLs)
	a.duration(FlagTerminationGrace, m.TerminationGrace)
	a.value(FlagTerminationSignal, m.TerminationSignal)
	return append(a, EndOfFlags)
}

// Sidecar is `tandem sidecar`.
type Sidecar struct {
	Binary            string
	Name              string
	DoneFiles         []string
	ReadyFile         string
	ReadyWhen         []string
	StopWhen          string        // StopWhenAny or StopWhenSuccess
	StopDelay         time.Duration // --stop-delay: the wait after the mains' end before the stop
	OutliveMain       time.Duration
	TerminationSignal string
	DoneSignal        string
	Restart           string        // RestartAlways, RestartDuringDeletion, or "" for tandem's default
	MaxRestarts       int           // --max-restarts: the restart budget, 0 for none
	RestartWindow     time.Duration // --restart-window: the time it counts within, 0 for tandem's default
	StoppedFile       string
	MainStartTimeout  time.Duration
	Grace             time.Duration // --grace: its stop's own time, within what the mains leave
	QuitURLs          []string      // POSTed first on a requested stop, before the signal
	Rewrites          []string      // --rewrite FROM:TO, as it is forwarded
	AwaitTermination  bool          // --await-termination: a native sidecar's container ends with the kubelet's stop
}

// Argv is BINARY sidecar [--name NAME] [--done-file PATH]... [--ready-file
// PATH] [--ready-when COND]... [--stop-when WHEN] [--stop-delay DURATION]
// [--outlive-main DURATION]
// [--termination-signal SIG] [--done-signal SIG] [--restart POLICY]
// [--max-restarts N] [--restart-window DURATION] [--stopped-file PATH]
// [--main-start-timeout DURATION] [--grace DURATION] [--quit-url URL]...
// [--rewrite FROM:TO]... [--await-termination] --.
func (s Sidecar) Argv() []string {
	a := start(s.Binary, CmdSidecar)
	a.value(FlagName, s.Name)
	a.values(FlagDoneFile, s.DoneFiles)
	a.value(FlagReadyFile, s.ReadyFile)
	a.values(FlagReadyWhen, s.ReadyWhen)
	a.value(FlagStopWhen, s.StopWhen)
	a.duration(FlagStopDelay, s.StopDelay)
	a.duration(FlagOutliveMain, s.OutliveMain)
	a.value(FlagTerminationSignal, s.TerminationSignal)
	a.value(FlagDoneSignal, s.DoneSignal)
	a.value(FlagRestart, s.Restart)
	if s.MaxRestarts > 0 {
		a.value(FlagMaxRestarts, strconv.Itoa(s.MaxRestarts))
	}
	a.duration(FlagRestartWindow, s.RestartWindow)
	a.value(FlagStoppedFile, s.StoppedFile)
	a.duration(FlagMainStartTimeout, s.MainStartTimeout)
	a.duration(FlagGrace, s.Grace)
	a.values(FlagQuitURL, s.QuitURLs)
	a.values(FlagRewrite, s.Rewrites)
	a.boolean(FlagAwaitTermination, s.AwaitTermination)
	return append(a, EndOfFlags)
}

// Wait is `tandem wait`, a sidecar's start hook.
type Wait struct {
	Binary  string
	For     []string
	Timeout time.Duration
}

// Argv is BINARY wait [--for COND]... [--timeout DURATION].
func (w Wait) Argv() []string {
	a := start(w.Binary, CmdWait)
	a.values(FlagFor, w.For)
	a.duration(FlagTimeout, w.Timeout)
	return a
}

// Install is `tandem install`, which copies tandem into a shared volume.
type Install struct {
	Binary string
	Dir    string
}

// Argv is BINARY install DIR.
func (i Install) Argv() []string {
	return []string{i.Binary, CmdInstall, i.Dir}
}

// argv is a command line being written.
type argv []string

func start(binary, command string) argv {
	return argv{binary, command}
}

func (a *argv) value(flag, value string) {
	if value != "" {
		*a = append(*a, Flag(flag), value)
	}
}

func (a *argv) values(flag string, values []string) {
	for _, v := range values {
		a.value(flag, v)
	}
}

func (a *argv) boolean(flag string, on bool) {
	if on {
		*a = append(*a, Flag(flag))
	}
}

// duration writes a positive d as Duration does.
func (a *argv) duration(flag string, d time.Duration) {
	if d > 0 {
		a.value(flag, Duration(d))
	}
}

// Duration is how a command line writes d: whole seconds as seconds
// ("90s", as a manifest's terminationGracePeriodSeconds reads), not as
// time.Duration does ("1m30s"); else as time.Duration does.
func Duration(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return d.String()
}
