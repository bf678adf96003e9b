package ingest_test

// What a reader sees: the conservation and markup tests judge the site a
// build writes with the default config (but redaction, which replaces
// what it must), not the opt-in JSON export. A session's page is read as
// text, as a person reads it (tags gone, the code gutter apart from the
// code), with the files of huge outputs it links to; its session.md as it
// is.

import (
	"bytes"
	"context"
	"encoding/json"
	"index/suffixarray"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/transcriptsite/transcriptsite/site"
	_ "github.com/transcriptsite/transcriptsite/site/outputs" // the site's pages, as the command writes them
)

// shown is the site built from a directory of session files.
type shown struct {
	dest  string
	pages map[string][]string // a session's id → the folders of its pages, one a volume
}

var (
	sites    sync.Map // dir → func() (*shown, error)
	siteDirs []string // removed when the tests end
	dirsMu   sync.Mutex
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range siteDirs {
		_ = os.RemoveAll(d)
	}
	os.Exit(code)
}

// siteOf builds the site of dir once for all tests.
func siteOf(t *testing.T, dir string) *shown {
	t.Helper()
	f, _ := sites.LoadOrStore(dir, sync.OnceValues(func() (*shown, error) { return buildShown(dir) }))
	s, err := f.(func() (*shown, error))()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func buildShown(dir string) (*shown, error) {
	tmp, err := os.MkdirTemp("", "conserve-site-")
	if err != nil {
		return nil, err
	}
	dirsMu.Lock()
	siteDirs = append(siteDirs, tmp)
	dirsMu.Unlock()
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	cfg, _, err := site.LoadConfig(site.Options{Source: tmp, Overrides: map[string]any{
		"title": "Conserve", "contentDir": abs, "destination": filepath.Join(tmp, "public"),
		// Redaction replaces what looks like a secret, on purpose: the
		// test judges what rendering keeps.
		"redact.enabled": false,
	}})
	if err != nil {
		return nil, err
	}
	if _, err := site.Build(context.Background(), cfg); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(cfg.Destination, "sessions.json"))
	if err != nil {
		return nil, err
	}
	var entries []struct{ ID, URL string }
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, err
	}
	s := &shown{dest: cfg.Destination, pages: map[string][]string{}}
	for _, e := range entries {
		s.pages[e.ID] = append(s.pages[e.ID], filepath.Join(cfg.Destination, filepath.FromSlash(e.URL)))
	}
	return s, nil
}

// A hay is text a reader sees, as one run of words, each between
// spaces: what a needle's line must be found in, word for word.
type hay struct {
	index *suffixarray.Index
}

func newHay(texts []string) *hay {
	var b strings.Builder
	b.WriteByte(' ')
	for _, t := range texts {
		for _, l := range lines(t) {
			if w := words(plain(l)); w != "" {
				b.WriteString(w)
				b.WriteByte(' ')
			}
		}
	}
	return &hay{index: suffixarray.New([]byte(b.String()))}
}

// missing returns the first line of text that the hay lacks, or "".
func (h *hay) missing(text string) string {
	for _, l := range lines(text) {
		w := words(plain(bare(l)))
		if w == "" || harnessLine.MatchString(l) || diffHeader.MatchString(l) || len(h.index.Lookup([]byte(" "+w+" "), 1)) > 0 {
			continue
		}
		return l
	}
	return ""
}

// plain is a line as a page shows its text: a link's address is the
// link's, terminal colours are colours, and an entity is its character.
func plain(l string) string {
	return html.UnescapeString(mdLink.ReplaceAllString(ansi.ReplaceAllString(l, ""), "$1"))
}

// bare is a needle's line without the Markdown that lays it out, which a
// page shows as markup: a list's marker, a heading's hashes, a fence. A
// page that shows the line as written still holds what is left.
func bare(l string) string {
	if fence.MatchString(l) {
		return ""
	}
	return mdPrefix.ReplaceAllString(l, "")
}

