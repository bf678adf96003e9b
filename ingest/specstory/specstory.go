// Package specstory reads what SpecStory keeps of any agent's sessions:
// its SessionData JSON and its Markdown history.
package specstory

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Reader reads SpecStory SessionData: the normalised form SpecStory's
// providers (Claude Code, Codex, Gemini, Cursor, Droid, …) turn their agent's
// sessions into. SpecStory's Markdown history is MarkdownReader's.
var Reader = &ingest.Reader{
	Name:    "specstory",
	Agent:   "SpecStory",
	Files:   ".specstory/debug/<sessionId>/session-data.json (written by specstory --debug-raw) and SpecStory cloud-sync payloads: SessionData JSON, schema 1.0",
	Detects: "a JSON document whose top-level object has schemaVersion and an exchanges array",
	Detect:  detectSessionData,
	Read:    readSessionData,
	Tools:   Tools,
}

// Tools are those of the agents whose sessions SpecStory records.
var Tools = ingest.ToolsOf("claude-code", "cursor", "codex", "gemini-cli")

func init() { ingest.Register(Reader) }

func detectSessionData(h *ingest.Head) float64 {
	rs := h.Records()
	return ingest.When(!h.IsArray() && len(rs) == 1 && rs[0].Has("schemaVersion") && rs[0]["exchanges"] == "[", ingest.Likely)
}

// dataVersion is the SessionData schema version this reader follows.
const dataVersion = "1.0"

// dataToolKinds maps SpecStory's tool types to ours; "generic" and "unknown"
// say nothing, so the tool's name decides.
var dataToolKinds = map[string]transcript.ToolKind{
	"write": transcript.WriteTool, "read": transcript.ReadTool, "search": transcript.SearchTool,
	"shell": transcript.ShellTool, "task": transcript.TaskTool, "generic": "", "unknown": "",
}

type dataMessage struct {
	ID        string            `json:"id"`
	Timestamp string            `json:"timestamp"`
	Role      string            `json:"role"`
	Model     *string           `json:"model"`
	Content   []json.RawMessage `json:"content"`
	Tool      *dataTool         `json:"tool"`
	PathHints []string          `json:"pathHints"`
	Usage     *dataUsage        `json:"usage"`
	Metadata  struct {
		IsSidechain bool `json:"isSidechain"`
		Queued      bool `json:"queued"` // typed while the agent was busy, never sent
	} `json:"metadata"`
}

type dataTool struct {
	Name              *string         `json:"name"`
	Type              *string         `json:"type"`
	UseID             string          `json:"useId"`
	Input             json.RawMessage `json:"input"`
	Output            json.RawMessage `json:"output"`
	Summary           string          `json:"summary"`
	FormattedMarkdown string          `json:"formattedMarkdown"`
}

// dataUsage holds every provider's token counts; the field names match the
// camelCase keys.
type dataUsage struct {
	InputTokens, OutputTokens                      int64
	CacheCreationInputTokens, CacheReadInputTokens int64 // Claude, Droid
	CachedInputTokens, ReasoningOutputTokens       int64 // Codex
	CachedTokens, ThoughtTokens, ToolTokens        int64 // Gemini
	ThinkingTokens                                 int64 // Droid
}

// usage converts the counts as each provider wrote them: Claude's and
// Droid's input leaves out what the cache held, Codex's and Gemini's
// includes it (see ingest.GeminiUsage).
func (u dataUsage) usage() transcript.Usage {
	if u.CachedTokens+u.ThoughtTokens+u.ToolTokens > 0 {
		g := ingest.GeminiUsage(u.InputTokens, u.OutputTokens, u.CachedTokens, u.ThoughtTokens, u.ToolTokens)
		g.CacheWrite = u.CacheCreationInputTokens
		return g
	}
	return transcript.Usage{
		Input:      max(u.InputTokens-u.CachedInputTokens, 0),
		Output:     u.OutputTokens,
		CacheRead:  u.CacheReadInputTokens + u.CachedInputTokens,
		CacheWrite: u.CacheCreationInputTokens,
		Reasoning:  u.ReasoningOutputTokens + u.ThinkingTokens,
	}
}

