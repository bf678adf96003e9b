// Package codelia reads the sessions of codelia: its run files under
// ~/.codelia/sessions, joined into sessions, and its resume messages logs.
package codelia

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Reader reads codelia's run files and its resume messages log.
var Reader = &ingest.Reader{
	Name:  "codelia",
	Agent: "codelia",
	Files: "~/.codelia/sessions/YYYY/MM/DD/<run_id>.jsonl, one file per run, joined into sessions by session_id; " +
		"the resume log ~/.codelia/sessions/messages/<session_id>.jsonl (both also under $XDG_STATE_HOME/codelia/)",
	Detects: `a first line {"type":"header"} with schema_version and run_id; the resume log by lines that are bare ` +
		`messages (a role of user, assistant, tool, reasoning or system, and no type) in a sessions/messages/ folder`,
	Detect:    detect,
	Read:      readFile,
	Merge:     merge,
	Locations: locations,
	Tools:     Tools,
}

// Tools are codelia's tools, and the reminders it injects.
var Tools = &ingest.Tools{
	Kinds: map[string]transcript.ToolKind{
		"read_line": transcript.ReadTool, "view_image": transcript.ReadTool, "tool_output_cache": transcript.ReadTool, "tool_output_cache_line": transcript.ReadTool,
		"tool_output_cache_grep": transcript.SearchTool,
		"todo_read":              transcript.TaskTool, "todo_new": transcript.TaskTool, "todo_append": transcript.TaskTool, "todo_patch": transcript.TaskTool, "todo_clear": transcript.TaskTool,
	},
	Injected: []string{
		"<system-reminder>",
	},
}

func init() { ingest.Register(Reader) }

func locations(home string, getenv func(string) string) []ingest.Location {
	locs := []ingest.Location{{Name: "codelia", Dir: filepath.Join(home, ".codelia", "sessions")}}
	if xdg := getenv("XDG_STATE_HOME"); xdg != "" {
		locs = append(locs, ingest.Location{Name: "codelia-xdg", Dir: filepath.Join(xdg, "codelia", "sessions")})
	}
	return locs
}

// logRoles are the roles of the messages log, as the transcript's.
var logRoles = map[string]transcript.Role{
	"user": transcript.User, "assistant": transcript.Assistant, "reasoning": transcript.Assistant,
	"tool": transcript.Tool, "system": transcript.System,
}

func detect(h *ingest.Head) float64 {
	rs := h.Records()
	if len(rs) == 0 || h.IsArray() {
		return 0
	}
	if rs[0]["type"] == "header" && rs[0].Has("schema_version", "run_id") {
		return ingest.Certain
	}
	// Bare role/content lines are too generic to claim on content alone:
	// the log's folder breaks the tie.
	if !inMessagesLog(h.Path) {
		return 0
	}
	return ingest.When(logMessages(rs), ingest.Maybe)
}

// inMessagesLog says whether a path is a JSONL file under a
// sessions/messages folder, where Codelia keeps its messages logs.
func inMessagesLog(path string) bool {
	return strings.HasSuffix(path, ".jsonl") &&
		(strings.HasPrefix(path, "sessions/messages/") || strings.Contains(path, "/sessions/messages/"))
}

// logMessages says whether the records are all bare messages, at least
// one of a Codelia role with content or tool calls.
func logMessages(rs []ingest.Record) bool {
	known := false
	for _, r := range rs {
		if !bareMessage(r) {
			return false
		}
		known = known || logRoles[r["role"]] != "" && (r.Has("content") || r.Has("tool_calls"))
	}
	return known
}

// bareMessage says whether r is a message on its own, not a record of a
// run or of another agent's log that wraps one.
func bareMessage(r ingest.Record) bool {
	return r.Has("role") && !r.Has("type") && !r.Has("message")
}

