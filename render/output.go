package render

import (
	"html/template"
	"strconv"
	"strings"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// OutputBody is what a tool printed as the default theme's
// output-body.html shows it: its exit code, its first lines, the rest
// folded, and a link to the whole of a huge output; "No output." when it
// printed nothing and showed no image. Written in Go, as a call's header
// is (site/heads.go): a template took ten actions an output, at a few
// thousand instructions each. The theme calls it where a site leaves
// that partial as shipped; a test holds the two to the same bytes.
func OutputBody(r *transcript.ToolResult) template.HTML {
	var b strings.Builder
	f := Fold(ReadableOutput(r.Output))
	if r.ExitCode != nil {
		b.WriteString(`<span class="exit-code">exit code ` + strconv.Itoa(*r.ExitCode) + `</span>`)
	}
	switch {
	case r.Output != "":
		head, rest := CountLines(f.Head), CountLines(f.Rest)
		b.WriteString("\n  <pre class=\"output\">")
		b.WriteString(string(ANSI(f.Head)))
		b.WriteString("</pre>")
		if f.Rest != "" {
			b.WriteString("\n  <details class=\"more\"><summary><span class=\"closed\">Show all " + strconv.Itoa(f.Lines) +
				" lines</span><span class=\"opened\">Lines " + strconv.Itoa(head+1) + "–" + strconv.Itoa(head+rest) +
				"</span></summary><pre class=\"output rest\">")
			b.WriteString(string(ANSI(f.Rest)))
			b.WriteString("</pre></details>")
		}
		if f.File != "" { // OutputFile's name: out/, hex, .txt, nothing a URL or an attribute escapes
			b.WriteString("\n  <p class=\"truncated\">The page shows the first " + strconv.Itoa(head+rest) + " of " +
				strconv.Itoa(f.Lines) + " lines. <a href=\"" + f.File + "\">Open the full output</a> (plain text).</p>")
		}
	case len(r.Images) == 0:
		b.WriteString(`<p class="no-output">No output.</p>`)
	}
	return template.HTML(b.String())
}
