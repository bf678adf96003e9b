package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// chromaRows is what highlightRows must equal: the rows chroma's own
// SplitTokensIntoLines makes of every token, each written as Rows writes
// a token.
func chromaRows(l chroma.Lexer, code string) []string {
	it, err := l.Tokenise(nil, code)
	if err != nil {
		return nil
	}
	var out []string
	for _, toks := range chroma.SplitTokensIntoLines(it.Tokens()) {
		var b strings.Builder
		for _, t := range toks {
			writeToken(&b, t.Type, strings.TrimSuffix(t.Value, "\n"))
		}
		out = append(out, b.String())
	}
	return out
}

func checkRows(t *testing.T, lang, code string) {
	t.Helper()
	l := lexer(lang, lexers.Get)
	got, ok := highlightRows(l, code)
	if !ok {
		t.Fatalf("%s: %q did not lex", lang, code)
	}
	want := chromaRows(l, code)
	if got.rows() != len(want) {
		t.Fatalf("%s: %q: %d rows, want %d", lang, code, got.rows(), len(want))
	}
	for i := range want {
		if got.row(i) != want[i] {
			t.Fatalf("%s: %q: row %d is %q, want %q", lang, code, i, got.row(i), want[i])
		}
	}
}

// Rows written as tokens come are the rows chroma splits its tokens into,
// for the repository's own code and for the edge cases of line ends.
func TestHighlightRowsAreChromas(t *testing.T) {
	for _, c := range []struct{ lang, glob string }{{"go", "*.go"}, {"javascript", "../assets/js/*.js"}, {"bash", "../scripts/*.sh"}, {"scss", "../assets/scss/*.scss"}} {
		files, _ := filepath.Glob(c.glob)
		if len(files) == 0 {
			t.Fatalf("no %s", c.glob)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			checkRows(t, c.lang, string(data))
		}
	}
	for _, code := range []string{"", "\n", "\n\n", "x", "x\n", "x\n\n", "a\r\nb\r\n", "s := `a\n\nb`\n", "/* a\n*/", "x := 1 // <&>\"'\n\ty\x00\n"} {
		for _, lang := range []string{"go", "python", "bash", "json", "markdown"} {
			checkRows(t, lang, code)
		}
	}
}

func FuzzHighlightRows(f *testing.F) {
	for _, s := range []string{"", "\n", "x\n\n", "s := `a\n\nb`", "def f():\n    '''doc\n\n'''\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		for _, lang := range []string{"go", "python"} {
			checkRows(t, lang, code)
		}
	})
}
