package inject

import (
	"strconv"
	"strings"
)

// atLeast reads a version as Kubernetes components and container runtimes
// report it (v1.29.3, v1.30.1-gke.1589000, v1.29.0-eks-5e0fdde,
// v1.31.2+k3s1, 1.29, 2.1.0): whether it is at major.minor or later, and
// whether it parsed. A pre-release (v1.29.0-rc.1) counts as its release:
// its feature gates' defaults are that release's.
func atLeast(version string, major, minor int) (ok, parsed bool) {
	maj, rest, found := strings.Cut(strings.TrimPrefix(strings.TrimSpace(version), "v"), ".")
	if !found {
		return false, false
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	gotMaj, err1 := strconv.Atoi(maj)
	gotMin, err2 := strconv.Atoi(rest[:end])
	if err1 != nil || err2 != nil || end == 0 {
		return false, false
	}
	return gotMaj > major || (gotMaj == major && gotMin >= minor), true
}
