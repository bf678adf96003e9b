package specstory

import (
	"cmp"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"strings"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// How SpecStory's Markdown shows a tool call, in every layout: a summary
// line, then a body of labelled parts (the input, the result), fences, a
// diff in chunks, a task list, or prose. What it shows of the input
// becomes the call's JSON input again, in the names the agents' own
// tools use, so that the call's view and Args read it as theirs.

// tool is what a tool block shows of one call.
type tool struct {
	name, typ string
	line      int
	summary   string // the summary, less its "Tool use: **name**"
	body      []string
	// escaped is set when the block is HTML-escaped: its text is read as
	// it is (an escaped fence is no fence), and unescaped once read.
	escaped bool
}

// kinds are tools whose kind the Markdown knows better than the agents'
// readers: a folder's listing shows as a search's matches, and Cursor's
// newer tools have names of their own.
var kinds = map[string]transcript.ToolKind{
	"list_dir": transcript.SearchTool, "list_directory": transcript.SearchTool, "glob_file_search": transcript.SearchTool,
	"ripgrep_raw_search": transcript.SearchTool, "grep": transcript.SearchTool, "web_search": transcript.WebTool,
	"web_fetch": transcript.WebTool, "read_file_v2": transcript.ReadTool, "edit_file_v2": transcript.EditTool,
	"run_terminal_command_v2": transcript.ShellTool, "search_replace": transcript.EditTool, "write": transcript.WriteTool,
}

// types are SpecStory's types for tools beyond SessionData's.
var types = map[string]transcript.ToolKind{"mcp": transcript.MCPTool, "bash": transcript.ShellTool}

// toolKind classifies a tool of the Markdown by its name, as the
// agents' readers do, or else by SpecStory's type for it.
func toolKind(name, typ string) transcript.ToolKind {
	if k, ok := kinds[strings.ToLower(name)]; ok {
		return k
	}
	if k := Tools.Kind(name); k != transcript.OtherTool {
		return k
	}
	if k := cmp.Or(types[typ], dataToolKinds[typ]); k != "" {
		return k
	}
	return transcript.OtherTool
}

// summaries are the summaries Cursor's tools have, after "Tool use:
// **name** •" or alone (the extension's first layout): the tool, and the
// input fields their groups fill.
var summaries = []struct {
	re   *regexp.Regexp
	name string
	keys []string
}{
	{regexp.MustCompile(`^Read file: (.+)$`), "read_file", []string{"file_path"}},
	{regexp.MustCompile(`^Run command: (.+)$`), "run_terminal_cmd", []string{"command"}},
	{regexp.MustCompile(`^Edit file: (.+)$`), "edit_file", []string{"file_path"}},
	{regexp.MustCompile(`^Listed (?:current )?directory(?: (.+))?$`), "list_dir", []string{"path"}},
	{regexp.MustCompile(`^Searched codebase "(.*)"$`), "codebase_search", []string{"query"}},
	{regexp.MustCompile("^Searched web [`\"](.*)[`\"]$"), "web_search", []string{"query"}},
	{regexp.MustCompile(`^Grep(?: search)? for "(.*?)"(?: in "(.*)")?$`), "grep_search", []string{"pattern", "path"}},
	{regexp.MustCompile(`^Read lints for .*$`), "read_lints", nil},
	{regexp.MustCompile(`^MCP tool call$`), "mcp", nil},
	{regexp.MustCompile(`^Todo List$`), "todo_write", nil},
}

// countRE is the count of results a summary ends with: ", 0 results",
// " • **3** results in **1** directory", " • 2 matches".
var countRE = regexp.MustCompile(`(?:,| •) \**\d+\**\s+(?:results?|matches|match|files?)\b.*$`)

// mdSummary finds the summary of Cursor's s is: the tool's name, and
// what its groups give of the input.
func mdSummary(s string) (name string, keys, values []string) {
	s = countRE.ReplaceAllString(s, "")
	for _, sum := range summaries {
		if m := sum.re.FindStringSubmatch(s); m != nil {
			return sum.name, sum.keys, m[1:]
		}
	}
	return "", nil, nil
}

// summaryName is the tool a summary of Cursor's names, or "".
func summaryName(summary string) string {
	if name, _ := toolUse(summary); name != "" {
		return name
	}
	name, _, _ := mdSummary(summary)
	return name
}

// mdBody is what a tool block's body shows, read a line at a time.
type mdBody struct {
	kind    transcript.ToolKind
	main    string // the field a lone `value` fills
	in      mdArgs // what the body shows of the input
	guess   mdArgs // what the summary shows of it: the body's wins
	desc    []string
	out     []string
	result  bool // the block shows a result, perhaps empty
	isErr   bool
	input   bool // the input has been shown: prose is the result
	mode    mdMode
	patch   []string
	todos   []map[string]string
	server  string // an MCP call's server and tool
	tool    string
	toolDoc []string // an MCP tool's description
	params  []string // an MCP call's parameters, in order
	param   string   // the one being read
}

type mdMode int

const (
	none    mdMode = iota
	params         // after "Parameters:", "**Input:**"
	result         // after "Result:", "Output:", "**Error:**"
	extra          // after "Additional data:": Cursor's state of the call
	chunk          // after "**Chunk n**"
	todos          // after "Todo List:"
	toolDoc        // after "*Called tool*": the tool's description
)

// labels are the lines that say what the lines after them are.
var labels = map[string]mdMode{
	"Parameters:": params, "*Parameters*:": params, "**Input:**": params,
	"Result:": result, "*Result*:": result, "**Result:**": result, "Output:": result, "**Error:**": result,
	"Additional data:": extra, "Todo List:": todos, "Todo List": todos, "## Todo List": todos,
	"**Agent task list:**": todos,
}

var (
	calledRE = regexp.MustCompile(`^\*Called tool\*: (.+?) - ([^:]+):?\s*(.*)$`)
	paramRE  = regexp.MustCompile(`^  \* ([^\s:]+): ?(.*)$`)
	chunkRE  = regexp.MustCompile(`^\*\*Chunk \d+\*\*$`)
	countsRE = regexp.MustCompile(`^Lines added: \S+, lines removed: \S+$`)
	patchRE  = regexp.MustCompile("^\\*\\*(\\w+): `(.+)`\\*\\*$")
	pathRE   = regexp.MustCompile("^Path: `(.+)`$")
	todoRE   = regexp.MustCompile(`^[-*] \[(.)\] (.*)$`)
	itemRE   = regexp.MustCompile("^- ([\\w.-]+):(?: `(.*)`)?$")
	pairsRE  = regexp.MustCompile("^(?:[\\w-]+ `[^`]*`\\s*)+$")
	pairRE   = regexp.MustCompile("([\\w-]+) `([^`]*)`")
	argRE    = regexp.MustCompile("^`([^`]*)`(?: in `([^`]*)`)?$")
)

// mains are the fields a tool's main argument fills, by kind or name.
var mains = map[string]string{
	"list_dir": "path", "list_directory": "path", "view_image": "path",
	"shell": "command", "read": "file_path", "write": "file_path", "edit": "file_path", "search": "pattern", "web": "url",
}

// call maps a tool block to its call, and its result when it shows one.
func (sr *reader) call(t *tool) []*transcript.Part {
	kind := toolKind(t.name, t.typ)
	b := &mdBody{kind: kind, main: ingest.FirstNonEmpty(mains[strings.ToLower(t.name)], mains[string(kind)], "input"), in: mdArgs{}, guess: mdArgs{}}
	if t.escaped {
		t.summary = html.UnescapeString(t.summary)
	}
	b.summary(t.name, t.summary)
	for i := 0; i < len(t.body); i++ {
		i = b.line(t.body, i)
	}
	if t.escaped {
		b.unescape()
	}
	name := t.name
	if name == "mcp" {
		// The extension's first layout names an MCP call only in its body.
		name, b.kind = "mcp_"+b.server+"_"+b.tool, transcript.MCPTool
	}
	b.finish(sr, name)
	c := &transcript.ToolCall{ID: callID(t.line), Name: ingest.FirstNonEmpty(name, "unnamed tool"), Kind: b.kind, Input: b.in.json()}
	if !b.result && len(b.out) == 0 {
		return mdPair(c, nil)
	}
	out := strings.Trim(strings.Join(b.out, "\n"), "\n")
	isErr := b.isErr || strings.HasPrefix(out, rejected)
	return mdPair(c, &transcript.ToolResult{Output: out, IsError: isErr, ExitCode: ingest.ExitCode(out)})
}

// rejected starts what Claude Code tells the model of a call the user
// refused.
const rejected = "The user doesn't want to proceed with this tool use."

// callID names a call by the line it starts on: SpecStory keeps no ids.
func callID(line int) string { return fmt.Sprintf("tool-%d", line) }

// summary reads what a summary shows of the input: "`arg`" or
// "`pattern` in `path`" (the CLI's), or one of Cursor's.
func (b *mdBody) summary(name, s string) {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "• "))
	if s == "" {
		return
	}
	if m := argRE.FindStringSubmatch(s); m != nil {
		b.arg(m)
		return
	}
	sum, keys, values := mdSummary(s)
	if sum == "" {
		b.desc = append(b.desc, s) // a summary of the agent's own
		return
	}
	for i, k := range keys {
		if v := values[i]; v != "" && v != "undefined" {
			b.guess.set(summaryKey(name, k), v)
		}
	}
	// Prose after an edit's summary is its instructions, and lines after
	// a task list's are its tasks.
	b.input = sum != "edit_file"
	if sum == "todo_write" {
		b.mode = todos
	}
}

