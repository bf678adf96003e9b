package render

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// Views of tool calls: what a page and the Markdown export show of an
// edit, a read, a question to the user, a plan and a web search.

// Edits returns the changes an edit call made: the patch its result
// reports, with line numbers; or else the old/new pairs of its input (a
// diff each), or the patch it applies. A diff of old and new text has no
// line numbers: the text may be anywhere in its file.
func Edits(c *transcript.ToolCall) []FileDiff {
	p := c.Args.Path
	if rows := wholeEdit(c); rows != nil {
		return []FileDiff{{Path: cmp.Or(c.Result.Patch[0].Path, p), Rows: rows}}
	}
	if r := c.Result; r != nil && !r.IsError && len(r.Patch) > 0 {
		return patchDiffs(r.Patch, p)
	}
	if len(c.Args.Edits) > 0 {
		var fds []FileDiff
		for _, e := range c.Args.Edits {
			fds = append(fds, FileDiff{Path: p, Rows: LineDiff(e.Old, e.New, 0)})
		}
		return fds
	}
	if c.Args.Patch == "" {
		return nil
	}
	fds := ParsePatch(c.Args.Patch)
	for i := range fds {
		fds[i].Path = cmp.Or(fds[i].Path, p)
	}
	return fds
}

// patchDiffs are a file's diff each of a result's patch, in the patch's
// order; p is the path of the hunks that name none.
func patchDiffs(patch []transcript.Hunk, p string) []FileDiff {
	var fds []FileDiff
	for i := 0; i < len(patch); {
		j := i + 1
		for j < len(patch) && patch[j].Path == patch[i].Path {
			j++
		}
		fds = append(fds, FileDiff{Path: cmp.Or(patch[i].Path, p), Rows: patchRows(patch[i:j])})
		i = j
	}
	return fds
}

// wholeEdit is an edit's old and new text as a diff numbered from where
// the patch its result reports puts them, when the patch is that one
// change: a patch keeps three lines of context, and the agent wrote more.
// It is nil when the patch is not the edit's (a replacement made in
// several places, text that is not whole lines).
func wholeEdit(c *transcript.ToolCall) []Row {
	r := c.Result
	if !oneFileEdit(c) {
		return nil
	}
	e := c.Args.Edits[0]
	rows := LineDiff(e.Old, e.New, 0)
	patch := changed(patchRows(r.Patch))
	if len(patch) == 0 || !slices.EqualFunc(patch, changed(rows), sameRow) {
		return nil
	}
	same := 0 // the lines before the first change, in both texts
	for !rows[same].change() {
		same++
	}
	start := patch[0].N - same
	return around(numbered(rows, start), patchRows(r.Patch), start)
}

// numbered is LineDiff's rows of a text numbered from start instead of
// none (see LineDiff), without diffing the texts again.
func numbered(rows []Row, start int) []Row {
	rows = slices.Clone(rows)
	if start <= 0 {
		return rows
	}
	old, new := start, start
	for i := range rows {
		switch rows[i].Op {
		case ' ', '=': // unchanged, shown or folded away
			rows[i].N = new
			old, new = old+1, new+1
		case '-':
			rows[i].N = old
			old++
		case '+':
			rows[i].N = new
			new++
		}
	}
	return rows
}

// oneFileEdit reports whether c made one change and its result reports
// the patch it made to one file.
func oneFileEdit(c *transcript.ToolCall) bool {
	r := c.Result
	if r == nil || r.IsError || len(r.Patch) == 0 || len(c.Args.Edits) != 1 {
		return false
	}
	return !slices.ContainsFunc(r.Patch[1:], func(h transcript.Hunk) bool { return h.Path != r.Patch[0].Path })
}

// sameRow reports whether two rows make the same change, wherever they are.
func sameRow(a, b Row) bool { return a.Op == b.Op && a.Text == b.Text }

// change reports whether the row is an added or removed line.
func (r Row) change() bool { return r.Op == '+' || r.Op == '-' }

// context reports whether the row is a line of context or a heading.
func (r Row) context() bool { return r.Op == ' ' || r.Op == '@' }

// around puts the context a patch shows around an edit's text (the file's
// lines before start, and after the text's last line) around its rows.
func around(rows, patch []Row, start int) []Row {
	out := contextBefore(patch, start)
	out = append(out, rows...)
	return contextAfter(out, patch, lastLine(rows))
}

// contextBefore is the context a patch shows before its first change:
// hunk headings, and the file's lines before start.
func contextBefore(patch []Row, start int) []Row {
	var out []Row
	for _, r := range patch {
		if !r.context() {
			break
		}
		if r.Op == '@' || r.N < start { // a hunk's heading, or a line before the edit's text
			out = append(out, r)
		}
	}
	return out
}

// contextAfter appends to out the context a patch shows after its last
// change: hunk headings, and the file's lines after line last.
func contextAfter(out, patch []Row, last int) []Row {
	end := len(patch)
	for end > 0 && patch[end-1].context() {
		end--
	}
	for _, r := range patch[end:] {
		if r.Op == '@' || r.N > last {
			out = append(out, r)
		}
	}
	return out
}

// lastLine is the number of the last line of the new text in rows.
func lastLine(rows []Row) int {
	last := 0
	for _, r := range rows {
		if r.Op != '-' {
			last = max(last, r.N)
		}
	}
	return last
}

