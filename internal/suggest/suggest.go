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
		if d := distance(strings.ToLower(typed), strings.ToLower(n)); nearer(d, bestD, best == "") {
			best, bestD = n, d
		}
	}
	return best
}

// nearer says whether a name at distance d beats the best so far, at
// bestD: the first name within reach does, later ones only when closer.
func nearer(d, bestD int, first bool) bool {
	return d < bestD || first && d == bestD
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
		row(a, b, i, prev2, prev, cur)
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// row fills cur, the distances of a[:i] to each prefix of b, from the two
// rows before it.
func row(a, b string, i int, prev2, prev, cur []int) {
	cur[0] = i
	for j := 1; j <= len(b); j++ {
		cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+subst(a[i-1], b[j-1]))
		if swapped(a, b, i, j) {
			cur[j] = min(cur[j], prev2[j-2]+1)
		}
	}
}

// subst is the cost of putting y where x is.
func subst(x, y byte) int {
	if x == y {
		return 0
	}
	return 1
}

// swapped says whether a[:i] and b[:j] end in the same two bytes in
// swapped order.
func swapped(a, b string, i, j int) bool {
	return i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1]
}
