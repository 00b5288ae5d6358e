// Package suggest finds the word a typo was meant to be.
package suggest

// Closest is the word of words at the fewest edits from typed.
func Closest(typed string, words []string) string {
	best, bestDist := "", -1
	for _, w := range words {
		if d := Distance(typed, w); bestDist < 0 || d < bestDist {
			best, bestDist = w, d
		}
	}
	return best
}

// Near is the closest word of words, when it is near enough to typed to
// be what was meant: a third of it, or two edits, at most.
func Near(typed string, words []string) (string, bool) {
	w := Closest(typed, words)
	return w, w != "" && Distance(typed, w) <= max(2, len(typed)/3)
}

// Distance is Levenshtein's: insertions, deletions and substitutions.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
