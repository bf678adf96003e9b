package searchdoc

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/site/search"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// docText is a message as the index reads it and as a result shows it.
// A tool call is read from its Args and its result as its view shows
// them: which input field means what is known to ingest only.
type docText struct {
	include map[string]bool
	prose   bool            // whether the message's text and code are included
	kinds   uint16          // the kinds of its tool calls, as the index's bits
	text    strings.Builder // what is indexed
	shown   []field         // what a result may show of it, in order
}

// field is a text of a message, and the part of search.include it
// belongs to.
type field struct {
	part     string
	text     string
	markdown bool // shown as plain text
}

// add indexes a text of a part the config includes (on), and shows it.
func (d *docText) add(on bool, text string, markdown bool) {
	if !on || text == "" {
		return
	}
	d.text.WriteString(text)
	d.text.WriteByte('\n')
	d.shown = append(d.shown, field{text: text, markdown: markdown})
}

// call adds a tool call: its name and id, what its Args say, and what its
// result says.
func (d *docText) call(c *transcript.ToolCall) {
	if d.include["tools"] && c.Name != "" {
		d.add(true, c.Name, false)
		// An id is how a log, an API error or a colleague names a call:
		// found, not shown (the page shows it only on hover).
		d.text.WriteString(c.ID)
		d.text.WriteByte('\n')
	}
	for _, f := range argFields(&c.Args) {
		d.add(d.include[f.part], f.text, f.markdown)
	}
	for _, f := range resultFields(c) {
		d.add(d.include[f.part], f.text, f.markdown)
	}
}

// argFields are what a call's Args say, each with its part: "paths" the
// files, patterns and addresses it names, "commands" what it asks (a
// command line, what it writes or puts in, a prompt, a plan, a task list,
// questions) and the input's other fields. Its summary is one of these,
// but for a tool whose fields ingest knows no better.
func argFields(a *transcript.Args) []field {
	fs := make([]field, 0, 16)
	add := func(part, text string, markdown bool) {
		if text != "" {
			fs = append(fs, field{part, text, markdown})
		}
	}
	for _, p := range []string{a.Path, a.Pattern, a.Files, a.URL} {
		add("paths", p, false)
	}
	for _, c := range []string{a.Command, a.Description, a.Agent, a.Content, a.Patch} {
		add("commands", c, false)
	}
	add("commands", a.Prompt, true)
	add("commands", a.Plan, true)
	for _, e := range a.Edits {
		add("commands", e.New, false)
	}
	for _, t := range a.Todos {
		add("commands", t.Text, false)
	}
	for _, q := range a.Questions {
		add("commands", q.Header, false)
		add("commands", q.Text, false)
		for _, o := range q.Options {
			add("commands", o.Label, false)
			add("commands", o.Description, false)
		}
		add("commands", q.Answer, false)
	}
	if !slices.ContainsFunc(fs, func(f field) bool { return f.text == a.Summary }) {
		add("commands", a.Summary, false)
	}
	return fs
}

// resultFields are what a call's result says, as the call's view shows
// it: the lines of a read, without the agent's own line numbers, are
// "files"; the rest is "output", terminal escapes taken off: a
// subagent's report as Markdown, what a web search found, a reply that
// quotes the file an edit or a write changed without its line numbers.
func resultFields(c *transcript.ToolCall) []field {
	r := c.Result
	if r == nil {
		return nil
	}
	out := render.StripANSI(r.Output)
	if r.IsError {
		return []field{{"output", out, false}}
	}
	switch render.ToolViews(c)[0] {
	case "read":
		return []field{{"files", readText(c), false}}
	case "subagent":
		return []field{{"output", out, true}}
	case "websearch":
		var fs []field
		for _, p := range c.Args.Web.Pages {
			fs = append(fs, field{"output", strings.TrimSpace(p.Title + " " + p.URL), false})
		}
		return append(fs, field{"output", c.Args.Web.Text, true})
	case "edit", "write":
		return []field{{"output", render.Unnumbered(out), false}}
	}
	return []field{{"output", out, false}}
}

// readText is what a read's view shows of the file: its lines, and what
// the agent added after them.
func readText(c *transcript.ToolCall) string {
	v := render.Read(c)
	var b strings.Builder
	for _, r := range v.Rows {
		b.WriteString(r.Text)
		b.WriteByte('\n')
	}
	b.WriteString(v.Tail)
	return render.StripANSI(b.String())
}

// excerpt is what a result may show of the message: the text it shows,
// as plain text; of a long message the start and the end that the index
// reads, so that a result can show a word it was found by wherever it is.
func (d *docText) excerpt() string {
	total := 0
	for _, f := range d.shown {
		total += len(f.text) + 1
	}
	if total <= search.HeadBytes+search.TailBytes {
		return d.plain(0, total)
	}
	return d.plain(0, search.HeadBytes) + d.plain(total-search.TailBytes, total)
}

// plain is the shown text from byte from to byte to of it, each field
// after a newline, Markdown made plain.
func (d *docText) plain(from, to int) string {
	var b strings.Builder
	at := 0
	for _, f := range d.shown {
		end := at + len(f.text) + 1
		if end > from && at < to {
			t := f.text[runeStart(f.text, from-at):runeStart(f.text, to-at)]
			if f.markdown {
				t = plainText(t)
			}
			b.WriteString(t)
			b.WriteByte('\n')
		}
		at = end
	}
	return b.String()
}

// runeStart is i, within s, moved back to the start of a character.
func runeStart(s string, i int) int {
	i = min(max(i, 0), len(s))
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
