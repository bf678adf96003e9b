// Package searchdoc makes the documents of the search index of a session
// from its typed model: messages, tool calls' Args and results, never a
// tool's raw input.
package searchdoc

import (
	"slices"
	"strings"

	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/site/search"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// toolKinds are the tool kinds in the order of the index's kind bits.
var toolKinds = []transcript.ToolKind{
	transcript.ShellTool, transcript.ReadTool, transcript.WriteTool, transcript.EditTool, transcript.SearchTool,
	transcript.WebTool, transcript.TaskTool, transcript.MCPTool, transcript.OtherTool,
}

// Prepare prepares a session for the index: a document of its title and
// models (number 0: a result that links to the page's top), then one per
// message, with the text the config includes (include, search.include's
// parts), in parts of about partText bytes: what preparing holds is a few
// times the text it tokenizes, and a session can hold gigabytes.
func Prepare(info search.Session, body *transcript.Session, include map[string]bool, partText int) []*search.Prepared {
	about := strings.Join(append([]string{info.Title}, info.Models...), "\n")
	docs := []search.Doc{{Role: search.RoleSystem, Text: about, Excerpt: about}}
	var parts []*search.Prepared
	size, n := len(about), 0
	flush := func() {
		parts = append(parts, search.PreparePart(info, docs, len(parts) > 0))
		docs, size = nil, 0
	}
	for _, t := range body.Turns {
		for _, m := range t.Messages {
			n++
			if d, ok := Doc(m, include); ok {
				d.N = n
				docs = append(docs, d)
				if size += len(d.Text); size >= partText {
					flush()
				}
			}
		}
	}
	if len(docs) > 0 || len(parts) == 0 {
		flush()
	}
	return parts
}

// docRole is the index's role of a message's.
func docRole(r transcript.Role) int {
	switch r {
	case transcript.Assistant:
		return search.RoleAssistant
	case transcript.System:
		return search.RoleSystem
	case transcript.Tool:
		return search.RoleTool
	default: // a user, or a role the index does not know
		return search.RoleUser
	}
}

// Doc is a message as the index reads it: its text, by the parts
// of search.include, and what a result may show of it.
func Doc(m *transcript.Message, include map[string]bool) (search.Doc, bool) {
	d := docText{include: include, prose: include["assistant"]}
	if m.Role == transcript.User {
		d.prose = include["prompts"] && !m.Meta
	}
	for _, p := range m.Parts {
		if add := partAdders[p.Kind]; add != nil {
			add(&d, p)
		}
	}
	text := d.text.String()
	return search.Doc{Role: docRole(m.Role), Kinds: d.kinds, Text: text, Excerpt: d.excerpt()}, text != ""
}

// partAdders add a part to a message's document, by the part's kind.
var partAdders = map[transcript.PartKind]func(*docText, *transcript.Part){
	transcript.TextPart:     func(d *docText, p *transcript.Part) { d.add(d.prose, p.Text, true) },
	transcript.CodePart:     func(d *docText, p *transcript.Part) { d.add(d.prose, p.Text, false) },
	transcript.ThinkingPart: func(d *docText, p *transcript.Part) { d.add(d.include["thinking"], p.Text, true) },
	transcript.EventPart:    func(d *docText, p *transcript.Part) { d.add(true, p.Text, false) },
	transcript.CallPart:     (*docText).callPart,
	transcript.ResultPart:   (*docText).resultPart,
}

// callPart adds a tool call, and its kind to the message's kinds.
func (d *docText) callPart(p *transcript.Part) {
	d.kinds |= 1 << slices.Index(toolKinds, p.Call.Kind)
	d.call(p.Call)
}

// resultPart adds a result that is not shown with its call.
func (d *docText) resultPart(p *transcript.Part) {
	if !p.Result.Paired {
		d.add(d.include["output"], render.StripANSI(p.Result.Output), false)
	}
}

// plainText is Markdown as a reader sees it, for a search result: it
// takes out fences, heading and quote markers, list bullets, emphasis and
// code marks, and the brackets of links and images (their text stays,
// their address goes). Each step is a scan of the text that does what a
// regular expression did (kept in the tests, which check the two agree):
// the expressions cost the most of preparing a session for the index.
func plainText(md string) string {
	md = dropFences(md)
	md = dropLineMarks(md)
	md = dropLinks(md)
	md = dropMarks(md)
	return dropEmphasis(md)
}

// isSpace is what \s matches in Go's regular expressions.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// lineStart says whether a line starts at i.
func lineStart(s string, i int) bool { return i == 0 || s[i-1] == '\n' }

// dropFences takes out each fence line: `(?m)^\s*(```|~~~).*$`, the
// white space before it included, blank lines too.
func dropFences(s string) string {
	if !strings.Contains(s, "```") && !strings.Contains(s, "~~~") {
		return s
	}
	c := cut{s: s}
	for i := 0; i <= len(s); i++ {
		if !lineStart(s, i) || i < c.from {
			continue
		}
		q := i
		for q < len(s) && isSpace(s[q]) {
			q++
		}
		if !strings.HasPrefix(s[q:], "```") && !strings.HasPrefix(s[q:], "~~~") {
			continue
		}
		end := len(s)
		if k := strings.IndexByte(s[q:], '\n'); k >= 0 {
			end = q + k
		}
		c.drop(i, end, "")
		i = end
	}
	return c.String()
}

// dropLineMarks takes out what starts a heading, a quote, a list item (a
// task's box too) or a numbered item: `(?m)^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+(\[[ xX]\]\s+)?|\d+[.)]\s+)`.
func dropLineMarks(s string) string {
	c := cut{s: s}
	for i := 0; i < len(s); i++ {
		if i < c.from || !lineStart(s, i) {
			continue
		}
		k := 0
		for k < 3 && i+k < len(s) && isSpace(s[i+k]) {
			k++
		}
		end := -1
		for ; k >= 0 && end < 0; k-- {
			end = lineMark(s, i+k)
		}
		if end < 0 {
			continue
		}
		c.drop(i, end, "")
		i = end - 1 // a line may start where the mark ended
	}
	return c.String()
}

// lineMark returns where a mark that starts at p ends, or -1.
func lineMark(s string, p int) int {
	if p >= len(s) {
		return -1
	}
	switch c := s[p]; {
	case c == '#':
		return headingMark(s, p)
	case c == '>':
		if p+1 < len(s) && isSpace(s[p+1]) {
			return p + 2
		}
		return p + 1
	case c == '-' || c == '*' || c == '+':
		return bulletMark(s, p)
	case isDigit(c):
		return numberMark(s, p)
	}
	return -1
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// headingMark returns where the hashes of a heading at p, and the spaces
// after them, end, or -1.
func headingMark(s string, p int) int {
	h := 0
	for p+h < len(s) && s[p+h] == '#' {
		h++
	}
	if h > 6 {
		return -1
	}
	return spacesAt(s, p+h)
}

// numberMark returns where the number of a numbered item at p, and the
// spaces after it, end, or -1.
func numberMark(s string, p int) int {
	q := p
	for q < len(s) && isDigit(s[q]) {
		q++
	}
	if q < len(s) && (s[q] == '.' || s[q] == ')') {
		return spacesAt(s, q+1)
	}
	return -1
}

// spacesAt returns where the run of spaces (\s+) at q ends, or -1.
func spacesAt(s string, q int) int {
	if q >= len(s) || !isSpace(s[q]) {
		return -1
	}
	for q < len(s) && isSpace(s[q]) {
		q++
	}
	return q
}

// bulletMark returns where a list bullet at p, and a task's box after it,
// ends, or -1.
func bulletMark(s string, p int) int {
	q := spacesAt(s, p+1)
	if q < 0 {
		return -1
	}
	if q+3 < len(s) && s[q] == '[' && (s[q+1] == ' ' || s[q+1] == 'x' || s[q+1] == 'X') && s[q+2] == ']' {
		if e := spacesAt(s, q+3); e >= 0 {
			return e
		}
	}
	return q
}

// dropLinks keeps the text of links and images: `!?\[([^\]\n]*)\]\([^)\n]*\)` → `$1`.
func dropLinks(s string) string {
	if !strings.Contains(s, "](") {
		return s
	}
	c := cut{s: s}
	for i := 0; i < len(s); i++ {
		j := i
		if s[i] == '!' && i+1 < len(s) && s[i+1] == '[' {
			j = i + 1
		} else if s[i] != '[' {
			continue
		}
		text, end := link(s, j)
		if end < 0 {
			continue
		}
		c.drop(i, end, text)
		i = end - 1
	}
	return c.String()
}

// link reads a link whose '[' is at j: its text and where it ends, or -1.
func link(s string, j int) (string, int) {
	k := j + 1
	for k < len(s) && s[k] != ']' && s[k] != '\n' {
		k++
	}
	if k+1 >= len(s) || s[k] != ']' || s[k+1] != '(' {
		return "", -1
	}
	e := k + 2
	for e < len(s) && s[e] != ')' && s[e] != '\n' {
		e++
	}
	if e >= len(s) || s[e] != ')' {
		return "", -1
	}
	return s[j+1 : k], e + 1
}

// dropMarks takes out strong emphasis, code marks and strike-through:
// "\\*\\*|__|`+|~~".
func dropMarks(s string) string {
	if !strings.ContainsAny(s, "*_`~") {
		return s
	}
	c := cut{s: s}
	for i := 0; i < len(s); {
		n := 0
		switch {
		case strings.HasPrefix(s[i:], "**"), strings.HasPrefix(s[i:], "__"), strings.HasPrefix(s[i:], "~~"):
			n = 2
		case s[i] == '`':
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
		default:
			i++
			continue
		}
		c.drop(i, i+n, "")
		i += n
	}
	return c.String()
}

// dropEmphasis takes out an emphasis mark at the start or end of a word:
// `(^|\s)[*_]|[*_]($|\s|[.,;:!?])` → `$1$2`.
func dropEmphasis(s string) string {
	if !strings.ContainsAny(s, "*_") {
		return s
	}
	mark := func(i int) bool { return i < len(s) && (s[i] == '*' || s[i] == '_') }
	c := cut{s: s}
	for i := 0; i < len(s); i++ {
		switch {
		case i == 0 && mark(0): // (^)[*_]
			c.drop(0, 1, "")
		case isSpace(s[i]) && mark(i+1): // (\s)[*_]
			c.drop(i+1, i+2, "")
			i++
		case mark(i) && (i+1 == len(s) || isSpace(s[i+1]) || strings.IndexByte(".,;:!?", s[i+1]) >= 0): // [*_]($|\s|[.,;:!?])
			c.drop(i, i+1, "")
			i++ // the character after it stays, and is not read again as a match's start
		}
	}
	return c.String()
}

// cut is s made anew with spans taken out; it copies s only from the
// first span on.
type cut struct {
	s    string
	b    []byte
	from int  // of s, not yet copied
	done bool // whether a span was taken out
}

// drop takes out s[i:j], and puts keep in its place.
func (c *cut) drop(i, j int, keep string) {
	if c.b == nil {
		c.b = make([]byte, 0, len(c.s))
	}
	c.b = append(append(c.b, c.s[c.from:i]...), keep...)
	c.from, c.done = j, true
}

// String is the text made.
func (c *cut) String() string {
	if !c.done {
		return c.s
	}
	return string(append(c.b, c.s[c.from:]...))
}

// KindNames are the names of the tool kinds, in the order of the index's
// kind bits.
func KindNames() []string {
	names := make([]string, len(toolKinds))
	for i, k := range toolKinds {
		names[i] = string(k)
	}
	return names
}
