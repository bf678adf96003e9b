package codex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// contextText is context Codex injected (the environment, AGENTS.md,
// permissions, a mode's instructions) as a page shows it: without the
// tags Codex wraps it in. A wrapper's name becomes a label, the settings
// it opens with a list, and what follows them stays the Markdown it is.
func contextText(s string) string {
	t := strings.TrimSpace(s)
	name, inner, ok := wrapped(t)
	if !ok {
		// "# AGENTS.md instructions for /w": a label, not the document's title.
		heading, body, _ := strings.Cut(instructionTags.Replace(t), "\n")
		return strings.TrimRight(boldHeading(heading)+"\n"+body, "\n")
	}
	fields, rest := elements(inner)
	var b strings.Builder
	b.WriteString("**" + label(name) + "**\n")
	if len(fields) > 0 {
		b.WriteString("\n")
	}
	for _, f := range fields {
		f.write(&b)
	}
	if rest = strings.TrimSpace(rest); rest != "" {
		b.WriteString("\n" + instructionTags.Replace(rest) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// instructionTags are the tags AGENTS.md's text is wrapped in, inside its
// heading's message.
var instructionTags = strings.NewReplacer("<INSTRUCTIONS>\n", "", "\n</INSTRUCTIONS>", "", "<INSTRUCTIONS>", "", "</INSTRUCTIONS>", "")

// labels name the wrappers whose tag says it poorly.
var labels = map[string]string{"environment_context": "Environment"}

func label(tag string) string {
	if l := labels[tag]; l != "" {
		return l
	}
	l := strings.ReplaceAll(tag, "_", " ")
	r, n := utf8.DecodeRuneInString(l)
	return string(unicode.ToUpper(r)) + l[n:]
}

// wrapped splits "<name>inner</name>" into its name and what it holds.
func wrapped(s string) (name, inner string, ok bool) {
	name, body, ok := openTag(s)
	if !ok {
		return "", "", false
	}
	inner, ok = strings.CutSuffix(body, "</"+name+">")
	return name, inner, ok
}

// openTag reads the tag s opens with: a name of letters, digits, '_',
// '-' and spaces ("permissions instructions"), and what follows it.
func openTag(s string) (name, rest string, ok bool) {
	if !strings.HasPrefix(s, "<") {
		return "", "", false
	}
	end := strings.IndexByte(s, '>')
	if end < 2 {
		return "", "", false
	}
	name = s[1:end]
	for i, r := range name {
		if !(unicode.IsLetter(r) || r == '_' || i > 0 && (unicode.IsDigit(r) || r == '-' || r == ' ')) {
			return "", "", false
		}
	}
	return name, s[end+1:], true
}

// field is a setting of injected context: <cwd>/w</cwd>, or a list of
// them (<writable_roots><root>/a</root><root>/b</root></writable_roots>).
type field struct {
	name   string
	values []string
}

// elements reads the settings s opens with, and returns them and the text
// after them.
func elements(s string) ([]field, string) {
	var out []field
	for {
		t := strings.TrimLeft(s, " \t\r\n")
		name, body, ok := openTag(t)
		if !ok {
			return out, s
		}
		value, rest, ok := strings.Cut(body, "</"+name+">")
		if !ok {
			return out, s
		}
		f := field{name: name}
		if subs, tail := elements(value); len(subs) > 0 && strings.TrimSpace(tail) == "" {
			for _, sub := range subs {
				f.values = append(f.values, sub.values...)
			}
		} else {
			f.values = []string{strings.Trim(value, "\r\n")}
		}
		out = append(out, f)
		s = rest
	}
}

// write writes the setting as a list item, or, when a value spans lines
// (a command's output), as a block under its name.
func (f field) write(b *strings.Builder) {
	name := strings.ReplaceAll(f.name, "_", " ")
	if len(f.values) == 1 && strings.Contains(f.values[0], "\n") {
		b.WriteString("\n" + name + ":\n\n" + fenced(f.values[0]) + "\n\n")
		return
	}
	var vs []string
	for _, v := range f.values {
		if v = strings.TrimSpace(v); v != "" {
			vs = append(vs, codeSpan(v))
		}
	}
	b.WriteString("- " + name + ": " + strings.Join(vs, ", ") + "\n")
}

// codeSpan is v as inline code, which keeps a path's underscores from
// reading as emphasis.
func codeSpan(v string) string {
	ticks := strings.Repeat("`", longestRun(v, '`')+1)
	if strings.HasPrefix(v, "`") || strings.HasSuffix(v, "`") {
		return ticks + " " + v + " " + ticks
	}
	return ticks + v + ticks
}

func longestRun(s string, c byte) int {
	n, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			n = max(n, run)
		} else {
			run = 0
		}
	}
	return n
}

// ideMarker ends the context the IDE extension and the Codex app put
// before a request ("# Context from my IDE setup:", "# Files mentioned
// by the user:"); what follows it is what the user typed.
const ideMarker = "## My request for Codex:"

// ideContextText is the context the IDE put before a request, as a page
// shows it: its headings ("## Open tabs:") as labels, the selection as
// code, and its other lines one to a line, as the IDE wrote them.
func ideContextText(ctx string) string {
	var b strings.Builder
	lines := strings.Split(ctx, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "## Active selection"):
			j := sectionEnd(lines, i+1)
			b.WriteString(boldHeading(l) + "\n\n" + fenced(strings.Trim(strings.Join(lines[i+1:j], "\n"), "\n")) + "\n")
			i = j - 1
		case strings.HasPrefix(l, "# ") || strings.HasPrefix(l, "## "):
			b.WriteString(boldHeading(l) + "\n\n")
			if blankAt(lines, i+1) {
				i++ // the blank line the heading had
			}
		case hardBreak(lines, i):
			b.WriteString(l + "  \n") // the IDE's lines are lines
		default:
			b.WriteString(l + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// sectionEnd is the index of the first "## " heading in lines from i on,
// or len(lines).
func sectionEnd(lines []string, i int) int {
	for i < len(lines) && !strings.HasPrefix(lines[i], "## ") {
		i++
	}
	return i
}

func blankAt(lines []string, i int) bool {
	return i < len(lines) && strings.TrimSpace(lines[i]) == ""
}

// hardBreak tells whether line i needs a hard break: it has text, and the
// next line is text that is not a list item.
func hardBreak(lines []string, i int) bool {
	return strings.TrimSpace(lines[i]) != "" && i+1 < len(lines) && !blankAt(lines, i+1) && !listItem(lines[i+1])
}

// boldHeading is a Markdown heading line as a label in bold.
func boldHeading(l string) string {
	if t := strings.TrimSpace(strings.TrimLeft(l, "#")); t != "" && strings.HasPrefix(l, "#") {
		return "**" + t + "**"
	}
	return l
}

func listItem(l string) bool {
	l = strings.TrimLeft(l, " ")
	return strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ")
}

// fenced is text as a fenced code block.
func fenced(text string) string {
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	return fence + "\n" + text + "\n" + fence
}

// ideRequest splits a prompt the IDE wrapped into the context it added
// and the user's request.
func ideRequest(s string) (context, request string, ok bool) {
	t := strings.TrimLeft(s, " \t\r\n")
	if !strings.HasPrefix(t, "# ") {
		return "", "", false
	}
	i := strings.Index(t, "\n"+ideMarker)
	if i < 0 {
		return "", "", false
	}
	request = t[i+1+len(ideMarker):]
	return ideContextText(strings.TrimSpace(t[:i])), strings.TrimSpace(request), true
}
