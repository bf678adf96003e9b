package site

import (
	"bytes"
	"os"
	"strings"
	"testing"

	transcriptsite "github.com/transcriptsite/transcriptsite"
	"github.com/transcriptsite/transcriptsite/site/siteconfig"
	"github.com/transcriptsite/transcriptsite/site/theme"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// TestViewShowsTheUserShellInTheFlow: a command the user ran themselves
// (Claude Code's "!", Pi's bashExecution) is theirs: shown in the flow as
// the user's, with the shell view, not folded into the context the agent
// injected, though readers mark it Meta.
func TestViewShowsTheUserShellInTheFlow(t *testing.T) {
	s := &transcript.Session{ID: "sh-1", Format: "pi"}
	ctx := &transcript.Message{Role: transcript.User, Meta: true, Parts: []*transcript.Part{{Kind: transcript.TextPart, Text: "Caveat: local commands follow"}}}
	shell := &transcript.Message{Role: transcript.User, Meta: true, Parts: []*transcript.Part{
		{Kind: transcript.CallPart, Call: &transcript.ToolCall{ID: "!1", Name: "bash", Kind: transcript.ShellTool, Input: `{"command":"git status"}`,
			Args: transcript.Args{Command: "git status", Summary: "git status"}}},
		{Kind: transcript.ResultPart, Result: &transcript.ToolResult{CallID: "!1", Output: "nothing to commit"}}}}
	for _, m := range []*transcript.Message{ctx, shell, ctx} {
		s.Append(m)
	}
	s.Finish()
	st, _ := testSite(&Config{}, s)
	page := &Page{Site: st, Kind: "session", Session: st.Session("sh-1", "pi")}
	page.Path = page.Session.Path
	tv := TurnViews(page, s)
	var kinds []bool
	for _, b := range tv[0].Blocks() {
		kinds = append(kinds, b.Context)
	}
	if len(kinds) != 3 || !kinds[0] || kinds[1] || !kinds[2] {
		t.Fatalf("blocks are context: %v, want [true false true]", kinds)
	}
	tpl, err := theme.Load(siteconfig.Overlay{Upper: os.DirFS(t.TempDir()), Lower: transcriptsite.FS})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tpl["session"].ExecuteTemplate(&buf, "partials/message.html", tv[0].Blocks()[1].Entries[0]); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{`user-shell`, `ran a command`, `class="tool tool-shell"`, "git status", "nothing to commit"} {
		if !strings.Contains(got, want) {
			t.Errorf("the user's command lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "is-meta") {
		t.Errorf("the user's command is shown muted, as context:\n%s", got)
	}
}
