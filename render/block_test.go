package render

import (
	"bytes"
	"html/template"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/styles"
)

// TestBlocksAreChromas: blockHTML writes what chroma's HTML formatter
// writes, as the build configured it before (classes, tabs of 4), for the
// tokens of every sample of chroma's lexers, and for tokens that make its
// lines split, held and dropped: empty tokens, runs of newlines, a last
// line of one empty token, types with no class of their own; and the
// rows' table of spans, which blocks share, opens the formatter's class
// for every type it holds.
func TestBlocksAreChromas(t *testing.T) {
	for typ := range opens {
		if want := openTag(formatterClass(chroma.TokenType(typ))); opens[typ] != want {
			t.Errorf("type %d: the rows open %q, chroma's formatter %q", typ, opens[typ], want)
		}
	}
	formatter := chromahtml.New(chromahtml.WithClasses(true), chromahtml.TabWidth(4))
	check := func(name string, toks []chroma.Token) {
		t.Helper()
		var want bytes.Buffer
		if err := formatter.Format(&want, styles.Fallback, chroma.Literator(toks...)); err != nil {
			t.Fatal(err)
		}
		size := 0
		for _, tok := range toks {
			size += len(tok.Value)
		}
		if got := blockHTML(chroma.Literator(toks...), size); got != want.String() {
			i := 0
			for i < min(len(got), len(want.String())) && got[i] == want.String()[i] {
				i++
			}
			t.Errorf("%s: %d bytes, chroma %d; from byte %d: %.80q, chroma %.80q", name, len(got), want.Len(), i, got[i:], want.String()[i:])
		}
	}
	tok := func(typ chroma.TokenType, v string) chroma.Token { return chroma.Token{Type: typ, Value: v} }
	for name, toks := range map[string][]chroma.Token{
		"nothing":             nil,
		"one empty token":     {tok(chroma.Keyword, "")},
		"empty last line":     {tok(chroma.Keyword, "if"), tok(chroma.Text, "\n"), tok(chroma.Punctuation, "")},
		"empty tokens inside": {tok(chroma.Name, ""), tok(chroma.Keyword, "x"), tok(chroma.Operator, ""), tok(chroma.Text, "\n")},
		"newlines in a token": {tok(chroma.LiteralString, "'a\n\n<b>\n&\"c'"), tok(chroma.Text, " \n")},
		"no final newline":    {tok(chroma.Comment, "# a\n"), tok(chroma.NameBuiltin, "len")},
		"types by parent":     {tok(chroma.NameFunctionMagic, "__init__"), tok(chroma.LiteralNumberIntegerLong, "1L"), tok(chroma.Error, "?"), tok(chroma.Other, "o"), tok(chroma.Background, "b")},
		"tabs and escapes":    {tok(chroma.Text, "\t<a href=\"x\">'&'</a>\n\t")},
	} {
		check(name, toks)
	}

	samples, files := chromaSamples(t)
	checked := 0
	for _, sm := range samples {
		toks, ends := lexedUpTo(t, sm.lexer, sm.text)
		if !ends {
			continue
		}
		check(sm.name, toks)
		checked++
	}
	if checked < 100 {
		t.Errorf("only %d of %d samples written", checked, files)
	}
}

// TestCoalesceIsChromas: the lexers' coalescer, which joins tokens cut
// from the text without copying them, gives chroma.Coalesce's tokens, on
// every sample of chroma's lexers, on Markdown with fenced code, and on
// text that a lexer copies (a last newline added, line ends changed).
func TestCoalesceIsChromas(t *testing.T) {
	samples, files := chromaSamples(t)
	check := func(name string, l chroma.Lexer, text string) {
		t.Helper()
		want, ends := lexedUpTo(t, chroma.Coalesce(l), text)
		if !ends {
			return
		}
		got := lexed(t, coalesce(l), text)
		if i := firstDiff(got, want); i < max(len(got), len(want)) {
			t.Errorf("%s: %d tokens, chroma %d; first difference at %d: %v", name, len(got), len(want), i, pair(got, want, i))
		}
	}
	checked := 0
	for _, sm := range samples {
		q := quick(sm.lexer)
		if _, ok := q.(cutter); !ok {
			continue
		}
		checked++
		check(sm.name, q, sm.text)
		check(sm.name+", no last newline, CRLF", q, strings.ReplaceAll(strings.TrimSuffix(sm.text, "\n"), "\n", "\r\n"))
	}
	if checked < 100 {
		t.Errorf("only %d of %d samples lexed", checked, files)
	}
	md := "# Title\n\nSome *prose*   with  spaces.\n\n```go\nfunc main() {\n\tx := 1  // a\n}\n```\n\n```\nplain\n```\nend"
	check("markdown", markdownLexer(), md)
	check("markdown, CRLF", markdownLexer(), strings.ReplaceAll(md, "\n", "\r\n"))
}

// TestEscapeTextIsHTMLEscapeString on every byte, alone and in text.
func TestEscapeTextIsHTMLEscapeString(t *testing.T) {
	for c := range 256 {
		for _, s := range []string{string(rune(c)), string([]byte{byte(c)}), "a" + string([]byte{byte(c)}) + "é"} {
			if got, want := escapeText(s), template.HTMLEscapeString(s); got != want {
				t.Errorf("escapeText(%q) = %q, want %q", s, got, want)
			}
		}
	}
}
