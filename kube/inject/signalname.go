package inject

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/signals"
)

// signalName normalises a STOPSIGNAL, lifecycle.stopSignal or the
// stop-signal annotation ("SIGQUIT", "quit", "3", "") to the name tandem
// takes; "" is SIGTERM. It is written into tandem's command line
// (--termination-signal), so it must be one tandem accepts and can
// catch: anything else would end the container at its start with a usage
// error, in every pod, so it is refused here, naming it.
func signalName(s string) (string, error) {
	text := strings.ToUpper(strings.TrimSpace(s))
	if text == "" {
		return "TERM", nil
	}
	sig, err := signals.Parse(realtimeNumber(strings.TrimPrefix(text, "SIG")))
	if err != nil {
		return "", fmt.Errorf("stop signal %q: expected a signal name such as SIGQUIT or SIGRTMIN+3, or a number from 1 to 64 (not 32 or 33)", s)
	}
	if !signals.Forwardable(sig) {
		return "", fmt.Errorf("stop signal %q: tandem cannot catch it, so it could not stop the container's program in order; expected a signal tandem can catch, such as SIGTERM or SIGQUIT", s)
	}
	return cmdline.SignalName(sig), nil
}

// realtimeNumber writes RTMIN, RTMIN+N, RTMAX and RTMAX-N as the numbers
// the container runtimes send for them on Linux (moby/sys/signal's map:
// RTMIN is 34, RTMAX 64), tandem taking realtime signals by number. The
// map is Linux's wherever tandemctl runs: the pods run on Linux.
func realtimeNumber(name string) string {
	const rtmin, rtmax = 34, 64
	var base int
	var rest, sign string
	switch {
	case strings.HasPrefix(name, "RTMIN"):
		base, rest, sign = rtmin, name[len("RTMIN"):], "+"
	case strings.HasPrefix(name, "RTMAX"):
		base, rest, sign = rtmax, name[len("RTMAX"):], "-"
	default:
		return name
	}
	if rest == "" {
		return strconv.Itoa(base)
	}
	offset, ok := strings.CutPrefix(rest, sign)
	n, err := strconv.Atoi(offset)
	if !ok || err != nil || n < 0 || n > rtmax-rtmin {
		return name
	}
	if sign == "-" {
		n = -n
	}
	return strconv.Itoa(base + n)
}

// StopSignalName is how inject writes a stated stop signal, for the
// admission policy, which writes every accepted spelling into its CEL.
func StopSignalName(s string) (string, error) { return signalName(s) }
