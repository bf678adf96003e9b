// Package transcript is the normalised model of an agent session: every reader
// produces it, every page is rendered from it. It does no I/O.
package transcript

import (
	"cmp"
	"slices"
	"time"
	"unicode/utf8"
)

// Session is one conversation with an agent, however many files it came from.
type Session struct {
	ID           string
	Format       string // reader name, e.g. "claude-code"
	Agent        string // display name, e.g. "Claude Code"
	AgentVersion string
	Source       string   // slash path of the main file, relative to its content dir
	Sources      []string // the other files the session was read from (resumed parts, runs)
	Title        string
	Project      string
	CWD          string
	Branch       string
	Models       []string
	Started      time.Time
	Ended        time.Time
	Usage        Usage
	ParentID     string   // the session that started this one (subagent, fork)
	ChildIDs     []string // sessions this one started
	Turns        []Turn
	Meta         map[string]string
	Skipped      []Skip         // records left out of the conversation, by kind
	Warnings     []string       // problems met while reading this session
	Redacted     map[string]int // secrets replaced in it, by kind
	// Volume is 0 for a session read whole. A session in a file read in
	// pieces (too big to hold at once) is read as volumes, one a piece it
	// has messages in, numbered from 1: each is a Session of its own, with
	// the turns of its piece, and the site joins them by ID and Source.
	Volume int
}

// Skip is a kind of record a reader leaves out of the conversation: how
// many there were and why. Pages list them, so nothing is dropped unseen.
type Skip struct {
	Kind   string // the record's type as the agent writes it, "type/subtype" where one type has several
	Count  int
	Reason string
}

// Skip counts n records of kind, which the reader leaves out for reason.
func (s *Session) Skip(kind, reason string, n int) {
	for i := range s.Skipped {
		if s.Skipped[i].Kind == kind {
			s.Skipped[i].Count += n
			return
		}
	}
	s.Skipped = append(s.Skipped, Skip{Kind: kind, Count: n, Reason: reason})
}

// Turn starts at a real user prompt and holds everything up to the next one.
type Turn struct {
	Status   string // "" (unknown or fine), "completed", "aborted", "error", "incomplete"
	Messages []*Message
}

// Turn statuses.
const (
	Completed  = "completed"
	Aborted    = "aborted"
	Failed     = "error"
	Incomplete = "incomplete" // the agent stopped writing mid-turn (a crash)
)

// Role says who wrote a message.
type Role string

const (
	User      Role = "user"
	Assistant Role = "assistant"
	System    Role = "system"
	Tool      Role = "tool" // a message that only carries tool results
)

// Message is one message of the conversation.
type Message struct {
	ID        string
	Role      Role
	Model     string
	Time      time.Time
	Usage     Usage
	Meta      bool // injected context (system reminders, command caveats): shown muted
	Sidechain bool
	// Branch is "" for messages on the conversation's final line. Messages
	// the user rewound past (an edit, a /rewind) keep their place in order
	// and carry the id of the point they branched from.
	Branch string
	Parts  []*Part
}

// PartKind says which fields of a Part are set.
type PartKind string

const (
	TextPart     PartKind = "text"
	ThinkingPart PartKind = "thinking"
	CodePart     PartKind = "code"
	CallPart     PartKind = "call"
	ResultPart   PartKind = "result"
	ImagePart    PartKind = "image"
	EventPart    PartKind = "event"
)

// Part is one piece of a message. It is a flat struct rather than an
// interface so templates can switch on Kind without type assertions.
type Part struct {
	Kind PartKind
	// Text is the text, thinking, code, or the event's description; on a
	// call, the agent's own view of the call in Markdown, if it wrote one.
	Text string
	Lang string // code language
	// Name is the code block's name; on a call, the agent's one-line
	// summary of the call, if it wrote one.
	Name   string
	Call   *ToolCall
	Result *ToolResult
	Image  *Image
	Event  *Event
}

// Images returns the pictures the part holds: its own, then its result's.
func (p *Part) Images() []*Image {
	if p.Image == nil && (p.Result == nil || len(p.Result.Images) == 0) {
		return nil // most parts: no slice made
	}
	out := []*Image{p.Image}
	if p.Result != nil {
		out = append(out, p.Result.Images...)
	}
	return slices.DeleteFunc(out, func(img *Image) bool { return img == nil })
}

// ToolKind groups tools of every agent by what they do.
type ToolKind string

const (
	ShellTool  ToolKind = "shell"
	ReadTool   ToolKind = "read"
	WriteTool  ToolKind = "write"
	EditTool   ToolKind = "edit"
	SearchTool ToolKind = "search"
	WebTool    ToolKind = "web"
	TaskTool   ToolKind = "task"
	MCPTool    ToolKind = "mcp"
	OtherTool  ToolKind = "other"
)

