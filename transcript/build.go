package transcript

import "strings"

// StartsTurn reports whether m is a real user prompt: injected context and
// messages that only carry tool results do not start a turn.
func (m *Message) StartsTurn() bool {
	if m.Role != User || m.Meta {
		return false
	}
	for _, p := range m.Parts {
		if p.Kind == TextPart || p.Kind == ImagePart || p.Kind == CodePart {
			return true
		}
	}
	return false
}

// Append adds m to the session, opening a new turn at each real prompt.
func (s *Session) Append(m *Message) {
	if len(s.Turns) == 0 || m.StartsTurn() {
		s.Turns = append(s.Turns, Turn{})
	}
	t := &s.Turns[len(s.Turns)-1]
	t.Messages = append(t.Messages, m)
}

// Finish derives what readers need not set themselves: it pairs tool results
// with their calls, fills the time range from message times, collects models
// and sums usage when the reader did not.
func (s *Session) Finish() {
	s.Pair()
	var usage Usage
	for _, m := range s.Messages() {
		if !m.Time.IsZero() {
			if s.Started.IsZero() || m.Time.Before(s.Started) {
				s.Started = m.Time
			}
			if m.Time.After(s.Ended) {
				s.Ended = m.Time
			}
		}
		s.AddModel(m.Model)
		usage.Add(m.Usage)
	}
	if s.Usage.IsZero() {
		s.Usage = usage
	}
}

// Pair links each tool result to the call with the same id. A result with no
// matching call stays where it is and is shown on its own.
func (s *Session) Pair() {
	calls := map[string]*ToolCall{}
	s.Parts(func(_ *Message, p *Part) {
		if p.Call != nil && p.Call.ID != "" {
			calls[p.Call.ID] = p.Call
		}
	})
	s.Parts(func(_ *Message, p *Part) {
		r := p.Result
		if r == nil || r.CallID == "" {
			return
		}
		if c := calls[r.CallID]; c != nil && c.Result == nil {
			c.Result = r
			r.Paired = true
		}
	})
}

// toolKinds maps lower-cased tool names of every supported agent to a kind.
var toolKinds = map[string]ToolKind{
	"bash": ShellTool, "shell": ShellTool, "shell_command": ShellTool, "exec_command": ShellTool,
	"local_shell_call": ShellTool, "run_shell_command": ShellTool, "run_terminal_cmd": ShellTool,
	"bashoutput": ShellTool, "killshell": ShellTool, "execute_command": ShellTool,
	"killbash": ShellTool, "taskoutput": ShellTool,

	"read": ReadTool, "read_file": ReadTool, "view": ReadTool, "read_many_files": ReadTool,
	"notebookread": ReadTool, "cat": ReadTool, "ls": ReadTool, "list_directory": ReadTool,
	"list_dir": ReadTool,

	"write": WriteTool, "write_file": WriteTool, "create": WriteTool, "write_to_file": WriteTool,
	"create_file": WriteTool,

	"edit": EditTool, "multiedit": EditTool, "apply_patch": EditTool, "str_replace": EditTool,
	"str_replace_editor": EditTool, "str_replace_based_edit_tool": EditTool, "replace": EditTool,
	"notebookedit": EditTool, "edit_file": EditTool, "search_replace": EditTool, "patch": EditTool,

	"grep": SearchTool, "glob": SearchTool, "search": SearchTool, "find": SearchTool,
	"search_file_content": SearchTool, "codebase_search": SearchTool, "grep_search": SearchTool,
	"file_search": SearchTool, "websearch": SearchTool, "web_search": SearchTool,
	"google_web_search": SearchTool, "web_search_call": SearchTool, "toolsearch": SearchTool,

	"webfetch": WebTool, "web_fetch": WebTool, "fetch": WebTool,

	"task": TaskTool, "agent": TaskTool, "todowrite": TaskTool, "todoread": TaskTool,
	"update_plan": TaskTool, "write_todos": TaskTool, "todo_write": TaskTool,

	// codelia
	"read_line": ReadTool, "view_image": ReadTool, "tool_output_cache": ReadTool, "tool_output_cache_line": ReadTool,
	"tool_output_cache_grep": SearchTool, "todo_read": TaskTool, "todo_new": TaskTool, "todo_append": TaskTool,
	"todo_patch": TaskTool, "todo_clear": TaskTool,

	// Gemini CLI
	"delegate_to_agent": TaskTool, "codebase_investigator": TaskTool,

	// Roo Code's tools, which domarkx's roo_code action runs.
	"list_files": ReadTool, "list_code_definition_names": ReadTool, "view_code_definition": ReadTool,
	"apply_diff": EditTool, "insert_content": EditTool, "search_and_replace": EditTool, "modify_python_ast": EditTool,
	"search_files": SearchTool, "browser_action": WebTool, "use_mcp_tool": MCPTool, "access_mcp_resource": MCPTool,
	"new_task": TaskTool, "update_todo_list": TaskTool,

	// Codex CLI
	"spawn_agent": TaskTool, "write_stdin": ShellTool,

	"taskcreate": TaskTool, "taskupdate": TaskTool, "tasklist": TaskTool, "taskget": TaskTool,

	// Cursor
	"strreplace": EditTool, "editnotebook": EditTool, "delete": WriteTool, "delete_file": WriteTool,
	"readlints": ReadTool, "read_lints": ReadTool,

	// opencode
	"list": ReadTool, "codesearch": SearchTool,
}

// KindOf classifies a tool by its name.
func KindOf(name string) ToolKind {
	n := strings.ToLower(name)
	if k, ok := toolKinds[n]; ok {
		return k
	}
	if strings.HasPrefix(n, "mcp__") || strings.HasPrefix(n, "mcp_") || strings.Contains(n, "/mcp/") {
		return MCPTool
	}
	return OtherTool
}

// injectedPrefixes open text that an agent harness put into the user's side
// of the conversation: environment dumps, instructions, command wrappers.
var injectedPrefixes = []string{
	"<system-reminder>", "<command-name>", "<command-message>", "<command-args>",
	"<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>",
	"Caveat: The messages below were generated by the user while running local commands",
	"<environment_context>", "<user_instructions>", "# AGENTS.md instructions",
	"<permissions instructions>", "<session_context>", "<user_info>", "<bash-input>",
	"<bash-stdout>", "<bash-stderr>", "<task-notification>", "<user-prompt-submit-hook>",
	"This session is being continued from a previous conversation",
	// Gemini CLI: the environment bootstrap before <session_context> existed,
	// and the summary that replaces compressed history.
	"This is the Gemini CLI. We are setting up the context for our chat.", "<state_snapshot>",
	// Codex CLI
	"<user_shell_command>", "<turn_aborted>", "<subagent_notification>", "<skill>",
	"<user_action>", // a /review's findings, handed back to the model

	"<ide_opened_file>", "<ide_selection>", "<teammate-message",
	// Cursor: context it sends beside the <user_query> it wraps the prompt in
	"<attached_files>", "<open_and_recently_viewed_files>", "<cursor_commands>", "<system_reminder>",
	"<user_rules>", "<project_layout>", "<git_status>",
}

// IsInjected reports whether text was injected by the agent's harness rather
// than typed by the user. Such messages are kept, but shown muted and never
// start a turn.
func IsInjected(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n")
	for _, p := range injectedPrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}