// message is a BaseMessage: a line of the resume log or an item of an
// llm.response's output.
type message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Refusal    string          `json:"refusal"`
	ToolCalls  []toolCall      `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	IsError    bool            `json:"is_error"`
	MessageTS  ingest.JSONTime `json:"message_ts"`
}

type toolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type model struct {
	Provider  string `json:"provider"`
	Name      string `json:"name"`
	Reasoning string `json:"reasoning"`
}

func (m *model) String() string {
	if m == nil || m.Name == "" {
		return ""
	}
	if m.Provider == "" || strings.HasPrefix(m.Name, m.Provider+"/") {
		return m.Name
	}
	return m.Provider + "/" + m.Name
}

type version struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// record is one line of a run file. The embedded message holds a resume
// log line, and the tool_call_id and is_error of tool.output records.
type record struct {
	message
	Type      string          `json:"type"`
	TS        ingest.JSONTime `json:"ts"`
	Seq       *int64          `json:"seq"`
	RunID     string          `json:"run_id"`
	SessionID string          `json:"session_id"`

	// header
	StartedAt ingest.JSONTime `json:"started_at"`
	Client    *version        `json:"client"`
	Server    *version        `json:"server"`
	Model     *model          `json:"model"`
	Prompts   struct {
		System string `json:"system"`
	} `json:"prompts"`
	Tools struct {
		Definitions []struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"definitions"`
	} `json:"tools"`
	Runtime struct {
		CWD     string `json:"cwd"`
		OS      string `json:"os"`
		Arch    string `json:"arch"`
		Version string `json:"version"`
	} `json:"runtime"`

	Input     input `json:"input"` // run.start
	UIContext struct {
		CWD string `json:"cwd"`
	} `json:"ui_context"`

	// llm.response
	Output struct {
		Messages []message `json:"messages"`
		Usage    *struct {
			Model      string `json:"model"`
			Input      int64  `json:"input_tokens"`
			CacheRead  int64  `json:"input_cached_tokens"`
			CacheWrite int64  `json:"input_cache_creation_tokens"`
			Output     int64  `json:"output_tokens"`
		} `json:"usage"`
	} `json:"output"`

	Event       json.RawMessage `json:"event"`      // agent.event
	ResultRaw   json.RawMessage `json:"result_raw"` // tool.output
	Status      string          `json:"status"`     // run.status
	Message     string          `json:"message"`    // run.status
	ContextLeft *float64        `json:"context_left_percent"`
	Error       *struct {
		Name        string          `json:"name"`
		Message     string          `json:"message"`
		Provider    string          `json:"provider"`
		Kind        string          `json:"kind"`
		Status      json.RawMessage `json:"status"`
		Attempts    int             `json:"attempts"`
		MaxAttempts int             `json:"max_attempts"`
	} `json:"error"` // run.error
	Outcome string          `json:"outcome"` // run.end
	Final   json.RawMessage `json:"final"`   // run.end
}

// input is run.start's input. llm.request's input, the prompt snapshot
// that repeats the whole history, has none of these fields: the decoder
// skips it without keeping it.
type input struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	Parts json.RawMessage `json:"parts"`
}

// event is the event of an agent.event record.
type event struct {
	Type              string          `json:"type"`
	Content           json.RawMessage `json:"content"`
	Text              json.RawMessage `json:"text"` // final, as codelia's tests write it
	Tool              string          `json:"tool"`
	ToolCallID        string          `json:"tool_call_id"`
	Args              json.RawMessage `json:"args"`
	RawArgs           string          `json:"raw_args"`
	Result            json.RawMessage `json:"result"`
	IsError           bool            `json:"is_error"`
	Screenshot        string          `json:"screenshot_base64"`
	FilePath          string          `json:"file_path"`
	Diff              string          `json:"diff"`
	Summary           string          `json:"summary"`
	Truncated         bool            `json:"truncated"`
	FailureKind       string          `json:"failure_kind"`
	NextAttempt       int             `json:"next_attempt"`
	MaxAttempts       int             `json:"max_attempts"`
	DelayMs           float64         `json:"delay_ms"`
	DelaySource       string          `json:"delay_source"`
	Status            json.RawMessage `json:"status"`
	Compacted         bool            `json:"compacted"`
	TerminationReason string          `json:"termination_reason"`
}

var recordTypes = map[string]bool{
	"header": true, "run.start": true, "run.context": true, "agent.event": true, "tool.output": true,
	"llm.request": true, "llm.response": true, "run.status": true, "run.error": true, "run.end": true,
}

var eventTypes = map[string]bool{
	"text": true, "reasoning": true, "final": true, "tool_call": true, "tool_result": true,
	"step_start": true, "step_complete": true, "permission.preview": true, "permission.ready": true,
	"llm.retry": true, "compaction_start": true, "compaction_complete": true, "hidden_user_message": true,
}

// item is a run record kept until the whole run is read.
type item struct {
	n   int
	rec *record
	ev  *event
	raw string // the line, for records shown as unknown
}

func readFile(ctx context.Context, f *ingest.File, r io.Reader) ([]*transcript.Session, error) {
	fr := &fileReader{f: f}
	err := ingest.JSONL(ctx, f, r, fr.line)
	switch {
	case fr.log != nil && len(fr.log.Turns) > 0:
		return []*transcript.Session{fr.log}, err
	case len(fr.items) > 0:
		if s := buildRun(f, fr.items); s != nil {
			return []*transcript.Session{s}, err
		}
	}
	return nil, err
}

// fileReader reads a file that is either a run, whose records are kept
// until the whole run is read, or a resume messages log.
type fileReader struct {
	f     *ingest.File
	items []item
	log   *transcript.Session // set once the first record is a bare message
}

func (fr *fileReader) line(n int, line []byte) error {
	rec := &record{}
	if err := ingest.Unmarshal(line, rec); err != nil {
		return err
	}
	if fr.log == nil && len(fr.items) == 0 && rec.Type == "" && rec.Role != "" {
		fr.log = &transcript.Session{ID: ingest.Stem(fr.f.Rel)}
	}
	if fr.log != nil {
		logLine(fr.f, n, fr.log, rec, line)
		return nil
	}
	fr.items = append(fr.items, newItem(n, rec, line))
	return nil
}

