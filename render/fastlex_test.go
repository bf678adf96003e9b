package render

import (
	"os"
	"path/filepath"
	"slices"
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
	for tok := it(); tok != chroma.EOF; tok = it() {
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
