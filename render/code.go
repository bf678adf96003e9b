package render

import (
	"html/template"
	"path"
	"strconv"
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// Row is one line of a code view: a diff line, or a numbered line of a
// file excerpt.
type Row struct {
	Op   byte   // ' ' context or plain, '+' added, '-' removed, '@' a hunk header, '=' unchanged and folded away
	Text string // the line, without its marker
	N    int    // its line number, 0 when unknown
}

// Rows renders code rows highlighted in the language of the file p (the
// rows are tokenised together, so multi-line strings and comments stay
// right), each as a line with its number and diff marker.
func Rows(rows []Row, p string) template.HTML {
	code, n := joinRows(rows)
	var lines html
	if l := fileLexer(p); l != nil && highlightable(code, len(rows)) {
		lines, _ = highlighted.do("rows", l.Config().Name, code, func() (html, bool) {
			return highlightRows(l, code)
		})
	}
	// Sized once: the markup of a row is about 60 bytes, and its code is
	// its text or its highlighted HTML.
	var b strings.Builder
	b.Grow(n + 64*len(rows) + len(lines.s))
	b.WriteString(`<pre class="chroma rows"><code>`)
	i := 0 // the next row of lines
	for k, r := range rows {
		if r.Op == '=' && (k == 0 || rows[k-1].Op != '=') {
			openFold(&b, rows[k:])
		}
		writeRowHead(&b, r)
		switch {
		case r.Op == '@':
			b.WriteString(escapeText(r.Text))
		case i < lines.rows():
			b.WriteString(lines.row(i))
			i++
		default:
			b.WriteString(escapeText(r.Text))
			i++
		}
		b.WriteString("</span>")
		if r.Op == '=' && (k == len(rows)-1 || rows[k+1].Op != '=') {
			b.WriteString("</span>")
		}
	}
	b.WriteString("</code></pre>")
	return template.HTML(b.String())
}

// joinRows is the code of the rows, a line each but for hunk headers, and
// the length of all their text.
func joinRows(rows []Row) (string, int) {
	var code strings.Builder
	n := 0
	for _, r := range rows {
		n += len(r.Text) + 1
	}
	code.Grow(n)
	for _, r := range rows {
		if r.Op != '@' {
			code.WriteString(r.Text)
			code.WriteByte('\n')
		}
	}
	return code.String(), n
}

// rowClass opens a row of each kind: added, removed, a hunk header, and
// any other.
var rowClass = map[byte]string{
	'+': `<span class="row add"><span class="ln">`,
	'-': `<span class="row del"><span class="ln">`,
	'@': `<span class="row hunk"><span class="ln">`,
}

// writeRowHead writes a row's opening, its number and its diff marker.
func writeRowHead(b *strings.Builder, r Row) {
	head, ok := rowClass[r.Op]
	if !ok {
		head = `<span class="row"><span class="ln">`
	}
	b.WriteString(head)
	if r.N > 0 {
		b.WriteString(strconv.Itoa(r.N))
	}
	b.WriteString(`</span><span class="mk">`)
	if r.Op != ' ' && r.Op != '@' {
		b.WriteByte(r.Op)
	}
	b.WriteString(`</span>`)
}

// openFold starts a run of unchanged rows that the page folds away: a
// row that opens them (a checkbox, so no script is needed, and a label
// inside code is valid where a <details> is not), then the rows, hidden
// by the style until it is checked.
func openFold(b *strings.Builder, rows []Row) {
	n := 0
	for n < len(rows) && rows[n].Op == '=' {
		n++
	}
	what := Plural(n, "unchanged line")
	b.WriteString(`<label class="row gap"><span class="ln"></span><span class="mk"></span><input type="checkbox" aria-label="Show `)
	b.WriteString(what)
	b.WriteString(`"> ⋯ `)
	b.WriteString(what)
	b.WriteString(`</label><span class="fold">`)
}

// highlightRows highlights code a row at a time, as chroma's
// SplitTokensIntoLines splits it, but writes each token as the lexer makes
// it: holding a file's every token, and again split into rows, was most of
// what highlighting kept in memory.
func highlightRows(l chroma.Lexer, code string) (html, bool) {
	it, err := l.Tokenise(nil, code)
	if err != nil {
		return html{}, false
	}
	var out html
	var b strings.Builder
	// Spans make the HTML about 3.2 times the code (the corpus's files):
	// sized at 4 times, most need no growth where doubling from nothing
	// grew and copied it a dozen times.
	b.Grow(4 * len(code))
	n, empty := 0, false // tokens on the row being written, and whether its one token is ""
	for t := it(); t != chroma.EOF; t = it() {
		v, split := t.Value, false
		for i := strings.IndexByte(v, '\n'); i >= 0; i = strings.IndexByte(v, '\n') {
			writeToken(&b, t.Type, v[:i])
			out.ends = append(out.ends, uint32(b.Len()))
			n, v, split = 0, v[i+1:], true
		}
		if split && v == "" {
			continue
		}
		writeToken(&b, t.Type, v)
		n++
		empty = n == 1 && v == ""
	}
	if n > 1 || n == 1 && !empty { // chroma drops a last row of one empty token
		out.ends = append(out.ends, uint32(b.Len()))
	}
	out.s = b.String()
	return out, true
}

// writeToken writes a token's text, in a span of its class.
func writeToken(b *strings.Builder, typ chroma.TokenType, v string) {
	if v == "" {
		return
	}
	open := spanOpen(typ)
	b.WriteString(open)
	b.WriteString(escapeText(v))
	if open != "" {
		b.WriteString("</span>")
	}
}

// escapeText is template.HTMLEscapeString(s), with the test of whether
// s holds anything to escape made by a table, not strings.ContainsAny:
// 14 tokens of Go, two to escape, in 465 ns against 692.
func escapeText(s string) string {
	for i := 0; i < len(s); i++ {
		if htmlSpecial[s[i]] {
			return template.HTMLEscapeString(s)
		}
	}
	return s
}

// htmlSpecial are the bytes HTMLEscapeString replaces.
var htmlSpecial = [256]bool{'\'': true, '"': true, '&': true, '<': true, '>': true, 0: true}

// spanOpen is the tag that opens a token of type t, a span of chroma's
// class for it (falling back to its sub-category and category as chroma's
// own formatter does); "" for a type with no class. From a table for the
// types chroma names: up to three map lookups and a string made for each
// token were a tenth of writing them.
func spanOpen(t chroma.TokenType) string {
	if t >= 0 && int(t) < len(opens) {
		return opens[t]
	}
	return openTag(classOf(t))
}

// opens is spanOpen of each type from 0 to the last that chroma names.
var opens = func() []string {
	last := chroma.TokenType(0)
	for t := range chroma.StandardTypes {
		last = max(last, t)
	}
	o := make([]string, last+1)
	for t := range o {
		o[t] = openTag(classOf(chroma.TokenType(t)))
	}
	return o
}()

// openTag opens a span of the class cls; "" for no class.
func openTag(cls string) string {
	if cls == "" {
		return ""
	}
	return `<span class="` + cls + `">`
}

// classOf is the class the rows give a token of type t.
func classOf(t chroma.TokenType) string {
	if t == chroma.Error {
		return "" // a fragment of code (an edit's old text) often does not lex: do not paint it red
	}
	for _, c := range []chroma.TokenType{t, t.SubCategory(), t.Category()} {
		if cls, ok := chroma.StandardTypes[c]; ok && c != chroma.Text && c != chroma.Background {
			return cls
		}
	}
	return ""
}

// fileLexer is the lexer of the file p by its name. It is remembered by
// the whole name, not the extension: chroma knows some files by name
// (Cargo.lock is TOML, uv.lock is not), and which of two such files a
// build met first must not decide how both are highlighted.
func fileLexer(p string) chroma.Lexer {
	name := strings.ToLower(path.Base(strings.ReplaceAll(p, `\`, "/")))
	if name == "" || name == "." {
		return nil
	}
	return lexer("file:"+name, func(string) chroma.Lexer { return matchFile(name) })
}

// FileLexer is the lexer the page highlights the file p with (nil: none),
// for cmd/lexbench.
func FileLexer(p string) chroma.Lexer { return fileLexer(p) }

// FileDiff is the change a tool made to one file.
type FileDiff struct {
	Path string
	Rows []Row
}

// contextLines is how many unchanged lines a diff shows around a change.
const contextLines = 3

// LineDiff is the unified diff of old and new, with line numbers from
// start (the line old begins at in its file), or none when start is 0:
// an edit's old text may be anywhere in its file.
func LineDiff(old, new string, start int) []Row {
	dmp := diffmatchpatch.New()
	a, b, lines := dmp.DiffLinesToChars(withNewline(old), withNewline(new))
	var all []Row
	on, nn := start, start
	for _, d := range dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), lines) {
		for _, l := range splitLines(d.Text) {
			if start <= 0 {
				on, nn = 0, 0
			}
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				all = append(all, Row{' ', l, nn})
				on, nn = on+1, nn+1
			case diffmatchpatch.DiffDelete:
				all = append(all, Row{'-', l, on})
				on++
			case diffmatchpatch.DiffInsert:
				all = append(all, Row{'+', l, nn})
				nn++
			}
		}
	}
	return hunks(all)
}

func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// hunks shows the changed rows and contextLines of context around them,
// and folds away the runs of unchanged lines between: they are text the
// agent wrote, which the page keeps, one click away.
func hunks(all []Row) []Row {
	keep := make([]bool, len(all))
	for i, r := range all {
		if r.Op == ' ' {
			continue
		}
		for j := max(0, i-contextLines); j <= min(len(all)-1, i+contextLines); j++ {
			keep[j] = true
		}
	}
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && !keep[j] {
			j++
		}
		if j-i > 1 { // a fold of one line would take as much room as the line
			for k := i; k < j; k++ {
				all[k].Op = '='
			}
		}
		i = j + 1
	}
	return all
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// ParsePatch reads the files of a patch: Codex's apply_patch format
// ("*** Update File: p" sections) or a unified diff ("--- a/p", "+++ b/p",
// "@@" hunks). Text that is neither is one file with no path.
func ParsePatch(patch string) []FileDiff {
	var out []FileDiff
	cur := func() *FileDiff {
		if len(out) == 0 {
			out = append(out, FileDiff{})
		}
		return &out[len(out)-1]
	}
	oldN, newN := 0, 0
	for _, l := range splitLines(patch) {
		switch {
		case strings.HasPrefix(l, "*** Begin Patch"), strings.HasPrefix(l, "*** End Patch"),
			strings.HasPrefix(l, "*** End of File"), strings.HasPrefix(l, "diff --git "),
			strings.HasPrefix(l, "index "), strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "*** "):
			// "*** Add File: p", "*** Update File: p", "*** Delete File: p", "*** Move to: p"
			if _, p, ok := strings.Cut(l, ": "); ok {
				if strings.HasPrefix(l, "*** Move to") && len(out) > 0 {
					cur().Path += " → " + p
				} else {
					out = append(out, FileDiff{Path: p})
				}
			}
			oldN, newN = 0, 0
		case strings.HasPrefix(l, "+++ "):
			p := strings.TrimPrefix(strings.TrimPrefix(l[4:], "b/"), "a/")
			out = append(out, FileDiff{Path: strings.Fields(p + " ")[0]})
		case strings.HasPrefix(l, "@@"):
			oldN, newN = hunkStart(l)
			cur().Rows = append(cur().Rows, Row{Op: '@', Text: l})
		case strings.HasPrefix(l, "+"):
			cur().Rows = append(cur().Rows, Row{'+', l[1:], newN})
			if newN > 0 {
				newN++
			}
		case strings.HasPrefix(l, "-"):
			cur().Rows = append(cur().Rows, Row{'-', l[1:], oldN})
			if oldN > 0 {
				oldN++
			}
		default:
			cur().Rows = append(cur().Rows, Row{' ', strings.TrimPrefix(l, " "), newN})
			if newN > 0 {
				oldN, newN = oldN+1, newN+1
			}
		}
	}
	return out
}

// hunkStart reads "@@ -12,5 +13,6 @@" into 12 and 13.
func hunkStart(l string) (int, int) {
	f := strings.Fields(l)
	num := func(s, sign string) int {
		if !strings.HasPrefix(s, sign) {
			return 0
		}
		n, _ := strconv.Atoi(strings.SplitN(s[1:], ",", 2)[0])
		return n
	}
	if len(f) >= 3 {
		return num(f[1], "-"), num(f[2], "+")
	}
	return 0, 0
}

// Numbered turns text into rows numbered from start.
func Numbered(text string, start int) []Row {
	lines := splitLines(text)
	rows := make([]Row, len(lines))
	for i, l := range lines {
		rows[i] = Row{' ', l, start + i}
	}
	return rows
}