// newItem is a record of a run, its agent event decoded; one of a type
// not known keeps its line, to be shown as unknown.
func newItem(n int, rec *record, line []byte) item {
	it := item{n: n, rec: rec}
	if rec.Type == "agent.event" {
		it.ev = &event{}
		if ingest.Unmarshal(rec.Event, it.ev) != nil {
			it.ev = nil
		}
	}
	if !it.known() {
		it.raw = string(line)
	}
	return it
}

// known says whether the item is of a record type, and an agent event of
// an event type, that the reader knows.
func (it *item) known() bool {
	if it.rec.Type == "agent.event" {
		return it.ev != nil && eventTypes[it.ev.Type]
	}
	return recordTypes[it.rec.Type]
}

// logLine adds one line of the resume log: one BaseMessage, without time
// unless the optional message_ts is there.
func logLine(f *ingest.File, n int, s *transcript.Session, rec *record, line []byte) {
	m := &transcript.Message{Time: rec.MessageTS.Time, Role: logRoles[rec.Role]}
	if m.Role == "" || rec.Type != "" {
		m.Role = transcript.System
		m.Parts = []*transcript.Part{f.Unknown("Unknown line in the messages log", line)}
	} else {
		m.Parts = parts(f, n, &rec.message)
	}
	m.Meta = m.Role == transcript.System || m.Role == transcript.User && injected(m.Parts)
	if len(m.Parts) > 0 {
		s.Append(m)
	}
}

// injected reports whether user parts are context the runtime added
// (AGENTS.md, reminders) rather than a prompt.
func injected(ps []*transcript.Part) bool {
	return len(ps) > 0 && ps[0].Kind == transcript.TextPart && Tools.IsInjected(ps[0].Text)
}

// parts turns a BaseMessage into parts.
func parts(f *ingest.File, n int, m *message) []*transcript.Part {
	switch m.Role {
	case "reasoning":
		if t := ingest.Text(m.Content); strings.TrimSpace(t) != "" {
			return []*transcript.Part{{Kind: transcript.ThinkingPart, Text: t}}
		}
		return nil // encrypted reasoning, or a hosted web search told by its events
	case "tool":
		return []*transcript.Part{{Kind: transcript.ResultPart, Result: result(f, n, m.ToolCallID, m.Content, m.IsError)}}
	}
	ps := content(f, n, m.Content)
	if m.Refusal != "" {
		ps = append(ps, &transcript.Part{Kind: transcript.TextPart, Text: m.Refusal})
	}
	for _, c := range m.ToolCalls {
		ps = append(ps, &transcript.Part{Kind: transcript.CallPart, Call: &transcript.ToolCall{
			ID: c.ID, Name: c.Function.Name, Kind: Tools.Kind(c.Function.Name), Input: ingest.Text(c.Function.Arguments),
		}})
	}
	return ps
}

type contentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL struct {
		URL string `json:"url"`
	} `json:"image_url"`
	Source struct {
		MediaType string `json:"media_type"`
	} `json:"source"`
	Provider string          `json:"provider"`
	Kind     string          `json:"kind"`
	Payload  json.RawMessage `json:"payload"`
}

// content reads content that is a string or an array of ContentParts.
func content(f *ingest.File, n int, raw json.RawMessage) []*transcript.Part {
	var s string
	var items []json.RawMessage
	if ingest.Unmarshal(raw, &s) != nil && ingest.Unmarshal(raw, &items) != nil {
		s = ingest.Text(raw) // drift: keep any other value as its JSON
	}
	var ps []*transcript.Part
	if strings.TrimSpace(s) != "" {
		ps = append(ps, &transcript.Part{Kind: transcript.TextPart, Text: s})
	}
	for _, item := range items {
		if p := contentItem(f, n, item); p != nil {
			ps = append(ps, p)
		}
	}
	return ps
}

// contentItem reads one ContentPart; nil for blank text. One of a type not
// known is shown as its JSON.
func contentItem(f *ingest.File, n int, item json.RawMessage) *transcript.Part {
	var c contentPart
	if ingest.Unmarshal(item, &c) != nil {
		c.Type = ""
	}
	if read := contentReaders[c.Type]; read != nil {
		return read(f, n, &c)
	}
	return &transcript.Part{Kind: transcript.TextPart, Text: ingest.Text(item)}
}

// contentReaders read each type of ContentPart.
var contentReaders = map[string]func(f *ingest.File, n int, c *contentPart) *transcript.Part{
	"text": func(_ *ingest.File, _ int, c *contentPart) *transcript.Part {
		if strings.TrimSpace(c.Text) == "" {
			return nil
		}
		return &transcript.Part{Kind: transcript.TextPart, Text: c.Text}
	},
	"image_url": func(f *ingest.File, n int, c *contentPart) *transcript.Part { return image(f, n, c.ImageURL.URL) },
	"document": func(_ *ingest.File, _ int, c *contentPart) *transcript.Part {
		return &transcript.Part{Kind: transcript.TextPart, Text: "[document: " + cmp.Or(c.Source.MediaType, "unknown type") + "]"}
	},
	"other": func(_ *ingest.File, _ int, c *contentPart) *transcript.Part {
		return &transcript.Part{Kind: transcript.CodePart, Lang: "json", Name: c.Provider + "/" + c.Kind, Text: ingest.Text(c.Payload)}
	},
}

