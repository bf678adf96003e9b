package render

import (
	"bytes"
	"fmt"
	stdhtml "html"
	"html/template"
	"strings"
	"sync"
	"unsafe"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"

	"github.com/transcriptsite/transcriptsite/internal/memo"
)

// Code past these limits is shown plain: highlighting is the costliest part
// of a build and adds little to a huge log or file dump.
const (
	maxHighlightLines = 2000
	maxHighlightBytes = 256 << 10
)

// lexersFound maps a language or file name to its lexer, or to nil when
// there is none: a failed chroma lookup scans every lexer, so misses are
// kept too. It is bounded: file names are as many as the files the
// sessions touch, and each name kept is an object the collector marks.
var lexersFound = memo.New[string, chroma.Lexer](8<<10, func(chroma.Lexer) int { return 1 })

// wrapped is each lexer as lexer returns it, by its name, made once for
// all the names that find it.
var wrapped sync.Map // string → chroma.Lexer

func lexer(key string, find func(string) chroma.Lexer) chroma.Lexer {
	if l, ok := lexersFound.Get(key); ok {
		return l
	}
	l := find(key)
	if l != nil {
		n := strings.ToLower(l.Config().Name)
		w, ok := wrapped.Load(n)
		if !ok {
			switch n {
			case "plaintext", "text":
				w = nil
			case "markdown":
				w = coalesce(markdownLexer())
			default:
				w = coalesce(quick(l))
			}
			w, _ = wrapped.LoadOrStore(n, w)
		}
		l, _ = w.(chroma.Lexer) // nil for plain text
	}
	lexersFound.Put(key, l)
	return l
}

// coalesce is chroma.Coalesce(l): l's tokens, but those that are empty,
// and a token of the type of the one before it (up to 8 KB) joined to it.
// Where both are cut from the text l read and the second follows the
// first there, the joined token is that stretch of the text: chroma
// copies both into a new string, 3 % of a build's allocations.
func coalesce(l chroma.Lexer) chroma.Lexer {
	if _, ok := l.(cutter); !ok {
		return chroma.Coalesce(l)
	}
	return &joiner{l}
}

// cutter is a lexer that says which text its tokens are cut from.
type cutter interface {
	tokeniseFrom(*chroma.TokeniseOptions, string) (chroma.Iterator, string, error)
}

// joiner is coalesce's lexer around a cutter.
type joiner struct{ chroma.Lexer }

func (j *joiner) Tokenise(options *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	it, src, err := j.Lexer.(cutter).tokeniseFrom(options, text)
	if err != nil {
		return nil, err
	}
	var prev chroma.Token
	return func() chroma.Token {
		for t := it(); t != chroma.EOF; t = it() {
			switch {
			case t.Value == "":
			case prev == chroma.EOF:
				prev = t
			case prev.Type == t.Type && len(prev.Value) < 8192:
				prev.Value = join(src, prev.Value, t.Value)
			default:
				out := prev
				prev = t
				return out
			}
		}
		out := prev
		prev = chroma.EOF
		return out
	}, nil
}

// join is a+b: the stretch of src they make when both lie in src, b
// right after a, else a copy.
func join(src, a, b string) string {
	lo := uintptr(unsafe.Pointer(unsafe.StringData(src)))
	pa, pb := uintptr(unsafe.Pointer(unsafe.StringData(a))), uintptr(unsafe.Pointer(unsafe.StringData(b)))
	if pa >= lo && pa+uintptr(len(a)) == pb && pb+uintptr(len(b)) <= lo+uintptr(len(src)) {
		return unsafe.String(unsafe.StringData(a), len(a)+len(b))
	}
	return a + b
}

// Highlight renders code in the named language (a fence info string, such as
// "go" or "bash"). The language is never guessed from the content.
func Highlight(code, lang string) template.HTML {
	lang = strings.ToLower(strings.TrimSpace(lang))
	var l chroma.Lexer
	if lang != "" {
		l = lexer(lang, lexers.Get)
	}
	return format(code, lang, l)
}

// HighlightFile renders code in the language of the file name p.
func HighlightFile(code, p string) template.HTML {
	l := fileLexer(p)
	lang := ""
	if l != nil {
		lang = strings.ToLower(l.Config().Name)
	}
	return format(code, lang, l)
}

func format(code, lang string, l chroma.Lexer) template.HTML {
	code = strings.TrimSuffix(code, "\n")
	if l == nil || !highlightable(code, strings.Count(code, "\n")+1) {
		return Plain(code, lang)
	}
	h, ok := highlighted.do("block", l.Config().Name, code, func() (html, bool) {
		s, ok := chromaHTML(l, code)
		return html{s: s}, ok
	})
	if !ok {
		return Plain(code, lang)
	}
	return template.HTML(`<div class="highlight" data-lang="` + template.HTMLEscapeString(lang) + `">` + h.s + "</div>")
}

// chromaHTML is code highlighted as chroma's HTML formatter writes it
// with classes, with no memo.
func chromaHTML(l chroma.Lexer, code string) (string, bool) {
	it, err := l.Tokenise(nil, code)
	if err != nil {
		return "", false
	}
	return blockHTML(it, len(code)), true
}