// arg reads the CLI's summary: "`arg`" or "`pattern` in `path`".
func (b *mdBody) arg(m []string) {
	b.guess.set(b.main, m[1])
	if m[2] != "" {
		b.guess.set("path", m[2])
	}
	b.input = true
}

// summaryKey is the input field a key of a summary stands for: the query
// in the summary of a codebase search is a glob.
func summaryKey(name, k string) string {
	if k == "query" && (strings.Contains(name, "glob") || strings.Contains(name, "file_search")) {
		return "pattern"
	}
	return k
}

// line reads the body's line i, and returns the last line it read.
func (b *mdBody) line(lines []string, i int) int {
	l := lines[i]
	t := strings.TrimSpace(l)
	if b.continues(l, t) {
		b.in[b.param] = b.in.str(b.param) + "\n" + l // a value of several lines
		return i
	}
	if mode, ok := labels[t]; ok {
		b.label(t, mode)
		return i
	}
	if open := fenceOf(t); open != "" {
		code, end := mdFence(lines, i, open)
		b.fence(strings.TrimSpace(t[len(open):]), code)
		return end
	}
	if t == "" {
		b.blank()
		return i
	}
	if b.special(l, t) {
		return i
	}
	return b.text(lines, i, l, t)
}

// continues reports whether line l goes on the value of the parameter
// before it.
func (b *mdBody) continues(l, t string) bool {
	return b.param != "" && t != "*Result*:" && !paramRE.MatchString(l)
}

