// Package domarkx reads the sessions of domarkx: Markdown documents an
// agent executes and appends to, and its JSON session snapshots.
package domarkx

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Reader reads domarkx sessions: the Markdown session documents domarkx
// executes and appends to, and the JSON Session Snapshot of `domarkx import`
// (snapshot.go).
var Reader = &ingest.Reader{
	Name:  "domarkx",
	Agent: "domarkx",
	Files: "domarkx session documents (any .md: front matter, session-config, ## speaker headings, blockquoted bodies) and Session Snapshot JSON files",
	Detects: "Markdown with a fence whose info string contains session-config before any ## heading, or a ## heading followed by a ```json msg-metadata fence; " +
		"a JSON object with snapshot_id and an execution_config object or a conversation array",
	Detect: detect,
	Read:   read,
	Tools:  Tools,
}

// Tools are the tools of Roo Code, which domarkx's roo_code action runs.
var Tools = &ingest.Tools{
	Kinds: map[string]transcript.ToolKind{
		"execute_command": transcript.ShellTool,
		"list_files":      transcript.ReadTool, "list_code_definition_names": transcript.ReadTool, "view_code_definition": transcript.ReadTool,
		"write_to_file": transcript.WriteTool,
		"apply_diff":    transcript.EditTool, "insert_content": transcript.EditTool, "search_and_replace": transcript.EditTool, "modify_python_ast": transcript.EditTool,
		"search_files":   transcript.SearchTool,
		"browser_action": transcript.WebTool,
		"use_mcp_tool":   transcript.MCPTool, "access_mcp_resource": transcript.MCPTool,
		"new_task": transcript.TaskTool, "update_todo_list": transcript.TaskTool,
	},
}

func init() { ingest.Register(Reader) }

func detect(h *ingest.Head) float64 {
	if rs := h.Records(); len(rs) > 0 {
		return ingest.When(!h.IsArray() && isSnapshot(rs[0]), ingest.Likely)
	}
	if text := h.Text(); text != "" {
		return ingest.When(isDocument(text), ingest.Maybe)
	}
	return 0
}

// isSnapshot knows a Session Snapshot by its id and its config or
// conversation.
func isSnapshot(r ingest.Record) bool {
	return r.Has("snapshot_id") && (r["execution_config"] == "{" || r["conversation"] == "[")
}

// isDocument knows a session document by a session-config before the
// first heading, or a heading followed by msg-metadata. domarkx only takes
// the session-config before the first message, so a README that shows one
// under a heading is not claimed.
func isDocument(text string) bool {
	lines := splitLines(text)
	_, start := frontMatter(lines)
	bs := splitBlocks(lines, start)
	first := len(bs)
	for i, b := range bs {
		if b.kind == headingBlock {
			first = i
			break
		}
	}
	for _, b := range bs[:first] {
		if b.isFence("session-config") {
			return true
		}
	}
	for i := first; i < len(bs); i++ {
		if _, ok := fenceAfter(bs, i+1, "msg-metadata"); bs[i].kind == headingBlock && ok {
			return true
		}
	}
	return false
}

// session accumulates the one session of a domarkx file.
type session struct {
	f       *ingest.File
	s       *transcript.Session
	model   string            // the client's model, from the setup script
	incl    []string          // [include] targets, never followed
	seen    map[string]bool   // incl, as a set
	ids     map[string]int    // synthetic call ids given so far
	pending map[string]*calls // by tool name: the calls <tool_output> may answer
	nmsg    int               // messages appended so far
}

// calls are the unanswered calls of one tool in the latest message that
// called it.
type calls struct {
	msg   int
	calls []*transcript.ToolCall
}

func read(ctx context.Context, f *ingest.File, r io.Reader) ([]*transcript.Session, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d := &session{f: f, s: &transcript.Session{ID: f.Rel, Meta: map[string]string{}}, ids: map[string]int{}, pending: map[string]*calls{}, seen: map[string]bool{}}
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(t) > 0 && t[0] == '{' {
		err = d.snapshot(data)
	} else {
		d.document(string(data))
	}
	d.done()
	if len(d.s.Turns) == 0 {
		return nil, err
	}
	return []*transcript.Session{d.s}, err
}

// done settles the session's Meta once it is read.
func (d *session) done() {
	if len(d.incl) > 0 {
		d.s.Meta["includes"] = strings.Join(d.incl, ", ")
	}
	if len(d.s.Meta) == 0 {
		d.s.Meta = nil
	}
}

