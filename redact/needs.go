package redact

import (
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A rule's expression is tried at every position of the lines around its
// keywords, and Go's regexp does that at hundreds of instructions a byte
// when the expression opens with no literal it can look for (a
// case-insensitive one never does): gitleaks' Lob rule, whose keywords
// test_ and live_ open half the names in a test suite, was most of what
// redaction cost. A match holds the literals its expression strings
// together (Lob's holds "lob" in any case), so text without one of them
// is not searched.

// needed is a string every match holds; fold: in any case of its ASCII
// letters, s lower-cased.
type needed struct {
	s    string
	fold bool
}

// needsOf are the literals every match of expr holds.
func needsOf(expr string) []needed {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	return literalsIn(re.Simplify())
}

// literalsIn are literals every match of re holds: those of the parts a
// sequence must match, not of alternatives nor of what may repeat no
// times.
func literalsIn(re *syntax.Regexp) []needed {
	switch re.Op {
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		if fold && !asciiFold(re.Rune) {
			return nil
		}
		s := string(re.Rune)
		if fold {
			s = strings.ToLower(s)
		}
		return []needed{{s, fold}}
	case syntax.OpCapture, syntax.OpPlus, syntax.OpRepeat:
		if sub, ok := inner(re); ok {
			return literalsIn(sub)
		}
	case syntax.OpConcat:
		var out []needed
		for _, sub := range re.Sub {
			out = append(out, literalsIn(sub)...)
		}
		return out
	}
	return nil
}

// inner is the part of re that each match of re holds a match of: a
// group's, or a repeat's that runs at least once.
func inner(re *syntax.Regexp) (*syntax.Regexp, bool) {
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return re.Sub[0], true
	case syntax.OpRepeat:
		return re.Sub[0], re.Min > 0
	}
	return nil, false
}

// asciiFold says whether the runes, and every rune that matches one of
// them in another case, are ASCII: then a match is found by comparing
// bytes in lower case. 'k' also matches the Kelvin sign, 's' the long s.
func asciiFold(rs []rune) bool {
	for _, r := range rs {
		for f := r; ; {
			if f >= utf8.RuneSelf {
				return false
			}
			if f = unicode.SimpleFold(f); f == r {
				break
			}
		}
	}
	return true
}

// holdsAll reports whether s holds each of the literals.
func holdsAll(s string, needs []needed) bool {
	for _, l := range needs {
		if l.fold && !containsFold(s, l.s) || !l.fold && !strings.Contains(s, l.s) {
			return false
		}
	}
	return true
}

// containsFold reports whether s holds sub, an ASCII lower-case string, in
// any case.
func containsFold(s, sub string) bool {
	if sub == "" {
		return true
	}
	first, upper := sub[0], sub[0]
	if 'a' <= first && first <= 'z' {
		upper -= 'a' - 'A'
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		if c := s[i]; (c == first || c == upper) && strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// A rule led by its keywords is tried where each keyword is, and gitleaks'
// generic rule has keywords (key, token, auth, secret) that a session's
// code holds on every other line. Its matches go on, within a few bytes of
// the keyword, with an assignment (=, :, =>, a comma): a keyword with none
// of those bytes near it starts no match.

// window is a byte set one of which a match holds within n bytes of its
// start; n is 0 when the expression says of none.
type window struct {
	n   int
	set [256]bool
}

// windowOf is the window of expr, whose matches start with a keyword: the
// first part of it past the keyword's that must match a character, and
// whose characters' first bytes are known, lies at most as far from the
// start as what comes before it can reach.
func windowOf(expr string) window {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return window{}
	}
	re = re.Simplify()
	if re.Op != syntax.OpConcat {
		return window{}
	}
	lead, keyword := 0, false
	for _, sub := range re.Sub {
		if keyword && minBytes(sub) > 0 {
			if set, ok := firstBytes(sub); ok {
				return window{lead + 1, set}
			}
		}
		keyword = keyword || minBytes(sub) > 0
		n := maxBytes(sub)
		if n < 0 {
			return window{}
		}
		lead += n
	}
	return window{}
}

// holds reports whether the first w.n bytes of s hold a byte of w's set;
// true for a window of none.
func (w *window) holds(s string) bool {
	if w.n == 0 {
		return true
	}
	for i := range min(w.n, len(s)) {
		if w.set[s[i]] {
			return true
		}
	}
	return false
}

// minBytes is the fewest bytes re matches.
func minBytes(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(string(re.Rune)) // a fold of an ASCII letter is no shorter
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minBytes(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minBytes(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n += minBytes(sub)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, sub := range re.Sub {
			if m := minBytes(sub); n < 0 || m < n {
				n = m
			}
		}
		return max(n, 0)
	}
	return 0
}

// maxBytes is the most bytes re matches, -1 for no bound.
func maxBytes(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += maxRuneBytes(r, re.Flags&syntax.FoldCase != 0)
		}
		return n
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return 0
		}
		return utf8.RuneLen(re.Rune[len(re.Rune)-1])
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0
	case syntax.OpCapture, syntax.OpQuest:
		return maxBytes(re.Sub[0])
	case syntax.OpRepeat:
		if n := maxBytes(re.Sub[0]); re.Max >= 0 && n >= 0 {
			return re.Max * n
		}
	case syntax.OpConcat, syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			m := maxBytes(sub)
			if m < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				n += m
			} else {
				n = max(n, m)
			}
		}
		return n
	}
	return -1
}

// maxRuneBytes is the longest UTF-8 of r, or of a rune that matches it in
// another case when fold: the Kelvin sign, for k, is three bytes.
func maxRuneBytes(r rune, fold bool) int {
	n := utf8.RuneLen(r)
	for f := unicode.SimpleFold(r); fold && f != r; f = unicode.SimpleFold(f) {
		n = max(n, utf8.RuneLen(f))
	}
	return n
}

// firstBytes is the bytes a match of re can start with, when they are
// known: re matches at least one character, and every character it can
// start with is ASCII.
func firstBytes(re *syntax.Regexp) (set [256]bool, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		if len(re.Rune) == 0 || fold && !asciiFold(re.Rune[:1]) || re.Rune[0] >= utf8.RuneSelf {
			return set, false
		}
		for f := re.Rune[0]; ; {
			set[f] = true
			if f = unicode.SimpleFold(f); !fold || f == re.Rune[0] {
				return set, true
			}
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1] >= utf8.RuneSelf {
				return set, false
			}
			for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
				set[c] = true
			}
		}
		return set, len(re.Rune) > 0
	case syntax.OpCapture, syntax.OpPlus, syntax.OpRepeat:
		if sub, ok := inner(re); ok {
			return firstBytes(sub)
		}
	case syntax.OpConcat:
		if len(re.Sub) > 0 && minBytes(re.Sub[0]) > 0 {
			return firstBytes(re.Sub[0])
		}
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			s, ok := firstBytes(sub)
			if !ok || minBytes(sub) == 0 {
				return set, false
			}
			for c, in := range s {
				set[c] = set[c] || in
			}
		}
		return set, true
	}
	return set, false
}
