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
	case syntax.OpCapture, syntax.OpPlus:
		return literalsIn(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min > 0 {
			return literalsIn(re.Sub[0])
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