// image reads an image_url: a data: URL with base64 bytes, or a link.
func image(f *ingest.File, n int, url string) *transcript.Part {
	switch {
	case url == "":
		return &transcript.Part{Kind: transcript.TextPart, Text: "(image without data)"}
	case !strings.HasPrefix(url, "data:"):
		return &transcript.Part{Kind: transcript.ImagePart, Image: &transcript.Image{URL: url}}
	}
	img, ok := ingest.DecodeImage(f, url)
	if !ok {
		f.Warn(n, "image data is not base64; skipped")
		return &transcript.Part{Kind: transcript.TextPart, Text: "(unreadable image)"}
	}
	return &transcript.Part{Kind: transcript.ImagePart, Image: img}
}

// result reads a tool's output: a string, or ContentParts with images.
func result(f *ingest.File, n int, callID string, raw json.RawMessage, isError bool) *transcript.ToolResult {
	r := &transcript.ToolResult{CallID: callID, IsError: isError}
	if ingest.Unmarshal(raw, &r.Output) == nil {
		return r
	}
	var texts []string
	for _, p := range content(f, n, raw) {
		if p.Image != nil {
			r.Images = append(r.Images, p.Image)
		} else {
			texts = append(texts, p.Text)
		}
	}
	r.Output = strings.Join(texts, "\n")
	return r
}

// systemPrompt is the ID of the message holding a run's system prompt,
// so that Merge shows it again only when it changed.
const systemPrompt = "system-prompt"

// run builds the one Turn of a run.
type run struct {
	f       *ingest.File
	s       *transcript.Session
	runID   string
	model   string
	msgs    []*transcript.Message
	sys     *transcript.Message // the system prompt, shown after the user's prompt
	cur     *transcript.Message // the assistant message event parts join
	status  string
	seqs    map[int64]bool
	results map[string]*transcript.ToolResult
	// covered holds what the llm records already show, so agent.event
	// copies of it are not shown twice: "text:" + trimmed text, "call:"
	// and "result:" + tool call id. Events that are not copies (hosted web
	// searches, a final message from the done tool) are kept.
	covered map[string]bool
}

func buildRun(f *ingest.File, items []item) *transcript.Session {
	r := &run{f: f, s: &transcript.Session{Meta: map[string]string{}}, status: transcript.Incomplete,
		seqs: map[int64]bool{}, results: map[string]*transcript.ToolResult{}, covered: map[string]bool{}}
	var sessionID string
	for _, it := range items {
		r.runID = cmp.Or(r.runID, it.rec.RunID)
		sessionID = cmp.Or(sessionID, it.rec.SessionID)
		r.coverRecord(it.rec)
	}
	for _, it := range items {
		f.At(it.n) // for warnings about the item
		r.item(it)
	}
	if r.sys != nil {
		r.msgs = append([]*transcript.Message{r.sys}, r.msgs...)
	}
	if len(r.msgs) == 0 {
		return nil
	}
	s := r.s
	s.ID = cmp.Or(sessionID, r.runID, ingest.Stem(f.Rel))
	s.Meta["run"] = cmp.Or(r.runID, ingest.Stem(f.Rel))
	s.Turns = []transcript.Turn{{Status: r.status, Messages: r.msgs}}
	return s
}

// coverRecord covers what an llm record shows: a response's messages, a
// tool's output.
func (r *run) coverRecord(rec *record) {
	switch rec.Type {
	case "llm.response":
		for _, m := range rec.Output.Messages {
			r.cover(&m)
		}
	case "tool.output":
		if rec.ToolCallID != "" {
			r.covered["result:"+rec.ToolCallID] = true
		}
	}
}

func (r *run) cover(m *message) {
	switch m.Role {
	case "reasoning":
		r.covered["text:"+strings.TrimSpace(ingest.Text(m.Content))] = true
	case "assistant":
		r.covered["text:"+strings.TrimSpace(display(m.Content))] = true
		r.covered["text:"+strings.TrimSpace(m.Refusal)] = true
		for _, c := range m.ToolCalls {
			if c.ID != "" {
				r.covered["call:"+c.ID] = true
			}
		}
	}
}

// display is content as codelia's text events and final message show it.
func display(raw json.RawMessage) string {
	var s string
	if ingest.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []contentPart
	if ingest.Unmarshal(raw, &parts) != nil {
		return ingest.Text(raw)
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.display())
	}
	return b.String()
}

