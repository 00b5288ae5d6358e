package cmdline

// Program is the base name argv[0] must have for one tandem to recognise
// another by its command line.
const Program = "tandem"

// The commands: argv[1].
const (
	CmdRun     = "run"
	CmdSidecar = "sidecar"
	CmdMain    = "main"
	CmdDone    = "done"
	CmdWait    = "wait"
	CmdInstall = "install"
	CmdVersion = "version"
)

// The flags, without their leading "--". Each also reads the environment
// variable EnvVar(flag).
const (
	// Every command.
	FlagLogLevel  = "log-level"
	FlagLogFormat = "log-format"

	// run, sidecar, main.
	FlagGrace          = "grace"
	FlagStopSignal     = "stop-signal"
	FlagRewrite        = "rewrite"
	FlagChildOnly      = "child-only"
	FlagSuccessCode    = "success-code"
	FlagTerminationLog = "termination-log"
	FlagName           = "name" // done too

	// main and done.
	FlagSignalPeers = "signal-peers"
	FlagPeer        = "peer"
	FlagPeerTimeout = "peer-timeout"
	FlagDoneSignal  = "done-signal" // sidecar too

	// main.
	FlagWaitFor          = "wait-for"
	FlagWaitTimeout      = "wait-timeout"
	FlagWaitInterval     = "wait-interval"
	FlagDoneFile         = "done-file" // sidecar (repeatable there) and done too
	FlagQuitURL          = "quit-url"  // sidecar too
	FlagNeeds            = "needs"     // a sidecar's --ready-file: see Essential sidecars
	FlagTerminationGrace = "termination-grace"

	// sidecar.
	FlagStopWhen          = "stop-when"
	FlagTerminationSignal = "termination-signal"
	FlagOutliveMain       = "outlive-main"
	FlagReadyWhen         = "ready-when"
	FlagReadyFile         = "ready-file"
	FlagRestart           = "restart"
	FlagMaxRestarts       = "max-restarts"
	FlagRestartWindow     = "restart-window"
	FlagPollInterval      = "poll-interval"
	FlagStopDelay         = "stop-delay"
	FlagStoppedFile       = "stopped-file"
	FlagMainStartTimeout  = "main-start-timeout"
	FlagAwaitTermination  = "await-termination"

	// done.
	FlagFile     = "file" // the older name of done's --done-file, an alias
	FlagExitCode = "exit-code"

	// wait.
	FlagFor      = "for"
	FlagTimeout  = "timeout"
	FlagInterval = "interval"
)

// Flag is how a command line spells flag (one of the names above): "--"
// and its name.
func Flag(name string) string { return "--" + name }

// EndOfFlags ends the flags of run, sidecar and main: CMD and its
// arguments follow.
const EndOfFlags = "--"

// The values of sidecar --stop-when: injection writes one of them.
const (
	StopWhenAny      = "any"
	StopWhenSuccess  = "success"
	StopWhenDeletion = "deletion"
)

// The values of sidecar --restart that injection writes. Always: a classic
// sidecar is started again whatever its code, as a native sidecar is.
// DuringDeletion: a native sidecar is started again by tandem only while
// its pod is being deleted and a main drains, when the kubelet restarts
// nothing; else its restarts stay the kubelet's.
const (
	RestartAlways         = "always"
	RestartDuringDeletion = "during-deletion"
)

// EnvVar is the variable a flag also reads: TANDEM_<FLAG>, upper case, '-'
// becomes '_'. Flag names are ASCII; one pass and one allocation, as every
// parse asks for every flag's.
func EnvVar(flag string) string {
	const prefix = "TANDEM_"
	b := make([]byte, len(prefix), len(prefix)+len(flag))
	copy(b, prefix)
	for i := range len(flag) {
		c := flag[i]
		switch {
		case c == '-':
			c = '_'
		case 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}
