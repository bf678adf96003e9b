package redact

import (
	"cmp"
	"hash/maphash"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
)

func TestKeywordLed(t *testing.T) {
	for _, c := range []struct {
		expr       string
		kws        []string
		want, word bool
	}{
		{`(?i)(?:access|(?-i:[Aa]pi|API)|passw(?:or)?d)[ =]+(\w+)`, []string{"access", "api", "passwd", "password"}, true, false},
		{`(?i)(?:access|auth)=(\w+)`, []string{"access"}, false, false}, // auth is no keyword
		{`(?i)(?:linked[_-]?in)=(\w+)`, []string{"linkedin", "linked_in", "linked-in"}, true, false},
		{`(?i)(?:linked[_-]?in)=(\w+)`, []string{"linkedin"}, false, false},
		{`(?i)\w*token=(\w+)`, []string{"token"}, false, false},
		{`(?i)\b((?:hvs\.[\w-]{90,120}|s\.(?i:[a-z0-9]{24})))(?:['"\s;]|$)`, []string{"hvs.", "s."}, true, true},
		{`\b(ghp_[0-9a-zA-Z]{36})`, []string{"ghp_"}, true, true},
		{`\b(ghp_[0-9a-zA-Z]{36})`, []string{"ghp_x"}, false, false},
		{`\b(-----BEGIN)`, []string{"-----begin"}, false, false}, // \b before a non-word byte
		{`(?:^|\s)(token\w+)`, []string{"token"}, false, false},
	} {
		if got, word := keywordLed(c.expr, c.kws); got != c.want || word != c.word {
			t.Errorf("keywordLed(%q, %q) = %v, %v, want %v, %v", c.expr, c.kws, got, word, c.want, c.word)
		}
	}
	rs, err := builtin()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rs.rules, func(r *rule) bool { return r.id == "generic-api-key" && r.ready().at != nil }) {
		t.Error("generic-api-key is not anchored at its keywords")
	}
}

// Every rule compiles, though a build makes only those whose keywords it
// meets; and a rule is made once, however many goroutines need it at once.
func TestRulesCompile(t *testing.T) {
	rs, err := compileBuiltin() // a set of its own: builtin's rules are made as other tests need them
	if err != nil {
		t.Fatal(err)
	}
	lazy := 0
	for i, r := range rs.rules {
		switch {
		case r.src == "":
		case slices.Contains(rs.always, i) != (r.re != nil):
			t.Errorf("rule %s: made %v before a text needed it, run on every text %v", r.id, r.re != nil, slices.Contains(rs.always, i))
		default:
			lazy++
		}
	}
	if lazy < 100 {
		t.Errorf("%d gitleaks rules wait for their keywords, want most of %d", lazy, len(rs.rules))
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for _, r := range rs.rules {
				func() {
					defer func() {
						if p := recover(); p != nil {
							t.Errorf("rule %s: %v", r.id, p)
						}
					}()
					r.ready()
				}()
			}
		})
	}
	wg.Wait()
	for _, r := range rs.rules {
		if r.re == nil {
			t.Errorf("rule %s has no expression", r.id)
		}
	}
}

