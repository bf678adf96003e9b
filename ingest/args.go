package ingest

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// ArgNames are the names an agent's tools give, in their JSON input, to
// what a call's Args hold, each list by preference: the first field of it
// that the input has, not empty, gives the value.
type ArgNames struct {
	Path      []string // the file a call reads or edits
	WritePath []string // the file a write writes
	SearchIn  []string // the folder a search looks in
	Command   []string // a shell call's command line, a string or an argv array
	Pattern   []string // what a search looks for
	Query     []string // the words of a search that takes a query
	Files     []string // the files a search looks in, beside its pattern
	Beside    []string // the fields that make Files a filter beside a pattern
	URL       []string
	Prompt    []string
	Agent     []string // the kind of subagent a task starts
	Desc      []string // what the call is for
	Offset    []string // the line a read starts at, as shown
	Limit     []string // how many lines a read reads at most
	Start     []string // the line a read's excerpt is numbered from
	Content   []string // what a write writes
	Old, New  []string // an edit's old and new text
	Edits     []string // an array of {old, new} objects
	EditOld   []string // the old text, in an element of Edits
	EditNew   []string // the new text, in an element of Edits
	Patch     []string // the patch an edit applies
	Plan      []string // a plan's Markdown; an array here is a task list
	Todos     []string // arrays of task items; Plan's arrays are ones too
	TodoText  []string // an item's text
	Status    []string // an item's status
	Summary   []string // what says best what a call did, when nothing above does

	once sync.Once
	keep map[string]bool // every name above: the fields parseInput keeps
}

// CommonArgs are the names agents give their tools' inputs: Claude Code's,
// Codex's, Gemini CLI's, opencode's, Cursor's, … A reader whose agent
// names them otherwise gives its own.
var CommonArgs = &ArgNames{
	Path:      []string{"file_path", "path", "filePath", "absolute_path", "notebook_path"},
	WritePath: []string{"file_path", "path", "filePath"},
	SearchIn:  []string{"path", "dir_path", "directory"},
	Command:   []string{"command", "cmd"},
	Pattern:   []string{"pattern", "query", "regex", "glob"},
	Query:     []string{"query"},
	Files:     []string{"glob", "include", "type"},
	Beside:    []string{"pattern"},
	URL:       []string{"url"},
	Prompt:    []string{"prompt"},
	Agent:     []string{"subagent_type", "agent"},
	Desc:      []string{"description"},
	Offset:    []string{"offset"},
	Limit:     []string{"limit"},
	Start:     []string{"offset", "line", "start_line"},
	Content:   []string{"content", "contents", "text"},
	Old:       []string{"old_string", "old_str", "oldString"},
	New:       []string{"new_string", "new_str", "newString"},
	Edits:     []string{"edits"},
	EditOld:   []string{"old_string", "old_str"},
	EditNew:   []string{"new_string", "new_str"},
	Patch:     []string{"patch", "input", "diff"},
	Plan:      []string{"plan"},
	Todos:     []string{"todos", "plan"},
	TodoText:  []string{"content", "step", "description", "text", "title"},
	Status:    []string{"status"},
	Summary: []string{"file_path", "path", "filePath", "notebook_path", "pattern", "query",
		"url", "description", "prompt", "subject", "absolute_path", "dir_path"},
}

// Fill sets c.Args from its input and its result, by the names in n,
// and lists in Args.Rest the fields of the input the call's view does not
// show otherwise.
func (n *ArgNames) Fill(c *transcript.ToolCall) {
	n.once.Do(n.keepAll)
	in := parseInput(c.Input, n.keep)
	a := &c.Args
	a.Command = command(c.Input, in, n.Command, c.Kind == transcript.ShellTool)
	in.took(argCommand, in.pick(n.Command))
	a.Description = in.take(argDesc, n.Desc)
	a.URL = in.take(argURL, n.URL)
	a.Prompt = in.take(argPrompt, n.Prompt)
	a.Agent = in.take(argAgent, n.Agent)
	if a.Questions = questions(c); a.Questions != nil {
		in.took(argQuestions, "questions")
	}
	if p := in.take(argPlan, n.Plan); !isTaskList(p) {
		a.Plan = p
	} else {
		in.from[argPlan] = nil // a task list, not a plan
	}
	a.Path = in.take(argPath, n.Path)
	if set, ok := kindArgs[c.Kind]; ok {
		set(n, c, in)
	}
	a.Summary = cmpOr(a.Summary, command(c.Input, in, n.Command, true), in.first(n.Summary))
	a.Rest = rest(c, in)
}

