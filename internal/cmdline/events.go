package cmdline

// Every lifecycle log line carries one of these in its "event" field: they
// are API (tests, log pipelines and docs/events.md match on them), the
// sentences are not. The engine and its sub-packages log them.
const (
	EventCmdStarted       = "cmd-started"
	EventCmdExited        = "cmd-exited"
	EventCmdStopped       = "cmd-stopped"   // job control: Ctrl-Z
	EventCmdContinued     = "cmd-continued" // job control: fg
	EventDoneSeen         = "done-seen"     // field source: done-file, done-signal, lost, no-main
	EventStopDelayed      = "stop-delayed"
	EventQuitCalled       = "quit-called"
	EventStopSent         = "stop-sent"
	EventKillSent         = "kill-sent"
	EventSignalHeld       = "signal-held"
	EventSignalReleased   = "signal-released"
	EventMarkAwaited      = "termination-mark-awaited" // sidecar: looking for a main's termination mark
	EventSignalAlone      = "signal-alone"             // sidecar: no main marked its termination: forwarded
	EventSignalAbsorbed   = "signal-absorbed"
	EventSignalDropped    = "signal-dropped"
	EventLeftovers        = "leftovers"
	EventLeftoversKilled  = "leftovers-killed"
	EventStopForced       = "stop-forced" // CMD needed SIGKILL after a requested stop
	EventSignalForwarded  = "signal-forwarded"
	EventNotStarted       = "not-started"       // sidecar: the main was done before CMD started
	EventAwaitingStop     = "awaiting-stop"     // sidecar --await-termination: CMD stopped, the container's stop to come
	EventMainFailed       = "main-failed"       // --stop-when success: a failed main is not done
	EventRestartLimit     = "restart-limit"     // more than --max-restarts exits within --restart-window: giving up
	EventTerminationGrace = "termination-grace" // main: the pod's stop signal, CMD has --termination-grace
	// Some done files are there and others are not, for longer than --grace.
	EventDoneFilesAwaited = "done-files-awaited"
	EventDoneUnreadable   = "done-file-unreadable"
	EventDoneFileForeign  = "done-file-foreign"        // written in another pod: ignored
	EventLifelineForeign  = "lifeline-foreign"         // held in another pod: not attached to
	EventMarkForeign      = "termination-mark-foreign" // written in another pod: ignored
	EventQuitFailed       = "quit-failed"
	EventPeersFailed      = "peers-failed"
	EventSubreaperFailed  = "subreaper-failed"
	EventReadyWritten     = "ready-written"
	EventDoneWritten      = "done-written"
	EventStoppedWritten   = "stopped-written"
	EventRestarting       = "restarting"
	EventWaiting          = "waiting"
	EventInterrupted      = "interrupted"
	EventFailed           = "failed"
	EventExiting          = "exiting"
	EventMainAttached     = "main-attached"
	EventMainLost         = "main-lost" // the main's tandem ended without the done signal
	EventLifelineMissing  = "lifeline-unavailable"
	EventDeprecated       = "deprecated" // an older flag or variable was used

	// main --needs: the sidecars it cannot work without.
	EventSidecarAttached      = "sidecar-attached"       // held through its ready file's lifeline
	EventSidecarLost          = "sidecar-lost"           // its tandem ended before the main was done
	EventNeedsWithoutLifeline = "needs-without-lifeline" // a ready file with no lifeline: wait only

	EventConditionHolds = "condition-holds" // supervisor/probe
	EventPeerSignaled   = "peer-signaled"   // supervisor/peers
	EventPeersLooking   = "peers-looking"   // supervisor/peers
)

// Warnings and errors: every such line carries an event too (a test in
// supervisor walks the sources to hold this).
const (
	EventWatchUnavailable  = "watch-unavailable"      // inotify, or one directory's watch: polling instead
	EventWatchError        = "watch-error"            // inotify reported an error (events lost): look now
	EventPathUnusable      = "path-unusable"          // a file tandem must write or see cannot be: exit 125
	EventStartFailed       = "start-failed"           // CMD could not be started
	EventWriteFailed       = "write-failed"           // a done or stopped file could not be written
	EventRemoveFailed      = "remove-failed"          // a ready file could not be removed
	EventSignalFailed      = "signal-failed"          // a signal could not be forwarded or sent
	EventJobControlFailed  = "job-control-failed"     // the terminal could not be handed over, or tandem not stopped
	EventListeningFailed   = "listening-mark-failed"  // peers will not signal this tandem
	EventMainStartTimeout  = "main-start-timeout"     // no main within --main-start-timeout
	EventAnnounceCut       = "announce-cut-short"     // a signal ended the main's announcement
	EventTerminationLog    = "termination-log-failed" // an explicit --termination-log could not be written
	EventTerminationKept   = "termination-log-kept"   // CMD wrote its own termination message: tandem's not written
	EventWaitTimeout       = "wait-timeout"           // wait / main --wait-for: fields per condition
	EventConditionNotHolds = "condition-not-holding"  // first failure of each kind, per condition
)
