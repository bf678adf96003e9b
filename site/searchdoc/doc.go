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

// spaces are what \s matches in Go's regular expressions.
var spaces = [256]bool{' ': true, '\t': true, '\n': true, '\f': true, '\r': true}

// isSpace is what \s matches in Go's regular expressions.
func isSpace(c byte) bool { return spaces[c] }

// at says whether s has c at i.
func at(s string, i int, c byte) bool { return i < len(s) && s[i] == c }

// skip returns where the run of bytes that are in, from i on, ends.
func skip(s string, i int, in func(byte) bool) int {
	for i < len(s) && in(s[i]) {
		i++
	}
	return i
}

// skipTo returns where, from i on, the line's first stop is, or the
// line's or the text's end.
func skipTo(s string, i int, stop byte) int {
	return skip(s, i, func(c byte) bool { return c != stop && c != '\n' })
}

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
		if end := fenceLine(s, i); end >= 0 && i >= c.from {
			c.drop(i, end, "")
			i = end
		}
	}
	return c.String()
}

// fenceLine returns where a fence line that starts at i ends (the white
// space before it included), or -1.
func fenceLine(s string, i int) int {
	if !lineStart(s, i) {
		return -1
	}
	q := skip(s, i, isSpace)
	if !strings.HasPrefix(s[q:], "```") && !strings.HasPrefix(s[q:], "~~~") {
		return -1
	}
	return skip(s, q, func(c byte) bool { return c != '\n' })
}

// dropLineMarks takes out what starts a heading, a quote, a list item (a
// task's box too) or a numbered item: `(?m)^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+(\[[ xX]\]\s+)?|\d+[.)]\s+)`.
func dropLineMarks(s string) string {
	c := cut{s: s}
	for i := 0; i < len(s); i++ {
		if end := indentedMark(s, i); end >= 0 && i >= c.from {
			c.drop(i, end, "")
			i = end - 1 // a line may start where the mark ended
		}
	}
	return c.String()
}

// indentedMark returns where a line's mark, up to three spaces in, ends,
// if a line starts at i, or -1. Fewer spaces are tried when a mark does
// not follow them: \s{0,3} backtracks.
func indentedMark(s string, i int) int {
	if !lineStart(s, i) {
		return -1
	}
	end := -1
	for k := skip(s[:min(i+3, len(s))], i, isSpace) - i; k >= 0 && end < 0; k-- {
		end = lineMark(s, i+k)
	}
	return end
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
		return quoteMark(s, p)
	case c == '-' || c == '*' || c == '+':
		return bulletMark(s, p)
	case isDigit(c):
		return numberMark(s, p)
	}
	return -1
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHash(c byte) bool { return c == '#' }

// quoteMark returns where a quote's '>' at p, and a space after it, end.
func quoteMark(s string, p int) int {
	if p+1 < len(s) && isSpace(s[p+1]) {
		return p + 2
	}
	return p + 1
}

// headingMark returns where the hashes of a heading at p, and the spaces
// after them, end, or -1.
func headingMark(s string, p int) int {
	q := skip(s, p, isHash)
	if q-p > 6 {
		return -1
	}
	return spacesAt(s, q)
}

// numberMark returns where the number of a numbered item at p, and the
// spaces after it, end, or -1.
func numberMark(s string, p int) int {
	q := skip(s, p, isDigit)
	if at(s, q, '.') || at(s, q, ')') {
		return spacesAt(s, q+1)
	}
	return -1
}

// spacesAt returns where the run of spaces (\s+) at q ends, or -1.
func spacesAt(s string, q int) int {
	if e := skip(s, q, isSpace); e > q {
		return e
	}
	return -1
}

// bulletMark returns where a list bullet at p, and a task's box after it,
// ends, or -1.
func bulletMark(s string, p int) int {
	q := spacesAt(s, p+1)
	if q < 0 {
		return -1
	}
	if e := spacesAt(s, q+3); e >= 0 && taskBox(s[q:e]) {
		return e
	}
	return q
}

// taskBox says whether s starts with a task's box: "[ ]", "[x]" or "[X]".
func taskBox(s string) bool {
	return len(s) > 3 && s[0] == '[' && strings.IndexByte(" xX", s[1]) >= 0 && s[2] == ']'
}

// dropLinks keeps the text of links and images: `!?\[([^\]\n]*)\]\([^)\n]*\)` → `$1`.
func dropLinks(s string) string {
	if !strings.Contains(s, "](") {
		return s
	}
	c := cut{s: s}
	for i := 0; i < len(s); i++ {
		if text, end := link(s, i); end >= 0 {
			c.drop(i, end, text)
			i = end - 1
		}
	}
	return c.String()
}

// link reads a link, or an image, that starts at i: its text and where it
// ends, or -1.
func link(s string, i int) (string, int) {
	j := i
	if at(s, i, '!') {
		j++
	}
	if !at(s, j, '[') {
		return "", -1
	}
	k := skipTo(s, j+1, ']')
	if !at(s, k, ']') || !at(s, k+1, '(') {
		return "", -1
	}
	e := skipTo(s, k+2, ')')
	if !at(s, e, ')') {
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
		n := markLen(s[i:])
		if n == 0 {
			i++
			continue
		}
		c.drop(i, i+n, "")
		i += n
	}
	return c.String()
}

// markLen is the length of the mark s starts with: "**", "__", "~~" or a
// run of '`'; 0 if it starts with none.
func markLen(s string) int {
	switch {
	case strings.HasPrefix(s, "**"), strings.HasPrefix(s, "__"), strings.HasPrefix(s, "~~"):
		return 2
	case at(s, 0, '`'):
		return skip(s, 0, isBacktick)
	}
	return 0
}

func isBacktick(c byte) bool { return c == '`' }

// dropEmphasis takes out an emphasis mark at the start or end of a word:
// `(^|\s)[*_]|[*_]($|\s|[.,;:!?])` → `$1$2`.
func dropEmphasis(s string) string {
	if !strings.ContainsAny(s, "*_") {
		return s
	}
	c, i := cut{s: s}, 0
	if emphasisMark(s, 0) { // (^)[*_]
		c.drop(0, 1, "")
		i = 1
	}
	for ; i < len(s); i++ {
		switch {
		case isSpace(s[i]) && emphasisMark(s, i+1): // (\s)[*_]
			c.drop(i+1, i+2, "")
			i++
		case emphasisMark(s, i) && wordEnd(s, i+1): // [*_]($|\s|[.,;:!?])
			c.drop(i, i+1, "")
			i++ // the character after it stays, and is not read again as a match's start
		}
	}
	return c.String()
}

// emphasisMark says whether s has '*' or '_' at i.
func emphasisMark(s string, i int) bool { return at(s, i, '*') || at(s, i, '_') }

// wordEnd says whether a word ends at i: the text ends, or a space or a
// stop follows.
func wordEnd(s string, i int) bool {
	return i == len(s) || isSpace(s[i]) || strings.IndexByte(".,;:!?", s[i]) >= 0
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
