package kit

import (
	"testing"
	"time"
)

// AssertOrder asserts that every event happened, in this order. tandem's
// lines carry the time tandem wrote them; a program's line is timed when
// the runtime read it, which on a loaded machine can be much later, so it
// may only end a chain: it is never earlier than recorded.
func AssertOrder(t testing.TB, lines []Line, events ...Event) {
	t.Helper()
	var prev Line
	for i, e := range events {
		l, ok := Find(lines, e)
		if !ok {
			t.Errorf("event %d: no %s\n%s", i+1, e, Format(lines))
			return
		}
		if e.Name == "" && i < len(events)-1 {
			t.Fatalf("test bug: event %d (%s) is a program's line, so it may only end a chain", i+1, e)
		}
		if i > 0 && l.At.Before(prev.At) {
			t.Errorf("event %d came before event %d:\n  %s\n  %s", i+1, i, l, prev)
		}
		prev = l
	}
}

// AssertPresent asserts that every event happened, in any order: lines that
// the two sides of one exchange print within microseconds of each other.
func AssertPresent(t testing.TB, lines []Line, events ...Event) {
	t.Helper()
	for _, e := range events {
		if _, ok := Find(lines, e); !ok {
			t.Errorf("no %s", e)
		}
	}
}

// AssertNever asserts that the program in ctr printed no line containing
// any of texts.
func AssertNever(t testing.TB, lines []Line, ctr string, texts ...string) {
	t.Helper()
	for _, l := range lines {
		for _, text := range texts {
			if Program(ctr, text).Matches(l) {
				t.Errorf("%s said %q: %s", ctr, text, l.Text)
			}
		}
	}
}

// SidecarGap is the time from the main's CMD exit to the sidecar's tandem
// exit, as tandem logged them (under --await-termination, to its wait for
// the container's stop, which is the kubelet's to time); it must be
// positive and within bound.
func SidecarGap(t testing.TB, lines []Line, main, sidecar string, bound time.Duration) time.Duration {
	t.Helper()
	mainExit := MustFind(t, lines, Tandem(main, "cmd-exited"))
	sidecarExit, awaits := Find(lines, Tandem(sidecar, "awaiting-stop"))
	if !awaits {
		sidecarExit = MustFind(t, lines, Tandem(sidecar, "exiting"))
	}
	gap := sidecarExit.At.Sub(mainExit.At)
	if gap < 0 || gap > bound {
		t.Errorf("%s stopped %s after %s ended; want within %s", sidecar, gap, main, bound)
	}
	t.Logf("%s stopped %s after %s ended", sidecar, gap.Round(time.Microsecond), main)
	return gap
}

// MainThenStop is the chain every sidecar pattern ends with, after the
// events before: the main's CMD exits, then the sidecar's tandem sees the
// main done, sends its CMD the stop signal and exits.
func MainThenStop(main, sidecar string, before ...Event) []Event {
	return append(before,
		Tandem(main, "cmd-exited"),
		Tandem(sidecar, "done-seen"),
		Tandem(sidecar, "stop-sent"),
		Tandem(sidecar, "exiting"))
}
