package redact

import (
	"math/rand/v2"
	"reflect"
	"regexp/syntax"
	"strings"
	"testing"
	"unicode"
)

func TestNeedsOf(t *testing.T) {
	for _, c := range []struct {
		expr string
		want []needed
	}{
		{`(?i)(?:lob)[ \t\w.-]{0,20}(?:=|:)x`, []needed{{"lob", true}, {"x", true}}},
		{`\b[a-zA-Z][a-zA-Z0-9+.-]{1,30}://[^@\s]{0,200}:([^\s@]{1,300})@[^\s@]`, []needed{{"://", false}, {":", false}, {"@", false}}},
		{`(?:ab){2,3}c?`, []needed{{"ab", false}, {"ab", false}}},
		{`(?:ab)?c`, []needed{{"c", false}}},
		{`a|b`, nil},
		{`(live|test)_[a-f0-9]{35}`, []needed{{"_", false}}},
		// 'k' also matches the Kelvin sign, 's' the long s: no byte
		// comparison finds those.
		{`(?i)key`, nil},
		{`(?i)secret`, nil},
		{`(?i)tab`, []needed{{"tab", true}}},
		{`Ünï`, []needed{{"Ünï", false}}},
	} {
		if got := needsOf(c.expr); !reflect.DeepEqual(got, c.want) {
			t.Errorf("needsOf(%q) = %v, want %v", c.expr, got, c.want)
		}
	}
}

func TestContainsFold(t *testing.T) {
	for _, c := range []struct {
		s, sub string
		want   bool
	}{
		{"a GLOBAL b", "lob", true}, {"glOb", "lob", true}, {"lo b", "lob", false}, {"lo", "lob", false},
		{"", "", true}, {"x", "", true}, {"ends in LoB", "lob", true}, {"l\u00f6b", "lob", false},
	} {
		if got := containsFold(c.s, c.sub); got != c.want {
			t.Errorf("containsFold(%q, %q) = %v", c.s, c.sub, got)
		}
	}
}

// TestNeedsAreInEveryMatch: strings made to match each built-in rule's
// expression, the cases of its letters varied over every rune that
// matches them (the Kelvin sign for k), hold what the rule needs, and
// those of a rule tried at its keywords a byte of its window, or run and
// runAt would skip a secret.
func TestNeedsAreInEveryMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tried, windows := 0, 0
	for _, r := range rules().rules {
		r.ready()
		re := r.re
		if r.fast != nil {
			re = r.fast
		}
		tree, err := syntax.Parse(re.String(), syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		tree = tree.Simplify()
		for range 200 {
			var b strings.Builder
			generate(&b, tree, rng)
			s := b.String()
			m := re.FindStringIndex(s)
			if m == nil {
				continue
			}
			tried++
			if !holdsAll(s[m[0]:m[1]], r.needs) {
				t.Errorf("rule %s: match %q lacks one of %v", r.id, s[m[0]:m[1]], r.needs)
			}
			if r.at != nil && r.at.MatchString(s[m[0]:]) {
				windows++
			}
			if r.at != nil && r.at.MatchString(s[m[0]:]) && !r.win.holds(s[m[0]:]) {
				t.Errorf("rule %s: match %q has no byte of its window near its start (%d bytes)", r.id, s[m[0]:m[1]], r.win.n)
			}
		}
	}
	if tried < 500 || windows < 200 {
		t.Fatalf("only %d strings matched their rule, %d where their keywords are", tried, windows)
	}
}

// generate writes to b a string re may match, chosen by rng.
func generate(b *strings.Builder, re *syntax.Regexp, rng *rand.Rand) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 {
				c = anyCase(c, rng)
			}
			b.WriteRune(c)
		}
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return
		}
		// A range's low end and what follows, or its high end: the
		// longest UTF-8 a class takes.
		i := rng.IntN(len(re.Rune) / 2)
		lo, hi := re.Rune[2*i], re.Rune[2*i+1]
		if rng.IntN(4) == 0 {
			b.WriteRune(hi)
		} else {
			b.WriteRune(lo + rng.Int32N(min(hi-lo, 200)+1))
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte("ab9_ \t"[rng.IntN(6)])
	case syntax.OpCapture:
		generate(b, re.Sub[0], rng)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			generate(b, sub, rng)
		}
	case syntax.OpAlternate:
		generate(b, re.Sub[rng.IntN(len(re.Sub))], rng)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 3
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
			if hi < 0 {
				hi = lo + 3
			}
		}
		for range lo + rng.IntN(hi-lo+1) {
			generate(b, re.Sub[0], rng)
		}
	}
}

// anyCase is c or a rune that matches it in another case.
func anyCase(c rune, rng *rand.Rand) rune {
	orbit := []rune{c}
	for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
		orbit = append(orbit, f)
	}
	return orbit[rng.IntN(len(orbit))]
}

// TestRunSkipsTextWithoutNeeds: a text holding a rule's keyword but not
// what its matches need is not searched, and one that holds a secret
// still has it found.
func TestRunSkipsTextWithoutNeeds(t *testing.T) {
	rs := rules()
	var lob *rule
	for _, r := range rs.rules {
		if r.id == "lob-api-key" {
			lob = r.ready()
		}
	}
	if lob == nil {
		t.Skip("no lob-api-key rule")
	}
	secret := "LOB_KEY = test_" + strings.Repeat("0a1b2c3d4e", 3) + "0a1b2" + "\n"
	if got := rs.run(lob, secret, 0, len(secret), nil); len(got) != 1 {
		t.Errorf("run found %d secrets in %q, want 1", len(got), secret)
	}
	if !lob.fast.MatchString(secret) || len(lob.needs) == 0 {
		t.Fatalf("the Lob rule no longer matches %q, or needs nothing: %v", secret, lob.needs)
	}
	plain := "def test_parse(): pass\n"
	if holdsAll(plain, lob.needs) {
		t.Errorf("%q holds what the Lob rule needs (%v): it is searched", plain, lob.needs)
	}
}

func TestWindowOf(t *testing.T) {
	for _, c := range []struct {
		expr  string
		n     int
		bytes string
	}{
		// a keyword, up to 3 name bytes, up to 2 spaces, then = or :
		{`(?:api|tab)[a-z_]{0,3} {0,2}(?:=|:)x`, 3 + 3 + 2 + 1, ":="},
		// (?i) puts the Kelvin sign, three bytes, in \w
		{`(?i)(?:tab)\w{0,2}=`, 3 + 2*3 + 1, "="},
		{`api\w*=`, 0, ""},               // no bound on the way
		{`api(?:=|x?)y`, 3 + 1 + 1, "y"}, // past a part that may match nothing
		{`api[^a]{0,2}z`, 3 + 2*4 + 1, "z"},
		{`api`, 0, ""},
	} {
		w := windowOf(c.expr)
		var got []byte
		for b, in := range w.set {
			if in {
				got = append(got, byte(b))
			}
		}
		if w.n != c.n || w.n > 0 && string(got) != c.bytes {
			t.Errorf("windowOf(%q) = %d %q, want %d %q", c.expr, w.n, got, c.n, c.bytes)
		}
	}
	w := windowOf(`key {0,3}=`)
	for s, want := range map[string]bool{"key = 1": true, "key   =": true, "key    =": false, "key": false, "key=": true} {
		if w.holds(s) != want {
			t.Errorf("window of key {0,3}= holds %q: %v, want %v", s, !want, want)
		}
	}
}