// display is the part as codelia shows it in text: its text, or a
// placeholder.
func (p *contentPart) display() string {
	switch p.Type {
	case "text":
		return p.Text
	case "image_url":
		return "[image]"
	case "document":
		return "[document]"
	case "other":
		return "[other:" + p.Provider + "/" + p.Kind + "]"
	}
	return "[content]"
}

// add appends a message that is not the assistant's.
func (r *run) add(m *transcript.Message) {
	r.msgs = append(r.msgs, m)
	r.cur = nil
}

// assistant returns the assistant message that parts from events join.
func (r *run) assistant(t time.Time) *transcript.Message {
	if r.cur == nil {
		r.cur = &transcript.Message{Role: transcript.Assistant, Model: r.model, Time: t}
		r.msgs = append(r.msgs, r.cur)
	}
	return r.cur
}

func (r *run) event(kind, desc string, t time.Time, raw string, more ...*transcript.Part) {
	p := ingest.EventPart(kind, desc, nil)
	if kind == transcript.Unknown {
		p = r.f.Unknown(desc, nil)
	}
	p.Event.Raw = raw
	// A preview's diff is what the agent asked to do: shown, not folded away.
	r.add(&transcript.Message{Role: transcript.System, Meta: len(more) == 0, Time: t, Parts: append([]*transcript.Part{p}, more...)})
}

// item reads one record of the run.
func (r *run) item(it item) {
	if read := recordReaders[it.rec.Type]; read != nil {
		read(r, it, it.rec.TS.Time)
		return
	}
	r.event(transcript.Unknown, "Unknown record type "+strconv.Quote(it.rec.Type), it.rec.TS.Time, it.raw)
}

// recordReaders read each type of run record.
var recordReaders = map[string]func(r *run, it item, t time.Time){
	"header":    func(r *run, it item, _ time.Time) { r.header(it.rec) },
	"run.start": (*run).runStart,
	"llm.request": func(r *run, it item, _ time.Time) {
		r.model = cmp.Or(it.rec.Model.String(), r.model)
	},
	"llm.response": (*run).response,
	"tool.output":  (*run).toolOutput,
	"agent.event":  (*run).agentEvent,
	"run.context": func(r *run, it item, _ time.Time) {
		if left := it.rec.ContextLeft; left != nil {
			r.s.Meta["context left"] = strconv.FormatFloat(*left, 'f', -1, 64) + "%"
		}
	},
	"run.status": func(r *run, it item, t time.Time) { r.runStatus(it.rec, t) },
	"run.error":  func(r *run, it item, t time.Time) { r.runError(it.rec, t) },
	"run.end":    func(r *run, it item, t time.Time) { r.runEnd(it.rec, t) },
}

// toolOutput reads a tool's output.
func (r *run) toolOutput(it item, t time.Time) {
	rec := it.rec
	res := result(r.f, it.n, rec.ToolCallID, rec.ResultRaw, rec.IsError)
	r.results[rec.ToolCallID] = res
	r.add(&transcript.Message{Role: transcript.Tool, Time: t, Parts: []*transcript.Part{{Kind: transcript.ResultPart, Result: res}}})
}

// header reads the run's header: where, with what and how it ran.
func (r *run) header(h *record) {
	s := r.s
	s.Started = cmp.Or(s.Started, h.StartedAt.Time)
	s.CWD = cmp.Or(s.CWD, h.Runtime.CWD, h.UIContext.CWD)
	s.AgentVersion = h.agentVersion(s.AgentVersion)
	r.model = h.Model.String()
	s.AddModel(r.model)
	if h.Model != nil && h.Model.Reasoning != "" {
		s.Meta["reasoning effort"] = h.Model.Reasoning
	}
	if p := ingest.JoinNonEmpty("/", h.Runtime.OS, h.Runtime.Arch); p != "" {
		s.Meta["platform"] = p
	}
	if defs := h.toolDefinitions(); defs != "" {
		s.Meta["tool definitions"] = defs
	}
	if h.Prompts.System != "" {
		r.sys = &transcript.Message{ID: systemPrompt, Role: transcript.System, Meta: true, Time: h.StartedAt.Time,
			Parts: []*transcript.Part{{Kind: transcript.TextPart, Text: h.Prompts.System}}}
	}
}

// agentVersion is the client's version, or else the server's, or the
// runtime's; prev stands when the header names no client.
func (h *record) agentVersion(prev string) string {
	if h.Client != nil {
		prev = h.Client.Version
	}
	if prev == "" && h.Server != nil {
		prev = h.Server.Version
	}
	return cmp.Or(prev, h.Runtime.Version)
}

// toolDefinitions counts and names the tools a header defines.
func (h *record) toolDefinitions() string {
	defs := h.Tools.Definitions
	if len(defs) == 0 {
		return ""
	}
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = cmp.Or(d.Name, d.Function.Name, "?")
	}
	return fmt.Sprintf("%d: %s", len(defs), strings.Join(names, ", "))
}

