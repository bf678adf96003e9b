package render

import (
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/dlclark/regexp2/v2"
)

// A direct matcher finds what regexp2 finds: whether the pattern matches
// at a position, where it ends and every group, on patterns that make it
// choose, go back and give up (alternations whose first branch fails
// later, lazy and greedy loops, groups captured in loops and in branches
// that fail, lookarounds, anchors at the ends of lines and of the text).
func TestDirectMatchesAreRegexp2s(t *testing.T) {
	patterns := []string{
		`(a|ab)(c|bcd)(d*)`, `(?:(a)|b)+c`, `(a+?)(b*)`, `(a*?)b`, `(?<=ab)c`, `(?<!x)y\b`,
		`(?m)^\s*$`, `(\w+)\s*=\s*(.*?)$`, `(?=ab)(a)`, `(?!ab)a`, `(?>a+)b`, `[^\S\n]+`,
		`(?:x(y)?)*z`, `x$`, `x\Z`, `x\z`, `\Ax`, `(?m)x$`, `(?m)^x`, `\bfoo\B`, `(?:ab)+?b`,
		`(a)|(b)|(c)d`, `(?:(a)b|(a)c)`, `((a)|(b))+`, `(?s)a.*b`, `a.*b`, `a.*?b`, `(é+)(\p{L}*)`,
		`(?i)(rb|br|r)(""")`, `(?:.|\n)*?"""`, `(def)((?:\s|\\\s)+)`, `[a-c]{2,3}?c`, `(a{2,})(a)`,
		`(?<!\.)(self|cls|Ellipsis|NotImplemented|super|print|len|object)\b`, `()a`, `(?:)`, `a??b`,
		`a{2,3}?$`, `(?s)<!--.*?-->`, `<!--(?:.|\n)*?-->`, `x{2}?`,
	}
	texts := []string{
		"abcd", "abbcdd", "aab", "abc", "xy yy", "y", "  \n\t\nx", "key = value here\nnext = 2",
		"ab", "aaab", "aaa", "xyxxyz", "xz", "x", "x\n", "x\nx", "foox foo", "ababab", "abd", "ac",
		"ababc", "a\nb", "éé étoile", `rb"""x`, `R"""`, "\"\"\"\n\"\"\"", "def  \\\n f", "abcc", "aaaa",
		"self.cls cls x.self printer print", "", "\n", "b", "aaa\naa", "<!-- a\n-- b -->c-->", "xxx",
	}
	checked := 0
	for _, p := range patterns {
		m := newDirect(p)
		if m == nil {
			t.Errorf("%s: no direct matcher", p)
			continue
		}
		re := regexp2.MustCompile(`\G` + p)
		for _, text := range texts {
			for pos := range len([]rune(text)) + 1 {
				checked++
				if d := diffAt(re, m, []rune(text), pos); d != "" {
					t.Errorf("%s on %q at %d: %s", p, text, pos, d)
				}
			}
		}
	}
	t.Logf("%d positions", checked)
}

// The same on every rule of every lexer that has a sample in chroma's
// module (lexers/testdata), at the positions of its sample that the
// quick loop would run the rule at, and past its end.
func TestDirectMatchesAreRegexp2sOnChromasRules(t *testing.T) {
	samples, _ := chromaSamples(t)
	rules, direct, tries := 0, 0, 0
	for _, sm := range samples {
		q, ok := quick(sm.lexer).(*quickLexer)
		if !ok {
			continue
		}
		text := []rune(sm.text + "é ü\n")
		for r, info := range q.known {
			rules++
			if info.direct == nil {
				continue
			}
			direct++
			for pos := 0; pos <= len(text); pos += 1 + pos/512 { // all of the start, then fewer
				if info.can != nil && pos < len(text) && !info.can(text, pos) {
					continue
				}
				tries++
				if d := diffAt(r.Regexp, info.direct, text, pos); d != "" {
					t.Fatalf("%s: rule %q at %d: %s", sm.name, r.Pattern, pos, d)
				}
			}
		}
	}
	if rules == 0 || direct*10 < rules*8 {
		t.Errorf("%d of %d rules have a direct matcher", direct, rules)
	}
	t.Logf("%d of %d rules direct; %d positions", direct, rules, tries)
}

// diffAt says how m's match at pos differs from re's, "" when it does not.
func diffAt(re *regexp2.Regexp, m *directMatcher, text []rune, pos int) string {
	var want [][3]int // each group's start, length and whether it was captured
	err := re.FindRunesMatches(text, pos, func(v regexp2.MatchView) bool {
		if at, _, _ := v.GroupRange(0); at == pos {
			for _, n := range re.GetGroupNumbers() {
				at, length, ok := v.GroupRange(n)
				want = append(want, groupOf(at, length, ok))
			}
		}
		return false
	})
	if err != nil {
		return err.Error()
	}
	r := &directRun{text: text}
	if !m.match(r, pos) {
		if r.spent {
			return ""
		}
		if want != nil {
			return "regexp2 matches, the direct matcher does not"
		}
		return ""
	}
	if want == nil {
		return "the direct matcher matches, regexp2 does not"
	}
	for k, n := range re.GetGroupNumbers() {
		if got := groupOf(r.GroupRange(n)); got != want[k] {
			return "group " + string(rune('0'+n)) + ": " + describe(text, got) + ", regexp2 " + describe(text, want[k])
		}
	}
	return ""
}

func groupOf(at, length int, ok bool) [3]int {
	if !ok {
		return [3]int{}
	}
	return [3]int{at, length, 1}
}

func describe(text []rune, g [3]int) string {
	if g[2] == 0 {
		return "not captured"
	}
	return "captured " + string(text[g[0]:g[0]+g[1]])
}

// Where regexp2 gives up on a match (a JSON string of 18,000 characters
// outgrows its backtracking stack, and chroma shows it as errors), the
// quick lexer gives up with it: the direct matcher leaves the rule to
// regexp2 past its budget of choices, and the tokens stay chroma's.
func TestLongMatchesEndAsChromasDo(t *testing.T) {
	for _, c := range []struct{ lang, text string }{
		{"json", `{"a": "` + strings.Repeat(`x\"`, 9000) + `"}`},
		{"json", `{"a": "` + strings.Repeat(`x`, 300) + `"}`},
		{"python", `s = """` + strings.Repeat("a\n", 2000) + `"""`},
	} {
		l := lexers.Get(c.lang)
		want, got := lexed(t, l, c.text), lexed(t, quick(l), c.text)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d tokens, chroma %d; first difference at %d", c.lang, len(got), len(want), firstDiff(got, want))
		}
	}
}
