package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// tokens is src lexed as Markdown, adjacent tokens of a type joined.
func tokens(t testing.TB, src string) []chroma.Token {
	t.Helper()
	it, err := lexer("markdown", lexers.Get).Tokenise(nil, src)
	if err != nil {
		t.Fatal(err)
	}
	var out []chroma.Token
	for tok := it(); tok != chroma.EOF; tok = it() {
		if tok.Value != "" {
			out = append(out, tok)
		}
	}
	return out
}

func joined(toks []chroma.Token) string {
	var b strings.Builder
	for _, tok := range toks {
		b.WriteString(tok.Value)
	}
	return b.String()
}

// Markdown's own syntax is told from its text, in chroma's token types,
// and what looks like syntax inside a word or a code span is not.
func TestMarkdownLexer(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      map[string]chroma.TokenType // a token's text → its type
		not       []string                    // texts that are no token of their own
	}{
		{"headings", "# Plan\n\n## Steps\ntext # not a heading\n",
			map[string]chroma.TokenType{"# Plan": chroma.GenericHeading, "## Steps": chroma.GenericSubheading},
			[]string{"# not a heading"}},
		{"lists and quotes", "- [x] done\n* item\n12. twelfth\n> quoted\n",
			map[string]chroma.TokenType{"-": chroma.Keyword, "[x]": chroma.Keyword, "*": chroma.Keyword, "12.": chroma.Keyword, "> ": chroma.Keyword},
			nil},
		{"inline", "Use *this*, **that**, ~~old~~, `go test` and [docs](https://go.dev) in snake_case_names and 2*3*4.\n",
			map[string]chroma.TokenType{"*this*": chroma.GenericEmph, "**that**": chroma.GenericStrong, "~~old~~": chroma.GenericDeleted,
				"`go test`": chroma.LiteralStringBacktick, "docs": chroma.NameTag, "https://go.dev": chroma.NameAttribute},
			[]string{"_case_"}},
		{"no syntax in a code span", "Run `make *all*` first.\n",
			map[string]chroma.TokenType{"`make *all*`": chroma.LiteralStringBacktick}, []string{"*all*"}},
		{"a comment", "<!-- hidden\n**not strong** -->\n",
			map[string]chroma.TokenType{"<!-- hidden\n**not strong** -->": chroma.CommentMultiline}, nil},
		{"fenced code in its language", "Run:\n\n```go\nfunc main() {}\n```\n\n~~~~\n# not a heading\n~~~~\n",
			map[string]chroma.TokenType{"```go\n": chroma.String, "func": chroma.KeywordDeclaration, "main": chroma.NameFunction,
				"~~~~\n": chroma.String, "# not a heading\n": chroma.Text},
			[]string{"# not a heading"}},
		{"an unclosed fence runs to the end", "```python\nprint(1)\n# not a heading\n",
			map[string]chroma.TokenType{"print": chroma.NameBuiltin, "# not a heading": chroma.CommentSingle}, nil},
		{"a longer fence closes a shorter", "````\n```\nin\n`````\nout *x*\n",
			map[string]chroma.TokenType{"````\n": chroma.String, "```\nin\n": chroma.Text, "`````": chroma.String, "*x*": chroma.GenericEmph}, nil},
		{"a fence indented four is no fence", "    ```go\n    x := 1\n",
			map[string]chroma.TokenType{}, []string{"```go\n"}},
		{"front matter in YAML", "---\ntitle: Plan\n---\n# Plan\n",
			map[string]chroma.TokenType{"title": chroma.NameTag, "# Plan": chroma.GenericHeading}, nil},
		{"a rule", "above\n\n***\n", map[string]chroma.TokenType{"***": chroma.Keyword}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			toks := tokens(t, c.src)
			if got := joined(toks); got != c.src {
				t.Fatalf("tokens hold %q, want %q", got, c.src)
			}
			types := map[string]chroma.TokenType{}
			for _, tok := range toks {
				if _, ok := types[tok.Value]; !ok {
					types[tok.Value] = tok.Type
				}
			}
			for text, want := range c.want {
				if got, ok := types[text]; !ok || got != want {
					t.Errorf("%q: %v (a token: %v), want %v; tokens %v", text, got, ok, want, toks)
				}
			}
			for _, text := range c.not {
				if _, ok := types[text]; ok {
					t.Errorf("%q is a token of its own: %v", text, toks)
				}
			}
		})
	}
}

// The lexer stands in for chroma's wherever Markdown is highlighted: a
// fence's language and a file's name.
func TestMarkdownLexerIsUsed(t *testing.T) {
	ours := markdownLexer().Config()
	for _, l := range []chroma.Lexer{lexer("md", lexers.Get), lexer("markdown", lexers.Get), fileLexer("docs/PLAN.md"), fileLexer("README.markdown")} {
		if l == nil || l.Config() != ours {
			t.Errorf("lexer %v is not ours", l)
		}
	}
}

// The repository's own Markdown is lexed whole: the tokens hold it all.
func TestMarkdownLexerKeepsDocs(t *testing.T) {
	files, _ := filepath.Glob("../docs/*.md")
	for _, p := range append(files, "../README.md", "../SECURITY.md") {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := joined(tokens(t, string(data))); got != string(data) {
			t.Errorf("%s: the tokens hold %d bytes of %d", p, len(got), len(data))
		}
	}
}

// Whatever the text, the tokens hold all of it, in order, as chroma reads
// text: line ends made \n, and bytes not UTF-8 U+FFFD.
func FuzzMarkdownLexer(f *testing.F) {
	for _, s := range []string{"", "# ", "```", "```go\n", "---\n---\n", "<!--", "**a", "_a_b_", "[a](b", "- [ ]", "\\*", "~~~\n~~~~",
		"\r\n# x\r\n", "a\rb", "\xff# x", "---\nk: v\n---\n# T\n\n- [x] *a* `b` [c](d)\n\n```sh\nls\n```\n> q\n"} {
		f.Add(s)
	}
	lf := strings.NewReplacer("\r\n", "\n", "\r", "\n")
	f.Fuzz(func(t *testing.T, src string) {
		if got, want := joined(tokens(t, src)), string([]rune(lf.Replace(src))); got != want {
			t.Fatalf("tokens hold %q, want %q", got, want)
		}
	})
}

// Text made to be slow: each line or span opens what never closes. Ours
// takes time in proportion to its size; chroma's own Markdown lexer, run
// beside it, takes the square of it on some.
func BenchmarkMarkdownLexerWorst(b *testing.B) {
	lexers := map[string]chroma.Lexer{"ours": lexer("markdown", lexers.Get), "chroma": chroma.Coalesce(lexers.Get("markdown"))}
	for _, c := range []struct{ name, src string }{
		{"fences", strings.Repeat("```a\n", 2000)},
		{"strong", strings.Repeat("**a ", 5000) + "\n"},
		{"links", strings.Repeat("[a ", 5000) + "\n"},
		{"comments", strings.Repeat("<!-- a\n", 2000)},
		{"emphasis", strings.Repeat("*a ", 5000) + "\n"},
	} {
		for _, name := range []string{"ours", "chroma"} {
			b.Run(c.name+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(len(c.src)))
				for b.Loop() {
					it, err := lexers[name].Tokenise(nil, c.src)
					if err != nil {
						b.Fatal(err)
					}
					for tok := it(); tok != chroma.EOF; tok = it() {
					}
				}
			})
		}
	}
}