// agentEvent reads an agent event; one that cannot be read is unknown.
func (r *run) agentEvent(it item, t time.Time) {
	if it.ev == nil {
		r.event(transcript.Unknown, "Unknown agent event", t, it.raw)
		return
	}
	switch read := agentEvents[it.ev.Type]; {
	case read != nil:
		read(r, it, t)
	case it.ev.Type == "step_start", it.ev.Type == "step_complete":
		// They only frame a tool call, which its call and result show.
	default:
		r.event(transcript.Unknown, "Unknown agent event "+strconv.Quote(it.ev.Type), t, it.raw)
	}
}

// agentEvents read each type of agent event.
var agentEvents = map[string]func(r *run, it item, t time.Time){
	"text":      func(r *run, it item, t time.Time) { r.agentText(it.ev, t) },
	"reasoning": func(r *run, it item, t time.Time) { r.agentText(it.ev, t) },
	"final": func(r *run, it item, t time.Time) {
		ev := it.ev
		r.final(cmp.Or(ingest.Text(ev.Content), ingest.Text(ev.Text)), t)
		if ev.TerminationReason != "" && ev.TerminationReason != "normal" {
			r.event("info", "Run stopped: "+ev.TerminationReason, t, "")
		}
	},
	"tool_call":   func(r *run, it item, t time.Time) { r.agentCall(it.ev, t) },
	"tool_result": func(r *run, it item, t time.Time) { r.agentResult(it.n, it.ev, t) },
	"hidden_user_message": func(r *run, it item, t time.Time) {
		if ps := content(r.f, it.n, it.ev.Content); len(ps) > 0 {
			r.add(&transcript.Message{Role: transcript.User, Meta: true, Time: t, Parts: ps})
		}
	},
	"compaction_start": func(r *run, _ item, t time.Time) {
		r.event(transcript.Compaction, "Compacting the conversation", t, "")
	},
	"compaction_complete": func(r *run, it item, t time.Time) {
		desc := "Conversation compacted"
		if !it.ev.Compacted {
			desc = "Compaction finished; nothing was compacted"
		}
		r.event(transcript.Compaction, desc, t, "")
	},
	"permission.preview": func(r *run, it item, t time.Time) { r.permissionPreview(it.ev, t) },
	"permission.ready": func(r *run, it item, t time.Time) {
		r.event("permission", ingest.JoinNonEmpty(" ", "Asked permission to run", it.ev.Tool), t, "")
	},
	"llm.retry": func(r *run, it item, t time.Time) { r.retry(it.ev, t) },
}

// agentCall reads a tool call, once.
func (r *run) agentCall(ev *event, t time.Time) {
	if ev.ToolCallID != "" && r.seen("call:"+ev.ToolCallID) {
		return
	}
	a := r.assistant(t)
	a.Parts = append(a.Parts, &transcript.Part{Kind: transcript.CallPart, Call: &transcript.ToolCall{
		ID: ev.ToolCallID, Name: ev.Tool, Kind: Tools.Kind(ev.Tool), Input: cmp.Or(ev.RawArgs, ingest.Text(ev.Args)),
	}})
}

// runStart reads the prompt that starts a run.
func (r *run) runStart(it item, t time.Time) {
	rec := it.rec
	m := &transcript.Message{Role: transcript.User, Time: t}
	if rec.Input.Text != "" {
		m.Parts = []*transcript.Part{{Kind: transcript.TextPart, Text: rec.Input.Text}}
	}
	m.Parts = append(m.Parts, content(r.f, it.n, rec.Input.Parts)...)
	m.Meta = injected(m.Parts)
	if len(m.Parts) > 0 {
		r.add(m)
	}
	if r.sys != nil {
		r.add(r.sys)
		r.sys = nil
	}
}

// response reads what the model answered, and what it cost.
func (r *run) response(it item, t time.Time) {
	rec := it.rec
	if r.repeated(it) {
		return
	}
	m := &transcript.Message{Role: transcript.Assistant, Model: r.model, Time: t}
	if u := rec.Output.Usage; u != nil {
		// codelia's input_tokens is the whole prompt: what the cache held
		// and what it took in are counted inside it, for every provider.
		m.Usage = transcript.Usage{Input: max(u.Input-u.CacheRead-u.CacheWrite, 0), Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}
		m.Model = cmp.Or(m.Model, u.Model)
	}
	for _, om := range rec.Output.Messages {
		m.Parts = append(m.Parts, parts(r.f, it.n, &om)...)
	}
	if len(m.Parts) > 0 || !m.Usage.IsZero() {
		r.add(m)
		r.cur = m
	}
}

// repeated says whether a response's seq was read before, and warns that
// the copy is skipped.
func (r *run) repeated(it item) bool {
	seq := it.rec.Seq
	if seq == nil {
		return false
	}
	if r.seqs[*seq] {
		r.f.Warn(it.n, "llm.response seq %d repeated; the copy is skipped", *seq)
		return true
	}
	r.seqs[*seq] = true
	return false
}