// blockHTML writes the tokens of it byte for byte as chroma's HTML
// formatter does with classes and no line numbers (TestBlocksAreChromas):
// in a pre, a span a line and a span a token of a class. The formatter
// collects the tokens, splits them into lines and formats each span with
// fmt, seven allocations a token; written as they come, a Go file of
// 8,075 tokens took 168 allocations and 0.8 ms, against 57,915 and 7.1.
func blockHTML(it chroma.Iterator, size int) string {
	var w blockWriter
	w.b.Grow(4*size + 64)
	w.b.WriteString(`<pre class="chroma"><code>`)
	for t := it(); t != chroma.EOF; t = it() {
		v, split := t.Value, false
		for i := strings.IndexByte(v, '\n'); i >= 0; i = strings.IndexByte(v, '\n') {
			w.add(t.Type, v[:i+1])
			w.b.WriteString("</span></span>")
			w.n, v, split = 0, v[i+1:], true
		}
		if split && v == "" {
			continue // the token ended its line
		}
		w.add(t.Type, v)
	}
	// As chroma's SplitTokensIntoLines, a last line of one empty token is
	// not written.
	if w.n > 0 && !w.held {
		w.b.WriteString("</span></span>")
	}
	w.b.WriteString("</code></pre>")
	return w.b.String()
}

// blockWriter is a block being written: n tokens on its last line, the
// first of them held back while it is the only one and empty.
type blockWriter struct {
	b        strings.Builder
	n        int
	held     bool
	heldType chroma.TokenType
}

// add adds a token to the line.
func (w *blockWriter) add(t chroma.TokenType, v string) {
	if w.n == 0 && v == "" {
		w.n, w.held, w.heldType = 1, true, t
		return
	}
	if w.n == 0 || w.held {
		w.b.WriteString(`<span class="line"><span class="cl">`)
	}
	if w.held {
		w.span(w.heldType, "")
		w.held = false
	}
	w.span(t, v)
	w.n++
}

// span writes a token: its text escaped, in a span of its class if it
// has one.
func (w *blockWriter) span(t chroma.TokenType, v string) {
	open := blockOpen(t)
	w.b.WriteString(open)
	w.b.WriteString(stdhtml.EscapeString(v))
	if open != "" {
		w.b.WriteString("</span>")
	}
}

// blockOpen opens a span of chroma's formatter's class for a token of
// type t: the class of the type, or of the nearest parent type that
// chroma names; "" where that is none or "". For the types from 0 that
// is the rows' class (TestBlocksAreChromas), so their table serves.
func blockOpen(t chroma.TokenType) string {
	if t >= 0 && int(t) < len(opens) {
		return opens[t]
	}
	return openTag(formatterClass(t))
}

// formatterClass is the class chroma's HTML formatter gives a token of
// type t.
func formatterClass(t chroma.TokenType) string {
	for t != 0 {
		if cls, ok := chroma.StandardTypes[t]; ok {
			return cls
		}
		t = t.Parent()
	}
	return chroma.StandardTypes[0]
}

// highlightable says whether code is short enough to highlight.
func highlightable(code string, lines int) bool {
	return len(code) <= maxHighlightBytes && lines <= maxHighlightLines
}

// Plain renders code as an escaped block with no highlighting.
func Plain(code, lang string) template.HTML {
	var b strings.Builder
	b.Grow(len(code) + 64)
	b.WriteString(`<div class="highlight"`)
	if lang != "" {
		b.WriteString(` data-lang="`)
		b.WriteString(template.HTMLEscapeString(lang))
		b.WriteString(`"`)
	}
	b.WriteString(`><pre class="chroma"><code>`)
	b.WriteString(template.HTMLEscapeString(strings.TrimSuffix(code, "\n")))
	b.WriteString("</code></pre></div>")
	return template.HTML(b.String())
}

// ChromaCSS returns the stylesheet for highlighted code: the light style,
// and the dark one for pages in the dark theme, whether the reader chose it
// with the toggle or their system prefers it.
func ChromaCSS(light, dark string) (string, error) {
	var lightCSS, darkCSS bytes.Buffer
	for _, c := range []struct {
		name string
		w    *bytes.Buffer
	}{{light, &lightCSS}, {dark, &darkCSS}} {
		st := styles.Registry[c.name]
		if st == nil {
			return "", fmt.Errorf("unknown highlight style %q (see https://xyproto.github.io/splash/docs/)", c.name)
		}
		if err := cssFormatter.WriteCSS(c.w, st); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	b.Write(lightCSS.Bytes())
	b.WriteString(scope(darkCSS.String(), `:root[data-theme="dark"]`))
	b.WriteString("@media (prefers-color-scheme: dark) {\n")
	b.WriteString(scope(darkCSS.String(), `:root:not([data-theme="light"])`))
	b.WriteString("}\n")
	return b.String(), nil
}

// cssFormatter writes stylesheets without comments: one rule per line.
var cssFormatter = chromahtml.New(chromahtml.WithClasses(true))

// scope puts every rule of chroma's stylesheet, one "selector { … }" a
// line, under the ancestor selector. A first rule resets what the light
// style colours and this one does not: it is more specific than the light
// rules and less than this style's own token rules (.k, .s…). It leaves
// alone the rows of a diff (.row), whose added and removed lines the theme
// colours; :where keeps that from adding to its specificity.
func scope(css, ancestor string) string {
	var b strings.Builder
	b.WriteString(ancestor + " .chroma span:where(:not(.row)) { color: inherit; background-color: transparent; font-weight: inherit; font-style: inherit }\n")
	for _, line := range strings.Split(strings.TrimSpace(css), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			b.WriteString(ancestor + " " + line + "\n")
		}
	}
	return b.String()
}
