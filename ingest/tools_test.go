package ingest

import (
	"testing"

	"github.com/transcriptsite/transcriptsite/transcript"
)

func TestToolKinds(t *testing.T) {
	for _, c := range []struct {
		tools *Tools
		name  string
		want  transcript.ToolKind
	}{
		{claudeTools, "Bash", transcript.ShellTool},
		{codexTools, "exec_command", transcript.ShellTool},
		{claudeTools, "Read", transcript.ReadTool},
		{claudeTools, "Write", transcript.WriteTool},
		{claudeTools, "MultiEdit", transcript.EditTool},
		{codexTools, "apply_patch", transcript.EditTool},
		{claudeTools, "Grep", transcript.SearchTool},
		{claudeTools, "WebSearch", transcript.SearchTool},
		{claudeTools, "WebFetch", transcript.WebTool},
		{claudeTools, "Task", transcript.TaskTool},
		{claudeTools, "TodoWrite", transcript.TaskTool},
		{claudeTools, "mcp__github__create_issue", transcript.MCPTool},
		{claudeTools, "frobnicate", transcript.OtherTool},
		// A name is the agent's: Codex's apply_patch is not Gemini's.
		{geminiTools, "apply_patch", transcript.OtherTool},
		{specstoryTools, "apply_patch", transcript.EditTool}, // SpecStory records Codex
	} {
		if got := c.tools.Kind(c.name); got != c.want {
			t.Errorf("Kind(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestIsInjected(t *testing.T) {
	for _, c := range []struct {
		tools *Tools
		text  string
		want  bool
	}{
		{claudeTools, "<system-reminder>the file changed</system-reminder>", true},
		{claudeTools, "\n <command-name>/clear</command-name>", true},
		{codexTools, "<environment_context>cwd</environment_context>", true},
		{claudeTools, "<environment_context>cwd</environment_context>", false},
		{specstoryTools, "<environment_context>cwd</environment_context>", true},
		{claudeTools, "Please look at <system-reminder> handling", false},
		{claudeTools, "fix the bug", false},
	} {
		if got := c.tools.IsInjected(c.text); got != c.want {
			t.Errorf("IsInjected(%q) = %v", c.text, got)
		}
	}
}