// document reads a Markdown session document the way domarkx's
// chat_doc_parser does: front matter, session-config and setup script, then
// one message per ## heading with an optional msg-metadata fence and a
// blockquoted body.
func (d *session) document(text string) {
	lines := splitLines(text)
	d.includes(text)
	start := d.frontMatter(lines)
	bs := splitBlocks(lines, start)
	i := d.preamble(bs)
	for i < len(bs) {
		i = d.message(bs, i)
	}
	if n := len(bs); n > 0 && bs[n-1].kind == fence && !bs[n-1].closed {
		d.f.Warn(bs[n-1].line, "code fence is never closed: the rest of the file is read as its code")
	}
}

// frontMatter reads the YAML front matter into the session and returns the
// index of the line after it. YAML that does not parse is warned about and
// read as Markdown, as domarkx does.
func (d *session) frontMatter(lines []string) int {
	src, next := frontMatter(lines)
	if next == 0 {
		return 0
	}
	doc, err := yamlMapping(src)
	if err != nil {
		line, msg := yamlError(err)
		d.f.Warn(line, "front matter is not valid YAML (%s): read as Markdown", msg)
		return 0
	}
	if len(doc.Content) > 0 {
		m := doc.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			d.meta(m.Content[i].Value, yamlValue(m.Content[i+1]))
		}
	}
	return next
}

// yamlMapping parses front matter, which must be a mapping.
func yamlMapping(src []string) (*yaml.Node, error) {
	var doc yaml.Node
	err := yaml.Unmarshal([]byte(strings.Join(src, "\n")), &doc)
	if err == nil && len(doc.Content) > 0 && doc.Content[0].Kind != yaml.MappingNode {
		err = errors.New("not a mapping")
	}
	return &doc, err
}