// changed are the added and removed rows of a diff.
func changed(rows []Row) []Row {
	return slices.DeleteFunc(slices.Clone(rows), func(r Row) bool { return !r.change() })
}

// patchRows numbers the lines of a patch's hunks, with "…" between hunks.
func patchRows(hunks []transcript.Hunk) []Row {
	var rows []Row
	for i, h := range hunks {
		switch {
		case h.Heading != "": // the function the hunk lies in, as a diff names it
			rows = append(rows, Row{Op: '@', Text: "@@ " + h.Heading})
		case i > 0:
			rows = append(rows, Row{Op: '@', Text: "…"})
		}
		rows = hunkRows(rows, h)
	}
	return rows
}

// hunkRows appends the lines of a hunk, numbered.
func hunkRows(rows []Row, h transcript.Hunk) []Row {
	on, nn := h.OldStart, h.NewStart
	for _, l := range h.Lines {
		op, text := byte(' '), l
		if l != "" {
			op, text = l[0], l[1:]
		}
		switch op {
		case '+':
			rows = append(rows, Row{'+', text, nn})
			nn++
		case '-':
			rows = append(rows, Row{'-', text, on})
			on++
		case '\\': // "\ No newline at end of file"
			rows = append(rows, Row{'@', l, 0})
		default:
			rows = append(rows, Row{' ', text, nn})
			on, nn = on+1, nn+1
		}
	}
	return rows
}

// ReadView is what a read call returned: the file's lines, numbered as in
// the file, and what the agent added after them (Claude Code appends a
// reminder to some reads). Of a huge read the page shows the first
// headLines rows, Lines in all, and the whole output goes to File.
type ReadView struct {
	Path  string
	Rows  []Row
	Tail  string
	Lines int
	File  string
}

// catLine reads a line as a read numbers it: "    12\tcode" (cat -n, older
// Claude Code) or "    12→code". A scan, not a regular expression: a file
// read is thousands of lines, and matching each was a tenth of a page.
func catLine(line string) (n int, text string, ok bool) {
	rest := strings.TrimLeft(line, " ")
	digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	if digits == 0 {
		return 0, "", false
	}
	n, _ = strconv.Atoi(rest[:digits])
	rest = rest[digits:]
	if text, ok = strings.CutPrefix(rest, "\t"); !ok {
		text, ok = strings.CutPrefix(rest, "→")
	}
	return n, text, ok
}

// Unnumbered is text with the line numbers an agent put before some of
// its lines taken off, each line read as a read's is: Claude Code's reply
// to an edit or a write quotes the file so ("    12→code") after a line
// of its own. The search index reads a reply so, as the page reads a read.
func Unnumbered(s string) string {
	if !strings.Contains(s, "→") && !strings.Contains(s, "\t") {
		return s
	}
	lines := strings.Split(s, "\n")
	numbered := false
	for i, l := range lines {
		if _, text, ok := catLine(l); ok {
			lines[i], numbered = text, true
		}
	}
	if !numbered {
		return s
	}
	return strings.Join(lines, "\n")
}

// Read returns the view of a read call. The agent's own line numbers are
// taken off the text, so the page numbers each line once; text without
// them is numbered from the call's offset.
func Read(c *transcript.ToolCall) ReadView {
	v := ReadView{Path: c.Args.Path}
	if c.Result == nil {
		return v
	}
	lines := splitLines(c.Result.Output)
	i := 0
	for ; i < len(lines); i++ {
		n, text, ok := catLine(lines[i])
		if !ok {
			break
		}
		v.Rows = append(v.Rows, Row{' ', text, n})
	}
	if i == 0 {
		v.Rows = Numbered(c.Result.Output, max(c.Args.Start, 1))
	} else {
		v.Tail = strings.TrimSpace(reminderTag.ReplaceAllString(strings.Join(lines[i:], "\n"), ""))
	}
	v.Lines = len(v.Rows)
	if IsHuge(c.Result.Output) {
		// As a huge output's head, but numbered as the file is.
		v.Rows, v.File = v.Rows[:min(len(v.Rows), headLines)], OutputFile(c.Result.Output)
	}
	return v
}

// reminderTag wraps what Claude Code appends to a read for the model: the
// page shows what it says, not its wrapper.
var reminderTag = regexp.MustCompile(`</?system-reminder>`)

// ToolSummary returns the one line a tool call's header shows: the files
// a patch touches, or what the call's Args say best what it did (the
// command of a shell call, the pattern of a search, …).
func ToolSummary(c *transcript.ToolCall) string {
	var v string
	if c.Kind == transcript.EditTool && c.Args.Patch != "" {
		var paths []string
		for _, fd := range ParsePatch(c.Args.Patch) {
			if fd.Path != "" {
				paths = append(paths, fd.Path)
			}
		}
		v = strings.Join(paths, ", ")
	}
	if v == "" {
		v = c.Args.Summary
	}
	return Truncate(120, firstLine(v))
}

// ToolViews lists the partials that may show a call, by preference, as
// names under templates/partials/tools/ without ".html": the special view
// its Args call for (the questions it asks, the plan it proposes, the task
// list it writes, the subagent it starts, the pages a web search found),
// then its kind's, then "generic". The first the theme has shows it, so a
// site gives a kind of tool its own view by adding a file.
func ToolViews(c *transcript.ToolCall) []string {
	if v := c.View(); v != string(c.Kind) {
		return []string{v, string(c.Kind), "generic"}
	}
	return []string{string(c.Kind), "generic"}
}