var (
	ansi     = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)
	fence    = regexp.MustCompile("^\\s*(```|~~~)[\\w+#.-]*\\s*$")
	mdPrefix = regexp.MustCompile(`^\s*((>\s*)+|#{1,6}\s+|([-*+]|\d+[.)])\s+(\[[ xX]\]\s+)?)`)
	mdLink   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)\s]*\)`)
)

// words is s as its words, letters and digits, one space apart: markup
// and punctuation are how a page shows text, not the text.
// Where a Latin word meets Japanese or Chinese text with no space
// between (the end of an inline code span, "`npm`を削除"), the words part:
// a page joins them, a needle cut at the backtick does not.
func words(s string) string {
	var b strings.Builder
	prev := rune(' ')
	for _, r := range s {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r):
			r = ' '
		case prev != ' ' && (prev < utf8.RuneSelf) != (r < utf8.RuneSelf) && !unicode.IsMark(r):
			b.WriteByte(' ')
		}
		if r != ' ' || prev != ' ' {
			b.WriteRune(r)
		}
		prev = r
	}
	return strings.TrimSpace(b.String())
}

// hays returns what a reader sees of sessions: their pages and their
// session.md, each read whole.
func (s *shown) hays(t *testing.T, ids []string) (page, md *hay) {
	var pages, mds []string
	for _, id := range ids {
		if len(s.pages[id]) == 0 {
			t.Errorf("session %s has no page", id)
		}
		for _, dir := range s.pages[id] {
			pages = append(pages, pageText(t, dir)...)
			if data, err := os.ReadFile(filepath.Join(dir, "session.md")); err == nil {
				mds = append(mds, string(data))
			} else {
				t.Errorf("session %s: %v", id, err)
			}
		}
	}
	return newHay(pages), newHay(mds)
}

// pageText is the text of the page in dir, and of the files of huge
// outputs it links to.
func pageText(t *testing.T, dir string) []string {
	data, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	text, links := htmlText(data)
	out := []string{text}
	for _, l := range links {
		if !strings.HasPrefix(l, "out/") || !strings.HasSuffix(l, ".txt") {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path.Clean(l)))); err == nil {
			out = append(out, string(b))
		}
	}
	return out
}

// htmlText is the text of a page as a reader sees it, a line for each
// block, and the links it holds. A code row is a line; its gutter (line
// numbers and diff marks) stands apart from the code.
func htmlText(data []byte) (string, []string) {
	var b strings.Builder
	var links []string
	z := html.NewTokenizer(bytes.NewReader(data))
	skip := 0 // inside script or style
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return b.String(), links
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, attrs := z.TagName()
			tag := string(name)
			if tag == "script" || tag == "style" {
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
				continue
			}
			var class string
			for attrs {
				var k, v []byte
				k, v, attrs = z.TagAttr()
				switch string(k) {
				case "class":
					class = string(v)
				case "href":
					links = append(links, string(v))
				}
			}
			if blockTag[tag] || apart.MatchString(class) {
				b.WriteByte('\n')
			}
		}
	}
}

// blockTag are the elements a browser lays out on lines of their own.
var blockTag = map[string]bool{
	"p": true, "div": true, "li": true, "tr": true, "td": true, "th": true, "br": true, "pre": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "summary": true, "details": true,
	"dt": true, "dd": true, "table": true, "section": true, "article": true, "header": true, "footer": true,
	"nav": true, "ul": true, "ol": true, "dl": true, "blockquote": true, "hr": true, "figure": true,
	"figcaption": true, "main": true, "aside": true, "form": true, "label": true, "button": true,
}

// apart are the classes of spans a page shows on lines of their own (a
// code row) or beside the text (a row's gutter).
var apart = regexp.MustCompile(`(^|\s)(row|ln|mk)(\s|$)`)

// TestNoRawMarkup checks that no page of the corpus site, or of a folder
// in $TRANSCRIPTSITE_CONSERVE, shows the tags agents wrap what they inject
// in, or the HTML a Markdown export wraps its blocks in, as text: a reader
// sees what they hold, in the page's own markup.
func TestNoRawMarkup(t *testing.T) {
	dirs := filepath.SplitList(os.Getenv("TRANSCRIPTSITE_CONSERVE"))
	if _, err := os.Stat(corpusDir); err == nil {
		dirs = append(dirs, corpusDir)
	}
	if len(dirs) == 0 {
		t.Skip("no shared corpus beside the repository and no $TRANSCRIPTSITE_CONSERVE")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) { noRawMarkup(t, siteOf(t, dir).dest) })
	}
}

// rawMarkup are the tags a reader must not see as text: those agents wrap
// what they inject in, anywhere, and the HTML a Markdown export lays its
// blocks out with, on lines of their own (a prompt may quote a tag).
var rawMarkup = regexp.MustCompile(`</?(command-name|command-message|command-args|local-command-[a-z]+|bash-[a-z]+|` +
	`system-reminder|environment_context|user_instructions)\b[^>]*>|(?m)^\s*</?(details|summary|tool-use|think)\b[^>]*>`)

func noRawMarkup(t *testing.T, dest string) {
	found := 0
	_ = filepath.WalkDir(dest, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		doc, err := html.Parse(bytes.NewReader(data))
		if err != nil {
			return err
		}
		for _, text := range markupTexts(doc, false, false) {
			for _, m := range rawMarkup.FindAllStringIndex(text, -1) {
				if found++; found <= 40 {
					rel, _ := filepath.Rel(dest, p)
					t.Errorf("%s shows %q as text: …%s…", rel, text[m[0]:m[1]], cut(text[max(0, m[0]-60):min(len(text), m[1]+60)], 200))
				}
			}
		}
		return nil
	})
	if found > 40 {
		t.Errorf("and %d more", found-40)
	}
}

// markupTexts are the texts of n that must show no agent markup: all of
// them but what shows a file, a command or its output as it is (code may
// hold any tag), unless it is context the agent injected, which is shown
// for what it says.
func markupTexts(n *html.Node, verbatim, injected bool) []string {
	if n.Type == html.TextNode {
		if injected || !verbatim {
			return []string{n.Data}
		}
		return nil
	}
	if n.Type == html.ElementNode {
		class := " " + attr(n, "class") + " "
		switch {
		case n.Data == "script" || n.Data == "style":
			return nil
		case strings.Contains(class, " context ") || strings.Contains(class, " context-group "):
			injected = true
		case n.Data == "pre" || n.Data == "code" || strings.Contains(class, " file-content ") ||
			strings.Contains(class, " file-diff ") || strings.Contains(class, " tool-input "):
			verbatim = true
		}
	}
	var out []string
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		out = append(out, markupTexts(c, verbatim, injected)...)
	}
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
