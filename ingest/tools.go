package ingest

import (
	"maps"
	"strings"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// Tools is what a reader knows of its agent's tools and harness.
type Tools struct {
	// Kinds classifies the agent's tools by their lower-cased names. A name
	// it does not list is classified by CommonKinds, then as an MCP tool by
	// its prefix, or else as other.
	Kinds map[string]transcript.ToolKind
	// Injected are the starts of text the agent's harness puts on the
	// user's side of the conversation (environment dumps, instructions,
	// command wrappers): such messages are kept, but shown muted, and never
	// start a turn.
	Injected []string
	// Args names the input fields its tools say what views show in; nil
	// is CommonArgs.
	Args *ArgNames
}

// CommonKinds are the tool names that mean the same in every agent that
// uses them.
var CommonKinds = map[string]transcript.ToolKind{
	"bash": transcript.ShellTool, "shell": transcript.ShellTool,

	"read": transcript.ReadTool, "read_file": transcript.ReadTool, "cat": transcript.ReadTool,
	"ls": transcript.ReadTool, "list": transcript.ReadTool, "list_dir": transcript.ReadTool,

	"write": transcript.WriteTool, "write_file": transcript.WriteTool, "create_file": transcript.WriteTool,

	"edit": transcript.EditTool, "edit_file": transcript.EditTool, "patch": transcript.EditTool,

	"grep": transcript.SearchTool, "glob": transcript.SearchTool, "search": transcript.SearchTool,
	"find": transcript.SearchTool, "websearch": transcript.SearchTool, "web_search": transcript.SearchTool,

	"webfetch": transcript.WebTool, "web_fetch": transcript.WebTool, "fetch": transcript.WebTool,

	"task": transcript.TaskTool, "agent": transcript.TaskTool, "todowrite": transcript.TaskTool,
	"todoread": transcript.TaskTool,
}

// Kind classifies the tool name.
func (t *Tools) Kind(name string) transcript.ToolKind {
	n := strings.ToLower(name)
	if k, ok := t.Kinds[n]; ok {
		return k
	}
	if k, ok := CommonKinds[n]; ok {
		return k
	}
	if strings.HasPrefix(n, "mcp__") || strings.HasPrefix(n, "mcp_") || strings.Contains(n, "/mcp/") {
		return transcript.MCPTool
	}
	return transcript.OtherTool
}

// IsInjected reports whether text was put there by the agent's harness
// rather than typed by the user.
func (t *Tools) IsInjected(text string) bool {
	s := strings.TrimLeft(text, " \t\r\n")
	for _, p := range t.Injected {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// Join returns tools that know what each of ts knows: the tools of a
// format that records the sessions of several agents.
func Join(ts ...*Tools) *Tools {
	out := &Tools{Kinds: map[string]transcript.ToolKind{}}
	for _, t := range ts {
		maps.Copy(out.Kinds, t.Kinds)
		out.Injected = append(out.Injected, t.Injected...)
	}
	return out
}

// fill sets the Args of every tool call of s. It runs once s is merged,
// redacted and its results paired: what a call's Args hold is what its
// redacted input says, and a question's answers are in its result.
func (t *Tools) fill(s *transcript.Session) {
	names := t.Args
	if names == nil {
		names = CommonArgs
	}
	s.Parts(func(_ *transcript.Message, p *transcript.Part) {
		if p.Call != nil {
			names.Fill(p.Call)
		}
	})
}