// keepAll notes every name of n: the fields of an input worth parsing.
func (n *ArgNames) keepAll() {
	n.keep = map[string]bool{}
	for _, names := range n.all() {
		for _, k := range names {
			n.keep[k] = true
		}
	}
}

// isTaskList says whether a plan's text is JSON, an array or object: a
// task list, not a plan.
func isTaskList(p string) bool {
	return strings.HasPrefix(p, "[") || strings.HasPrefix(p, "{")
}

// kindArgs set the arguments only a call of each kind has.
var kindArgs = map[transcript.ToolKind]func(n *ArgNames, c *transcript.ToolCall, in *input){
	transcript.SearchTool: (*ArgNames).search,
	transcript.ReadTool:   (*ArgNames).readLines,
	transcript.WriteTool:  (*ArgNames).write,
	transcript.EditTool:   (*ArgNames).edits,
	transcript.TaskTool:   (*ArgNames).tasks,
}

// readLines sets the lines a read asks for.
func (n *ArgNames) readLines(c *transcript.ToolCall, in *input) {
	a := &c.Args
	a.Offset, a.Limit = in.take(argOffset, n.Offset), in.take(argLimit, n.Limit)
	a.Start, _ = strconv.Atoi(in.first(n.Start))
}

// write sets the file a write writes and what.
func (n *ArgNames) write(c *transcript.ToolCall, in *input) {
	c.Args.Path, c.Args.Content = in.take(argPath, n.WritePath), in.take(argContent, n.Content)
}

// tasks sets the task list a task tool writes.
func (n *ArgNames) tasks(c *transcript.ToolCall, in *input) {
	c.Args.Todos = n.todos(in)
}

// search sets what a search looks for and where, and the pages a web
// search found.
func (n *ArgNames) search(c *transcript.ToolCall, in *input) {
	a := &c.Args
	a.Pattern = in.take(argPattern, n.Pattern)
	a.Query = in.first(n.Query) != ""
	a.Path = in.take(argPath, n.SearchIn)
	if in.first(n.Beside) != "" {
		a.Files = in.take(argFiles, n.Files)
	}
	a.Summary = a.Pattern
	if r := c.Result; r != nil && !r.IsError && r.Output != "" {
		a.Web = webSearch(r.Output)
	}
}

// edits sets the replacements an edit makes: one old/new pair, an array
// of them, or a patch (the whole input of a freeform tool such as
// apply_patch).
func (n *ArgNames) edits(c *transcript.ToolCall, in *input) {
	a := &c.Args
	if old, new := in.first(n.Old), in.first(n.New); old != "" || new != "" {
		a.Edits = []transcript.Edit{{Old: old, New: new}}
		in.took(argEdits, in.pick(n.Old), in.pick(n.New))
		in.took(argEdits, append(in.empty(n.Old), in.empty(n.New)...)...)
		return
	}
	if key := in.pick(n.Edits); strings.HasPrefix(in.fields[key], "[") {
		in.took(argEdits, key)
		for i, e := range jsonObjects(in.fields[key]) {
			o := parseInput(e, n.keep)
			a.Edits = append(a.Edits, transcript.Edit{Old: o.take(argOld, n.EditOld), New: o.take(argNew, n.EditNew)})
			// What else an edit of the array says (Claude Code's
			// replace_all) is listed as the element's: "edits[1].replace_all".
			for _, f := range o.unshown(e, argOld, argNew) {
				f.Name = key + "[" + strconv.Itoa(i) + "]." + f.Name
				if in.inner == nil {
					in.inner = map[string][]transcript.Field{}
				}
				in.inner[key] = append(in.inner[key], f)
			}
		}
		return
	}
	a.Patch = in.take(argEdits, n.Patch)
	if a.Patch == "" && !strings.HasPrefix(strings.TrimSpace(c.Input), "{") {
		a.Patch = c.Input
	}
}