// yamlError is the file line and the message of an error in front matter.
func yamlError(err error) (line int, msg string) {
	m := yamlLineRE.FindStringSubmatch(err.Error())
	if m == nil {
		return 1, err.Error()
	}
	n, _ := strconv.Atoi(m[1])
	return n + 1, m[2] // the YAML starts on line 2
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)`)

// yamlValue is a front matter value as text: a scalar as written, anything
// else as JSON.
func yamlValue(n *yaml.Node) string {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	var v any
	if n.Decode(&v) != nil {
		return ""
	}
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	return fmt.Sprint(v)
}

// meta records one key of the front matter or the snapshot's user metadata.
func (d *session) meta(k, v string) {
	switch {
	case strings.EqualFold(k, "title"):
		d.s.Title = strings.TrimSpace(v)
	case k != "" && v != "":
		d.s.Meta[k] = v
	}
}

// preamble reads what comes before the first message: the session-config,
// the setup script after it, and any other text, all in one Meta system
// message. It returns the index of the first heading.
func (d *session) preamble(bs []block) int {
	var setup []*transcript.Part
	var rest messageText
	config := false
	i := 0
	for ; i < len(bs) && bs[i].kind != headingBlock; i++ {
		if !config && bs[i].isFence("session-config") {
			config = true
			var parts []*transcript.Part
			parts, i = d.configBlocks(bs, i)
			setup = append(setup, parts...)
			continue
		}
		d.titleLine(bs[i])
		rest.add(bs[i])
	}
	m := &transcript.Message{Role: transcript.System, Meta: true, Parts: setup}
	d.addText(m, rest)
	if len(m.Parts) > 0 {
		d.append(m)
	}
	return i
}

// configBlocks reads the session-config at bs[i] and the setup script
// after it, and returns them with the index of the last block read.
func (d *session) configBlocks(bs []block, i int) ([]*transcript.Part, int) {
	b := bs[i]
	parts := []*transcript.Part{d.config([]byte(strings.Join(b.code, "\n")), b.line+1, codePart(b.info, b.code))}
	// The next block, whatever its language, is the setup script.
	if j, ok := fenceAfter(bs, i+1, ""); ok {
		parts = append(parts, d.setup(codePart(bs[j].info, bs[j].code)))
		i = j
	}
	return parts, i
}

// titleLine takes a # title line before the first message as the title,
// standing in for front matter.
func (d *session) titleLine(b block) {
	if lvl, t, ok := atxHeading(b.lines[0]); b.kind == other && ok && lvl == 1 && d.s.Title == "" {
		d.s.Title = t
	}
}

// message reads the message whose ## heading is bs[i] and returns the index
// of the next heading.
func (d *session) message(bs []block, i int) int {
	h := bs[i]
	var md map[string]json.RawMessage
	i++
	if j, ok := fenceAfter(bs, i, "msg-metadata"); ok {
		md = d.msgMeta([]byte(strings.Join(bs[j].code, "\n")), bs[j].line+1, h.text)
		i = j + 1
	}
	body, i := d.body(h, bs, i)
	m := d.newMessage(h.text, md)
	d.addText(m, body)
	d.append(m)
	return i
}

// body reads the body of the message under heading h, from bs[i] to the
// next heading, and returns it with the index of that heading. The body is
// the blockquote. Anything else under the heading is not part of the
// message for domarkx, but it is in the document, so it is kept as the
// message's text.
func (d *session) body(h block, bs []block, i int) (messageText, int) {
	var body messageText
	quoted, outside := false, 0
	for ; i < len(bs) && bs[i].kind != headingBlock; i++ {
		quoted = quoted || bs[i].kind == quote
		if k := bs[i].kind; k != quote && k != blank {
			outside = cmp.Or(outside, bs[i].line)
		}
		body.add(bs[i])
	}
	d.warnBody(h, quoted, outside)
	return body, i
}

// warnBody says what is amiss with the body of the message under heading
// h: no blockquote, or text outside it from line outside on (0 for none).
func (d *session) warnBody(h block, quoted bool, outside int) {
	switch {
	case !quoted && outside == 0:
		d.f.Warn(h.line, "message %q has no blockquote body", h.text)
	case !quoted:
		d.f.Warn(h.line, "message %q has no blockquote body: its unquoted text is kept", h.text)
	case outside > 0:
		d.f.Warn(outside, "text of message %q outside its blockquote is kept as its text", h.text)
	}
}

// msgMeta parses a message's metadata, warning when it is not a JSON object.
func (d *session) msgMeta(raw []byte, line int, speaker string) map[string]json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	var md map[string]json.RawMessage
	if err := ingest.Unmarshal(raw, &md); err != nil {
		d.f.Warn(jsonErrLine(err, raw, line), "msg-metadata of %q skipped: %v", speaker, err)
		return nil
	}
	return md
}

// jsonErrLine is the line of data's JSON error, when data starts on line first.
func jsonErrLine(err error, data []byte, first int) int {
	var off int64
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if first == 0 || off < 1 {
		return first
	}
	return first + bytes.Count(data[:min(int(off)-1, len(data))], []byte("\n"))
}

var (
	roles = map[string]transcript.Role{
		"system_message": transcript.System, "system": transcript.System,
		"user": transcript.User, "assistant": transcript.Assistant,
	}
	// types are autogen's LLMMessage types, which msg-metadata records.
	types = map[string]transcript.Role{
		"SystemMessage": transcript.System, "UserMessage": transcript.User,
		"AssistantMessage": transcript.Assistant, "FunctionExecutionResultMessage": transcript.Tool,
	}
)

// newMessage starts a message of the given speaker. Speakers are free text:
// one that is not a role keeps its name as a marker, and takes its role from
// the metadata's message type, or user.
func (d *session) newMessage(speaker string, md map[string]json.RawMessage) *transcript.Message {
	m := &transcript.Message{}
	role, ok := roles[strings.ToLower(strings.TrimSpace(speaker))]
	if !ok {
		role = cmp.Or(types[ingest.Text(md["type"])], transcript.User)
		m.Parts = append(m.Parts, ingest.EventPart("speaker", cmp.Or(speaker, "(no speaker)"), nil))
	}
	m.Role = role
	if role == transcript.Assistant {
		m.Model = d.model
	}
	// Metadata is almost always {source, type}, which the role says; show
	// it only when it says more.
	for k, v := range md {
		if k != "type" && (k != "source" || roles[ingest.Text(v)] == "") {
			b, _ := json.Marshal(md)
			m.Parts = append(m.Parts, ingest.EventPart("metadata", string(b), nil))
			break
		}
	}
	return m
}

// append adds m to the session. A user message that only carries tool
// output is the tools speaking, not a prompt.
func (d *session) append(m *transcript.Message) {
	results, other := 0, 0
	for _, p := range m.Parts {
		switch p.Kind {
		case transcript.ResultPart:
			results++
		case transcript.EventPart:
		default:
			other++
		}
	}
	if m.Role == transcript.User && results > 0 && other == 0 {
		m.Role = transcript.Tool
	}
	d.s.Append(m)
	d.nmsg++
}

// config records a session-config (execution_config): its type, version
// and model in Meta, or, lacking those, its JSON. The code part keeps it
// whole.
func (d *session) config(raw []byte, line int, p *transcript.Part) *transcript.Part {
	var cfg map[string]json.RawMessage
	if err := ingest.Unmarshal(raw, &cfg); err != nil {
		d.f.Warn(jsonErrLine(err, raw, line), "session-config is not a JSON object: %v", err)
		return p
	}
	typ, version, model := stringField(cfg, "type"), stringField(cfg, "version"), stringField(cfg, "model")
	if typ != "" {
		d.s.Meta["agent type"] = strings.TrimSpace(typ + " " + version)
	}
	if model != "" {
		d.model = model
		d.s.AddModel(model)
	}
	if typ == "" && model == "" {
		var b bytes.Buffer
		_ = json.Compact(&b, raw)
		d.s.Meta["config"] = b.String()
	}
	return p
}

// stringField is the value of a key of the config, only when it is a string.
func stringField(cfg map[string]json.RawMessage, key string) string {
	var s string
	_ = ingest.Unmarshal(cfg[key], &s)
	return s
}

// modelRE finds the model a setup script gives its client, skipping
// commented-out lines.
var modelRE = regexp.MustCompile(`(?m)^[^#\n]*\bmodel\s*=\s*["']([^"'\n]+)["']`)

// setup records the setup script: the model client the session ran with.
func (d *session) setup(p *transcript.Part) *transcript.Part {
	d.includes(p.Text)
	if m := modelRE.FindStringSubmatch(p.Text); m != nil && d.model == "" {
		d.model = m[1]
		d.s.AddModel(m[1])
	}
	return p
}

var includeRE = regexp.MustCompile(`(?im)^[ \t]*(?:>[ \t]*)*\[include\]\(([^)\n]+)\)[ \t]*\r?$`)

// includes records [include](path) lines, which domarkx resolves before
// parsing. They are references to other files, never followed.
func (d *session) includes(s string) {
	for _, m := range includeRE.FindAllStringSubmatch(s, -1) {
		if p := strings.TrimSpace(m[1]); !d.seen[p] {
			d.seen[p] = true
			d.incl = append(d.incl, p)
		}
	}
}

// tools are the roo_code tools domarkx runs, and Roo Code's other tools:
// their tags in assistant text are tool calls.
var tools = map[string]bool{
	"apply_diff": true, "ask_followup_question": true, "attempt_completion": true, "execute_command": true,
	"insert_content": true, "list_code_definition_names": true, "list_files": true, "modify_python_ast": true,
	"read_file": true, "search_and_replace": true, "search_files": true, "view_code_definition": true,
	"write_to_file": true, "browser_action": true, "use_mcp_tool": true, "access_mcp_resource": true,
	"switch_mode": true, "new_task": true, "fetch_instructions": true, "codebase_search": true,
	"update_todo_list": true,
}

var (
	tagRE  = regexp.MustCompile(`<([A-Za-z_][A-Za-z0-9_]*)(\s+tool_name\s*=\s*"([^"]*)")?\s*>`)
	exitRE = regexp.MustCompile(`退出码: (-?\d+)`)
)

// addText splits message text into parts: fenced blocks become code,
// <think> thinking, roo_code tool tags in assistant text calls, and
// <tool_output> blocks results. Tags are only seen outside fences, and
// fences inside a tag (a file being written) stay in it.
func (d *session) addText(m *transcript.Message, t messageText) {
	sc := &scan{d: d, m: m, t: t, s: strings.Join(t.lines, "\n")}
	sc.close = closers{s: sc.s, at: map[string]int{}}
	s := sc.s
	eol := -1 // the end of the line being scanned
	for pos := 0; pos < len(s); {
		if pos > eol {
			eol = lineEnd(s, pos)
		}
		lineStart := pos == 0 || s[pos-1] == '\n'
		if mark, info, ok := openFence(s[pos:eol]); ok && lineStart {
			sc.flush()
			var p *transcript.Part
			p, pos = fenceAt(s, eol, mark, info)
			m.Parts = append(m.Parts, p)
			continue
		}
		next, found := sc.tags(pos, eol, lineStart)
		if !found {
			sc.buf.WriteString(s[pos:next])
		}
		pos = next
	}
	sc.flush()
}

// lineEnd is the end of the line of s at pos: its newline, or the end of s.
func lineEnd(s string, pos int) int {
	if k := strings.IndexByte(s[pos:], '\n'); k >= 0 {
		return pos + k
	}
	return len(s)
}

// scan is the scan of a message's text for the tags that are parts of
// their own: a thought, a tool call, a tool's output.
type scan struct {
	d     *session
	m     *transcript.Message
	t     messageText
	s     string
	buf   strings.Builder // text not yet made a part
	close closers
	nl    int // lines before nlPos, counted as the scan moves on
	nlPos int
}

// closers finds the closing tags in a text, each searched once rather
// than once per opening tag.
type closers struct {
	s  string
	at map[string]int // where each tag's next closing tag is, -1 for none
}

// next returns where the next closing tag of name at or after from is, or -1.
func (c *closers) next(name string, from int) int {
	i, ok := c.at[name]
	if !ok || (i >= 0 && i < from) {
		if i = strings.Index(c.s[from:], "</"+name+">"); i >= 0 {
			i += from
		}
		c.at[name] = i
	}
	return i
}

// flush makes the text read since the last part a part.
func (sc *scan) flush() {
	txt := trimBlank(sc.buf.String())
	sc.buf.Reset()
	switch {
	case txt == "":
	case sc.m.Role == transcript.User:
		sc.m.Parts = append(sc.m.Parts, ingest.UserText(Tools, txt, &sc.m.Meta)...)
	default:
		sc.m.Parts = append(sc.m.Parts, &transcript.Part{Kind: transcript.TextPart, Text: txt})
	}
}

// tags looks in the line from pos to eol for the first tag that is a part
// and makes it one, with the text before it. It returns where the scan goes
// on: after the tag's closing tag, or else at the next line.
func (sc *scan) tags(pos, eol int, lineStart bool) (next int, found bool) {
	for q := pos; ; {
		loc := tagRE.FindStringSubmatchIndex(sc.s[q:eol])
		if loc == nil {
			return min(eol+1, len(sc.s)), false
		}
		for i := range loc {
			if loc[i] >= 0 {
				loc[i] += q
			}
		}
		q = loc[1]
		if end, ok := sc.tag(loc, pos, lineStart); ok {
			return end, true
		}
	}
}

// tagKind says what the tag name (with attributes or not) is in this
// message: "think", "output", "call", or "" for text.
func (sc *scan) tagKind(name string, attr bool) string {
	switch {
	case name == "think" && !attr:
		return "think"
	case name == "tool_output" && attr && sc.m.Role != transcript.Assistant:
		return "output"
	case tools[name] && !attr && sc.m.Role == transcript.Assistant:
		return "call"
	}
	return ""
}

// tagMatch is a tag found in a message's text.
type tagMatch struct {
	loc       []int // the match of tagRE
	name      string
	before    string // the text from the scan's position to the tag
	inner     string // the text up to its closing tag
	lineStart bool   // the scan's position starts a line
}

// tagParts make a part of each kind of tag; nil when it is not one after all.
var tagParts = map[string]func(sc *scan, t *tagMatch) *transcript.Part{
	"think":  (*scan).think,
	"output": (*scan).output,
	"call":   (*scan).toolCall,
}

// tag makes the tag matched at loc a part, with the text from pos before
// it, if it is one and is closed; it returns the end of its closing tag.
func (sc *scan) tag(loc []int, pos int, lineStart bool) (end int, ok bool) {
	t := &tagMatch{loc: loc, name: sc.s[loc[2]:loc[3]], lineStart: lineStart}
	kind := sc.tagKind(t.name, loc[4] >= 0)
	if kind == "" {
		return 0, false
	}
	c := sc.close.next(t.name, loc[1])
	if c < 0 {
		return 0, false
	}
	t.inner, t.before = sc.s[loc[1]:c], sc.s[pos:loc[0]]
	p := tagParts[kind](sc, t)
	if p == nil {
		return 0, false
	}
	sc.buf.WriteString(t.before)
	sc.flush()
	if p.Kind != transcript.ThinkingPart || p.Text != "" {
		sc.m.Parts = append(sc.m.Parts, p)
	}
	return c + len(t.name) + 3, true
}

// think is a <think> thought. exec_doc writes it as a blockquote inside
// the body: "> <think>…" with "> " on each line.
func (sc *scan) think(t *tagMatch) *transcript.Part {
	inner := t.inner
	if t.lineStart && strings.Contains(t.before, ">") && strings.Trim(t.before, "> \t") == "" {
		t.before, inner = "", unquoteLines(inner)
	}
	return &transcript.Part{Kind: transcript.ThinkingPart, Text: strings.TrimSpace(inner)}
}

// output is a <tool_output tool_name="…">.
func (sc *scan) output(t *tagMatch) *transcript.Part {
	return sc.d.result(sc.s[t.loc[6]:t.loc[7]], t.inner)
}

// toolCall is a tool's tag in assistant text, when its content is the
// tool's parameters.
func (sc *scan) toolCall(t *tagMatch) *transcript.Part {
	// A tool never nests itself: another opening tag of the same tool
	// inside means this one is only mentioned.
	if strings.Contains(t.inner, "<"+t.name+">") {
		return nil
	}
	input, ok := toolParams(t.inner)
	if !ok {
		return nil
	}
	open := t.loc[0]
	sc.nl, sc.nlPos = sc.nl+strings.Count(sc.s[sc.nlPos:open], "\n"), open
	return sc.d.call(t.name, input, sc.t.line(sc.nl))
}

// fenceAt reads the fenced block whose opening line ends at eol and returns
// it with the position after its closing line. An unclosed fence runs to
// the end of the text, as in Markdown.
func fenceAt(s string, eol int, mark, info string) (*transcript.Part, int) {
	var code []string
	for p := min(eol+1, len(s)); p < len(s); {
		e := lineEnd(s, p)
		if closesFence(s[p:e], mark) {
			return codePart(info, code), min(e+1, len(s))
		}
		code = append(code, s[p:e])
		p = e + 1
	}
	return codePart(info, code), len(s)
}

// codePart is a fenced block as a code part: the info string's first word is
// the language, the rest its name (```python setup-script).
func codePart(info string, code []string) *transcript.Part {
	lang, name, _ := strings.Cut(strings.TrimSpace(info), " ")
	return &transcript.Part{Kind: transcript.CodePart, Lang: lang, Name: strings.TrimSpace(name), Text: strings.Join(code, "\n")}
}

// call is a roo_code tool call. Its id is the file and line of its tag, so
// that a later <tool_output> can be paired with it.
func (d *session) call(name, input string, line int) *transcript.Part {
	id := fmt.Sprintf("%s#%d", d.f.Rel, line)
	if n := d.ids[id]; n > 0 {
		d.ids[id] = n + 1
		id = fmt.Sprintf("%s.%d", id, n+1)
	} else {
		d.ids[id] = 1
	}
	c := &transcript.ToolCall{ID: id, Name: name, Kind: Tools.Kind(name), Input: input}
	q := d.pending[name]
	if q == nil || q.msg != d.nmsg {
		q = &calls{msg: d.nmsg}
		d.pending[name] = q
	}
	q.calls = append(q.calls, c)
	return &transcript.Part{Kind: transcript.CallPart, Call: c}
}

// result is a <tool_output>. roo_code runs every call of one assistant
// message and answers them in order, so it answers the first unanswered
// call of that name in the latest message that called it.
func (d *session) result(name, out string) *transcript.Part {
	out = strings.TrimSuffix(strings.TrimPrefix(out, "\n"), "\n")
	// Without a call to pair with, the tool's name stands in for the id so
	// the result still says which tool it came from.
	r := &transcript.ToolResult{CallID: name, Output: out, IsError: strings.HasPrefix(out, "错误:")}
	if q := d.pending[name]; q != nil && len(q.calls) > 0 {
		r.CallID = q.calls[0].ID
		q.calls = q.calls[1:]
	}
	// roo_code reports a failed command as an error ending in its exit code.
	if m := exitRE.FindStringSubmatch(out); m != nil && r.IsError {
		if code, err := strconv.Atoi(m[1]); err == nil {
			r.ExitCode = &code
		}
	}
	return &transcript.Part{Kind: transcript.ResultPart, Result: r}
}

// toolParams reads a tool tag's parameters the way roo_code's parser does:
// a sequence of <param>value</param>, values trimmed, an unclosed one
// running to the next tag. Any other text means it is not a tool call.
func toolParams(s string) (string, bool) {
	ps := params{index: map[string]int{}}
	closing := closers{s: s, at: map[string]int{}}
	pos := 0
	for {
		loc := tagRE.FindStringSubmatchIndex(s[pos:])
		if loc == nil || loc[4] >= 0 || strings.TrimSpace(s[pos:pos+loc[0]]) != "" {
			break
		}
		name, start := s[pos+loc[2]:pos+loc[3]], pos+loc[1]
		var v string
		v, pos = paramValue(s, name, start, closing.next(name, start))
		ps.set(name, strings.TrimSpace(v))
	}
	if strings.TrimSpace(s[pos:]) != "" {
		return "", false
	}
	return paramsJSON(ps.list), true
}

// paramValue is the value of the parameter name whose tag ends at start,
// with where the reading goes on: up to its closing tag at c, or, unclosed
// (c < 0), up to the next tag or the end.
func paramValue(s, name string, start, c int) (string, int) {
	if c >= 0 {
		return s[start:c], c + len(name) + 3
	}
	if next := tagRE.FindStringIndex(s[start:]); next != nil {
		return s[start : start+next[0]], start + next[0]
	}
	return s[start:], len(s)
}

// param is a parameter of a Roo tool call: its tag's name and its text.
type param struct{ k, v string }

// params are a call's parameters in order; a repeated one keeps its first
// place and takes its last value.
type params struct {
	list  []param
	index map[string]int // where each name is in list
}

func (ps *params) set(k, v string) {
	if i, ok := ps.index[k]; ok {
		ps.list[i] = param{k, v}
		return
	}
	ps.index[k] = len(ps.list)
	ps.list = append(ps.list, param{k, v})
}

// paramsJSON is the parameters as a JSON object, in their order, with <,
// > and & as written.
func paramsJSON(ps []param) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		_ = enc.Encode(p.k)
		b.Truncate(b.Len() - 1)
		b.WriteByte(':')
		_ = enc.Encode(p.v)
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.String()
}

