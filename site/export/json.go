// Package export writes a session as a file people can take elsewhere:
// Markdown to read, and JSON of the normalised model for programs. The
// site writes both beside each session's page; `transcriptsite export`
// writes one to stdout. Both are written from the session as the build has
// it, secrets already redacted.
package export

import (
	"bytes"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	json "github.com/go-json-experiment/json/v1"
	"io"
	"reflect"
	"time"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// Schema names the JSON format and its version. A change that removes or
// renames a field, or changes what one means, gets a new version; fields
// may be added within one.
const Schema = "transcriptsite.session/1"

// Session is the JSON export of a session: the transcript model with
// stable, snake_case names. Empty fields are left out. A tool result is
// kept where the agent recorded it and names its call by call_id; paired
// says it answers a call of this session.
type Session struct {
	Schema       string            `json:"schema"` // always Schema
	ID           string            `json:"id"`
	Format       string            `json:"format"`          // reader name, e.g. "claude-code"
	Agent        string            `json:"agent,omitempty"` // e.g. "Claude Code"
	AgentVersion string            `json:"agent_version,omitempty"`
	Source       string            `json:"source,omitempty"`  // the main file, relative to its content dir
	Sources      []string          `json:"sources,omitempty"` // other files it was read from
	Title        string            `json:"title,omitempty"`   // as the agent recorded it
	Project      string            `json:"project,omitempty"` // as the agent recorded it
	CWD          string            `json:"cwd,omitempty"`
	Branch       string            `json:"branch,omitempty"`
	Models       []string          `json:"models,omitempty"`
	Started      time.Time         `json:"started,omitzero"`
	Ended        time.Time         `json:"ended,omitzero"`
	Usage        Usage             `json:"usage,omitzero"`
	ParentID     string            `json:"parent_id,omitempty"` // the session that started this one
	ChildIDs     []string          `json:"child_ids,omitempty"` // sessions this one started
	Meta         map[string]string `json:"meta,omitempty"`
	Skipped      []Skip            `json:"skipped,omitempty"`  // records left out of the conversation
	Warnings     []string          `json:"warnings,omitempty"` // problems met reading it
	Redacted     map[string]int    `json:"redacted,omitempty"` // secrets replaced, by kind
	Turns        []Turn            `json:"turns"`
}

// Skip counts records of one kind the reader left out, and says why.
type Skip struct {
	Kind   string `json:"kind"`
	Count  int    `json:"count"`
	Reason string `json:"reason"`
}

// Turn starts at a user prompt and runs to the next.
type Turn struct {
	Status   string    `json:"status,omitempty"` // "completed", "aborted", "error", "incomplete"
	Messages []Message `json:"messages"`
}

// Message is one message.
type Message struct {
	ID        string    `json:"id,omitempty"`
	Role      string    `json:"role"` // "user", "assistant", "system", "tool"
	Model     string    `json:"model,omitempty"`
	Time      time.Time `json:"time,omitzero"`
	Usage     Usage     `json:"usage,omitzero"`
	Meta      bool      `json:"meta,omitempty"`      // context injected by the agent
	Sidechain bool      `json:"sidechain,omitempty"` // a side conversation
	Branch    string    `json:"branch,omitempty"`    // set when the conversation was rewound past it
	Parts     []Part    `json:"parts"`
}

// Part is one piece of a message; Kind says which other fields are set:
// "text", "thinking", "code" (Text, Lang, Name), "call" (Call), "result"
// (Result), "image" (Image), "event" (Event, Text).
type Part struct {
	Kind   string      `json:"kind"`
	Text   string      `json:"text,omitempty"`
	Lang   string      `json:"lang,omitempty"`
	Name   string      `json:"name,omitempty"`
	Call   *ToolCall   `json:"call,omitempty"`
	Result *ToolResult `json:"result,omitempty"`
	Image  *Image      `json:"image,omitempty"`
	Event  *Event      `json:"event,omitempty"`
}

// ToolCall is the agent asking for a tool.
type ToolCall struct {
	ID       string `json:"id,omitempty"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`               // shell, read, write, edit, search, web, task, mcp, other
	Input    string `json:"input"`              // JSON text, or free text for freeform tools
	Subagent string `json:"subagent,omitempty"` // id of the session it started
	Args     *Args  `json:"args,omitempty"`     // what the input says, in the model's terms
}

// Args are what a call's input says, whatever names its agent gives them:
// the reader of each format fills them. Which are set depends on the tool.
type Args struct {
	Summary     string     `json:"summary,omitempty"` // what the call did, in a line
	Path        string     `json:"path,omitempty"`    // the file it works on; the folder a search looks in
	Command     string     `json:"command,omitempty"`
	Description string     `json:"description,omitempty"`
	Pattern     string     `json:"pattern,omitempty"` // what a search looks for
	Query       bool       `json:"query,omitempty"`   // the pattern is a query of words
	Files       string     `json:"files,omitempty"`   // the files a search looks in
	URL         string     `json:"url,omitempty"`
	Prompt      string     `json:"prompt,omitempty"`
	Agent       string     `json:"agent,omitempty"`  // the kind of subagent a task starts
	Offset      string     `json:"offset,omitempty"` // where a read starts, as written
	Limit       string     `json:"limit,omitempty"`  // how many lines a read reads at most, as written
	Start       int        `json:"start,omitempty"`  // the line a read's excerpt is numbered from
	Content     string     `json:"content,omitempty"`
	Edits       []Edit     `json:"edits,omitempty"`
	Patch       string     `json:"patch,omitempty"`
	Plan        string     `json:"plan,omitempty"` // Markdown
	Todos       []Todo     `json:"todos,omitempty"`
	Questions   []Question `json:"questions,omitempty"`
	Web         *Web       `json:"web,omitempty"` // what a web search found
	// Rest are the input's fields the call's view does not show otherwise,
	// in the input's order.
	Rest []Field `json:"rest,omitempty"`
}

// Field is a field of a call's input: a string value as it is, anything
// else as JSON.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Edit is a replacement of old text by new.
type Edit struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// Todo is an item of a task list.
type Todo struct {
	Text   string `json:"text"`
	Status string `json:"status,omitempty"`
}

// Question is a question to the user, the options offered and the answer.
type Question struct {
	Header  string   `json:"header,omitempty"`
	Text    string   `json:"text"`
	Options []Option `json:"options,omitempty"`
	Multi   bool     `json:"multi,omitempty"`
	Answer  string   `json:"answer,omitempty"`
}

// Option is an answer offered.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// Web is what a web search found.
type Web struct {
	Pages []Page `json:"pages"`
	Text  string `json:"text,omitempty"`
}

// Page is a page a web search found.
type Page struct {
	Title string `json:"title,omitempty"`
	URL   string `json:"url"`
}

// ToolResult is what a tool gave back.
type ToolResult struct {
	CallID   string   `json:"call_id,omitempty"`
	Output   string   `json:"output"`
	IsError  bool     `json:"is_error,omitempty"`
	ExitCode *int     `json:"exit_code,omitempty"`
	Images   []*Image `json:"images,omitempty"`
	Patch    []Hunk   `json:"patch,omitempty"` // the change an edit made, with line numbers
	Paired   bool     `json:"paired,omitempty"`
}

// Hunk is one part of a change to a file: lines as a unified diff writes
// them, from line old_start of the file before and new_start after.
type Hunk struct {
	Path     string   `json:"path,omitempty"` // where a change spans several files
	OldStart int      `json:"old_start"`
	NewStart int      `json:"new_start"`
	Lines    []string `json:"lines"`
	Heading  string   `json:"heading,omitempty"` // the function or section the hunk lies in
}

// Image is a picture: its bytes (base64 in JSON), or a URL.
type Image struct {
	MediaType string `json:"media_type,omitempty"`
	Data      []byte `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

// Event is something that happened that is not a message.
type Event struct {
	Kind    string `json:"kind"`
	Raw     string `json:"raw,omitempty"`     // the record as written, for unknown ones
	Session string `json:"session,omitempty"` // the session that did it (a compaction's summariser)
}

// Usage counts tokens.
type Usage struct {
	Input      int64 `json:"input,omitempty"`
	Output     int64 `json:"output,omitempty"`
	CacheRead  int64 `json:"cache_read,omitempty"`
	CacheWrite int64 `json:"cache_write,omitempty"`
	Reasoning  int64 `json:"reasoning,omitempty"`
}

// JSON writes the JSON export of s to w, indented. It is written a message
// at a time, so memory holds the largest message (its images in base64),
// not the session; w is best buffered. The bytes are those of From(s)
// encoded whole. blob, when not nil, reads the data of images the build
// keeps in its blob store (see ingest.Blobs), a message at a time.
func JSON(w io.Writer, s *transcript.Session, blob func(key string) []byte) error {
	j := &jsonWriter{w: w}
	head := sessionHead(s)
	head.Turns = []Turn{}
	j.list("", head, len(s.Turns), func(i int, prefix string) {
		t := s.Turns[i]
		j.list(prefix, Turn{Status: t.Status, Messages: []Message{}}, len(t.Messages), func(k int, prefix string) {
			j.write(j.encode(prefix, message(t.Messages[k], blob)))
		})
	})
	j.str("\n")
	return j.err
}

// jsonWriter writes a value in pieces, each encoded as the Encoder would
// encode it in its place in the whole.
type jsonWriter struct {
	w   io.Writer
	err error // the first error; what follows it is not written
	buf bytes.Buffer
}

// encode returns v encoded as it is indented where its first line is
// already written after prefix, without the newline the Encoder ends it
// with. It holds until the next encode.
func (j *jsonWriter) encode(prefix string, v any) []byte {
	j.buf.Reset()
	// encoding/json's rules (omitempty, nil slices as null), indented as
	// it is written rather than in a second pass. A file, not a page: <, >
	// and & stay readable.
	err := jsonv2.MarshalWrite(&j.buf, v, json.DefaultOptionsV1(),
		jsontext.EscapeForHTML(false), jsontext.WithIndentPrefix(prefix), jsontext.WithIndent("  "))
	if err != nil && j.err == nil {
		j.err = err
	}
	return j.buf.Bytes()
}

// list writes head, whose last field is an empty list, with the n items
// that item writes in that list.
func (j *jsonWriter) list(prefix string, head any, n int, item func(i int, prefix string)) {
	open, ok := bytes.CutSuffix(j.encode(prefix, head), []byte("[]\n"+prefix+"}"))
	if !ok && j.err == nil {
		j.err = fmt.Errorf("%T does not end with an empty list", head)
	}
	j.write(open)
	j.str("[")
	inner := prefix + "    " // in a field of head, one level deeper
	for i := 0; i < n && j.err == nil; i++ {
		if i > 0 {
			j.str(",")
		}
		j.str("\n" + inner)
		item(i, inner)
	}
	if n > 0 {
		j.str("\n" + prefix + "  ")
	}
	j.str("]\n" + prefix + "}")
}

func (j *jsonWriter) write(data []byte) {
	if j.err == nil {
		_, j.err = j.w.Write(data)
	}
}

func (j *jsonWriter) str(s string) {
	if j.err == nil {
		_, j.err = io.WriteString(j.w, s)
	}
}

// Decode reads a JSON export, checking its schema.
func Decode(data []byte) (*Session, error) {
	var s Session
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	if s.Schema != Schema {
		return nil, fmt.Errorf("schema %q: want %q", s.Schema, Schema)
	}
	return &s, nil
}

// From converts the model to its export.
func From(s *transcript.Session) *Session {
	out := sessionHead(s)
	out.Turns = make([]Turn, len(s.Turns))
	for i, t := range s.Turns {
		ot := Turn{Status: t.Status, Messages: make([]Message, len(t.Messages))}
		for j, m := range t.Messages {
			ot.Messages[j] = message(m, nil)
		}
		out.Turns[i] = ot
	}
	return out
}

// sessionHead is the export of s but its turns.
func sessionHead(s *transcript.Session) *Session {
	return &Session{
		Schema: Schema, ID: s.ID, Format: s.Format, Agent: s.Agent, AgentVersion: s.AgentVersion,
		Source: s.Source, Sources: s.Sources, Title: s.Title, Project: s.Project, CWD: s.CWD,
		Branch: s.Branch, Models: s.Models, Started: s.Started, Ended: s.Ended, Usage: Usage(s.Usage),
		ParentID: s.ParentID, ChildIDs: s.ChildIDs, Meta: s.Meta, Skipped: skips(s.Skipped), Warnings: s.Warnings,
		Redacted: s.Redacted,
	}
}

func skips(ss []transcript.Skip) []Skip {
	var out []Skip
	for _, s := range ss {
		out = append(out, Skip(s))
	}
	return out
}

func message(m *transcript.Message, blob func(string) []byte) Message {
	om := Message{ID: m.ID, Role: string(m.Role), Model: m.Model, Time: m.Time, Usage: Usage(m.Usage),
		Meta: m.Meta, Sidechain: m.Sidechain, Branch: m.Branch, Parts: make([]Part, len(m.Parts))}
	for k, p := range m.Parts {
		om.Parts[k] = part(p, blob)
	}
	return om
}

func part(p *transcript.Part, blob func(string) []byte) Part {
	op := Part{Kind: string(p.Kind), Text: p.Text, Lang: p.Lang, Name: p.Name, Image: image(p.Image, blob)}
	if c := p.Call; c != nil {
		op.Call = &ToolCall{ID: c.ID, Name: c.Name, Kind: string(c.Kind), Input: c.Input, Subagent: c.Subagent, Args: args(c.Args)}
	}
	if r := p.Result; r != nil {
		op.Result = &ToolResult{CallID: r.CallID, Output: r.Output, IsError: r.IsError, ExitCode: r.ExitCode, Paired: r.Paired}
		for _, h := range r.Patch {
			op.Result.Patch = append(op.Result.Patch, Hunk(h))
		}
		for _, img := range r.Images {
			op.Result.Images = append(op.Result.Images, image(img, blob))
		}
	}
	if e := p.Event; e != nil {
		op.Event = &Event{Kind: e.Kind, Raw: e.Raw, Session: e.Session}
	}
	return op
}

func image(img *transcript.Image, blob func(string) []byte) *Image {
	if img == nil {
		return nil
	}
	data := img.Data
	if img.Blob != "" && blob != nil {
		data = blob(img.Blob)
	}
	return &Image{MediaType: img.MediaType, Data: data, URL: img.URL}
}

// Transcript converts an export back to the model, its results paired
// with their calls again.
func (s *Session) Transcript() *transcript.Session {
	out := &transcript.Session{
		ID: s.ID, Format: s.Format, Agent: s.Agent, AgentVersion: s.AgentVersion,
		Source: s.Source, Sources: s.Sources, Title: s.Title, Project: s.Project, CWD: s.CWD,
		Branch: s.Branch, Models: s.Models, Started: s.Started, Ended: s.Ended, Usage: transcript.Usage(s.Usage),
		ParentID: s.ParentID, ChildIDs: s.ChildIDs, Meta: s.Meta, Warnings: s.Warnings, Redacted: s.Redacted,
	}
	for _, k := range s.Skipped {
		out.Skipped = append(out.Skipped, transcript.Skip(k))
	}
	for _, t := range s.Turns {
		tt := transcript.Turn{Status: t.Status}
		for _, m := range t.Messages {
			tm := &transcript.Message{ID: m.ID, Role: transcript.Role(m.Role), Model: m.Model, Time: m.Time,
				Usage: transcript.Usage(m.Usage), Meta: m.Meta, Sidechain: m.Sidechain, Branch: m.Branch}
			for _, p := range m.Parts {
				tm.Parts = append(tm.Parts, p.transcript())
			}
			tt.Messages = append(tt.Messages, tm)
		}
		out.Turns = append(out.Turns, tt)
	}
	out.Pair()
	return out
}

func (p Part) transcript() *transcript.Part {
	tp := &transcript.Part{Kind: transcript.PartKind(p.Kind), Text: p.Text, Lang: p.Lang, Name: p.Name, Image: p.Image.transcript()}
	if c := p.Call; c != nil {
		tp.Call = &transcript.ToolCall{ID: c.ID, Name: c.Name, Kind: transcript.ToolKind(c.Kind), Input: c.Input, Subagent: c.Subagent}
		if c.Args != nil {
			tp.Call.Args = c.Args.transcript()
		}
	}
	if r := p.Result; r != nil {
		// Paired is set again by Pair.
		tp.Result = &transcript.ToolResult{CallID: r.CallID, Output: r.Output, IsError: r.IsError, ExitCode: r.ExitCode}
		for _, h := range r.Patch {
			tp.Result.Patch = append(tp.Result.Patch, transcript.Hunk(h))
		}
		for _, img := range r.Images {
			tp.Result.Images = append(tp.Result.Images, img.transcript())
		}
	}
	if e := p.Event; e != nil {
		tp.Event = &transcript.Event{Kind: e.Kind, Raw: e.Raw, Session: e.Session}
	}
	return tp
}

func (img *Image) transcript() *transcript.Image {
	if img == nil {
		return nil
	}
	return &transcript.Image{MediaType: img.MediaType, Data: img.Data, URL: img.URL}
}

// args is the export of a, or nil when a is empty.
func args(a transcript.Args) *Args {
	out := &Args{Summary: a.Summary, Path: a.Path, Command: a.Command, Description: a.Description,
		Pattern: a.Pattern, Query: a.Query, Files: a.Files, URL: a.URL, Prompt: a.Prompt, Agent: a.Agent,
		Offset: a.Offset, Limit: a.Limit, Start: a.Start, Content: a.Content, Patch: a.Patch, Plan: a.Plan}
	for _, e := range a.Edits {
		out.Edits = append(out.Edits, Edit(e))
	}
	for _, f := range a.Rest {
		out.Rest = append(out.Rest, Field(f))
	}
	for _, t := range a.Todos {
		out.Todos = append(out.Todos, Todo(t))
	}
	for _, q := range a.Questions {
		oq := Question{Header: q.Header, Text: q.Text, Multi: q.Multi, Answer: q.Answer}
		for _, o := range q.Options {
			oq.Options = append(oq.Options, Option(o))
		}
		out.Questions = append(out.Questions, oq)
	}
	if w := a.Web; w != nil {
		out.Web = &Web{Text: w.Text}
		for _, p := range w.Pages {
			out.Web.Pages = append(out.Web.Pages, Page(p))
		}
	}
	if reflect.ValueOf(*out).IsZero() {
		return nil
	}
	return out
}

func (a *Args) transcript() transcript.Args {
	out := transcript.Args{Summary: a.Summary, Path: a.Path, Command: a.Command, Description: a.Description,
		Pattern: a.Pattern, Query: a.Query, Files: a.Files, URL: a.URL, Prompt: a.Prompt, Agent: a.Agent,
		Offset: a.Offset, Limit: a.Limit, Start: a.Start, Content: a.Content, Patch: a.Patch, Plan: a.Plan}
	for _, e := range a.Edits {
		out.Edits = append(out.Edits, transcript.Edit(e))
	}
	for _, f := range a.Rest {
		out.Rest = append(out.Rest, transcript.Field(f))
	}
	for _, t := range a.Todos {
		out.Todos = append(out.Todos, transcript.Todo(t))
	}
	for _, q := range a.Questions {
		tq := transcript.Question{Header: q.Header, Text: q.Text, Multi: q.Multi, Answer: q.Answer}
		for _, o := range q.Options {
			tq.Options = append(tq.Options, transcript.Option(o))
		}
		out.Questions = append(out.Questions, tq)
	}
	if w := a.Web; w != nil {
		out.Web = &transcript.WebResults{Text: w.Text}
		for _, p := range w.Pages {
			out.Web.Pages = append(out.Web.Pages, transcript.Page(p))
		}
	}
	return out
}
