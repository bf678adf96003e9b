package export

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Options say what the Markdown export shows beyond the session itself.
type Options struct {
	Title   string // the heading: the session's title as the site shows it
	Project string // the project's name as the site shows it
	// Image links an image to its file beside the export, or returns "" when
	// it has none; nil describes every image instead.
	Image func(*transcript.Image) string
}

// Markdown writes s to out as a Markdown document to read: YAML front
// matter with the session's facts, then every message in order, numbered
// as on its page (#m-N). Tool calls show their input and their result in
// fenced blocks, thinking and injected context are collapsed in <details>.
// Text the agent wrote is Markdown already and is kept as it is;
// everything else is fenced with a fence longer than any run of backticks
// in it, so nothing in a session can end a block early. It is written
// piece by piece, the session's texts uncopied, so a session of any size
// takes little memory; out is best buffered.
func Markdown(out io.Writer, s *transcript.Session, o Options) error {
	o.Title = cmp.Or(inline(o.Title), inline(s.Title), "Session "+s.ID)
	w := &mdWriter{w: out, opts: o}
	w.frontMatter(s, o)
	w.printf("# %s\n", o.Title)
	n := 0
	day := ""
	for _, t := range s.Turns {
		for _, m := range t.Messages {
			n++
			if shown := w.shownParts(m); len(shown) > 0 {
				day = w.message(n, m, shown, day)
			}
		}
		if end, ok := turnEnds[t.Status]; ok {
			w.printf("\n*%s*\n", end)
		}
	}
	return w.err
}

// turnEnds say how a turn that did not complete ended, by its status.
var turnEnds = map[string]string{
	transcript.Aborted:    "This turn was interrupted.",
	transcript.Incomplete: "This turn ends here: the agent stopped writing (it may have crashed).",
	transcript.Failed:     "This turn ended with an error.",
}

type mdWriter struct {
	w    io.Writer
	err  error // the first write's error; the writes after it are skipped
	opts Options
}

func (w *mdWriter) printf(format string, args ...any) {
	if w.err == nil {
		_, w.err = fmt.Fprintf(w.w, format, args...)
	}
}

// str writes each of ss as it is: a session's long texts are written
// without a copy, as printf would make.
func (w *mdWriter) str(ss ...string) {
	for _, s := range ss {
		if w.err == nil {
			_, w.err = io.WriteString(w.w, s)
		}
	}
}

// frontMatter writes the session's facts as YAML. Every value is written
// as JSON, which YAML reads as it is, so no string can break out of it.
func (w *mdWriter) frontMatter(s *transcript.Session, o Options) {
	w.printf("---\n")
	w.field("title", o.Title, true)
	full := inline(s.Title)
	w.field("full_title", full, full != "" && full != o.Title) // the site's title is cut short of it
	w.field("id", s.ID, true)
	w.fieldStr("project", o.Project)
	w.fieldStr("format", s.Format)
	w.fieldStr("agent", s.Agent)
	w.fieldStr("agent_version", s.AgentVersion)
	w.fieldList("models", s.Models)
	w.field("started", s.Started.UTC(), !s.Started.IsZero())
	w.field("ended", s.Ended.UTC(), !s.Ended.IsZero())
	w.fieldStr("cwd", s.CWD)
	w.fieldStr("branch", s.Branch)
	w.field("tokens", Usage(s.Usage), !s.Usage.IsZero())
	w.fieldStr("parent", s.ParentID)
	w.fieldList("children", s.ChildIDs)
	w.fieldStr("source", s.Source)
	w.fieldList("sources", s.Sources)
	w.field("redacted", s.Redacted, len(s.Redacted) > 0) // maps are written with sorted keys
	w.field("meta", metaLines(s.Meta), len(s.Meta) > 0)
	w.fieldList("warnings", s.Warnings)
	w.printf("---\n\n")
}

// field writes a key of the front matter, if set, its value as JSON.
func (w *mdWriter) field(key string, v any, set bool) {
	if set {
		data, _ := jsonText(v)
		w.printf("%s: %s\n", key, data)
	}
}

