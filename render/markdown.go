// Package render turns transcript text into safe HTML: markdown through
// goldmark, code through chroma, and the helpers templates use.
package render

import (
	"bufio"
	"bytes"
	"html/template"
	"net/url"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// md is safe for concurrent use: goldmark keeps no state between conversions.
var md = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(headingShift{}, 100))),
	goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(untrusted{}, 100))),
)

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// bufWriters are what goldmark writes through: handed a writer that is
// not buffered, it makes a 4 KB bufio.Writer for every text it renders.
var bufWriters = sync.Pool{New: func() any { return bufio.NewWriter(nil) }}

// Markdown renders untrusted markdown: raw HTML is shown as text, links are
// limited to http(s), mailto and relative URLs, images become links (a
// transcript must not make the reader's browser fetch anything), and code
// blocks are highlighted.
func Markdown(src string) template.HTML {
	h, _ := markdowns.do("markdown", "", src, func() (html, bool) {
		src := controlChars.Replace(StripANSI(src))
		buf := bufPool.Get().(*bytes.Buffer)
		bw := bufWriters.Get().(*bufio.Writer)
		bw.Reset(buf)
		defer func() { bw.Reset(nil); bufWriters.Put(bw); buf.Reset(); bufPool.Put(buf) }()
		if err := md.Convert([]byte(src), bw); err != nil || bw.Flush() != nil {
			return html{s: "<pre>" + template.HTMLEscapeString(src) + "</pre>"}, true
		}
		return html{s: buf.String()}, true
	})
	return template.HTML(h.s)
}

// controlChars drops C0 control characters, which have no place in HTML,
// keeping tab and line endings.
var controlChars = func() *strings.Replacer {
	var pairs []string
	for c := rune(0); c < 0x20; c++ {
		if c != '\t' && c != '\n' && c != '\r' {
			pairs = append(pairs, string(c), "")
		}
	}
	return strings.NewReplacer(append(pairs, "\x7f", "")...)
}()

// headingShift places a text's headings below the page's own: the levels
// the text uses become h3, h4 and on, in order, so a "# Title" does not
// outrank the page's headings and a "###" is not read as three levels below
// the message.
type headingShift struct{}

func (headingShift) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	var hs []*ast.Heading
	var used [7]bool
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			hs = append(hs, h)
			used[h.Level] = true
		}
		return ast.WalkContinue, nil
	})
	var level [7]int
	next := 3
	for l := 1; l <= 6; l++ {
		if used[l] {
			level[l] = min(next, 6)
			next++
		}
	}
	for _, h := range hs {
		h.Level = level[h.Level]
	}
}

// untrusted replaces goldmark's renderers for the nodes where transcript
// content could inject markup or reach outside the site.
type untrusted struct{}

func (untrusted) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, renderRawHTML)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
	reg.Register(ast.KindLink, renderLink)
	reg.Register(ast.KindAutoLink, renderAutoLink)
	reg.Register(ast.KindImage, renderImage)
	reg.Register(ast.KindFencedCodeBlock, renderCodeBlock)
	reg.Register(ast.KindCodeBlock, renderCodeBlock)
}

func renderRawHTML(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		segs := node.(*ast.RawHTML).Segments
		for i := range segs.Len() {
			seg := segs.At(i)
			template.HTMLEscape(w, seg.Value(src))
		}
	}
	return ast.WalkSkipChildren, nil
}

func renderHTMLBlock(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.HTMLBlock)
	_, _ = w.WriteString(`<pre class="raw-html">`)
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		template.HTMLEscape(w, seg.Value(src))
	}
	if n.HasClosure() {
		template.HTMLEscape(w, n.ClosureLine.Value(src))
	}
	_, _ = w.WriteString("</pre>\n")
	return ast.WalkSkipChildren, nil
}

// SafeURL reports whether a URL from a transcript may be linked to, and
// whether it leaves the site. Only http(s), mailto and links within the page
// qualify: a relative path in a transcript names a file in the agent's
// working directory, which the site does not have.
func SafeURL(u string) (ok, external bool) {
	u = strings.TrimSpace(u)
	if strings.HasPrefix(u, "#") {
		return true, false
	}
	p, err := url.Parse(u)
	if err != nil {
		return false, false
	}
	switch strings.ToLower(p.Scheme) {
	case "http", "https", "mailto":
		return p.Host != "" || p.Scheme == "mailto", true
	}
	return false, false
}

// openLink writes <a href=…> for a safe URL and reports whether it did.
func openLink(w util.BufWriter, dest []byte, title []byte) bool {
	ok, external := SafeURL(string(dest))
	if !ok {
		return false
	}
	_, _ = w.WriteString(`<a href="`)
	_, _ = w.Write(util.EscapeHTML(util.URLEscape(dest, true)))
	_ = w.WriteByte('"')
	if len(title) > 0 {
		_, _ = w.WriteString(` title="`)
		template.HTMLEscape(w, title)
		_ = w.WriteByte('"')
	}
	if external {
		_, _ = w.WriteString(` rel="noopener nofollow"`)
	}
	_ = w.WriteByte('>')
	return true
}

func renderLink(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Link)
	if entering {
		// Remember whether the tag was opened so the closing call matches.
		n.SetAttributeString("linked", openLink(w, n.Destination, n.Title))
	} else if v, _ := n.AttributeString("linked"); v == true {
		_, _ = w.WriteString("</a>")
	}
	return ast.WalkContinue, nil
}

func renderAutoLink(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.AutoLink)
	dest := n.URL(src)
	if n.AutoLinkType == ast.AutoLinkEmail && !bytes.HasPrefix(bytes.ToLower(dest), []byte("mailto:")) {
		dest = append([]byte("mailto:"), dest...)
	}
	linked := openLink(w, dest, nil)
	template.HTMLEscape(w, n.Label(src))
	if linked {
		_, _ = w.WriteString("</a>")
	}
	return ast.WalkContinue, nil
}

func renderImage(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.Image)
	linked := openLink(w, n.Destination, n.Title)
	_, _ = w.WriteString(`<span class="md-image">image: `)
	var alt bytes.Buffer
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			alt.Write(t.Segment.Value(src))
		}
	}
	if alt.Len() == 0 {
		alt.Write(n.Destination)
	}
	template.HTMLEscape(w, alt.Bytes())
	_, _ = w.WriteString("</span>")
	if linked {
		_, _ = w.WriteString("</a>")
	}
	return ast.WalkSkipChildren, nil
}

func renderCodeBlock(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	var lang string
	if n, ok := node.(*ast.FencedCodeBlock); ok && n.Info != nil {
		info := strings.Fields(string(n.Info.Segment.Value(src)))
		if len(info) > 0 {
			lang = info[0]
		}
	}
	var code strings.Builder
	lines := node.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		code.Write(seg.Value(src))
	}
	_, _ = w.WriteString(string(Highlight(code.String(), lang)))
	return ast.WalkSkipChildren, nil
}