// dataReader accumulates the session of one SessionData file.
type dataReader struct {
	f         *ingest.File
	s         *transcript.Session
	hints     []string // pathHints, first seen first
	hinted    map[string]bool
	lastUsage transcript.Usage
}

func readSessionData(ctx context.Context, f *ingest.File, r io.Reader) ([]*transcript.Session, error) {
	sr := &dataReader{f: f, s: &transcript.Session{Meta: map[string]string{}}, hinted: map[string]bool{}}
	seen := map[string]bool{}
	d := ingest.NewJSONDoc(f, r, 1)
	isObject, err := d.Object("the document", func(key string, line int) error {
		seen[key] = true
		return sr.field(ctx, d, key, line)
	})
	complete, err := d.End(ctx, err)
	if err != nil {
		return nil, err
	}
	if complete && isObject {
		required(seen, func(k string) { f.Warn(0, "%s is missing: the SessionData schema requires it", k) },
			"schemaVersion", "provider", "sessionId", "createdAt", "workspaceRoot", "exchanges")
	}
	if len(sr.hints) > 0 {
		sr.s.Meta["path hints"] = strings.Join(sr.hints, ", ")
	}
	return ingest.Snapshot(f, sr.s), nil
}

// required calls missing with each of keys that seen lacks.
func required(seen map[string]bool, missing func(key string), keys ...string) {
	for _, k := range keys {
		if !seen[k] {
			missing(k)
		}
	}
}

// field reads one field of the document.
func (sr *dataReader) field(ctx context.Context, d *ingest.JSONDoc, key string, line int) error {
	if read := fields[key]; read != nil {
		return read(sr, ctx, d, key, line)
	}
	sr.s.Skip(key, "a field SessionData 1.0 does not define", 1)
	return d.Skip()
}

// fields read the fields of the document SessionData 1.0 defines.
var fields = map[string]func(sr *dataReader, ctx context.Context, d *ingest.JSONDoc, key string, line int) error{
	"schemaVersion": (*dataReader).version,
	"provider": func(sr *dataReader, _ context.Context, d *ingest.JSONDoc, _ string, line int) error {
		return sr.provider(d, line)
	},
	"sessionId": func(sr *dataReader, _ context.Context, d *ingest.JSONDoc, key string, line int) error {
		return d.Value(key, line, &sr.s.ID)
	},
	"createdAt": (*dataReader).times,
	"updatedAt": (*dataReader).times,
	// Newer SpecStory: the agent's own title for the session.
	"title": func(sr *dataReader, _ context.Context, d *ingest.JSONDoc, key string, line int) error {
		return d.Value(key, line, &sr.s.Title)
	},
	"slug": (*dataReader).slug,
	"workspaceRoot": func(sr *dataReader, _ context.Context, d *ingest.JSONDoc, key string, line int) error {
		return d.Value(key, line, &sr.s.CWD)
	},
	"exchanges": (*dataReader).exchanges,
}

func (sr *dataReader) version(_ context.Context, d *ingest.JSONDoc, key string, line int) error {
	var raw json.RawMessage
	if err := d.Value(key, line, &raw); err != nil {
		return err
	}
	sr.checkVersion(line, raw)
	return nil
}

func (sr *dataReader) slug(_ context.Context, d *ingest.JSONDoc, key string, line int) error {
	var v string
	if err := d.Value(key, line, &v); err != nil {
		return err
	}
	sr.s.Meta["slug"] = v
	return nil
}

func (sr *dataReader) exchanges(ctx context.Context, d *ingest.JSONDoc, key string, _ int) error {
	return d.Array(key, func(i, line int, raw json.RawMessage) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		sr.exchange(fmt.Sprintf("exchanges[%d]", i), line, raw)
		return nil
	})
}

// times reads createdAt as the start and updatedAt as the end.
func (sr *dataReader) times(_ context.Context, d *ingest.JSONDoc, key string, line int) error {
	var v string
	if err := d.Value(key, line, &v); err != nil {
		return err
	}
	if t := sr.time(key, line, v); key == "createdAt" {
		sr.s.Started = t
	} else {
		sr.s.Ended = t
	}
	return nil
}

