package inject

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// FitShares is the rule of the grace split. Once the mains have ended,
// the sidecars stop one after another, the last started first, in either
// mode (classic: each waits for the stopped file of the one after it;
// native: the kubelet's reverse order), so their shares add up: the
// mains' --termination-grace is the period less all of them. asked is
// each sidecar's share as stated, least what its stop takes at least (a
// MinStopGrace for each step and its stop delay). Each share is asked,
// raised to its least, at most half the period; when they add up to more
// than half the period, each keeps its least and what it has above that
// is cut by one fraction, so that they add up to half; when even the
// least add up to more, each share is its least cut by one fraction. A
// cut share is rounded down to a tenth of a second.
func FitShares(period time.Duration, asked, least []time.Duration) []time.Duration {
	half := period / SidecarsDivisor
	shares := make([]time.Duration, len(asked))
	for i := range asked {
		shares[i] = min(max(asked[i], least[i]), half)
	}
	// Summed as big numbers: shares near the longest duration overflow.
	wanted, leastAll, halfB := total(shares), total(least), big.NewInt(int64(half))
	if wanted.Cmp(halfB) <= 0 {
		return shares
	}
	for i := range shares {
		if leastAll.Cmp(halfB) <= 0 {
			room, over := new(big.Int).Sub(halfB, leastAll), new(big.Int).Sub(wanted, leastAll)
			shares[i] = least[i] + scale(shares[i]-least[i], room, over)
		} else {
			shares[i] = scale(least[i], halfB, leastAll)
		}
	}
	return shares
}

// total is the sum of ds.
func total(ds []time.Duration) *big.Int {
	t := new(big.Int)
	for _, d := range ds {
		t.Add(t, big.NewInt(int64(d)))
	}
	return t
}

// scale is d*num/den for 0 <= num <= den, rounded down to
// GraceResolution.
func scale(d time.Duration, num, den *big.Int) time.Duration {
	x := new(big.Int).Mul(big.NewInt(int64(d)), num)
	return time.Duration(x.Quo(x, den).Int64()).Truncate(GraceResolution)
}

// sum adds ds up, at most to the longest duration.
func sum(ds []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range ds {
		t = min(t, math.MaxInt64-d) + d
	}
	return t
}

// cutWarnings say how FitShares cut the shares of several sidecars
// (listed in the order they start) to fit half the period, each share
// before and after in the order they stop, and when the period is too
// short for their stops.
func (g *graceSplit) cutWarnings(sidecars []*container, asked []graceShare, least []time.Duration) []string {
	var raised, leastAll time.Duration
	var cuts []string
	for i := len(sidecars) - 1; i >= 0; i-- {
		raised = sum([]time.Duration{raised, max(asked[i].d, least[i])})
		leastAll += least[i]
		cuts = append(cuts, fmt.Sprintf("sidecar %s %s → %s", strconv.Quote(sidecars[i].name), max(asked[i].d, least[i]), g.shares[sidecars[i].name].d))
	}
	half := g.period / SidecarsDivisor
	if raised <= half {
		return nil
	}
	warnings := []string{fmt.Sprintf("the sidecars stop one after another, so their shares add up: %s is more than half the pod's grace period (%s), cut to %s: %s (the mains get %s)",
		raised, g.period, g.kept, strings.Join(cuts, ", then "), g.mainGrace())}
	if leastAll > half {
		warnings = append(warnings, fmt.Sprintf("the pod's grace period (%s) leaves its sidecars %s, less than the %s their stops take at least, one after another: raise terminationGracePeriodSeconds",
			g.period, half, leastAll))
	}
	return warnings
}
