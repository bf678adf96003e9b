package ingest_test

import (
	"testing"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

func TestToolKinds(t *testing.T) {
	for _, c := range []struct {
		tools *ingest.Tools
		name  string
		want  transcript.ToolKind
	}{
		{ingest.ClaudeTools, "Bash", transcript.ShellTool},
		{ingest.CodexTools, "exec_command", transcript.ShellTool},
		{ingest.ClaudeTools, "Read", transcript.ReadTool},
		{ingest.ClaudeTools, "Write", transcript.WriteTool},
		{ingest.ClaudeTools, "MultiEdit", transcript.EditTool},
		{ingest.CodexTools, "apply_patch", transcript.EditTool},
		{ingest.ClaudeTools, "Grep", transcript.SearchTool},
		{ingest.ClaudeTools, "WebSearch", transcript.SearchTool},
		{ingest.ClaudeTools, "WebFetch", transcript.WebTool},
		{ingest.ClaudeTools, "Task", transcript.TaskTool},
		{ingest.ClaudeTools, "TodoWrite", transcript.TaskTool},
		{ingest.ClaudeTools, "mcp__github__create_issue", transcript.MCPTool},
		{ingest.ClaudeTools, "frobnicate", transcript.OtherTool},
		// A name is the agent's: Codex's apply_patch is not Gemini's.
		{ingest.GeminiTools, "apply_patch", transcript.OtherTool},
		{ingest.SpecstoryTools, "apply_patch", transcript.EditTool}, // SpecStory records Codex
	} {
		if got := c.tools.Kind(c.name); got != c.want {
			t.Errorf("Kind(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestIsInjected(t *testing.T) {
	for _, c := range []struct {
		tools *ingest.Tools
		text  string
		want  bool
	}{
		{ingest.ClaudeTools, "<system-reminder>the file changed</system-reminder>", true},
		{ingest.ClaudeTools, "\n <command-name>/clear</command-name>", true},
		{ingest.CodexTools, "<environment_context>cwd</environment_context>", true},
		{ingest.ClaudeTools, "<environment_context>cwd</environment_context>", false},
		{ingest.SpecstoryTools, "<environment_context>cwd</environment_context>", true},
		{ingest.ClaudeTools, "Please look at <system-reminder> handling", false},
		{ingest.ClaudeTools, "fix the bug", false},
	} {
		if got := c.tools.IsInjected(c.text); got != c.want {
			t.Errorf("IsInjected(%q) = %v", c.text, got)
		}
	}
}