// checkVersion warns about a schemaVersion other than 1.0; SpecStory itself
// refuses newer ones, this reader reads what it can.
func (sr *dataReader) checkVersion(line int, raw json.RawMessage) {
	var v string
	if ingest.Unmarshal(raw, &v) != nil {
		sr.f.Warn(line, "schemaVersion: expected the string %q, found %s", dataVersion, raw)
		return
	}
	if v == dataVersion {
		return
	}
	var major, minor int
	n, _ := fmt.Sscanf(v, "%d.%d", &major, &minor)
	if n > 0 && (major > 1 || major == 1 && minor > 0) {
		sr.f.Warn(line, "schemaVersion %q is newer than %s, the version this reader knows: reading what it can", v, dataVersion)
	} else {
		sr.f.Warn(line, "schemaVersion %q is not %s", v, dataVersion)
	}
}

func (sr *dataReader) provider(d *ingest.JSONDoc, line int) error {
	var p struct {
		ID      *string `json:"id"`
		Name    *string `json:"name"`
		Version *string `json:"version"`
	}
	if err := d.Value("provider", line, &p); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"id", p.ID}, {"name", p.Name}, {"version", p.Version}} {
		if f.v == nil {
			sr.f.Warn(line, "provider.%s is missing: the SessionData schema requires it", f.name)
		}
	}
	// The session is the provider's agent's; SpecStory only converted it.
	sr.s.Agent = deref(p.Name)
	if v := deref(p.Version); v != "unknown" {
		sr.s.AgentVersion = v
	}
	if id := deref(p.ID); id != "" {
		sr.s.Meta["provider"] = id
	}
	return nil
}

// exchange is one exchange being read: its messages are kept raw until
// its times, which may come after them, are known.
type exchange struct {
	path       string
	d          *ingest.JSONDoc
	start, end time.Time
	msgs       []rawMessage
}

type rawMessage struct {
	line int
	raw  json.RawMessage
}

// exchange reads one exchange into a turn.
func (sr *dataReader) exchange(path string, line int, raw json.RawMessage) {
	x := &exchange{path: path, d: ingest.NewJSONDoc(sr.f, bytes.NewReader(raw), line)}
	seen := map[string]bool{}
	isObject, err := x.d.Object(path, func(key string, line int) error {
		seen[key] = true
		return sr.exchangeField(x, key, line)
	})
	if err != nil { // raw came whole from the decoder: this is only a guard
		x.d.Fail(err)
		return
	}
	if isObject {
		required(seen, func(k string) { sr.f.Warn(line, "%s: %s is missing: the SessionData schema requires it", path, k) },
			"exchangeId", "messages")
	}
	var t transcript.Turn
	for j, m := range x.msgs {
		if msg := sr.message(fmt.Sprintf("%s.messages[%d]", path, j), m.line, m.raw, x.start, x.end); msg != nil {
			t.Messages = append(t.Messages, msg)
		}
	}
	if len(t.Messages) > 0 {
		sr.s.Turns = append(sr.s.Turns, t)
	}
}

// exchangeField reads one field of exchange x.
func (sr *dataReader) exchangeField(x *exchange, key string, line int) error {
	d := x.d
	switch key {
	case "startTime":
		return sr.exchangeTime(x, key, line, &x.start)
	case "endTime":
		return sr.exchangeTime(x, key, line, &x.end)
	case "messages":
		return d.Array(x.path+".messages", func(_, line int, raw json.RawMessage) error {
			x.msgs = append(x.msgs, rawMessage{line, raw})
			return nil
		})
	case "exchangeId": // the session's id and the exchange's number
	case "metadata":
		sr.s.Skip("exchange/metadata", "the exchange's metadata, which no SpecStory provider fills", 1)
	default:
		sr.s.Skip("exchange/"+key, "a field of an exchange SessionData 1.0 does not define", 1)
	}
	return d.Skip()
}