// ToolCall is the agent asking for a tool to run.
type ToolCall struct {
	ID     string
	Name   string
	Kind   ToolKind
	Input  string      // JSON, or free text for freeform tools such as apply_patch
	Result *ToolResult // set by Pair
	// Subagent is the ID of the session this call started (a Task/Agent
	// call, a review), which lists this session as its ParentID.
	Subagent string
	Args     Args // what Input says, in the model's terms
}

// ToolResult is what a tool gave back.
type ToolResult struct {
	CallID   string
	Output   string
	IsError  bool
	ExitCode *int
	Images   []*Image
	// Patch is the change an edit made, as the agent reported it, with its
	// line numbers: a diff of the call's old and new text has none.
	Patch  []Hunk
	Paired bool // shown inside its call, not on its own
}

// Hunk is one part of a change to a file: its lines as a unified diff
// writes them (' ', '-' or '+', then the line), from line OldStart of the
// file before and NewStart of the file after.
type Hunk struct {
	Path               string // the file, where a change spans several; "" for the call's
	OldStart, NewStart int
	Lines              []string
	// Heading is what a diff names the hunk by after its line numbers:
	// the line of the function or section it lies in, which may be above
	// the lines it shows.
	Heading string
}

// Image is a picture from the session. Data holds the decoded bytes; URL is
// used when the session only references it.
type Image struct {
	MediaType string
	Data      []byte
	// Blob, when set, is the key of the data in the build's blob store,
	// which holds it instead of Data (see ingest.Blobs).
	Blob string
	Size int // bytes of data
	URL  string
}

// Event kinds. Readers may use others ("info", "hook", "permission"); the
// page shows any kind as a marker.
const (
	Compaction = "compaction"
	Retry      = "retry"
	ErrorEvent = "error"
	Interrupt  = "interrupt"
	Command    = "command"
	Unknown    = "unknown" // a record type the reader does not know: Raw holds it
)

// Event is something that happened in a session that is not a message.
type Event struct {
	Kind string
	Raw  string // the record as written, for unknown events
	// Session is the session that did it, which lists this one as its
	// ParentID: the agent that summarised a compacted conversation.
	Session string
}

// Usage counts tokens the same way for every agent, so that costs compare:
// readers convert each agent's own counts to these.
type Usage struct {
	Input      int64 // input neither read from nor written to a cache
	Output     int64 // everything the model wrote, reasoning included
	CacheRead  int64 // input read from a cache
	CacheWrite int64 // input written to a cache
	Reasoning  int64 // the part of Output that was reasoning
}

// Add accumulates u2 into u.
func (u *Usage) Add(u2 Usage) {
	u.Input += u2.Input
	u.Output += u2.Output
	u.CacheRead += u2.CacheRead
	u.CacheWrite += u2.CacheWrite
	u.Reasoning += u2.Reasoning
}

// IsZero reports whether no tokens were counted.
func (u Usage) IsZero() bool { return u == Usage{} }

// Messages returns every message in order.
func (s *Session) Messages() []*Message {
	var ms []*Message
	for _, t := range s.Turns {
		ms = append(ms, t.Messages...)
	}
	return ms
}

// Parts calls f for every part of every message, in order.
func (s *Session) Parts(f func(m *Message, p *Part)) {
	for _, t := range s.Turns {
		for _, m := range t.Messages {
			for _, p := range m.Parts {
				f(m, p)
			}
		}
	}
}

// Stats are the counts shown in lists and in sessions.json.
type Stats struct {
	Messages  int
	Prompts   int // user messages that start a turn
	ToolCalls int
	Errors    int
	ByKind    map[ToolKind]int // tool calls by kind
	Failed    map[ToolKind]int // tool calls whose result is an error, by kind
	// Active is the time spent: the gaps between one message and the
	// next, but for pauses longer than ActiveGap.
	Active time.Duration
}

// Plus is the counts of s and o together, in maps of their own.
func (s Stats) Plus(o Stats) Stats {
	sum := Stats{Messages: s.Messages + o.Messages, Prompts: s.Prompts + o.Prompts, ToolCalls: s.ToolCalls + o.ToolCalls,
		Errors: s.Errors + o.Errors, ByKind: map[ToolKind]int{}, Failed: map[ToolKind]int{}, Active: s.Active + o.Active}
	for _, st := range []Stats{s, o} {
		for k, n := range st.ByKind {
			sum.ByKind[k] += n
		}
		for k, n := range st.Failed {
			sum.Failed[k] += n
		}
	}
	return sum
}

// ActiveGap is the longest pause that counts as time spent on a session:
// past it, the session was left and taken up again later.
const ActiveGap = 30 * time.Minute

// Stats counts the session's messages and tool calls.
func (s *Session) Stats() Stats {
	st := Stats{ByKind: map[ToolKind]int{}, Failed: map[ToolKind]int{}}
	var last time.Time
	for _, t := range s.Turns {
		st.Messages += len(t.Messages)
		if t.prompted() {
			st.Prompts++
		}
		for _, m := range t.Messages {
			st.Active, last = active(st.Active, last, m.Time)
		}
	}
	s.Parts(func(_ *Message, p *Part) { st.count(p) })
	return st
}

