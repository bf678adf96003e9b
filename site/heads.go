package site

import (
	"html/template"
	"strconv"
	"strings"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// The headers of messages and tool calls, written once in Go: what the
// default theme's message-head.html and tool-head.html write, which a
// test holds them to. From a template they were fourteen values a message
// and eleven a call, each looked up by name and escaped through
// reflection, for a few thousand instructions apiece: a twentieth of a
// cold build's. The theme prints them where a site leaves those partials,
// and those they use, as shipped (site/theme).

// head is the message's header, Entry.Head: its anchor, role, badges,
// model, tokens and time.
func (e *Entry) head() template.HTML {
	var b strings.Builder
	n := strconv.Itoa(e.N)
	b.WriteString("<header class=\"msg-head\">\n    <a class=\"anchor\" href=\"#m-" + n +
		"\" title=\"Link to this message\">#" + n + "</a>\n    <span class=\"role\">")
	writeEscaped(&b, string(e.Msg.Role))
	b.WriteString("</span>")
	if e.UserShell {
		b.WriteString(` <span class="badge user-shell" title="A command the user ran in the agent's shell">ran a command</span>`)
	}
	if m := e.Msg.Model; m != "" {
		b.WriteString(` <span class="model">`)
		writeEscaped(&b, m)
		b.WriteString("</span>")
	}
	if u := e.Usage; u != nil {
		b.WriteString(` <span class="usage" title="Tokens this message used">`)
		writeEscaped(&b, u.Line)
		b.WriteString("</span>")
	}
	if e.Msg.Branch != "" {
		b.WriteString(` <span class="badge branch" title="The conversation was rewound past this message; it continued on another branch">rewound branch</span>`)
	}
	if t := e.Time; t != nil {
		b.WriteString(` <time datetime="`)
		writeEscaped(&b, t.ISO)
		b.WriteString(`" title="`)
		writeEscaped(&b, t.Full)
		b.WriteString(`">`)
		writeEscaped(&b, t.Label)
		b.WriteString("</time>")
	}
	b.WriteString("\n\n  </header>")
	return template.HTML(b.String())
}

// toolHead is a call's header, PartView.Head: its name, its one line
// summary, and a badge when it failed or has no result.
func toolHead(c *transcript.ToolCall, summary string) template.HTML {
	var b strings.Builder
	b.WriteString("<summary class=\"tool-head\">\n    <span class=\"tool-name\"")
	if c.ID != "" {
		b.WriteString(` title="`)
		writeEscaped(&b, c.ID)
		b.WriteString(`"`)
	}
	b.WriteString(">")
	writeEscaped(&b, c.Name)
	b.WriteString("</span>")
	if summary != "" {
		b.WriteString(` <code class="tool-summary">`)
		writeEscaped(&b, summary)
		b.WriteString("</code>")
	}
	switch r := c.Result; {
	case r == nil:
		b.WriteString(` <span class="badge">no result</span>`)
	case r.IsError:
		b.WriteString(` <span class="badge error">error`)
		if r.ExitCode != nil {
			b.WriteString(" · exit " + strconv.Itoa(*r.ExitCode))
		}
		b.WriteString("</span>")
	}
	b.WriteString("\n  </summary>")
	return template.HTML(b.String())
}

// writeEscaped writes s as html/template writes a string into text or a
// quoted attribute: & < > " ' + as entities, NUL as U+FFFD, the rest as
// it is. (These are all ASCII, and no byte of a longer UTF-8 sequence is,
// so a byte at a time finds them.)
func writeEscaped(b *strings.Builder, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		if r := entities[s[i]]; r != "" {
			b.WriteString(s[last:i])
			b.WriteString(r)
			last = i + 1
		}
	}
	b.WriteString(s[last:])
}

// entities are html/template's replacements for text and quoted
// attribute values.
var entities = [256]string{0: "\uFFFD", '"': "&#34;", '&': "&amp;", '\'': "&#39;", '+': "&#43;", '<': "&lt;", '>': "&gt;"}