// exchangeTime reads the exchange's time key into dst.
func (sr *dataReader) exchangeTime(x *exchange, key string, line int, dst *time.Time) error {
	var v string
	if err := x.d.Value(x.path+"."+key, line, &v); err != nil {
		return err
	}
	*dst = sr.time(x.path+"."+key, line, v)
	return nil
}

// message reads one message, checking it against the schema's rules. A
// message that breaks them is reported and still shown.
func (sr *dataReader) message(path string, line int, raw json.RawMessage, start, end time.Time) *transcript.Message {
	var sm dataMessage
	if !ingest.DecodeAt(sr.f, line, path, raw, &sm) {
		return nil
	}
	m := &transcript.Message{ID: sm.ID, Model: deref(sm.Model), Sidechain: sm.Metadata.IsSidechain,
		Time: sr.time(path+".timestamp", line, sm.Timestamp)}
	sr.role(m, &sm, func(format string, args ...any) { sr.f.Warn(line, path+": "+format, args...) }, start, end)
	if sm.Metadata.Queued {
		m.Parts = append(m.Parts, ingest.EventPart("info", "Typed while the agent was busy and never sent", nil))
	}
	for k, c := range sm.Content {
		m.Parts = append(m.Parts, sr.part(fmt.Sprintf("%s.content[%d]", path, k), line, c, m)...)
	}
	if sm.Tool != nil {
		m.Parts = append(m.Parts, sr.tool(path+".tool", line, sm.Tool)...)
	}
	sr.hint(sm.PathHints)
	m.Usage = sr.usage(sm.Usage)
	if len(m.Parts) == 0 && m.Usage.IsZero() {
		return nil
	}
	return m
}

// usage is a message's usage, but for a repeat: Claude's provider writes
// one message per content block, each with its API response's usage.
func (sr *dataReader) usage(du *dataUsage) transcript.Usage {
	if du == nil {
		return transcript.Usage{}
	}
	u := du.usage()
	if u == sr.lastUsage {
		return transcript.Usage{}
	}
	sr.lastUsage = u
	return u
}

// role sets m's role and, where the message has none, its time, warning
// of what the schema does not allow.
func (sr *dataReader) role(m *transcript.Message, sm *dataMessage, warn func(string, ...any), start, end time.Time) {
	switch sm.Role {
	case "user":
		m.Role = transcript.User
		checkUser(sm, warn)
		m.Time = firstTime(m.Time, start)
	case "agent":
		m.Role = transcript.Assistant
		if len(sm.Content) == 0 && sm.Tool == nil && len(sm.PathHints) == 0 {
			warn("an agent message needs content, a tool or pathHints")
		}
		m.Time = firstTime(m.Time, end, start)
	default:
		warn("role %q is neither user nor agent; shown as a system message", sm.Role)
		m.Role, m.Meta = transcript.System, true
		m.Time = firstTime(m.Time, start)
	}
}

// checkUser warns of what a user's message may not be: without content,
// with a tool or a model.
func checkUser(sm *dataMessage, warn func(string, ...any)) {
	if len(sm.Content) == 0 {
		warn("a user message needs at least one content part")
	}
	if sm.Tool != nil {
		warn("a user message may not have a tool")
	}
	if sm.Model != nil {
		warn("a user message may not have a model")
	}
}

// hint keeps the paths a message hints at, once each, in order.
func (sr *dataReader) hint(hints []string) {
	for _, h := range hints {
		if !sr.hinted[h] {
			sr.hinted[h] = true
			sr.hints = append(sr.hints, h)
		}
	}
}

// part reads one content part of message m.
func (sr *dataReader) part(path string, line int, raw json.RawMessage, m *transcript.Message) []*transcript.Part {
	var c struct {
		Type *string `json:"type"`
		Text *string `json:"text"`
	}
	if !ingest.DecodeAt(sr.f, line, path, raw, &c) {
		return nil
	}
	if c.Type == nil || c.Text == nil {
		sr.f.Warn(line, "%s: a content part needs type and text", path)
	}
	s := deref(c.Text)
	switch typ := deref(c.Type); {
	case typ == "text" && m.Role == transcript.User:
		return ingest.UserText(Tools, s, &m.Meta)
	case typ == "text":
		return textPart(transcript.TextPart, s)
	case typ == "thinking":
		return textPart(transcript.ThinkingPart, s)
	default:
		sr.f.Warn(line, "%s: content type %q is neither text nor thinking; kept as an unknown event", path, typ)
		return []*transcript.Part{ingest.EventPart(transcript.Unknown, "Unknown content part "+strconv.Quote(typ), raw)}
	}
}