// text reads a line of text by where in the body it is: a tool's
// description, the result, a parameter, or the input.
func (b *mdBody) text(lines []string, i int, l, t string) int {
	switch {
	case b.mode == toolDoc:
		b.toolDoc = append(b.toolDoc, l)
	case b.mode == result || b.input && b.mode != params:
		b.out = append(b.out, l)
		b.result = true
	case b.mode == params && itemRE.MatchString(t):
		i = b.item(lines, i, itemRE.FindStringSubmatch(t))
	default:
		b.inputLine(l, t)
	}
	return i
}

// label starts what a label line announces.
func (b *mdBody) label(t string, mode mdMode) {
	b.mode, b.param = mode, ""
	switch t {
	case "**Error:**":
		b.isErr = true
		fallthrough
	case "Result:", "*Result*:", "**Result:**", "Output:":
		b.result, b.input = true, true
	}
}

// blank keeps a blank line inside prose.
func (b *mdBody) blank() {
	switch {
	case b.mode == toolDoc:
		b.toolDoc = append(b.toolDoc, "")
	case len(b.out) > 0:
		b.out = append(b.out, "")
	case len(b.desc) > 0 && !b.input:
		b.desc = append(b.desc, "")
	}
}

// special reads the lines that mean the same wherever they are: an MCP
// call's header and parameters, a diff's chunk header, a patch's file, a
// path, a task. It reports whether line l was one.
func (b *mdBody) special(l, t string) bool {
	for _, sp := range specials {
		if !sp.when(b) {
			continue
		}
		if m := sp.re.FindStringSubmatch(sp.text(l, t)); m != nil {
			sp.read(b, m)
			return true
		}
	}
	return false
}

// specials read the special lines, in order: each when its pattern matches
// the line and the body is where the line can be.
var specials = []struct {
	re   *regexp.Regexp
	text func(l, t string) string // the line as it is, or trimmed
	when func(*mdBody) bool
	read func(b *mdBody, m []string)
}{
	{calledRE, trimmed, anywhere, (*mdBody).called},
	{paramRE, untrimmed, (*mdBody).inParams, (*mdBody).startParam},
	{chunkRE, trimmed, anywhere, func(b *mdBody, _ []string) { b.mode, b.input = chunk, true }},
	{countsRE, trimmed, anywhere, func(*mdBody, []string) {}},
	{patchRE, trimmed, anywhere, (*mdBody).patchFile},
	{pathRE, trimmed, anywhere, (*mdBody).path},
	{todoRE, trimmed, (*mdBody).inTodos, (*mdBody).todo},
}