// fieldStr writes a key of the front matter whose value is a string, unless
// it is empty.
func (w *mdWriter) fieldStr(key, v string) { w.field(key, v, v != "") }

// fieldList writes a key of the front matter whose value is a list, unless it
// is empty.
func (w *mdWriter) fieldList(key string, v []string) { w.field(key, v, len(v) > 0) }

// metaLines is a session's metadata with each value of several lines (a
// session's other titles) as a list of them, which a reader reads as
// lines, not as one string of escapes.
func metaLines(meta map[string]string) map[string]any {
	out := make(map[string]any, len(meta))
	for k, v := range meta {
		if strings.Contains(v, "\n") {
			out[k] = strings.Split(v, "\n")
		} else {
			out[k] = v
		}
	}
	return out
}

func jsonText(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), err
}

// shownParts are the parts shown in m: a result shown with its call is not
// shown again.
func (w *mdWriter) shownParts(m *transcript.Message) []*transcript.Part {
	var out []*transcript.Part
	for _, p := range m.Parts {
		if p.Result == nil || !p.Result.Paired {
			out = append(out, p)
		}
	}
	return out
}

// message writes message n and returns the day of its time, so a message
// names its date only when it is the first of a day.
func (w *mdWriter) message(n int, m *transcript.Message, parts []*transcript.Part, day string) string {
	head := []string{fmt.Sprintf("%d", n), string(m.Role)}
	if m.Model != "" {
		head = append(head, code(m.Model))
	}
	if !m.Time.IsZero() {
		var t string
		t, day = stamp(m.Time, day)
		head = append(head, t)
	}
	for _, mk := range messageMarks {
		if mk.has(m) {
			head = append(head, mk.label)
		}
	}
	ctx := m.Meta && !m.UserShell() // the user's own command is theirs
	w.printf("\n## %s\n", strings.Join(head, " · "))
	if ctx {
		w.printf("\n<details>\n<summary>Context injected by the agent</summary>\n")
	}
	for _, p := range parts {
		w.part(p)
	}
	if ctx {
		w.printf("\n</details>\n")
	}
	return day
}

// stamp is a message's time as its heading shows it: with its date when
// it is the first of a day (day is the day before it), and the day.
func stamp(t time.Time, day string) (string, string) {
	t = t.UTC()
	if d := t.Format(time.DateOnly); d != day {
		return t.Format("2006-01-02 15:04:05 UTC"), d
	}
	return t.Format(time.TimeOnly), day
}

// messageMarks are what a message's heading says of it, in order.
var messageMarks = []struct {
	label string
	has   func(*transcript.Message) bool
}{
	{"rewound branch", func(m *transcript.Message) bool { return m.Branch != "" }},
	{"sidechain", func(m *transcript.Message) bool { return m.Sidechain }},
	{"ran a command", (*transcript.Message).UserShell},
}

func (w *mdWriter) part(p *transcript.Part) {
	switch {
	case p.Call != nil:
		// The agent's own summary and view of the call, as its page shows
		// them above the call.
		w.text(p.Name)
		w.text(p.Text)
		w.call(p.Call)
	case p.Result != nil:
		w.printf("\n**Tool result**")
		if p.Result.CallID != "" {
			w.printf(" for %s", code(p.Result.CallID))
		}
		w.result(p.Result)
	case p.Image != nil:
		w.printf("\n%s\n", w.image(p.Image))
	case p.Event != nil:
		w.event(p)
	case p.Kind == transcript.ThinkingPart:
		w.details("Thinking", closeFences(p.Text))
	case p.Kind == transcript.CodePart:
		w.codePart(p)
	default: // text, and kinds a later reader may add
		w.text(p.Text)
	}
}

// text writes Markdown the agent wrote, as it is but for a code block it
// left open.
func (w *mdWriter) text(t string) {
	if t != "" {
		w.str("\n", strings.TrimRight(closeFences(t), "\n"), "\n")
	}
}

// event writes an event as a quote, its record collapsed under it.
func (w *mdWriter) event(p *transcript.Part) {
	w.printf("\n> **%s**", inline(p.Event.Kind))
	if p.Text != "" {
		w.printf(": %s", strings.ReplaceAll(strings.TrimRight(p.Text, "\n"), "\n", "\n> "))
	}
	w.printf("\n")
	if p.Event.Raw != "" {
		w.details("Record", fence(p.Event.Raw, "json")...)
	}
}