// textPart is a part of text or thinking; none when s is blank.
func textPart(kind transcript.PartKind, s string) []*transcript.Part {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return []*transcript.Part{{Kind: kind, Text: s}}
}

// tool reads a message's tool: its call, and its result when it has one.
func (sr *dataReader) tool(path string, line int, t *dataTool) []*transcript.Part {
	name, typ := deref(t.Name), deref(t.Type)
	if t.Name == nil || t.Type == nil {
		sr.f.Warn(line, "%s: a tool needs name and type", path)
	}
	kind, known := dataToolKind(name, typ)
	if !known && t.Type != nil {
		sr.f.Warn(line, "%s: tool type %q is not one of write, read, search, shell, task, generic, unknown", path, typ)
	}
	c := &transcript.ToolCall{ID: t.UseID, Name: ingest.FirstNonEmpty(name, "unnamed tool"), Kind: kind, Input: ingest.Text(t.Input)}
	// SpecStory's own view of the call: its summary line and its Markdown,
	// shown first; the input and output stay as recorded.
	parts := []*transcript.Part{{Kind: transcript.CallPart, Call: c, Name: t.Summary, Text: t.FormattedMarkdown}}
	if len(t.Output) == 0 || string(t.Output) == "null" {
		return parts
	}
	r := dataResult(t.Output)
	// The result sits beside its call, even when there is no useId to pair by.
	r.CallID, r.Paired, c.Result = t.UseID, true, r
	return append(parts, &transcript.Part{Kind: transcript.ResultPart, Result: r})
}

// dataToolKind classifies a tool by SpecStory's type for it and its name;
// known is false for a type SpecStory does not define.
func dataToolKind(name, typ string) (kind transcript.ToolKind, known bool) {
	kind, known = dataToolKinds[typ]
	// SpecStory's "write" covers edits, which have their own kind here.
	if byName := Tools.Kind(name); kind == "" || kind == transcript.WriteTool && byName == transcript.EditTool {
		kind = byName
	}
	return kind, known
}

// dataResult reads what the providers put in tool.output: Claude's {"content",
// "is_error"}, Codex's {"raw": "…"} or its own JSON output {"output",
// "metadata": {"exit_code"}}, and anything else as JSON.
func dataResult(raw json.RawMessage) *transcript.ToolResult {
	r := &transcript.ToolResult{}
	if !bytes.HasPrefix(raw, []byte("{")) {
		r.Output = ingest.Text(raw)
		return r
	}
	var o struct {
		Content  json.RawMessage `json:"content"`
		IsError  bool            `json:"is_error"`
		Raw      *string         `json:"raw"`
		Output   *string         `json:"output"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	_ = ingest.Unmarshal(raw, &o) // a field of another type is left out; the output stays as JSON
	switch {
	case o.Content != nil:
		r.Output = ingest.Text(o.Content)
	case o.Raw != nil:
		r.Output = *o.Raw
	case o.Output != nil:
		r.Output = *o.Output
	default:
		r.Output = ingest.Text(raw)
	}
	r.IsError, r.ExitCode = o.IsError, o.Metadata.ExitCode
	if r.ExitCode == nil {
		r.ExitCode = ingest.ExitCode(r.Output)
	}
	return r
}

// time reads an optional date-time field, reporting one that is not.
func (sr *dataReader) time(path string, line int, v string) time.Time {
	t, ok := ingest.ParseTime(v)
	if !ok && v != "" {
		sr.f.Warn(line, "%s: %q is not a date-time", path, v)
	}
	return t
}

// firstTime returns the first time that is set.
func firstTime(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
