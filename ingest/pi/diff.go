package pi

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// editDetails is what Pi's edit tool reports beside its reply: the change
// as Pi's screen shows it (diff), in later versions also as a unified diff
// (patch), and the first line it changed in the new file.
type editDetails struct {
	Diff             string `json:"diff"`
	Patch            string `json:"patch"`
	FirstChangedLine *int   `json:"firstChangedLine"`
}

// editPatch is the change an edit made, with the file's line numbers, read
// from its result's details; nil when they hold none that reads whole.
func editPatch(raw json.RawMessage) []transcript.Hunk {
	var d editDetails
	if len(raw) == 0 || ingest.Unmarshal(raw, &d) != nil {
		return nil
	}
	var hunks []transcript.Hunk
	if strings.TrimSpace(d.Patch) != "" {
		hunks = ingest.UnifiedHunks(d.Patch)
	} else {
		hunks = numberedHunks(d.Diff, d.FirstChangedLine)
	}
	for i := range hunks {
		hunks[i].Path = "" // the call's file: the patch names it as the call did
	}
	return hunks
}

// numberedHunks reads the diff Pi shows of an edit: each line is its mark
// (' ', '-' or '+'), its line number padded to one width, a space and the
// line; "..." in the number's place stands for lines left out. A removed
// or unchanged line is numbered in the file before the edit, an added one
// in the file after. Each part between gaps is numbered from its first
// change: before Pi 0.10.1 the unchanged lines that lead up to it after a
// gap counted from the gap's start. It returns nil for anything else, or
// when the numbers do not follow each other as a diff's do.
func numberedHunks(diff string, firstChanged *int) []transcript.Hunk {
	if strings.TrimSpace(diff) == "" {
		return nil
	}
	var (
		out   []transcript.Hunk
		part  []numbered
		delta int // lines added less lines removed, before the part
	)
	for _, l := range append(strings.Split(strings.TrimSuffix(diff, "\n"), "\n"), " ...") {
		mark, n, text, ok := numberedLine(l)
		switch {
		case !ok:
			return nil
		case n != 0:
			part = append(part, numbered{mark, n, text})
			continue
		case len(part) == 0:
			continue
		}
		h, ok := hunk(part, &delta)
		if !ok {
			return nil
		}
		out, part = append(out, h), nil
	}
	if !startsAt(out, firstChanged) {
		return nil
	}
	return out
}

// startsAt says whether the first change of hunks is at firstChanged, the
// line Pi says the edit first changed, when both are known.
func startsAt(hunks []transcript.Hunk, firstChanged *int) bool {
	first := firstChange(hunks)
	return firstChanged == nil || first == 0 || first == *firstChanged
}

// numbered is a line of Pi's diff.
type numbered struct {
	mark byte
	n    int
	text string
}

// hunk numbers a part of Pi's diff between gaps from its first change, and
// checks the numbers: the lines before it follow each other, and the lines
// from it on are where the change puts them. delta is the lines added less
// those removed before the part, and after it on return.
func hunk(part []numbered, delta *int) (transcript.Hunk, bool) {
	from, h := hunkStart(part, *delta)
	if h.OldStart < 1 || h.NewStart < 1 {
		return h, false
	}
	for _, l := range part {
		h.Lines = append(h.Lines, string(l.mark)+l.text)
	}
	c := lineCount{old: h.OldStart, new: h.NewStart, delta: delta}
	for i, l := range part {
		if !c.fits(part, i, from) {
			return h, false
		}
		c.step(l.mark)
	}
	return h, true
}

// hunkStart is where a part's first change is, and the hunk's starts in
// each file, counted back from it.
func hunkStart(part []numbered, delta int) (int, transcript.Hunk) {
	from := max(slices.IndexFunc(part, func(l numbered) bool { return l.mark != ' ' }), 0)
	old, new := part[from].n, part[from].n+delta // where the line sits in each file
	if part[from].mark == '+' {
		old, new = part[from].n-delta, part[from].n
	}
	return from, transcript.Hunk{OldStart: old - from, NewStart: new - from}
}

// lineCount is the line of each file a hunk has reached, and the lines
// added less those removed so far.
type lineCount struct {
	old, new int
	delta    *int
}

// fits says whether line i of part has the number it should: the lines
// before the change (at from) follow each other, and from it on each is
// where the change puts it.
func (c *lineCount) fits(part []numbered, i, from int) bool {
	l := part[i]
	switch {
	case i < from:
		return i == 0 || l.n == part[i-1].n+1
	case l.mark == '+':
		return l.n == c.new
	}
	return l.n == c.old
}

// step counts a line with the mark.
func (c *lineCount) step(mark byte) {
	switch mark {
	case ' ':
		c.old, c.new = c.old+1, c.new+1
	case '-':
		c.old, *c.delta = c.old+1, *c.delta-1
	case '+':
		c.new, *c.delta = c.new+1, *c.delta+1
	}
}

// firstChange is the line of the new file where the first change of hunks
// is, or 0 when they change nothing.
func firstChange(hunks []transcript.Hunk) int {
	for _, h := range hunks {
		for i, l := range h.Lines {
			if l[0] != ' ' {
				return h.NewStart + i
			}
		}
	}
	return 0
}

// numberedLine reads one line of Pi's diff: its mark, number and text; n
// is 0 for the "..." that marks a gap.
func numberedLine(l string) (mark byte, n int, text string, ok bool) {
	if l == "" || !strings.ContainsRune(" +-", rune(l[0])) {
		return 0, 0, "", false
	}
	mark, rest := l[0], strings.TrimLeft(l[1:], " ")
	if mark == ' ' && rest == "..." {
		return mark, 0, "", true
	}
	n, text, ok = lineNumber(rest)
	if !ok {
		return 0, 0, "", false
	}
	return mark, n, text, true
}

// lineNumber reads the number that starts rest, and the text after it and
// the one space between them.
func lineNumber(rest string) (n int, text string, ok bool) {
	digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	n, err := strconv.Atoi(rest[:digits])
	if err != nil || n < 1 {
		return 0, "", false
	}
	text, found := strings.CutPrefix(rest[digits:], " ")
	return n, text, found || text == ""
}
