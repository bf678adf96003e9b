package transcript

// Args are what a tool call's input says, in the model's terms: the
// reader that knows its agent's names for them fills them (ingest.Tools),
// and pages and exports read them, never the input's own fields. Which
// are set depends on the tool; Input keeps the call as the agent wrote it.
type Args struct {
	// Summary says in a line what the call did: a shell call's command,
	// a search's pattern, the file a call works on, what it is for.
	Summary     string
	Path        string // the file a call reads, writes or edits; the folder a search looks in
	Command     string // the command line a shell call runs
	Description string // what the agent says the call is for
	Pattern     string // what a search looks for: a pattern, a glob or a query
	Query       bool   // the search is a query of words, not a pattern
	Files       string // which files a search looks in, beside its pattern (a glob, a type)
	URL         string // the page a call fetches
	Prompt      string // what a fetched page or a subagent is asked
	Agent       string // the kind of subagent a task starts
	Offset      string // the line a read starts at, as the agent wrote it
	Limit       string // how many lines a read reads at most, as the agent wrote it
	Start       int    // the line a read's excerpt is numbered from when it does not number itself; 0 when unknown
	Content     string // what a write writes
	Edits       []Edit // the replacements an edit makes
	Patch       string // the patch an edit applies, as text (a unified diff or Codex's apply_patch)
	Plan        string // the plan a call proposes, as Markdown
	Todos       []Todo // the task list a call writes
	Questions   []Question
	// Web is what a web search found, read from its result.
	Web *WebResults
	// Rest are the fields of the input that the call's view does not show
	// otherwise, in the input's order: a parameter newer than its reader,
	// a flag such as a shell call's timeout. It is empty when the view
	// shows the input whole (an MCP tool's, a tool of no known kind).
	Rest []Field
}

// Field is a field of a tool call's input: its name, and its value as
// text (a string as it is, anything else as JSON).
type Field struct{ Name, Value string }

// View names the view that shows a call: the one its Args call for (the
// questions it asks, the plan it proposes, the task list it writes, the
// subagent it starts, the pages a web search found), else its kind.
// Templates name their views so (templates/partials/tools/), and ingest
// knows by it which of the input's fields a page shows.
func (c *ToolCall) View() string {
	a := &c.Args
	switch {
	case len(a.Questions) > 0:
		return "question"
	case a.Plan != "":
		return "plan"
	case c.Kind == TaskTool && len(a.Todos) > 0:
		return "todo"
	case c.Kind == TaskTool:
		return "subagent"
	case c.Kind == SearchTool && a.Web != nil:
		return "websearch"
	}
	return string(c.Kind)
}

// Edit is one replacement of old text by new in a file. Where the agent
// reported the lines it changed, the call's result has them as a Patch.
type Edit struct{ Old, New string }

// Todo is one item of an agent's task list.
type Todo struct {
	Text   string
	Status string // "completed", "in_progress", "pending", or the agent's own word
}

// Question is one question an agent asked the user, with the options it
// offered and the user's answer, read from the call's result.
type Question struct {
	Header, Text string
	Options      []Option
	Multi        bool // several options may be chosen
	Answer       string
}

// Option is an answer the agent offered.
type Option struct{ Label, Description string }

// WebResults are the pages a web search found, and what the search tool
// wrote about them.
type WebResults struct {
	Pages []Page
	Text  string
}

// Page is a page a web search found.
type Page struct{ Title, URL string }