// todos reads a task list: Claude TodoWrite (todos: content, status),
// Codex update_plan (plan: step, status), Gemini write_todos (todos:
// description, status).
func (n *ArgNames) todos(in *input) []transcript.Todo {
	var out []transcript.Todo
	for _, key := range n.Todos {
		for _, o := range jsonObjects(in.fields[key]) {
			item := parseInput(o, n.keep)
			if text := item.first(n.TodoText); text != "" {
				out = append(out, transcript.Todo{Text: text, Status: item.first(n.Status)})
				in.took(argTodos, key)
			}
		}
	}
	return out
}

func cmpOr(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// command returns the command line an input names, joined when it is an
// argv array; or, when free is set, the input itself when it is not JSON
// (a command written as text).
func command(raw string, in *input, names []string, free bool) string {
	if v := in.first(names); v != "" {
		var argv []string
		if strings.HasPrefix(v, "[") && Unmarshal([]byte(v), &argv) == nil {
			return strings.Join(argv, " ")
		}
		return v
	}
	if free && !strings.HasPrefix(strings.TrimSpace(raw), "{") {
		return raw
	}
	return ""
}

// input is the top-level fields of a tool's JSON input, each as text: a
// string as it is, null as "", anything else as its JSON. It is empty when
// the input is not an object or does not parse to its end.
type input struct {
	fields map[string]string // the fields kept, by name
	names  []string          // the name of every field, in the input's order, once each
	// from names, for each of the Args a view may show, the fields its
	// value came from: the fields a page shows there.
	from [nArgs][]string
	// inner are fields inside a field's value that its view does not
	// show, by the field's name: "edits[1].replace_all".
	inner map[string][]transcript.Field
}

// arg is one of the Args a view may show.
type arg uint8

const (
	argPath arg = iota
	argCommand
	argDesc
	argURL
	argPrompt
	argAgent
	argQuestions
	argPlan
	argPattern
	argFiles
	argOffset
	argLimit
	argContent
	argEdits
	argTodos
	argOld // an element of an edits array's old text
	argNew // and its new text
	nArgs
)

// parseInput reads the input s once, keeping the values of only the
// fields named in keep, so that a large value no one asks for is not
// copied. The last of repeated names wins, as in encoding/json.
func parseInput(s string, keep map[string]bool) *input {
	in := &input{fields: map[string]string{}}
	ok := eachField(s, func(name string) bool { return keep[name] }, func(name string, v jsontext.Value) {
		if !slices.Contains(in.names, name) {
			in.names = append(in.names, name)
		}
		if v != nil {
			in.fields[name] = valueText(v)
		}
	})
	if !ok {
		return &input{}
	}
	return in
}

// eachField calls f with the name of each top-level field of the JSON
// object s, in order, and its value when read says to read it (nil when
// not). It reports whether s is an object that parses to its end.
func eachField(s string, read func(name string) bool, f func(name string, v jsontext.Value)) bool {
	if !strings.HasPrefix(strings.TrimLeft(s, " \t\r\n"), "{") {
		return false
	}
	dec := jsontext.NewDecoder(strings.NewReader(s), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return false
		}
		name := tok.String()
		if !read(name) {
			if dec.SkipValue() != nil {
				return false
			}
			f(name, nil)
			continue
		}
		v, err := dec.ReadValue()
		if err != nil {
			return false
		}
		f(name, v)
	}
	_, err := dec.ReadToken()
	return err == nil
}