// prompted reports whether the turn opens with a prompt the user wrote.
func (t *Turn) prompted() bool {
	return len(t.Messages) > 0 && t.Messages[0].Role == User && !t.Messages[0].Meta
}

// active adds to the time spent so far the gap from the last message's
// time to at, when it is short enough to count, and returns it with the
// time to measure the next gap from. A message without a time is skipped.
func active(spent time.Duration, last, at time.Time) (time.Duration, time.Time) {
	if at.IsZero() {
		return spent, last
	}
	if gap := at.Sub(last); !last.IsZero() && gap > 0 && gap <= ActiveGap {
		spent += gap
	}
	return spent, at
}

// count counts a part's tool call, and its error.
func (st *Stats) count(p *Part) {
	switch {
	case p.Call != nil:
		st.ToolCalls++
		st.ByKind[p.Call.Kind]++
		if p.Call.Result != nil && p.Call.Result.IsError {
			st.Failed[p.Call.Kind]++
		}
	case p.isError():
		st.Errors++
	}
}

// isError says whether a part that is not a call is an error: a result
// that is one, or an error event.
func (p *Part) isError() bool {
	return p.Result != nil && p.Result.IsError || p.Event != nil && p.Event.Kind == ErrorEvent
}

// Duration is the time from the first to the last record, or zero if unknown.
func (s *Session) Duration() time.Duration {
	if s.Started.IsZero() || s.Ended.IsZero() {
		return 0
	}
	return s.Ended.Sub(s.Started)
}

// FirstPrompt returns the text of the first real user prompt.
func (s *Session) FirstPrompt() string {
	for _, m := range s.Messages() {
		if t := m.prompt(); t != "" {
			return t
		}
	}
	return ""
}

// prompt is the text of a user's prompt: its first text, and none of a
// message the agent made.
func (m *Message) prompt() string {
	if m.Role != User || m.Meta {
		return ""
	}
	for _, p := range m.Parts {
		if p.Kind == TextPart && p.Text != "" {
			return p.Text
		}
	}
	return ""
}

// AddModel records a model name once, keeping first-seen order.
func (s *Session) AddModel(name string) {
	if name != "" && !slices.Contains(s.Models, name) {
		s.Models = append(s.Models, name)
	}
}

// UsageByModel sums the usage of the session's messages per model, in the
// order models first appear. Usage of messages with no model is under "".
// A session whose reader records only its total (Codex) has it under its
// one model, or under "" when it has several.
func (s *Session) UsageByModel() ([]string, map[string]Usage) {
	var order []string
	by := map[string]Usage{}
	only := "" // the session's model, when it names one
	if len(s.Models) == 1 {
		only = s.Models[0]
	}
	at := "" // the model of the last message that named one
	for _, m := range s.Messages() {
		at = cmp.Or(m.Model, at)
		if m.Usage.IsZero() {
			continue
		}
		// Usage recorded apart from the reply it paid for (Codex's token
		// counts) is the model's that was at work.
		model := cmp.Or(m.Model, at, only)
		u, seen := by[model]
		if !seen {
			order = append(order, model)
		}
		u.Add(m.Usage)
		by[model] = u
	}
	if len(order) == 0 && !s.Usage.IsZero() {
		return []string{only}, map[string]Usage{only: s.Usage}
	}
	return order, by
}

// Summary is what lists, feeds and statistics show of a session's turns,
// which its Header keeps.
type Summary struct {
	Stats       Stats
	FirstPrompt string // cut to maxPrompt bytes
	Models      []string
	Usage       map[string]Usage // by model, in the order of Models
	Subagents   []Link           // the calls that started another session
}

// Link is a tool call that started another session.
type Link struct{ CallID, Session string }

// maxPrompt is as much of the first prompt as a summary keeps: more than
// any title or description shows.
const maxPrompt = 4 << 10

// Summary returns what lists show of the session, counted from its turns.
func (s *Session) Summary() Summary {
	sum := Summary{Stats: s.Stats(), FirstPrompt: cutAt(s.FirstPrompt(), maxPrompt)}
	sum.Models, sum.Usage = s.UsageByModel()
	s.Parts(func(_ *Message, p *Part) {
		if p.Call != nil && p.Call.Subagent != "" {
			sum.Subagents = append(sum.Subagents, Link{p.Call.ID, p.Call.Subagent})
		}
	})
	return sum
}

// cutAt is s cut to at most n bytes, at the start of a character.
func cutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Header is a session without its turns: its own fields, its Turns left
// out, and the Summary of them, which is what lists, feeds and statistics
// show. A build holds the header of every session, and the body, the whole
// Session, only while the session's pages are made.
type Header struct {
	Session *Session // Turns is nil
	Summary Summary
}

// Header returns the session's header: the session's fields but Turns,
// which it leaves out, packed (see Pack).
func (s *Session) Header() *Header {
	h := *s
	h.Turns = nil
	hd := &Header{Session: &h, Summary: s.Summary()}
	hd.Pack()
	return hd
}
