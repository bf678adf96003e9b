package site

import (
	"bytes"
	"os"
	"strings"
	"testing"

	transcriptsite "github.com/transcriptsite/transcriptsite"
	"github.com/transcriptsite/transcriptsite/internal/htmlcheck"
	"github.com/transcriptsite/transcriptsite/site/siteconfig"
	"github.com/transcriptsite/transcriptsite/site/theme"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// A call an agent wrote its own view of (SpecStory's summary and formatted
// Markdown) shows that view first, and what the tool was given and gave
// back folded under it.
func TestToolPartialFormattedView(t *testing.T) {
	tpl, err := theme.Load(siteconfig.Overlay{Upper: os.DirFS(t.TempDir()), Lower: transcriptsite.FS})
	if err != nil {
		t.Fatal(err)
	}
	s := &transcript.Session{ID: "s", Format: "specstory"}
	st, _ := testSite(&Config{}, s)
	page := &Page{Site: st, Kind: "session", Path: st.Sessions[0].Path, Session: st.Sessions[0]}
	call := &transcript.ToolCall{Name: "apply_patch", Kind: transcript.EditTool, Input: `{"input":"*** Begin Patch\n*** End Patch"}`,
		Result: &transcript.ToolResult{Output: "Success. Updated <the> files", Paired: true}}
	part := &transcript.Part{Kind: transcript.CallPart, Call: call, Name: "Tool use: **apply_patch** <one> file",
		Text: "Patched `cache_test.go`: the test **advances** a fake clock."}
	var buf bytes.Buffer
	if err := tpl["session"].ExecuteTemplate(&buf, "partials/tool.html", partView(part, page)); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	if err := htmlcheck.Fragment(got); err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	_, body, _ := strings.Cut(got, "</summary>")
	view, recorded, _ := strings.Cut(body, `<details class="recorded">`)
	summary, view, _ := strings.Cut(view, "Patched <code>")
	for _, c := range []struct{ name, in, want string }{
		{"the summary first", summary, "Tool use: <strong>apply_patch</strong> &lt;one&gt; file"},
		{"then the Markdown", view, "cache_test.go</code>: the test <strong>advances</strong>"},
		{"the output folded under it", recorded, "Success. Updated &lt;the&gt; files"},
	} {
		if !strings.Contains(c.in, c.want) {
			t.Errorf("%s: no %q in\n%s", c.name, c.want, c.in)
		}
	}
}
