package render

import (
	stdhtml "html"
	"html/template"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
	toks, _ := lexedUpTo(t, l, text)
	return toks
}

// lexedUpTo is the tokens of text, and false when there are more than
// enough for it: some of chroma's lexers never end on some text (jsonata
// after a non-ASCII character emits empty tokens for ever).
func lexedUpTo(t *testing.T, l chroma.Lexer, text string) ([]chroma.Token, bool) {
	it, err := l.Tokenise(nil, text)
	if err != nil {
		t.Fatal(err)
	}
	var out []chroma.Token
	for tok := it(); tok != chroma.EOF; tok = it() {
		if len(out) > 4*len(text)+64 {
			return out, false
		}
		out = append(out, tok)
	}
	return out, true
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
	samples, files := chromaSamples(t)
	checked := 0
	for _, sm := range samples {
		l := sm.lexer
		if _, ok := quick(l).(*quickLexer); !ok {
			continue
		}
		checked++
		for _, text := range []string{sm.text, sm.text[len(sm.text)/3:], "é « " + sm.text + " » ü\n"} {
			want, ends := lexedUpTo(t, l, text)
			got := lexed(t, quick(l), text)
			if !ends {
				checkEnds(t, sm.name, text, got, want)
				continue
			}
			if !slices.Equal(got, want) {
				i := firstDiff(got, want)
				t.Errorf("%s (%s): %d tokens, chroma %d; first difference at %d: %v", sm.name, l.Config().Name, len(got), len(want), i, pair(got, want, i))
				break
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d of %d samples lexed", checked, files)
	}
	t.Logf("%d samples", checked)
}

// chromaSample is a sample text in chroma's module and the lexer it is of.
type chromaSample struct {
	name  string // its file's
	lexer chroma.Lexer
	text  string
}

// chromaSamples are the samples of chroma's lexers in its module
// (lexers/testdata) whose lexer it has, and how many files there are; the
// test is skipped when the module is not at hand.
func chromaSamples(t *testing.T) ([]chromaSample, int) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/alecthomas/chroma/v2").Output()
	if err != nil {
		t.Skipf("chroma's module is not at hand: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(out)), "lexers", "testdata", "*.actual"))
	var samples []chromaSample
	for _, f := range files {
		l := lexers.Get(strings.TrimSuffix(filepath.Base(f), ".actual"))
		b, err := os.ReadFile(f)
		if l == nil || err != nil {
			continue
		}
		samples = append(samples, chromaSample{filepath.Base(f), l, string(b)})
	}
	return samples, len(files)
}

// checkEnds: where chroma's lexer never ends, the quick lexer makes its
// tokens up to where it is stuck, and then the rest of the text as an
// error, all of it.
func checkEnds(t *testing.T, name, text string, got, want []chroma.Token) {
	t.Helper()
	n := len(got) - 1
	if n < 0 || n >= len(want) || got[n].Type != chroma.Error || !slices.Equal(got[:n], want[:n]) {
		t.Errorf("%s: chroma never ends; quick made %d tokens, first difference at %d", name, len(got), firstDiff(got, want))
		return
	}
	var b strings.Builder
	for _, tok := range got {
		b.WriteString(tok.Value)
	}
	if strings.TrimSuffix(b.String(), "\n") != strings.TrimSuffix(text, "\n") {
		t.Errorf("%s: the tokens hold %d bytes of %d", name, b.Len(), len(text))
	}
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

// A file whose lexer never ends on its text (chroma's JSONata, on a
// character past ASCII) is still shown, all of it: before, the build
// hung on it.
func TestRowsEndWhereChromaNeverDoes(t *testing.T) {
	rows := []Row{{Op: ' ', Text: `é {"a": $sum(b)}`, N: 1}, {Op: ' ', Text: `"ü" & c`, N: 2}}
	done := make(chan template.HTML, 1)
	go func() { done <- Rows(rows, "query.jsonata") }()
	select {
	case h := <-done:
		page := stdhtml.UnescapeString(htmlText(string(h)))
		for _, r := range rows {
			if !strings.Contains(page, r.Text) {
				t.Errorf("row %q is not shown in %s", r.Text, h)
			}
		}
	case <-time.After(time.Minute): // it ends in a millisecond, or never
		t.Fatal("highlighting a JSONata file never ends")
	}
}

// htmlText is page without its tags.
func htmlText(page string) string {
	return regexp.MustCompile(`<[^>]*>`).ReplaceAllString(page, "")
}