// take returns the value of the first of names the input has, not
// empty, and notes its field as the one a's value came from, with those
// of names that are empty or null: a view that shows a's value shows
// all that they say.
func (in *input) take(a arg, names []string) string {
	k := in.pick(names)
	in.from[a] = nil
	in.took(a, k)
	in.took(a, in.empty(names)...)
	return in.fields[k]
}

// took notes the fields named as ones a's value came from.
func (in *input) took(a arg, names ...string) {
	for _, k := range names {
		if k != "" && !slices.Contains(in.from[a], k) {
			in.from[a] = append(in.from[a], k)
		}
	}
}

// views lists, by the name of a view (transcript.ToolCall.View), the Args
// it shows. A view not listed shows the input whole, as JSON.
var views = map[string][]arg{
	"shell":     {argCommand, argDesc},
	"read":      {argPath, argOffset, argLimit},
	"write":     {argPath, argContent},
	"edit":      {argPath, argEdits},
	"search":    {argPattern, argPath, argFiles},
	"websearch": {argPattern, argPath, argFiles},
	"web":       {argURL, argPrompt},
	"subagent":  {argAgent, argDesc, argPrompt},
	"todo":      {argTodos},
	"plan":      {argPlan},
	"question":  {argQuestions},
}

// rest returns the fields of c's input its view does not show, in the
// input's order, each with the fields inside it that the view does not
// show either. It is nil when the view shows the input whole: one not
// listed in views, or a shell call's with no command.
func rest(c *transcript.ToolCall, in *input) []transcript.Field {
	shows, ok := views[c.View()]
	if !ok || c.View() == "shell" && c.Args.Command == "" {
		return nil
	}
	fields := in.unshown(c.Input, shows...)
	var out []transcript.Field
	for _, name := range in.names {
		if len(fields) > 0 && fields[0].Name == name {
			out = append(out, fields[0]) // listed whole
			fields = fields[1:]
		} else {
			out = append(out, in.inner[name]...)
		}
	}
	return out
}

// unshown returns the fields of the input s, parsed as in, that are none
// of those the args shown came from, in order, each value as Field says.
func (in *input) unshown(s string, shown ...arg) []transcript.Field {
	rest := map[string]bool{}
	for _, k := range in.names {
		rest[k] = true
	}
	for _, a := range shown {
		for _, k := range in.from[a] {
			delete(rest, k)
		}
	}
	if len(rest) == 0 {
		return nil
	}
	var out []transcript.Field
	eachField(s, func(name string) bool { return rest[name] }, func(name string, v jsontext.Value) {
		if v == nil {
			return
		}
		if i := slices.IndexFunc(out, func(f transcript.Field) bool { return f.Name == name }); i >= 0 {
			out = slices.Delete(out, i, i+1) // the last of repeated names
		}
		out = append(out, transcript.Field{Name: name, Value: fieldText(v)})
	})
	slices.SortStableFunc(out, func(a, b transcript.Field) int {
		return slices.Index(in.names, a.Name) - slices.Index(in.names, b.Name)
	})
	return out
}

// fieldText is a field's value as a page lists it: a string as it is
// (an empty one as ""), anything else as JSON, on one line when it is
// short and indented when not.
func fieldText(v jsontext.Value) string {
	if v.Kind() == '"' {
		var str string
		if Unmarshal(v, &str) == nil && str != "" {
			return str
		}
	}
	v = v.Clone()
	if v.Compact() != nil {
		return string(v)
	}
	if len(v) > 60 && (v.Kind() == '{' || v.Kind() == '[') {
		v.Indent(jsontext.WithIndent("  "))
	}
	return string(v)
}

// all lists every list of names n holds.
func (n *ArgNames) all() [][]string {
	return [][]string{n.Path, n.WritePath, n.SearchIn, n.Command, n.Pattern, n.Query, n.Files, n.Beside,
		n.URL, n.Prompt, n.Agent, n.Desc, n.Offset, n.Limit, n.Start, n.Content, n.Old, n.New, n.Edits, n.EditOld,
		n.EditNew, n.Patch, n.Plan, n.Todos, n.TodoText, n.Status, n.Summary}
}