func trimmed(_, t string) string   { return t }
func untrimmed(l, _ string) string { return l }
func anywhere(*mdBody) bool        { return true }

// called reads an MCP call's header: its server, its tool, and the tool's
// description.
func (b *mdBody) called(m []string) {
	b.server, b.tool, b.mode = m[1], m[2], toolDoc
	b.toolDoc = append(b.toolDoc, m[3])
}

// inParams reports whether the body is where an MCP call's parameters are.
func (b *mdBody) inParams() bool { return b.mode == params || b.mode == toolDoc }

// startParam reads a parameter's line, whose value may go on.
func (b *mdBody) startParam(m []string) {
	b.mode, b.param = params, m[1]
	b.params = append(b.params, m[1])
	b.in.set(m[1], m[2])
}

func (b *mdBody) patchFile(m []string) {
	b.patch = append(b.patch, "*** "+m[1]+" File: "+m[2])
	b.input = true
}

func (b *mdBody) path(m []string) {
	b.in.set(ingest.FirstNonEmpty(mains[string(b.kind)], "path"), m[1])
	b.input = true
}

// inTodos reports whether the body is where a task list can be: after a
// task list's summary, or before a task tool's input.
func (b *mdBody) inTodos() bool {
	return b.mode == todos || b.kind == transcript.TaskTool && !b.input
}

func (b *mdBody) todo(m []string) {
	b.todos = append(b.todos, map[string]string{"content": m[2], "status": todoStatus(m[1])})
}

// todoStatus reads a task's box: [x] done, [-] or [⚡] under way.
func todoStatus(box string) string {
	switch box {
	case "x", "X", "✓":
		return "completed"
	case "-", "⚡", "~", "◐":
		return "in_progress"
	}
	return "pending"
}

// inputLine reads a line of the input before the result: a lone `value`,
// "key `value`" pairs, or prose that says what the call is for.
func (b *mdBody) inputLine(l, t string) {
	switch {
	case len(t) > 2 && t[0] == '`' && t[len(t)-1] == '`' && !strings.Contains(t[1:len(t)-1], "`"):
		b.in.set(b.main, t[1:len(t)-1])
		b.input = true
	case pairsRE.MatchString(t):
		for _, m := range pairRE.FindAllStringSubmatch(t, -1) {
			b.in.set(m[1], m[2])
		}
		b.input = true
	case itemRE.MatchString(t):
		m := itemRE.FindStringSubmatch(t)
		b.in.set(m[1], m[2])
	default:
		b.desc = append(b.desc, l)
	}
}

// item reads a "- name: value" item on line i, whose value, when empty, is
// in the fence that follows; it returns the last line it read.
func (b *mdBody) item(lines []string, i int, m []string) int {
	v := m[2]
	if v == "" {
		for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) == "" {
			i++
		}
		if i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "```") {
			v, i = mdFence(lines, i+1, "```")
		}
	}
	b.in.set(m[1], v)
	return i
}

// fence reads a fenced block: by the label before it, or else by what
// the tool's kind shows in one.
func (b *mdBody) fence(info, code string) {
	switch {
	case b.mode == params && info == "json" && b.in.merge(code):
	case b.mode == params:
		b.in.set("input", code)
	case b.mode == extra:
		b.in.setJSON("additional_data", code)
	case b.mode == result:
		b.out = append(b.out, code)
	case b.mode == chunk:
		b.patch = append(b.patch, diffLines(code)...)
	case info == "diff" && (b.kind == transcript.EditTool || b.kind == transcript.WriteTool):
		b.patch = append(b.patch, code)
		b.input = true
	default:
		b.kindFence(info, code)
	}
}

// kindFence reads a fence no label explains: a command, a file's content,
// or, once the input has been shown or in plain text, the result.
func (b *mdBody) kindFence(info, code string) {
	switch {
	case b.kind == transcript.ShellTool && shellLangs[info] && b.in["command"] == nil:
		b.in.set("command", code)
		b.input = true
	case b.kind == transcript.WriteTool && b.in["content"] == nil:
		b.in.set("content", code)
		b.input = true
	case b.kind == transcript.ReadTool || b.input || info == "text" || info == "":
		b.out = append(b.out, code)
		b.result, b.input = true, true
	default:
		b.desc = append(b.desc, "```"+info, code, "```") // code the input shows
	}
}

