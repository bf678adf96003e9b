package render

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// The quick lexer makes the same tokens as chroma's, on the repository's
// own files of every kind it holds, and on text that does not lex.
func TestQuickLexerTokensAreChromas(t *testing.T) {
	files, _ := filepath.Glob("../*/*.*")
	more, _ := filepath.Glob("../*/*/*.*")
	files = append(files, more...)
	seen := map[string]int{}
	for _, f := range files {
		l := lexers.Match(filepath.Base(f))
		b, err := os.ReadFile(f)
		if l == nil || err != nil || len(b) > 64<<10 || seen[l.Config().Name] >= 4 {
			continue
		}
		seen[l.Config().Name]++
		for _, text := range []string{string(b), string(b[len(b)/3:]), "\"unterminated\n\r\nx = 'é' ;; }}}\n"} {
			want := lexed(t, l, text)
			got := lexed(t, quick(l), text)
			if !slices.Equal(got, want) {
				t.Errorf("%s (%s): %d tokens, chroma %d; first difference at %d", f, l.Config().Name, len(got), len(want), firstDiff(got, want))
			}
		}
	}
	if len(seen) < 8 {
		t.Errorf("only %d languages: %v", len(seen), seen)
	}
	t.Logf("languages: %v", seen)
}

func lexed(t *testing.T, l chroma.Lexer, text string) []chroma.Token {
	it, err := l.Tokenise(nil, text)
	if err != nil {
		t.Fatal(err)
	}
	var out []chroma.Token
	// Some of chroma's lexers never end on some text (jsonata after
	// non-ASCII emits empty tokens for ever): the first tokens are compared.
	for tok := it(); tok != chroma.EOF && len(out) <= 4*len(text)+64; tok = it() {
		out = append(out, tok)
	}
	return out
}

func firstDiff(a, b []chroma.Token) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// The quick lexer makes chroma's tokens on chroma's own samples of every
// language it has one for (lexers/testdata in its module), whole, from a
// third of the way in (a start inside a string or comment), and with
// non-ASCII text around them.
func TestQuickLexerTokensAreChromasOnItsSamples(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/alecthomas/chroma/v2").Output()
	if err != nil {
		t.Skipf("chroma's module is not at hand: %v", err)
	}
	samples, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(out)), "lexers", "testdata", "*.actual"))
	checked := 0
	for _, f := range samples {
		l := lexers.Get(strings.TrimSuffix(filepath.Base(f), ".actual"))
		b, err := os.ReadFile(f)
		if l == nil || err != nil {
			continue
		}
		if _, ok := quick(l).(*quickLexer); !ok {
			continue
		}
		checked++
		for _, text := range []string{string(b), string(b[len(b)/3:]), "é « " + string(b) + " » ü\n"} {
			want := lexed(t, l, text)
			got := lexed(t, quick(l), text)
			if !slices.Equal(got, want) {
				i := firstDiff(got, want)
				t.Errorf("%s (%s): %d tokens, chroma %d; first difference at %d: %v", filepath.Base(f), l.Config().Name, len(got), len(want), i, pair(got, want, i))
				break
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d of %d samples lexed", checked, len(samples))
	}
	t.Logf("%d samples", checked)
}

// pair is the tokens at i of got and want, where there are any.
func pair(got, want []chroma.Token, i int) [2]chroma.Token {
	var p [2]chroma.Token
	if i < len(got) {
		p[0] = got[i]
	}
	if i < len(want) {
		p[1] = want[i]
	}
	return p
}

// A quick lexer's rules give a match seconds, not chroma's 250 ms of wall
// time, which a loaded machine spends on an ordinary match: a page's
// tokens, which the build cache keeps, must not depend on the load.
func TestQuickLexerMatchesDoNotTimeOutUnderLoad(t *testing.T) {
	for _, name := range []string{"Go", "TypeScript", "Python", "JSON"} {
		q, ok := quick(lexers.Get(name)).(*quickLexer)
		if !ok {
			t.Fatalf("%s: no quick lexer", name)
		}
		for state, rules := range q.rules {
			for i, r := range rules {
				if r.Regexp.MatchTimeout < time.Second {
					t.Fatalf("%s: rule %s.%d times out after %v", name, state, i, r.Regexp.MatchTimeout)
				}
			}
		}
	}
}

// The Markdown lexer's prose runs by the quick loop too, with its rules'
// longer time.
func TestMarkdownProseIsQuick(t *testing.T) {
	m, ok := markdownLexer().(*markdown)
	if !ok {
		t.Fatal("not the Markdown lexer")
	}
	if _, ok := m.prose.(*quickLexer); !ok {
		t.Fatalf("Markdown prose is lexed by %T", m.prose)
	}
}