func valueText(v jsontext.Value) string {
	switch v.Kind() {
	case 'n':
		return ""
	case '"':
	default:
		return string(v)
	}
	var str string
	if Unmarshal(v, &str) != nil {
		return ""
	}
	return str
}

// first returns the value of the first of names the input has, not empty.
func (in *input) first(names []string) string { return in.fields[in.pick(names)] }

// pick returns the first of names the input has, not empty; "" if none.
func (in *input) pick(names []string) string {
	for _, k := range names {
		if in.fields[k] != "" {
			return k
		}
	}
	return ""
}

// empty returns those of names the input has empty or null.
func (in *input) empty(names []string) []string {
	var out []string
	for _, k := range names {
		if v, ok := in.fields[k]; ok && v == "" {
			out = append(out, k)
		}
	}
	return out
}

// jsonObjects returns the elements of a JSON array of objects, each as
// JSON text; anything else gives nil.
func jsonObjects(s string) []string {
	var raw []jsontext.Value
	if Unmarshal([]byte(s), &raw) != nil {
		return nil
	}
	out := make([]string, 0, len(raw))
	for _, r := range raw {
		if len(r) > 0 && r[0] == '{' {
			out = append(out, string(r))
		}
	}
	return out
}

// answerRE reads the answers from the result the agent got:
// User has answered your questions: "Which one?"="The first". …
var answerRE = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"="((?:[^"\\]|\\.)*)"`)

// questions returns the questions of a call that asks the user (Claude
// Code's AskUserQuestion), and the answers its result gives; nil for any
// other call.
func questions(c *transcript.ToolCall) []transcript.Question {
	var in struct {
		Questions []struct {
			Question    string `json:"question"`
			Header      string `json:"header"`
			MultiSelect bool   `json:"multiSelect"`
			Options     []struct {
				Label       string `json:"label"`
				Description string `json:"description"`
			} `json:"options"`
		} `json:"questions"`
	}
	if !strings.Contains(c.Input, `"questions"`) || Unmarshal([]byte(c.Input), &in) != nil {
		return nil
	}
	answers := map[string]string{}
	if c.Result != nil {
		for _, m := range answerRE.FindAllStringSubmatch(c.Result.Output, -1) {
			answers[unescape(m[1])] = unescape(m[2])
		}
	}
	var out []transcript.Question
	for _, q := range in.Questions {
		if q.Question == "" {
			continue
		}
		oq := transcript.Question{Header: q.Header, Text: q.Question, Multi: q.MultiSelect, Answer: answers[q.Question]}
		for _, o := range q.Options {
			oq.Options = append(oq.Options, transcript.Option(o))
		}
		out = append(out, oq)
	}
	return out
}

func unescape(s string) string {
	if u, err := strconv.Unquote(`"` + s + `"`); err == nil {
		return u
	}
	return s
}

// webSearch reads the result of Claude Code's WebSearch:
//
//	Web search results for query: "…"
//	Links: [{"title":"…","url":"…"}, …]
//	a summary of what was found
//
// Any other output gives nil.
func webSearch(output string) *transcript.WebResults {
	var w transcript.WebResults
	var text []string
	for _, l := range strings.Split(strings.TrimSuffix(output, "\n"), "\n") {
		if rest, ok := strings.CutPrefix(l, "Links: "); ok {
			var links []struct{ Title, URL string }
			if Unmarshal([]byte(rest), &links) == nil {
				for _, k := range links {
					w.Pages = append(w.Pages, transcript.Page{Title: k.Title, URL: k.URL})
				}
				continue
			}
		}
		if strings.HasPrefix(l, "Web search results for query: ") {
			continue
		}
		text = append(text, l)
	}
	if w.Pages == nil {
		return nil
	}
	w.Text = strings.TrimSpace(strings.Join(text, "\n"))
	return &w
}
