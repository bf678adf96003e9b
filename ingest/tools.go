package ingest

import (
	"maps"
	"strings"
	"sync"

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

	of   []string // formats whose readers' tools these join (ToolsOf)
	once sync.Once
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
	t.join()
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
	t.join()
	s := strings.TrimLeft(text, " \t\r\n")
	for _, p := range t.Injected {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// ToolsOf returns tools that know what the tools of the registered
// readers of formats know: those of a format that records the sessions of
// other agents. They are joined when first used, once every reader has
// registered.
func ToolsOf(formats ...string) *Tools { return &Tools{of: formats} }

func (t *Tools) join() {
	if t.of == nil {
		return
	}
	t.once.Do(func() {
		kinds := map[string]transcript.ToolKind{}
		for _, f := range t.of {
			for _, r := range Readers {
				if r.Name == f {
					maps.Copy(kinds, r.Tools.Kinds)
					t.Injected = append(t.Injected, r.Tools.Injected...)
				}
			}
		}
		t.Kinds = kinds
	})
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
