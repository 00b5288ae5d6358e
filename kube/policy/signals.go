package policy

import (
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/signals"
	"github.com/tandem-sh/tandem/kube/inject"
)

// badSignal marks a stated stop signal inject refuses.
const badSignal = "!"

// stopSignals is every spelling of a stop signal that inject accepts,
// upper case without its SIG prefix (numbers without leading zeros), and
// what inject writes for it: its names, numbers, and the realtime signals
// as RTMIN+N and RTMAX-N. The policy looks a stated signal up in it, so
// it writes what inject writes, and refuses what inject refuses.
func stopSignals() map[string]string {
	const rtmin, rtmax = 34, 64
	candidates := []string{"RTMIN", "RTMAX"}
	for n := 1; n <= rtmax; n++ {
		candidates = append(candidates, strconv.Itoa(n), strings.TrimPrefix(signals.Name(unix.Signal(n)), "SIG"))
	}
	for k := 0; k <= rtmax-rtmin; k++ {
		candidates = append(candidates, "RTMIN+"+strconv.Itoa(k), "RTMAX-"+strconv.Itoa(k))
	}
	names := map[string]string{}
	for _, c := range candidates {
		if name, err := inject.StopSignalName(c); err == nil {
			names[c] = name
		}
	}
	return names
}

// signalLookup is the CEL of the stop signal the annotation's value (a
// string expression) states, as inject writes it, or badSignal.
func signalLookup(value string) string {
	m := stopSignals()
	entries := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		entries = append(entries, str(k)+": "+str(m[k]))
	}
	table := "{" + strings.Join(entries, ", ") + "}"
	return "[" + value + ".trim().upperAscii()].map(u, u.startsWith('SIG') ? u.substring(3) : u)" +
		".map(k, k.matches('^[+]?[0-9]{1,9}$') ? string(int(k)) : k)" +
		".map(k, [" + table + "].map(t, k in t ? t[k] : " + str(badSignal) + ")[0])[0]"
}
