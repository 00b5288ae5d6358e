package cmdline

// Every lifecycle log line carries one of these in its "event" field: they
// are API (tests, log pipelines and the README match on them), the
// sentences are not. The engine and its sub-packages log them.
const (
	EventCmdStarted      = "cmd-started"
	EventCmdExited       = "cmd-exited"
	EventCmdStopped      = "cmd-stopped"   // job control: Ctrl-Z
	EventCmdContinued    = "cmd-continued" // job control: fg
	EventDoneSeen        = "done-seen"     // field source: done-file, done-signal, lost, no-main
	EventStopDelayed     = "stop-delayed"
	EventQuitCalled      = "quit-called"
	EventStopSent        = "stop-sent"
	EventKillSent        = "kill-sent"
	EventSignalHeld      = "signal-held"
	EventSignalReleased  = "signal-released"
	EventSignalAbsorbed  = "signal-absorbed"
	EventSignalDropped   = "signal-dropped"
	EventLeftovers       = "leftovers"
	EventLeftoversKilled = "leftovers-killed"
	EventStopForced      = "stop-forced" // CMD needed SIGKILL after a requested stop
	EventSignalForwarded = "signal-forwarded"
	EventNotStarted      = "not-started" // sidecar: the main was done before CMD started
	EventMainFailed      = "main-failed" // --stop-when success: a failed main is not done
	EventDoneUnreadable  = "done-file-unreadable"
	EventDoneFileForeign = "done-file-foreign" // written in another pod: ignored
	EventLifelineForeign = "lifeline-foreign"  // held in another pod: not attached to
	EventQuitFailed      = "quit-failed"
	EventPeersFailed     = "peers-failed"
	EventSubreaperFailed = "subreaper-failed"
	EventReadyWritten    = "ready-written"
	EventDoneWritten     = "done-written"
	EventStoppedWritten  = "stopped-written"
	EventRestarting      = "restarting"
	EventWaiting         = "waiting"
	EventInterrupted     = "interrupted"
	EventFailed          = "failed"
	EventExiting         = "exiting"
	EventMainAttached    = "main-attached"
	EventMainLost        = "main-lost" // the main's tandem ended without the done signal
	EventLifelineMissing = "lifeline-unavailable"

	// main --needs: the sidecars it cannot work without.
	EventSidecarAttached      = "sidecar-attached"       // held through its ready file's lifeline
	EventSidecarLost          = "sidecar-lost"           // its tandem ended before the main was done
	EventNeedsWithoutLifeline = "needs-without-lifeline" // a ready file with no lifeline: wait only

	EventConditionHolds = "condition-holds" // supervisor/probe
	EventPeerSignaled   = "peer-signaled"   // supervisor/peers
	EventPeersLooking   = "peers-looking"   // supervisor/peers
)
