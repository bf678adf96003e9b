package render

import (
	"bytes"
	"html/template"
	"io/fs"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// TestOutputBodyIsWhatThePartialWrites: OutputBody writes what the shipped
// output-body.html does, for outputs empty, of one line, folded, huge,
// JSON shown as YAML, coloured, and with every byte the escaper changes;
// with and without an exit code and images.
func TestOutputBodyIsWhatThePartialWrites(t *testing.T) {
	text, err := fs.ReadFile(transcriptsite.FS, "templates/partials/output-body.html")
	if err != nil {
		t.Fatal(err)
	}
	tpl := template.Must(template.New("").Funcs(Funcs()).Parse(string(text)))
	lines := func(n int, s string) string { return strings.TrimSuffix(strings.Repeat(s+"\n", n), "\n") }
	outputs := []string{
		"", "\n", "one line", "two\nlines\n", lines(FoldLines, "x"), lines(FoldLines+1, "y"), lines(FoldLines+5, `<b a="1">&'+</b>`),
		lines(maxHighlightLines+10, "huge"), strings.Repeat("z", maxHighlightBytes+1),
		`{"stdout": "a\nb\nc", "code": 0}`, "\x1b[31mred\x1b[0m and \x1b[1mbold\x1b[0m\nnext", "nul\x00byte \xff\xfe",
	}
	zero, two := 0, 2
	n, seen := 0, map[string]bool{}
	for _, out := range outputs {
		for _, code := range []*int{nil, &zero, &two} {
			for _, images := range [][]*transcript.Image{nil, {{MediaType: "image/png"}}} {
				r := &transcript.ToolResult{Output: out, ExitCode: code, Images: images, IsError: code == &two}
				var want bytes.Buffer
				if err := tpl.Execute(&want, r); err != nil {
					t.Fatal(err)
				}
				if got := string(OutputBody(r)); got != want.String() {
					t.Errorf("output %.40q, exit code %v, %d images:\n%s\nthe partial wrote\n%s", out, code, len(images), got, want.String())
				}
				for _, mark := range []string{`class="exit-code"`, `class="more"`, `class="truncated"`, `class="no-output"`, `<span class="ansi`} {
					seen[mark] = seen[mark] || strings.Contains(want.String(), mark)
				}
				n++
			}
		}
	}
	for _, mark := range []string{`class="exit-code"`, `class="more"`, `class="truncated"`, `class="no-output"`, `<span class="ansi`} {
		if !seen[mark] {
			t.Errorf("no output was written with %s: the test leaves it untried", mark)
		}
	}
	if n == 0 {
		t.Fatal("no outputs tried")
	}
}