// codePart writes a code part fenced, under its name.
func (w *mdWriter) codePart(p *transcript.Part) {
	w.printf("\n")
	if p.Name != "" {
		w.printf("%s\n\n", code(p.Name))
	}
	w.str(fence(p.Text, p.Lang)...)
}

// details writes the pieces of body, less the newlines it ends with,
// collapsed under summary.
func (w *mdWriter) details(summary string, body ...string) {
	w.printf("\n<details>\n<summary>%s</summary>\n\n", summary)
	last := len(body) - 1
	w.str(body[:last]...)
	w.str(strings.TrimRight(body[last], "\n"), "\n\n</details>\n")
}

func (w *mdWriter) call(c *transcript.ToolCall) {
	w.printf("\n**Tool call** %s (%s)", code(c.Name), c.Kind)
	if c.Subagent != "" {
		w.printf(", started session %s", code(c.Subagent))
	}
	w.printf("\n\n")
	w.input(c)
	if c.Result == nil {
		w.printf("\n*No result.*\n")
		return
	}
	w.printf("\n**Result**")
	w.result(c.Result)
}

// input writes a call's input as its page shows it: a command as shell
// with what it is for, a file written in the language of its name, an
// edit as a diff, each with the input's other fields listed under it;
// anything else as indented JSON. The JSON export keeps every input as it
// was.
func (w *mdWriter) input(c *transcript.ToolCall) {
	if view := inputViews[c.Kind]; view != nil && view(w, c) {
		w.fields(c.Args.Rest)
		return
	}
	input := render.Readable(c.Input)
	if input.Text == c.Input && !json.Valid([]byte(c.Input)) {
		input.Lang = "" // free text, such as an apply_patch
	}
	w.str(fence(input.Text, input.Lang)...)
}

// inputViews write a call's input as its page shows it, by the call's
// kind; each says whether it could (a call whose Args lack what its view
// needs is shown as its input).
var inputViews = map[transcript.ToolKind]func(*mdWriter, *transcript.ToolCall) bool{
	transcript.ShellTool: (*mdWriter).shellInput,
	transcript.WriteTool: (*mdWriter).writeInput,
	transcript.EditTool:  (*mdWriter).editInput,
}

// shellInput writes a command as shell, with what it is for.
func (w *mdWriter) shellInput(c *transcript.ToolCall) bool {
	cmd := c.Args.Command
	if cmd == "" || cmd == c.Input {
		return false
	}
	w.str(fence(cmd, "bash")...)
	if d := inline(c.Args.Description); d != "" {
		w.printf("\n%s\n", d)
	}
	return true
}

// writeInput writes a file written in the language of its name.
func (w *mdWriter) writeInput(c *transcript.ToolCall) bool {
	a := c.Args
	if a.Path == "" {
		return false
	}
	w.printf("%s\n\n", code(a.Path))
	w.str(fence(a.Content, strings.TrimPrefix(path.Ext(a.Path), "."))...)
	return true
}

// editInput writes an edit as a diff of each file.
func (w *mdWriter) editInput(c *transcript.ToolCall) bool {
	fds := render.Edits(c)
	for _, fd := range fds {
		w.printf("%s\n\n", code(fd.Path))
		w.str(fence(diffText(fd.Rows), "diff")...)
	}
	return len(fds) > 0
}

// fields lists the fields of an input that its call's view does not show
// otherwise: a value that a line of inline code would change (a newline,
// a run of spaces) in a code block of the item's own.
func (w *mdWriter) fields(fs []transcript.Field) {
	if len(fs) > 0 {
		w.printf("\n")
	}
	for _, f := range fs {
		if v := f.Value; v != "" && v == inline(v) {
			w.printf("- %s: %s\n", code(f.Name), code(v))
			continue
		}
		block := strings.TrimSuffix(strings.Join(fence(f.Value, ""), ""), "\n")
		w.printf("- %s:\n\n  %s\n", code(f.Name), strings.ReplaceAll(block, "\n", "\n  "))
	}
}