// unquoteLines strips one blockquote marker from every line after the first.
func unquoteLines(s string) string {
	ls := strings.Split(s, "\n")
	for i := 1; i < len(ls); i++ {
		if q, ok := unquote(ls[i]); ok {
			ls[i] = q
		}
	}
	return strings.Join(ls, "\n")
}

// trimBlank drops leading blank lines and trailing white space, keeping the
// first line's indentation.
func trimBlank(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 || strings.TrimSpace(s[:i]) != "" {
			break
		}
		s = s[i+1:]
	}
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return s
}

// The Markdown structure domarkx relies on, read line by line: fences
// (```/~~~, up to three spaces in), ATX ## headings, and blockquotes with
// lazy continuation lines. Headings and quotes inside a fence are code.

type blockKind int

const (
	blank blockKind = iota
	other
	fence
	headingBlock
	quote
)

// block is one top-level block of a document.
type block struct {
	kind   blockKind
	line   int      // the number of its first line
	info   string   // fence: the info string
	text   string   // heading: the speaker
	code   []string // fence: the lines between the fences
	closed bool     // fence: it has a closing line
	lines  []string // as a message body takes it: a quote without its '>', anything else as written
	nums   []int    // each line's number
}

// messageText is message text with the file line each of its lines came from.
type messageText struct {
	lines []string
	nums  []int
}