// runStatus tells a run cancelled, or in a state codelia may add.
func (r *run) runStatus(rec *record, t time.Time) {
	switch rec.Status {
	case "running", "completed", "error": // the run's life, told by run.end and run.error
	case "cancelled":
		r.event(transcript.Interrupt, ingest.JoinNonEmpty(": ", "Run cancelled", rec.Message), t, "")
	default:
		r.event("status", ingest.JoinNonEmpty(": ", "Run status "+strconv.Quote(rec.Status), rec.Message), t, "")
	}
}

// runError tells why a run failed.
func (r *run) runError(rec *record, t time.Time) {
	desc := ""
	if e := rec.Error; e != nil {
		var detail []string
		if e.Status != nil {
			detail = append(detail, "HTTP "+ingest.Text(e.Status))
		}
		if e.MaxAttempts > 0 {
			detail = append(detail, fmt.Sprintf("after %d of %d attempts", e.Attempts, e.MaxAttempts))
		}
		desc = ingest.JoinNonEmpty(": ", e.Name, e.Message)
		if d := ingest.JoinNonEmpty(", ", append([]string{e.Provider, e.Kind}, detail...)...); d != "" {
			desc += " (" + d + ")"
		}
	}
	r.event(transcript.ErrorEvent, cmp.Or(desc, "Run failed"), t, "")
}

// runEnd gives the turn its status, and the run's final message.
func (r *run) runEnd(rec *record, t time.Time) {
	switch rec.Outcome {
	case "completed":
		r.status = transcript.Completed
	case "cancelled":
		r.status = transcript.Aborted
	case "error":
		r.status = transcript.Failed
	default:
		r.status = ""
		r.event("status", "Run ended: "+strconv.Quote(rec.Outcome), t, "")
	}
	r.final(ingest.Text(rec.Final), t)
}

// agentText reads the agent's text or reasoning, once.
func (r *run) agentText(ev *event, t time.Time) {
	s := ingest.Text(ev.Content)
	if strings.TrimSpace(s) == "" || r.seen("text:"+strings.TrimSpace(s)) {
		return
	}
	kind := transcript.TextPart
	if ev.Type == "reasoning" {
		kind = transcript.ThinkingPart
	}
	a := r.assistant(t)
	a.Parts = append(a.Parts, &transcript.Part{Kind: kind, Text: s})
}

// agentResult reads a tool's result, once, and the screenshot only the
// event carries.
func (r *run) agentResult(n int, ev *event, t time.Time) {
	res := r.results[ev.ToolCallID]
	if ev.ToolCallID == "" || !r.seen("result:"+ev.ToolCallID) {
		res = &transcript.ToolResult{CallID: ev.ToolCallID, Output: ingest.Text(ev.Result), IsError: ev.IsError}
		r.results[ev.ToolCallID] = res
		r.add(&transcript.Message{Role: transcript.Tool, Time: t, Parts: []*transcript.Part{{Kind: transcript.ResultPart, Result: res}}})
	}
	if ev.Screenshot != "" && res != nil { // only the event carries it
		if img, ok := ingest.DecodeImage(r.f, ev.Screenshot); ok {
			res.Images = append(res.Images, img)
		} else {
			r.f.Warn(n, "screenshot is not base64; skipped")
		}
	}
}

// permissionPreview tells what a tool asked leave to do, with its diff.
func (r *run) permissionPreview(ev *event, t time.Time) {
	desc := ingest.JoinNonEmpty(": ", ingest.JoinNonEmpty(" ", "Permission preview for", ev.Tool, ev.FilePath), ev.Summary)
	var diff []*transcript.Part
	if ev.Diff != "" {
		diff = append(diff, &transcript.Part{Kind: transcript.CodePart, Lang: "diff", Name: ev.FilePath, Text: ev.Diff})
		if ev.Truncated {
			desc += " (diff truncated)"
		}
	}
	r.event("permission", desc, t, "", diff...)
}

// retry tells a model call tried again, why and when.
func (r *run) retry(ev *event, t time.Time) {
	desc := fmt.Sprintf("Retry %d of %d", ev.NextAttempt, ev.MaxAttempts)
	if ev.FailureKind != "" {
		desc += " after " + ev.FailureKind
	}
	if ev.Status != nil {
		desc += " (HTTP " + ingest.Text(ev.Status) + ")"
	}
	if ev.DelayMs > 0 {
		desc += fmt.Sprintf(", waiting %.1f s", ev.DelayMs/1000)
		if ev.DelaySource != "" {
			desc += " (" + ev.DelaySource + ")"
		}
	}
	r.event(transcript.Retry, desc, t, "")
}

// final adds the run's final message unless the transcript already shows it.
func (r *run) final(s string, t time.Time) {
	s = strings.TrimSpace(s)
	if s == "" || r.seen("text:"+s) {
		return
	}
	// At the step limit codelia asks for a summary and prefixes it.
	if rest, ok := strings.CutPrefix(s, "[Max Iterations Reached]"); ok && r.covered["text:"+strings.TrimSpace(rest)] {
		r.event("info", "Max iterations reached", t, "")
		return
	}
	a := r.assistant(t)
	a.Parts = append(a.Parts, &transcript.Part{Kind: transcript.TextPart, Text: s})
}

