// Package signals names, parses and classifies the signals tandem forwards.
package signals

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

const (
	// glibc reserves 32 and 33 for thread cancellation and setxid; sending
	// them to a glibc program from outside would disturb it, so they are
	// neither caught nor forwarded.
	firstRealtimeSignal = 34
	lastSignal          = 64
	// goRuntimeReservedSignal: see Forwardable.
	goRuntimeReservedSignal = unix.Signal(34)
)

// Parse accepts "TERM", "SIGTERM", "term", "15" or "SIG15".
func Parse(s string) (unix.Signal, error) {
	text := strings.TrimSpace(s)
	// SIG<N> is how Name writes realtime signals (they have no name in
	// x/sys): a name from a log line or done file must read back as itself.
	if digits, ok := strings.CutPrefix(strings.ToUpper(text), "SIG"); ok && digits != "" && digits[0] >= '0' && digits[0] <= '9' {
		text = digits
	}
	if n, err := strconv.Atoi(text); err == nil {
		if n < 1 || n > lastSignal || n == 32 || n == 33 {
			return 0, fmt.Errorf("signal %q: expected a number from 1 to 64 (not 32 or 33) or a name such as TERM, USR2", s)
		}
		return unix.Signal(n), nil
	}
	name := strings.ToUpper(text)
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	if sig := unix.SignalNum(name); sig != 0 {
		return sig, nil
	}
	return 0, fmt.Errorf("signal %q: unknown name; expected a name such as TERM, SIGUSR2, HUP or a number from 1 to 64", s)
}

// Name is "SIGTERM" for 15, "SIG36" for realtime signals.
func Name(sig unix.Signal) string {
	if name := unix.SignalName(sig); name != "" {
		return name
	}
	return "SIG" + strconv.Itoa(int(sig))
}

// Drop is the TO of a rewrite that forwards nothing (`--rewrite HUP:0`, as
// dumb-init's `-r 1:0`).
const Drop = unix.Signal(0)

// ParseRewrite reads a --rewrite FROM:TO pair; TO may be 0 (Drop).
func ParseRewrite(s string) (from, to unix.Signal, err error) {
	left, right, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, fmt.Errorf("rewrite %q: expected FROM:TO, e.g. TERM:QUIT, or FROM:0 to drop FROM", s)
	}
	if from, err = Parse(left); err != nil {
		return 0, 0, fmt.Errorf("rewrite %q: %w", s, err)
	}
	if strings.TrimSpace(right) == "0" {
		to = Drop
	} else if to, err = Parse(right); err != nil {
		return 0, 0, fmt.Errorf("rewrite %q: %w", s, err)
	}
	if !Forwardable(from) {
		return 0, 0, fmt.Errorf("rewrite %q: %s cannot be caught or forwarded", s, Name(from))
	}
	return from, to, nil
}

// Forwardable is every signal tandem catches to pass on. SIGKILL and
// SIGSTOP cannot be caught; SIGCHLD drives the reaper; SIGURG is the Go
// runtime's own preemption signal and arrives constantly. SIGPROF is the Go
// runtime's too: its handler feeds the profiler and never passes SIGPROF to
// os/signal, so tandem could not forward it (it was silently dropped).
// Signal 34 (musl's SIGSYNCCALL) is one the Go runtime will not handle at all
// (golang/go#39343): signal.Notify leaves it at its default action, so it
// cannot be forwarded, and it kills a tandem that is not PID 1.
func Forwardable(sig unix.Signal) bool {
	switch sig {
	case unix.SIGKILL, unix.SIGSTOP, unix.SIGCHLD, unix.SIGURG, unix.SIGPROF, goRuntimeReservedSignal:
		return false
	}
	return (sig >= 1 && sig < 32) || (sig >= firstRealtimeSignal && sig <= lastSignal)
}

// AllForwardable lists every signal tandem forwards, in order.
func AllForwardable() []unix.Signal {
	var sigs []unix.Signal
	for s := unix.Signal(1); s <= lastSignal; s++ {
		if Forwardable(s) {
			sigs = append(sigs, s)
		}
	}
	return sigs
}