func (t *messageText) add(b block) {
	t.lines = append(t.lines, b.lines...)
	t.nums = append(t.nums, b.nums...)
}

// line is the file line of the text's n-th line (0-based).
func (t *messageText) line(n int) int {
	if len(t.nums) == 0 {
		return 0
	}
	return t.nums[min(n, len(t.nums)-1)]
}

// splitLines splits a document into lines without their line endings.
func splitLines(text string) []string {
	lines := strings.Split(strings.TrimPrefix(text, "\ufeff"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// splitBlocks reads the top-level blocks of lines[i:].
func splitBlocks(lines []string, i int) []block {
	var bs []block
	for i < len(lines) {
		var b block
		_, _, fence := openFence(lines[i])
		if _, quoted := unquote(lines[i]); quoted && !fence {
			b, i = quoteBlock(lines, i)
		} else {
			b, i = lineBlock(lines, i)
		}
		bs = append(bs, b)
	}
	return bs
}

// lineBlock reads the block at lines[i] that is not a quote: a fence and
// its code, a level-2 heading, a blank line or another line. It returns
// the block and the line after it.
func lineBlock(lines []string, i int) (block, int) {
	s, start := lines[i], i
	b := block{line: i + 1}
	if mark, info, ok := openFence(s); ok {
		b.kind, b.info = fence, info
		j := i + 1
		for j < len(lines) && !closesFence(lines[j], mark) {
			j++
		}
		b.code, b.closed = lines[i+1:j], j < len(lines)
		i = min(j+1, len(lines))
	} else {
		b.kind, b.text = lineKind(s)
		i++
	}
	b.lines = lines[start:i]
	for n := start; n < i; n++ {
		b.nums = append(b.nums, n+1)
	}
	return b, i
}

// lineKind is the kind of a line outside fences and quotes.
func lineKind(s string) (kind blockKind, text string) {
	if lvl, t, ok := atxHeading(s); ok && lvl == 2 {
		return headingBlock, t
	}
	if strings.TrimSpace(s) == "" {
		return blank, ""
	}
	return other, ""
}

// quoteBlock reads the quote at lines[i], its lines unquoted, lazy
// continuation lines with them; a fence inside the quote stops lazy
// continuation. It returns the block and the line after it.
func quoteBlock(lines []string, i int) (block, int) {
	b := block{line: i + 1, kind: quote}
	mark, prev := "", ""
	for ; i < len(lines); i++ {
		q, ok := unquote(lines[i])
		if !ok {
			if mark != "" || !lazyLine(prev, lines[i]) {
				break
			}
			q = lines[i]
		}
		if mark == "" {
			mark, _, _ = openFence(q)
		} else if closesFence(q, mark) {
			mark = ""
		}
		b.lines, b.nums, prev = append(b.lines, q), append(b.nums, i+1), q
	}
	return b, i
}

// nextBlock skips blank blocks from i.
func nextBlock(bs []block, i int) int {
	for i < len(bs) && bs[i].kind == blank {
		i++
	}
	return i
}

// isFence says whether b is a fence whose info string holds word.
func (b block) isFence(word string) bool {
	return b.kind == fence && strings.Contains(b.info, word)
}

// fenceAfter returns the first block from i that is not blank, and
// whether it is a fence whose info string holds word.
func fenceAfter(bs []block, i int, word string) (int, bool) {
	j := nextBlock(bs, i)
	return j, j < len(bs) && bs[j].isFence(word)
}

// frontMatter returns the lines between a first line of dashes and the
// next one, and the index of the line after; next is 0 without front matter.
func frontMatter(lines []string) (src []string, next int) {
	dashes := func(s string) bool {
		s = strings.TrimRight(s, " \t")
		return len(s) >= 3 && strings.Trim(s, "-") == ""
	}
	if len(lines) == 0 || !dashes(lines[0]) {
		return nil, 0
	}
	for i := 1; i < len(lines); i++ {
		if dashes(lines[i]) {
			return lines[1:i], i + 1
		}
	}
	return nil, 0
}

// indent is the number of leading spaces of s; blocks allow up to three.
func indent(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// unindent strips the up to three spaces a block may start with; ok is
// false when s has more.
func unindent(s string) (t string, ok bool) {
	n := indent(s)
	return s[n:], n <= 3
}

// openFence reports whether s opens a fenced block, with its fence (``` or
// ~~~, three or more) and info string.
func openFence(s string) (mark, info string, ok bool) {
	t, ok := unindent(s)
	if !ok || t == "" || (t[0] != '`' && t[0] != '~') {
		return "", "", false
	}
	n := len(t) - len(strings.TrimLeft(t, t[:1]))
	info = strings.TrimSpace(t[n:])
	if n < 3 || (t[0] == '`' && strings.Contains(info, "`")) {
		return "", "", false
	}
	return t[:n], info, true
}

// closesFence reports whether s closes the fence mark opened.
func closesFence(s, mark string) bool {
	t, ok := unindent(s)
	rest := strings.TrimLeft(t, mark[:1])
	return ok && len(t)-len(rest) >= len(mark) && strings.TrimSpace(rest) == ""
}

// atxHeading returns the level and text of an ATX heading line.
func atxHeading(s string) (level int, text string, ok bool) {
	t, ok := unindent(s)
	n := len(t) - len(strings.TrimLeft(t, "#"))
	if !ok || n == 0 || n > 6 || (len(t) > n && t[n] != ' ' && t[n] != '\t') {
		return 0, "", false
	}
	return n, trimClosing(strings.TrimSpace(t[n:])), true
}

// trimClosing drops a heading's closing sequence: ## user ##.
func trimClosing(t string) string {
	u := strings.TrimRight(t, "#")
	switch {
	case u == "":
		return ""
	case len(u) < len(t) && (u[len(u)-1] == ' ' || u[len(u)-1] == '\t'):
		return strings.TrimSpace(u)
	}
	return t
}

// unquote strips a blockquote marker and one optional space from s.
func unquote(s string) (string, bool) {
	t, ok := unindent(s)
	if !ok {
		return "", false
	}
	t, ok = strings.CutPrefix(t, ">")
	if !ok {
		return "", false
	}
	if t != "" && (t[0] == ' ' || t[0] == '\t') {
		t = t[1:]
	}
	return t, true
}

var (
	thematicRE = regexp.MustCompile(`^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)
	listItemRE = regexp.MustCompile(`^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)`)
)

// lazyLine reports whether s, which has no '>', continues the quote's
// paragraph whose last line is prev.
func lazyLine(prev, s string) bool {
	if strings.TrimSpace(prev) == "" || strings.TrimSpace(s) == "" {
		return false
	}
	_, _, fence := openFence(s)
	_, _, heading := atxHeading(s)
	return !fence && !heading && !thematicRE.MatchString(s) && !listItemRE.MatchString(s)
}
