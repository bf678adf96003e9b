package ingest_test

import (
	"testing"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/ingest/claude"
	"github.com/transcriptsite/transcriptsite/ingest/codex"
	"github.com/transcriptsite/transcriptsite/ingest/gemini"
	"github.com/transcriptsite/transcriptsite/ingest/specstory"
	"github.com/transcriptsite/transcriptsite/transcript"
)

func TestToolKinds(t *testing.T) {
	for _, c := range []struct {
		tools *ingest.Tools
		name  string
		want  transcript.ToolKind
	}{
		{claude.Tools, "Bash", transcript.ShellTool},
		{codex.Tools, "exec_command", transcript.ShellTool},
		{claude.Tools, "Read", transcript.ReadTool},
		{claude.Tools, "Write", transcript.WriteTool},
		{claude.Tools, "MultiEdit", transcript.EditTool},
		{codex.Tools, "apply_patch", transcript.EditTool},
		{claude.Tools, "Grep", transcript.SearchTool},
		{claude.Tools, "WebSearch", transcript.SearchTool},
		{claude.Tools, "WebFetch", transcript.WebTool},
		{claude.Tools, "Task", transcript.TaskTool},
		{claude.Tools, "TodoWrite", transcript.TaskTool},
		{claude.Tools, "mcp__github__create_issue", transcript.MCPTool},
		{claude.Tools, "frobnicate", transcript.OtherTool},
		// A name is the agent's: Codex's apply_patch is not Gemini's.
		{gemini.Tools, "apply_patch", transcript.OtherTool},
		{specstory.Tools, "apply_patch", transcript.EditTool}, // SpecStory records Codex
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
		{claude.Tools, "<system-reminder>the file changed</system-reminder>", true},
		{claude.Tools, "\n <command-name>/clear</command-name>", true},
		{codex.Tools, "<environment_context>cwd</environment_context>", true},
		{claude.Tools, "<environment_context>cwd</environment_context>", false},
		{specstory.Tools, "<environment_context>cwd</environment_context>", true},
		{claude.Tools, "Please look at <system-reminder> handling", false},
		{claude.Tools, "fix the bug", false},
	} {
		if got := c.tools.IsInjected(c.text); got != c.want {
			t.Errorf("IsInjected(%q) = %v", c.text, got)
		}
	}
}