// seen reports whether key is covered, and covers it.
func (r *run) seen(key string) bool {
	if r.covered[key] {
		return true
	}
	r.covered[key] = true
	return false
}

// merge joins the runs of each session, in the order they started,
// into one session with a turn per run. A resume messages log of a session
// that has runs only adds its path to Sources: the runs hold the same
// conversation with times, usage and events.
func merge(ss []*transcript.Session) []*transcript.Session {
	var ids []string
	groups := map[string][]*transcript.Session{}
	for _, s := range ss {
		if groups[s.ID] == nil {
			ids = append(ids, s.ID)
		}
		groups[s.ID] = append(groups[s.ID], s)
	}
	var out []*transcript.Session
	for _, id := range ids {
		runs, logs := splitRuns(groups[id])
		if len(runs) == 0 {
			out = append(out, logs...)
			continue
		}
		out = append(out, mergeRuns(runs, logs))
	}
	return out
}

// splitRuns parts a session's runs from its messages logs.
func splitRuns(ss []*transcript.Session) (runs, logs []*transcript.Session) {
	for _, s := range ss {
		if s.Meta["run"] != "" {
			runs = append(runs, s)
		} else {
			logs = append(logs, s)
		}
	}
	return runs, logs
}

// mergeRuns joins the runs of one session, and the files of its other
// copies and of its logs.
func mergeRuns(runs, logs []*transcript.Session) *transcript.Session {
	slices.SortStableFunc(runs, func(a, b *transcript.Session) int {
		return cmp.Or(a.Started.Compare(b.Started), cmp.Compare(a.Source, b.Source))
	})
	uniq, dups := dedupeRuns(runs)
	m := uniq[0]
	prompt := dropRepeatedPrompt(m, "")
	for _, s := range uniq[1:] {
		absorb(m, s)
		prompt = dropRepeatedPrompt(m, prompt)
	}
	if len(uniq) > 1 {
		delete(m.Meta, "run")
		m.Meta["runs"] = strconv.Itoa(len(uniq))
	}
	for _, d := range dups {
		m.Sources = append(m.Sources, d.Source)
		m.Warnings = append(m.Warnings, d.Warnings...)
		m.Warnings = append(m.Warnings, fmt.Sprintf("%s: another copy of run %s; the fuller copy is shown", d.Source, d.Meta["run"]))
	}
	for _, l := range logs {
		m.Sources = append(m.Sources, l.Source)
		m.Warnings = append(m.Warnings, l.Warnings...)
	}
	return m
}

// dropRepeatedPrompt drops the system prompt of m's last run when it is
// the one before, prompt: it is shown again only when it changed. It
// returns the prompt now in force.
func dropRepeatedPrompt(m *transcript.Session, prompt string) string {
	t := &m.Turns[len(m.Turns)-1]
	t.Messages = slices.DeleteFunc(t.Messages, func(msg *transcript.Message) bool {
		if msg.ID != systemPrompt || len(msg.Parts) == 0 {
			return false
		}
		same := msg.Parts[0].Text == prompt
		prompt = msg.Parts[0].Text
		return same
	})
	return prompt
}

// dedupeRuns shows the same run in two files (a copy, a backup) once: the
// fuller copy wins, in the place of the first.
func dedupeRuns(runs []*transcript.Session) (uniq, dups []*transcript.Session) {
	kept := map[string]int{} // run id → index in uniq
	for _, s := range runs {
		i, ok := kept[s.Meta["run"]]
		if !ok {
			kept[s.Meta["run"]] = len(uniq)
			uniq = append(uniq, s)
			continue
		}
		if fuller(s, uniq[i]) {
			uniq[i], s = s, uniq[i]
		}
		dups = append(dups, s)
	}
	return uniq, dups
}

// absorb adds run s, a later run of the session, to m.
func absorb(m, s *transcript.Session) {
	m.Sources = append(m.Sources, s.Source)
	m.Sources = append(m.Sources, s.Sources...)
	m.Warnings = append(m.Warnings, s.Warnings...)
	m.Turns = append(m.Turns, s.Turns...)
	m.CWD = cmp.Or(m.CWD, s.CWD)
	m.AgentVersion = cmp.Or(s.AgentVersion, m.AgentVersion)
	for _, name := range s.Models {
		m.AddModel(name)
	}
	for k, v := range s.Meta {
		m.Meta[k] = v
	}
}

// fuller reports whether run a is a fuller copy than b: it ended, or it
// holds more messages.
func fuller(a, b *transcript.Session) bool {
	ended := func(s *transcript.Session) bool { return s.Turns[0].Status != transcript.Incomplete }
	if ended(a) != ended(b) {
		return ended(a)
	}
	return len(a.Turns[0].Messages) > len(b.Turns[0].Messages)
}
