package main

// closest is the word of words at the fewest edits from typed.
func closest(typed string, words []string) string {
	best, bestDist := "", -1
	for _, w := range words {
		if d := editDistance(typed, w); bestDist < 0 || d < bestDist {
			best, bestDist = w, d
		}
	}
	return best
}

// editDistance is Levenshtein's: insertions, deletions and substitutions.
func editDistance(a, b string) int {
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