// diffText writes an edit's rows as the lines of a unified diff.
func diffText(rows []render.Row) string {
	var b strings.Builder
	for _, r := range rows {
		switch r.Op {
		case '@':
		case '=': // folded on the page: context here
			b.WriteByte(' ')
		default:
			b.WriteByte(r.Op)
		}
		b.WriteString(r.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// result writes what follows a result's heading.
func (w *mdWriter) result(r *transcript.ToolResult) {
	if r.IsError {
		w.printf(" (error)")
	}
	if r.ExitCode != nil {
		w.printf(", exit code %d", *r.ExitCode)
	}
	w.printf("\n")
	if r.Output != "" {
		w.str("\n")
		w.str(fence(render.ReadableOutput(render.StripANSI(r.Output)), "")...)
	} else if len(r.Images) == 0 {
		w.printf("\n*No output.*\n")
	}
	for _, img := range r.Images {
		w.printf("\n%s\n", w.image(img))
	}
}

// image links an image's file, or its URL, or says what it was.
func (w *mdWriter) image(img *transcript.Image) string {
	if w.opts.Image != nil {
		if f := w.opts.Image(img); f != "" {
			return "![Image from the session](" + f + ")"
		}
	}
	if img.URL != "" {
		if ok, _ := render.SafeURL(img.URL); ok && !strings.ContainsAny(img.URL, "<> \t\r\n") {
			return "Image: <" + img.URL + ">"
		}
		return "Image: " + code(img.URL)
	}
	return fmt.Sprintf("*(an image: %s, %d bytes, not included)*", inline(img.MediaType), max(img.Size, len(img.Data)))
}

// longestRun is the length of the longest run of backticks in s.
func longestRun(s string) int {
	n, run := 0, 0
	for i := range len(s) {
		if s[i] == '`' {
			run++
			n = max(n, run)
		} else {
			run = 0
		}
	}
	return n
}

// fence puts text in a fenced code block whose fence is longer than any run
// of backticks in it. It returns the block's pieces, to write text without
// copying it.
func fence(text, lang string) []string {
	f := strings.Repeat("`", max(3, longestRun(text)+1))
	end := f + "\n"
	if text != "" && !strings.HasSuffix(text, "\n") {
		end = "\n" + end
	}
	return []string{f + infoString(lang) + "\n", text, end}
}

var notInfo = regexp.MustCompile(`[^A-Za-z0-9_+.#-]`)

// infoString keeps what a language name needs: a backtick or a space in a
// fence's info string would stop it being a fence.
func infoString(lang string) string { return notInfo.ReplaceAllString(lang, "") }

// code writes s as inline code, with a fence of backticks it does not hold.
func code(s string) string {
	s = inline(s)
	f := strings.Repeat("`", longestRun(s)+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return f + s + f
}

// opens says whether a fence line opens a code block: a backtick fence's
// info string holds no backtick.
func opens(fence, info string) bool {
	return !(fence[0] == '`' && strings.Contains(info, "`"))
}

// closes says whether a fence line closes the block open opened: a fence
// of its character, at least as long, with nothing after it.
func closes(fence, info, open string) bool {
	return fence[0] == open[0] && len(fence) >= len(open) && strings.TrimSpace(info) == ""
}

// inline makes s one line, for a heading or a list item.
func inline(s string) string { return strings.Join(strings.Fields(s), " ") }

var fenceLine = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})(.*)$")

// closeFences closes a code block that Markdown text opens and leaves open
// (an agent's reply cut off mid-block), which would otherwise swallow the
// rest of the export.
func closeFences(text string) string {
	open := ""
	for l := range strings.SplitSeq(text, "\n") {
		m := fenceLine.FindStringSubmatch(strings.TrimRight(l, "\r"))
		switch {
		case m == nil:
		case open == "" && opens(m[1], m[2]):
			open = m[1]
		case open != "" && closes(m[1], m[2], open):
			open = ""
		}
	}
	if open == "" {
		return text
	}
	return strings.TrimRight(text, "\n") + "\n" + open + "\n"
}
