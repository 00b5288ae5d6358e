package integration

import (
	"slices"
	"testing"
)

// recorder is the directory of one tandem whose CMD is record-signals, the
// setup most sidecar and run tests share: CMD reports every signal it gets
// and exits 0 on SIGTERM, and the done file sits beside its record.
type recorder struct {
	t       testing.TB
	dir     string
	done    string // DIR/done, for the tests that name it as a done file
	signals string // DIR/signals: "ready PID", then one signal number a line
	pid     int    // CMD's pid, from its ready line, once started
}

func newRecorder(t testing.TB) *recorder {
	t.Helper()
	dir := tempDir(t)
	return &recorder{t: t, dir: dir, done: inDir(dir, "done"), signals: inDir(dir, "signals")}
}

// start starts `tandem ARGS -- record-signals SIGNALS 15` and returns once
// CMD runs (its ready line is written).
func (r *recorder) start(args ...string) *tandemProc {
	r.t.Helper()
	p := startTandem(r.t, procOptions{}, cmdArgs(args, helper("record-signals", r.signals, "15"))...)
	r.pid = waitReadyPID(r.t, r.signals)
	return p
}

// received is what CMD recorded after its ready line: the signals so far.
func (r *recorder) received() []string { return readLines(r.signals)[1:] }

// wantReceived fails unless CMD received exactly want, in order; what says
// it in words for the failure.
func (r *recorder) wantReceived(what string, want ...string) {
	r.t.Helper()
	if got := r.received(); !slices.Equal(got, want) {
		r.t.Fatalf("CMD received %q, want %s", got, what)
	}
}