// unescape undoes the HTML escapes of what the body showed.
func (b *mdBody) unescape() {
	for _, ls := range [][]string{b.out, b.desc, b.patch, b.toolDoc} {
		for i, l := range ls {
			ls[i] = html.UnescapeString(l)
		}
	}
	for _, in := range []mdArgs{b.in, b.guess} {
		for k, v := range in {
			if s, ok := v.(string); ok {
				in[k] = html.UnescapeString(s)
			}
		}
	}
	for _, todo := range b.todos {
		todo["content"] = html.UnescapeString(todo["content"])
	}
}

// diffLines reads a chunk of Cursor's diff, whose lines have a space
// after their mark ("+ x"), as a unified diff's ("+x").
func diffLines(code string) []string {
	var out []string
	for _, l := range strings.Split(code, "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
		case l == "":
			l = " "
		case len(l) >= 2 && strings.ContainsRune("+- ", rune(l[0])) && l[1] == ' ':
			l = l[:1] + l[2:]
		}
		out = append(out, l)
	}
	return out
}

// finish sets what the whole body shows: the guesses from the summary,
// the description, the patch, the task list, and an MCP tool's
// description the first time the session calls it.
func (b *mdBody) finish(sr *reader, name string) {
	for k, v := range b.guess {
		b.in.set(k, v)
	}
	if d := strings.TrimSpace(strings.Join(b.desc, "\n")); d != "" {
		// An edit's prose is Cursor's instructions for it.
		b.in.set(map[bool]string{true: "instructions", false: "description"}[b.kind == transcript.EditTool || len(b.patch) > 0], d)
	}
	if doc := strings.TrimSpace(strings.Join(b.toolDoc, "\n")); doc != "" && !sr.described[name] {
		sr.described[name] = true
		b.in.set("tool_description", doc)
	}
	if len(b.todos) > 0 {
		b.in.set("todos", b.todos)
	}
	for _, k := range b.params {
		b.in[k] = paramValue(b.in.str(k))
	}
	if len(b.patch) > 0 {
		b.setPatch()
	}
}

// paramValue is the value of an MCP call's parameter: as JSON when it
// reads as a number, a boolean or JSON, for it was that.
func paramValue(s string) any {
	s = strings.TrimRight(s, "\n")
	if t := strings.TrimSpace(s); t != "" && t[0] != '"' && json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	return s
}

// setPatch sets an edit's patch, or a written file's content when the
// patch only adds it.
func (b *mdBody) setPatch() {
	if b.kind == transcript.WriteTool {
		if content, ok := mdAdded(b.patch); ok {
			b.in.set("content", content)
			return
		}
		b.kind = transcript.EditTool
	}
	b.in.set("patch", strings.Join(b.patch, "\n"))
}

// mdAdded returns the lines a patch adds, when it only adds lines to an
// empty file.
func mdAdded(patch []string) (string, bool) {
	var added []string
	for _, l := range patch {
		switch {
		case strings.HasPrefix(l, "+"):
			added = append(added, l[1:])
		case l == "-" || l == " " || strings.HasPrefix(l, "@@") || strings.HasPrefix(l, "*** Add File: "):
		default:
			return "", false
		}
	}
	return strings.Join(added, "\n"), len(added) > 0
}

// mdArgs are a tool's input as SpecStory shows it: the first value of each
// name is kept.
type mdArgs map[string]any

func (in mdArgs) set(k string, v any) {
	if _, ok := in[k]; !ok {
		in[k] = v
	}
}

// str is the value of k as text.
func (in mdArgs) str(k string) string {
	s, _ := in[k].(string)
	return s
}

// setJSON sets k to the JSON text v as it is, or as text when it is not
// JSON.
func (in mdArgs) setJSON(k, v string) {
	if json.Valid([]byte(v)) {
		in.set(k, json.RawMessage(v))
		return
	}
	in.set(k, v)
}

// merge adds the fields of the JSON object code, and reports whether it
// was one.
func (in mdArgs) merge(code string) bool {
	var fields map[string]json.RawMessage
	if json.Unmarshal([]byte(code), &fields) != nil || fields == nil {
		return false
	}
	for k, v := range fields {
		in.set(k, v)
	}
	return true
}

// json is the input as a JSON object, "<" and "&" as they are.
func (in mdArgs) json() string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]any(in))
	return strings.TrimSuffix(b.String(), "\n")
}
