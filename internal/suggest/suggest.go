// Package suggest finds the name a user most likely meant when they
// misspelt one: a flag, a config key.
package suggest

import "strings"

// Closest returns the name of names nearest to typed, ignoring case, when
// it is near enough to be a slip (an edit for every three letters, at
// least one), or "".
func Closest(typed string, names []string) string {
	best, bestD := "", len(typed)/3+1
	for _, n := range names {
		if d := distance(strings.ToLower(typed), strings.ToLower(n)); d <= bestD && (best == "" || d < bestD) {
			best, bestD = n, d
		}
	}
	return best
}

// distance is the Levenshtein distance of a and b, in bytes, with a
// swap of two neighbours counted as one edit.
func distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