// A long text is searched once: searched again, its findings come from the
// memo and are the same, whatever was appended to them before; a text of
// the same length but one byte, or the same text holding settings, is
// searched on its own.
func TestFindsRemembered(t *testing.T) {
	rs, err := builtin()
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("A line of the instructions every session is given.\n", 4) +
		"DB_PASSWORD=Zq7fW2mNx8Lr\nexport TOKEN=ghp_Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8\n"
	first := rs.find(text, 0, nil)
	if len(first) == 0 {
		t.Fatal("no secret found in the text")
	}
	if _, ok := rs.founds.Get(foundKey{maphash.String(foundSeed, text), len(text), 0}); !ok {
		t.Fatal("the findings of a long text are not in the memo")
	}
	before := []found{{0, 1, "earlier", specific}}
	if again := rs.find(text, 0, slices.Clip(before)); !slices.Equal(again[1:], first) || again[0] != before[0] {
		t.Errorf("from the memo: %v, want %v after %v", again, first, before)
	}
	settingsToo := rs.find(text, settings, nil)
	if len(settingsToo) <= len(first) {
		t.Errorf("the text as a file of settings gave %v, as much as as prose %v", settingsToo, first)
	}
	// A text with nothing in it is kept among the clean ones, apart.
	plain := strings.Repeat("A line of the instructions every session is given.\n", 4)
	if got := rs.find(plain, 0, nil); len(got) != 0 {
		t.Fatalf("found %v in %q", got, plain)
	}
	pk := foundKey{maphash.String(foundSeed, plain), len(plain), 0}
	if _, ok := rs.clean.Get(pk); !ok {
		t.Error("a text with nothing found is not among the clean ones")
	}
	if _, ok := rs.founds.Get(pk); ok {
		t.Error("a text with nothing found is among those with findings")
	}
	if _, ok := rs.clean.Get(foundKey{maphash.String(foundSeed, text), len(text), 0}); ok {
		t.Error("a text with secrets is among the clean ones")
	}
	other := strings.Replace(text, "ghp_Q1w2", "ghp_Q1w3", 1)
	if got := rs.find(other, 0, nil); len(got) != len(first) || other[got[len(got)-1].lo:got[len(got)-1].hi] == text[first[len(first)-1].lo:first[len(first)-1].hi] {
		t.Errorf("a text one byte apart gave %v", got)
	}
}

// BenchmarkCompileRules is what the first session a cold build redacts
// waits for.
func BenchmarkCompileRules(b *testing.B) {
	for b.Loop() {
		if _, err := compileBuiltin(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestKeywordsInFindsEveryKeyword: keywordsIn reports every keyword where
// it is, overlapping ones too, as a trie's walk (the Aho-Corasick trie
// gitleaks uses) does: on the corpus's files and on texts strung from
// pieces of keywords, made to overlap.
func TestKeywordsInFindsEveryKeyword(t *testing.T) {
	rs := rules()
	kws := (&ruleSet{rules: rs.rules}).index()
	trie := ahocorasick.NewTrieBuilder().AddStrings(kws).Build()
	want := func(s string) []hit {
		var hits []hit
		trie.Walk(lowerInto(nil, s), func(end, n, kw int64) bool {
			for _, i := range rs.byKw[kw] {
				hits = append(hits, hit{i, int(end - n + 1)})
			}
			return true
		})
		return hits
	}
	texts := corpusTexts(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			k := kws[rng.IntN(len(kws))]
			b.WriteString(k[rng.IntN(len(k)):])
			if rng.IntN(3) == 0 {
				b.WriteString(strings.ToUpper(k))
			}
			b.WriteByte(" _-=\n"[rng.IntN(5)])
		}
		texts = append(texts, b.String())
	}
	byPlace := func(a, b hit) int { return cmp.Or(a.at-b.at, a.rule-b.rule) }
	found := 0
	for _, s := range texts {
		got, exp := rs.keywordsIn(s), want(s)
		slices.SortFunc(got, byPlace)
		slices.SortFunc(exp, byPlace)
		if !slices.Equal(got, exp) {
			t.Fatalf("keywordsIn(%.200q) = %v, want %v", s, got, exp)
		}
		found += len(got)
	}
	if found < 10000 {
		t.Fatalf("%d keywords found in all, too few to say", found)
	}
}

// corpusTexts are the files of the shared corpus, each a text.
func corpusTexts(t *testing.T) []string {
	var texts []string
	filepath.WalkDir("../../shared/corpus", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && len(texts) < 400 {
			if b, err := os.ReadFile(p); err == nil {
				texts = append(texts, string(b))
			}
		}
		return nil
	})
	if len(texts) == 0 {
		t.Skip("no corpus at ../../shared/corpus")
	}
	return texts
}
