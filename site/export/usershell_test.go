package export

import (
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// TestMarkdownShowsTheUserShell: a command the user ran themselves is
// theirs, not context the agent injected, though readers mark it Meta.
func TestMarkdownShowsTheUserShell(t *testing.T) {
	s := &transcript.Session{ID: "sh", Format: "claude-code"}
	s.Append(&transcript.Message{Role: transcript.User, Meta: true, Parts: []*transcript.Part{
		{Kind: transcript.TextPart, Text: "Caveat: local commands follow"}}})
	s.Append(&transcript.Message{Role: transcript.User, Meta: true, Parts: []*transcript.Part{
		{Kind: transcript.CallPart, Call: &transcript.ToolCall{ID: "!1", Name: "bash", Kind: transcript.ShellTool,
			Input: `{"command":"git status"}`, Args: transcript.Args{Command: "git status"}}},
		{Kind: transcript.ResultPart, Result: &transcript.ToolResult{CallID: "!1", Output: "nothing to commit"}}}})
	s.Finish()
	md := string(markdown(t, s, Options{}))
	_, shell, ok := strings.Cut(md, "## 2 · user · ran a command")
	if !ok {
		t.Fatalf("no heading for the user's command in:\n%s", md)
	}
	if strings.Contains(shell, "Context injected") || !strings.Contains(shell, "git status") || !strings.Contains(shell, "nothing to commit") {
		t.Errorf("the user's command is shown as:\n%s", shell)
	}
	if c := strings.Count(md, "Context injected"); c != 1 {
		t.Errorf("the caveat alone is context: %d context blocks in:\n%s", c, md)
	}
}
