// Package codex reads the rollouts of Codex CLI: the JSONL files under
// ~/.codex/sessions (compressed or not), archived sessions, and the
// TypeScript CLI's JSON rollouts.
package codex

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Reader reads Codex CLI rollouts: the JSONL envelope codex-rs writes since
// late 2025, the bare layout of mid-2025, and the TypeScript CLI's JSON.
var Reader = &ingest.Reader{
	Name:  "codex",
	Agent: "Codex CLI",
	Files: "~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl (or .jsonl.zst) and ~/.codex/archived_sessions/; " +
		"the 2025 TypeScript CLI's rollout-*.json",
	Detects: "JSONL lines that are exactly {timestamp, type, payload[, ordinal]} (session_meta, response_item, event_msg, …); " +
		"a bare first line {id, timestamp[, instructions, git]} followed by ResponseItems or {\"record_type\":\"state\"}; " +
		"a {session, items} document",
	Detect:    detect,
	Read:      read,
	Pieces:    pieces,
	Prelude:   true, // the session_meta
	Merge:     merge,
	Links:     links,
	Locations: locations,
	Tools:     Tools,
}

// Tools are Codex CLI's tools, and the context it sends beside a prompt:
// the environment, AGENTS.md, permissions, a shell command the user ran, a
// turn aborted, a subagent's notification, a skill, a /review's findings
// handed back to the model.
var Tools = &ingest.Tools{
	Kinds: map[string]transcript.ToolKind{
		"shell_command": transcript.ShellTool, "exec_command": transcript.ShellTool, "local_shell_call": transcript.ShellTool, "write_stdin": transcript.ShellTool,
		"view_image":      transcript.ReadTool,
		"apply_patch":     transcript.EditTool,
		"web_search_call": transcript.SearchTool,
		"update_plan":     transcript.TaskTool, "spawn_agent": transcript.TaskTool,
	},
	Injected: []string{
		"<environment_context>",
		"<user_instructions>",
		"# AGENTS.md instructions",
		"<permissions instructions>",
		"<user_shell_command>",
		"<turn_aborted>",
		"<subagent_notification>",
		"<skill>",
		"<user_action>",
	},
}

func init() { ingest.Register(Reader) }

func locations(home string, getenv func(string) string) []ingest.Location {
	dir := cmp.Or(getenv("CODEX_HOME"), filepath.Join(home, ".codex"))
	return []ingest.Location{
		{Name: "codex", Dir: filepath.Join(dir, "sessions")},
		{Name: "codex-archived", Dir: filepath.Join(dir, "archived_sessions")},
	}
}

// itemTypes are the ResponseItem types a bare mid-2025 line holds.
var itemTypes = map[string]bool{
	"message": true, "reasoning": true, "function_call": true, "function_call_output": true,
	"local_shell_call": true, "custom_tool_call": true, "custom_tool_call_output": true, "web_search_call": true,
}

func detect(h *ingest.Head) float64 {
	recs := h.Records()
	switch {
	case len(recs) == 0 || h.IsArray():
		return 0
	case slices.ContainsFunc(recs, isEnvelope):
		return ingest.Likely
	}
	return legacy(recs)
}

// isEnvelope reports whether r is a rollout line of today: a timestamp, a
// type and a payload (and an ordinal, in some versions).
func isEnvelope(r ingest.Record) bool {
	return r["payload"] == "{" && r["type"] != "" && r.Has("timestamp") && (len(r) == 3 || len(r) == 4 && r.Has("ordinal"))
}

// legacy tells the older layouts: the TypeScript CLI's {session, items},
// and a first line of bare session facts followed by items or state.
func legacy(recs []ingest.Record) float64 {
	first := recs[0]
	if first["session"] == "{" && first["items"] == "[" {
		return ingest.Likely
	}
	if _, typed := first["type"]; typed || !first.Has("id", "timestamp") {
		return 0
	}
	if first.Has("instructions") || first.Has("git") || itemsOrState(recs[1:]) {
		return ingest.Maybe
	}
	return 0
}

// itemsOrState tells whether any of recs is a response item or a state
// marker of the mid-2025 format.
func itemsOrState(recs []ingest.Record) bool {
	for _, r := range recs {
		if r["record_type"] == "state" || itemTypes[r["type"]] {
			return true
		}
	}
	return false
}

// sessionMeta is a session_meta payload, the bare first line of a mid-2025
// rollout, or the TypeScript CLI's session object.
type sessionMeta struct {
	ID             string          `json:"id"`
	SessionID      string          `json:"session_id"`
	Timestamp      ingest.JSONTime `json:"timestamp"`
	CWD            string          `json:"cwd"`
	Originator     string          `json:"originator"`
	CLIVersion     string          `json:"cli_version"`
	Source         json.RawMessage `json:"source"`
	ModelProvider  string          `json:"model_provider"`
	Instructions   json.RawMessage `json:"instructions"`
	ForkedFromID   string          `json:"forked_from_id"`
	ParentThreadID string          `json:"parent_thread_id"`
	AgentNickname  string          `json:"agent_nickname"`
	AgentRole      string          `json:"agent_role"`
	Git            *struct {
		CommitHash    string `json:"commit_hash"`
		Branch        string `json:"branch"`
		RepositoryURL string `json:"repository_url"`
	} `json:"git"`
}

// source describes where the session came from ("cli", "subagent review")
// and, for a spawned thread, the thread that spawned it and the agent path
// it was spawned as.
func (m *sessionMeta) source() (desc, parent, agentPath string) {
	var s string
	if ingest.Unmarshal(m.Source, &s) == nil {
		return s, "", ""
	}
	var obj struct {
		Subagent json.RawMessage `json:"subagent"`
	}
	if ingest.Unmarshal(m.Source, &obj) != nil || obj.Subagent == nil {
		return ingest.Text(m.Source), "", ""
	}
	if ingest.Unmarshal(obj.Subagent, &s) == nil {
		return "subagent " + s, "", ""
	}
	var sub map[string]json.RawMessage
	_ = ingest.Unmarshal(obj.Subagent, &sub)
	kinds := make([]string, 0, len(sub))
	for k := range sub {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	var spawn struct {
		Parent string `json:"parent_thread_id"`
		Path   string `json:"agent_path"`
	}
	_ = ingest.Unmarshal(sub["thread_spawn"], &spawn)
	return "subagent " + strings.Join(kinds, " "), spawn.Parent, spawn.Path
}

// reviewCall names the call of a /review's subagent.
const reviewCall = "review"

// responseItem is a ResponseItem: what the model saw and said.
type responseItem struct {
	Type          string        `json:"type"`
	ID            string        `json:"id"`
	Role          string        `json:"role"`
	Content       ingest.Raw    `json:"content"`
	Summary       []contentItem `json:"summary"`
	Name          string        `json:"name"`
	Namespace     string        `json:"namespace"`
	Arguments     ingest.Raw    `json:"arguments"`
	Input         ingest.Raw    `json:"input"`
	CallID        string        `json:"call_id"`
	Output        ingest.Raw    `json:"output"`
	Action        ingest.Raw    `json:"action"`
	Tools         ingest.Raw    `json:"tools"`
	Author        string        `json:"author"`
	Recipient     string        `json:"recipient"`
	RevisedPrompt string        `json:"revised_prompt"`
	Result        ingest.Raw    `json:"result"`
}

// contentItem is one content item of a message, a reasoning summary or a tool
// output, or an MCP content block.
type contentItem struct {
	Type string `json:"type"`
	Text string `json:"text"`
	// Some writers of Codex's shapes key an output_text block's text by
	// its type.
	OutputText string `json:"output_text"`
	ImageURL   string `json:"image_url"`
	Data       string `json:"data"`     // MCP image blocks
	URL        string `json:"imageUrl"` // dynamic tool outputs
}

// eventMsg is an event_msg payload. Fields whose shape differs between
// event types or versions are kept raw.
type eventMsg struct {
	Type         string        `json:"type"`
	Message      ingest.Raw    `json:"message"`
	Text         string        `json:"text"`
	Images       []string      `json:"images"`
	Info         ingest.Raw    `json:"info"`
	Reason       string        `json:"reason"`
	CallID       string        `json:"call_id"`
	Error        ingest.Raw    `json:"error"`
	Result       ingest.Raw    `json:"result"`
	Success      *bool         `json:"success"`
	ExitCode     *int          `json:"exit_code"`
	Stdout       string        `json:"stdout"`
	Stderr       string        `json:"stderr"`
	Aggregated   string        `json:"aggregated_output"`
	Command      ingest.Raw    `json:"command"`
	Changes      ingest.Raw    `json:"changes"`
	Arguments    ingest.Raw    `json:"arguments"`
	ContentItems []contentItem `json:"content_items"`
	Tool         string        `json:"tool"`
	Invocation   struct {
		Server    string     `json:"server"`
		Tool      string     `json:"tool"`
		Arguments ingest.Raw `json:"arguments"`
	} `json:"invocation"`
	Query      string        `json:"query"`
	Results    []searchHit   `json:"results"`
	ThreadName string        `json:"thread_name"`
	NewThread  string        `json:"new_thread_id"`
	AgentTID   string        `json:"agent_thread_id"`
	AgentPath  string        `json:"agent_path"`
	Kind       ingest.Raw    `json:"kind"`
	Hint       string        `json:"user_facing_hint"`
	Target     ingest.Raw    `json:"target"`
	Review     *reviewOutput `json:"review_output"`
	Prompt     string        `json:"prompt"`
	NumTurns   int           `json:"num_turns"`
	Item       ingest.Raw    `json:"item"`
	Status     ingest.Raw    `json:"status"`
	Rationale  string        `json:"rationale"`
}

type searchHit struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

type reviewOutput struct {
	Findings []struct {
		Title    string `json:"title"`
		Body     string `json:"body"`
		Location struct {
			Path  string `json:"absolute_file_path"`
			Range struct {
				Start int `json:"start"`
				End   int `json:"end"`
			} `json:"line_range"`
		} `json:"code_location"`
	} `json:"findings"`
	Correctness string `json:"overall_correctness"`
	Explanation string `json:"overall_explanation"`
}

// usage is a token_count's usage. Codex, like the OpenAI API, counts
// cached tokens inside input_tokens and reasoning inside output_tokens.
type usage struct {
	Input      int64 `json:"input_tokens"`
	Cached     int64 `json:"cached_input_tokens"`
	CacheWrite int64 `json:"cache_write_input_tokens"`
	Output     int64 `json:"output_tokens"`
	Reasoning  int64 `json:"reasoning_output_tokens"`
	Total      int64 `json:"total_tokens"`
}

func (u usage) usage() transcript.Usage {
	return transcript.Usage{Input: max(u.Input-u.Cached, 0), Output: u.Output, CacheRead: u.Cached,
		CacheWrite: u.CacheWrite, Reasoning: u.Reasoning}
}

// reader reads one file, which may hold several sessions.
type reader struct {
	f    *ingest.File
	byID map[string]*thread
	all  []*thread
	cur  *thread
}

func read(ctx context.Context, f *ingest.File, r io.Reader) ([]*transcript.Session, error) {
	rd := &reader{f: f, byID: map[string]*thread{}}
	br := bufio.NewReaderSize(r, 64<<10)
	var err error
	if prettyJSON(br) {
		var doc struct {
			Session json.RawMessage   `json:"session"`
			Items   []json.RawMessage `json:"items"`
		}
		if err = json.NewDecoder(br).Decode(&doc); err == nil {
			rd.document(0, doc.Session, doc.Items)
		}
	} else {
		err = ingest.JSONL(ctx, f, br, rd.line)
	}
	var out []*transcript.Session
	for _, cs := range rd.all {
		cs.finish()
		if len(cs.s.Turns) > 0 {
			out = append(out, cs.s)
		}
	}
	return out, err
}

// pieces reports whether a file may be read in pieces: a JSONL
// rollout is, a pretty-printed document is not.
func pieces(h *ingest.Head) bool {
	return !prettyJSON(bufio.NewReader(bytes.NewReader(h.Data)))
}

// prettyJSON reports whether the stream opens with a line holding only "{":
// a pretty-printed JSON document (the TypeScript CLI's rollout), not JSONL.
func prettyJSON(br *bufio.Reader) bool {
	b, _ := br.Peek(4096)
	b = bytes.TrimLeft(b, " \t\r\n\ufeff")
	i := bytes.IndexByte(b, '\n')
	return len(b) > 0 && b[0] == '{' && i > 0 && len(bytes.TrimSpace(b[1:i])) == 0
}

func (rd *reader) line(n int, line []byte) error {
	var ln struct {
		Timestamp  ingest.JSONTime   `json:"timestamp"`
		Type       string            `json:"type"`
		Payload    ingest.Raw        `json:"payload"`
		RecordType string            `json:"record_type"`
		ID         string            `json:"id"`
		Session    json.RawMessage   `json:"session"`
		Items      []json.RawMessage `json:"items"`
	}
	if err := ingest.Unmarshal(line, &ln); err != nil {
		return err
	}
	t := ln.Timestamp.Time
	defer rd.recordAt(t)
	switch {
	case ln.Type != "" && bytes.HasPrefix(ln.Payload, []byte("{")):
		return rd.envelope(n, ln.Type, ln.Payload, line, t)
	case ln.RecordType != "":
		rd.session().skip("record_type/" + ln.RecordType) // mid-2025 state markers
	case ln.Type == "" && ln.ID != "":
		return rd.meta(line, t) // the bare first line of a mid-2025 rollout
	case ln.Session != nil && ln.Items != nil:
		rd.document(n, ln.Session, ln.Items)
	case ln.Type != "":
		return rd.session().item(n, line, line, t) // a bare mid-2025 ResponseItem
	default:
		rd.session().unknown("Unknown record", line, t)
	}
	return nil
}

// recordAt notes the time of a record: the session ends with its last
// record, whichever it is (a token count, a turn's end), not with its
// last message.
func (rd *reader) recordAt(t time.Time) {
	if cs := rd.cur; cs != nil && t.After(cs.lastRecord) {
		cs.lastRecord = t
	}
}

// document reads the TypeScript CLI's {session, items} rollout.
func (rd *reader) document(n int, session json.RawMessage, items []json.RawMessage) {
	if session != nil {
		if err := rd.meta(session, time.Time{}); err != nil {
			rd.f.Warn(n, "session skipped: %v", err)
		}
	}
	for i, it := range items {
		if err := rd.session().item(n, it, it, time.Time{}); err != nil {
			rd.f.Warn(n, "item %d skipped: %v", i, err)
		}
	}
}

// envelopeReaders read an envelope's payload by the envelope's type;
// session_meta, which starts a session, is read before them.
var envelopeReaders = map[string]func(cs *thread, n int, payload, line []byte, t time.Time) error{
	"turn_context":              (*thread).turnContext,
	"response_item":             (*thread).item,
	"event_msg":                 (*thread).event,
	"compacted":                 (*thread).compacted,
	"inter_agent_communication": (*thread).interAgent,
	"world_state":               (*thread).worldState,
	"inter_agent_communication_metadata": func(cs *thread, _ int, _, _ []byte, _ time.Time) error {
		cs.skip("inter_agent_communication_metadata")
		return nil
	},
}

func (rd *reader) envelope(n int, typ string, payload, line []byte, t time.Time) error {
	if typ == "session_meta" {
		return rd.meta(payload, t)
	}
	cs := rd.session()
	if read := envelopeReaders[typ]; read != nil {
		return read(cs, n, payload, line, t)
	}
	cs.unknown("Unknown record type "+strconv.Quote(typ), line, t)
	return nil
}

func (cs *thread) turnContext(_ int, payload, _ []byte, _ time.Time) error {
	var tc struct {
		Model string `json:"model"`
		CWD   string `json:"cwd"`
	}
	if err := ingest.Unmarshal(payload, &tc); err != nil {
		return err
	}
	if tc.Model != "" {
		cs.model = tc.Model
		cs.s.AddModel(tc.Model)
	}
	if cs.s.CWD == "" {
		cs.s.CWD = tc.CWD
	}
	return nil
}

func (cs *thread) compacted(_ int, payload, _ []byte, t time.Time) error {
	var c struct {
		Message string `json:"message"`
	}
	if err := ingest.Unmarshal(payload, &c); err != nil {
		return err
	}
	cs.compaction(c.Message, t)
	return nil
}

func (cs *thread) interAgent(_ int, payload, _ []byte, t time.Time) error {
	var c struct {
		Author    string `json:"author"`
		Recipient string `json:"recipient"`
		Content   string `json:"content"`
	}
	if err := ingest.Unmarshal(payload, &c); err != nil {
		return err
	}
	cs.agentMessage(c.Author, c.Recipient, []*transcript.Part{{Kind: transcript.TextPart, Text: c.Content}}, t)
	return nil
}

// worldState shows the model-visible environment (AGENTS.md, permissions,
// skills): injected context, kept whole as the event's record.
func (cs *thread) worldState(_ int, payload, line []byte, t time.Time) error {
	var w map[string]json.RawMessage
	_ = ingest.Unmarshal(payload, &w)
	if st := w["state"]; st != nil {
		w = nil
		_ = ingest.Unmarshal(st, &w)
	}
	keys := make([]string, 0, len(w))
	for k := range w {
		if k != "full" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	cs.system(true, t, ingest.EventPart("context", "World state: "+strings.Join(keys, ", "), line))
	return nil
}

// session returns the session records are read into, starting one named
// after the file for records that come before any session_meta.
func (rd *reader) session() *thread {
	if rd.cur == nil {
		rd.cur = rd.start(ingest.Stem(rd.f.Rel))
	}
	return rd.cur
}

func (rd *reader) start(id string) *thread {
	cs := &thread{
		f:       rd.f,
		s:       &transcript.Session{ID: id},
		calls:   map[string]call{},
		results: map[string]*transcript.ToolResult{},
		ends:    map[string]endEvent{},
	}
	rd.byID[id] = cs
	rd.all = append(rd.all, cs)
	return cs
}

// meta reads a session_meta. Codex copies a thread's whole rollout,
// session_meta lines included, into the start of a fork or of a subagent
// spawned with its parent's history, so the first session_meta is the
// file's own thread and a later one for another thread marks copied
// history. Only a session_meta naming a thread of this file as its parent
// starts a session of its own.
func (rd *reader) meta(raw []byte, t time.Time) error {
	var m sessionMeta
	if err := ingest.Unmarshal(raw, &m); err != nil {
		return err
	}
	id := ingest.FirstNonEmpty(m.ID, m.SessionID)
	desc, parent, agentPath := m.source()
	parent = ingest.FirstNonEmpty(parent, m.ParentThreadID, m.ForkedFromID)
	cs := rd.metaSession(id, parent)
	if cs == nil {
		rd.cur.copiedHistory(id, t)
		return nil
	}
	rd.cur = cs
	first := !cs.hasMeta
	cs.hasMeta = true
	s := cs.s
	if parent != "" && parent != s.ID && s.ParentID == "" {
		s.ParentID = parent
	}
	if s.Started.IsZero() {
		s.Started = m.Timestamp.Time
	}
	s.AgentVersion = ingest.FirstNonEmpty(m.CLIVersion, s.AgentVersion)
	s.CWD = ingest.FirstNonEmpty(s.CWD, m.CWD)
	metaFacts(s, &m, desc, agentPath)
	if ins := ingest.Text(m.Instructions); first && strings.TrimSpace(ins) != "" {
		cs.system(true, m.Timestamp.Time, &transcript.Part{Kind: transcript.TextPart, Text: ins})
	}
	return nil
}

// copiedHistory marks the start of history copied from thread id: the
// session goes on.
func (cs *thread) copiedHistory(id string, t time.Time) {
	if !cs.sawItem && cs.s.ParentID == "" && id != cs.s.ID {
		cs.s.ParentID = id // a fork that predates forked_from_id
	}
	cs.system(true, t, ingest.EventPart("info", "History copied from thread "+ingest.FirstNonEmpty(id, "(no id)"), nil))
}

// metaSession is the session a session_meta record with id speaks of:
// the first, this thread's when records came before it, one already
// read, or a subagent's new one. Nil when it starts a copy of another
// thread's history.
func (rd *reader) metaSession(id, parent string) *thread {
	cs := rd.cur
	switch {
	case cs == nil:
		return rd.start(ingest.FirstNonEmpty(id, ingest.Stem(rd.f.Rel)))
	case !cs.hasMeta && rd.byID[id] == nil:
		if id != "" {
			delete(rd.byID, cs.s.ID)
			cs.s.ID = id
			rd.byID[id] = cs
		}
		return cs
	case rd.byID[id] != nil:
		return rd.byID[id]
	case id != "" && rd.byID[parent] != nil:
		ingest.AddChild(rd.byID[parent].s, id)
		return rd.start(id)
	}
	return nil
}

// metaFacts keeps the facts a session_meta names.
func metaFacts(s *transcript.Session, m *sessionMeta, desc, agentPath string) {
	var commit, repo string
	if g := m.Git; g != nil {
		s.Branch = ingest.FirstNonEmpty(g.Branch, s.Branch)
		commit, repo = g.CommitHash, g.RepositoryURL
	}
	for _, kv := range [][2]string{
		{"originator", m.Originator}, {source, desc}, {"model provider", m.ModelProvider},
		{"agent nickname", m.AgentNickname}, {"agent role", m.AgentRole}, {agentPathKey, agentPath},
		{"git commit", commit}, {"repository", repo},
	} {
		if kv[1] != "" && kv[1] != "null" {
			if s.Meta == nil {
				s.Meta = map[string]string{}
			}
			s.Meta[kv[0]] = kv[1]
		}
	}
}

// thread accumulates one session of a rollout.
type thread struct {
	f       *ingest.File
	s       *transcript.Session
	hasMeta bool
	sawItem bool
	model   string

	// cur is the assistant message of the model response being read: its
	// reasoning, text, tool calls and their outputs. After an output, the
	// next reasoning, text or call is the model's next response.
	cur     *transcript.Message
	curDone bool
	last    *transcript.Message

	echoes   []echo
	calls    map[string]call
	searches []call // web searches, in order
	results  map[string]*transcript.ToolResult
	ends     map[string]endEvent
	endIDs   []string

	lastTotal  *usage
	total      transcript.Usage
	sum        transcript.Usage
	openTurn   bool
	title      string
	toolSearch string // the last tool search's call
	lastRecord time.Time

	// review is the open /review's call, which its exited_review_mode
	// answers; the records between them are the reviewer's, forwarded.
	review  call
	reviews int
}

type call struct {
	c *transcript.ToolCall
	m *transcript.Message
}

// endEvent is what an *_end event says about a call whose output may come later.
type endEvent struct {
	isErr  bool
	exit   *int
	output string
	images []*transcript.Image
	patch  []transcript.Hunk
}

// change is a file's change as patch_apply_end reports it: tagged by a
// "type" since 2026 ({"type":"update","unified_diff":…}), by a key before
// ({"update":{"unified_diff":…}}).
type change struct {
	changeBody
	Type        string      `json:"type"`
	Update      *changeBody `json:"update"`
	Add, Delete *changeBody
}

type changeBody struct {
	UnifiedDiff *string `json:"unified_diff"`
	Content     *string `json:"content"`
	MovePath    string  `json:"move_path"`
}

// body is the change's kind and fields, whichever way it is tagged.
func (c *change) body() (string, *changeBody) {
	switch {
	case c.Update != nil:
		return "update", c.Update
	case c.Add != nil:
		return "add", c.Add
	case c.Delete != nil:
		return "delete", c.Delete
	}
	return c.Type, &c.changeBody
}

// patchHunks reads the changes a patch_apply_end reports, file by file: the
// hunks of an update with their line numbers, or the whole of a file added
// or deleted. Paths under cwd are given as the patch gave them, relative,
// and the files come in the order the call's patch (input) names them.
// It is nil unless every file's change is there to show: the call's own
// patch then shows them all.
func patchHunks(raw []byte, cwd, input string) []transcript.Hunk {
	var changes map[string]change
	if ingest.Unmarshal(raw, &changes) != nil {
		return nil
	}
	paths := slices.Sorted(maps.Keys(changes))
	at := func(p string) int {
		if i := strings.Index(input, "File: "+relPath(p, cwd)); i >= 0 {
			return i
		}
		return len(input) // not named there: after those it names
	}
	slices.SortStableFunc(paths, func(a, b string) int { return cmp.Compare(at(a), at(b)) })
	var out []transcript.Hunk
	for _, p := range paths {
		c := changes[p]
		kind, b := c.body()
		hs := b.hunks(kind)
		if len(hs) == 0 {
			return nil
		}
		path := relPath(p, cwd)
		if b.MovePath != "" && b.MovePath != p {
			path += " → " + relPath(b.MovePath, cwd)
		}
		for i := range hs {
			hs[i].Path = path
		}
		out = append(out, hs...)
	}
	return out
}

func (b *changeBody) hunks(kind string) []transcript.Hunk {
	switch {
	case kind == "update" && b.UnifiedDiff != nil:
		return ingest.UnifiedHunks(*b.UnifiedDiff)
	case kind == "add" && b.Content != nil:
		return []transcript.Hunk{{NewStart: 1, Lines: prefixLines("+", *b.Content)}}
	case kind == "delete" && b.Content != nil:
		return []transcript.Hunk{{OldStart: 1, Lines: prefixLines("-", *b.Content)}}
	}
	return nil
}

// relPath is p relative to dir when it lies under it.
func relPath(p, dir string) string {
	if dir == "" {
		return p
	}
	if rest, ok := strings.CutPrefix(p, strings.TrimRight(dir, `/\`)); ok && rest != "" && strings.ContainsRune(`/\`, rune(rest[0])) {
		return rest[1:]
	}
	return p
}

func prefixLines(mark, text string) []string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = mark + l
	}
	return lines
}

// echo is text read from one of Codex's two copies of the conversation:
// the response items the model saw and the event_msg copies the UI
// replays. The copy read second is dropped.
type echo struct {
	event bool
	role  transcript.Role
	kind  transcript.PartKind
	texts []string
	m     *transcript.Message
}

func (cs *thread) add(m *transcript.Message) {
	cs.s.Append(m)
	cs.cur, cs.last = nil, m
}

func (cs *thread) system(meta bool, t time.Time, parts ...*transcript.Part) {
	cs.add(&transcript.Message{Role: transcript.System, Time: t, Meta: meta, Parts: parts})
}

// skip counts a record of kind ("type/subtype") that the page leaves out.
func (cs *thread) skip(kind string) {
	cs.s.Skip(kind, skipReason(kind), 1)
}

// subtypeSkips, typeSkips and prefixSkips say why a record of a kind
// ("type/subtype") is left out, by its subtype, its type, or how its
// subtype starts; any other is the begin or end of a tool call.
var (
	subtypeSkips = map[string]string{
		"thread_settings_applied":       "the thread's settings (model, sandbox), which turn_context records too",
		"agent_reasoning_section_break": "a break between sections of reasoning, with no text",
		"reasoning (encrypted)":         encryptedSkip,
		"ghost_snapshot":                "a snapshot of the working tree, kept for undo",
		"additional_tools":              "tools offered to the model",
	}
	typeSkips = map[string]string{
		"record_type":                        "a state marker of the mid-2025 rollout format",
		"inter_agent_communication_metadata": "routing of messages between agents",
		"encrypted_content":                  encryptedSkip,
	}
	prefixSkips = []struct{ prefix, reason string }{
		{"item_completed/", "a turn item copying a tool call, which its response items show"},
		{"web_search", "the end of a web search, which its call shows"},
	}
)

const encryptedSkip = "content OpenAI keeps encrypted"

func skipReason(kind string) string {
	typ, sub, _ := strings.Cut(kind, "/")
	for _, p := range prefixSkips {
		if strings.HasPrefix(sub, p.prefix) {
			return p.reason
		}
	}
	if r, ok := subtypeSkips[sub]; ok {
		return r
	}
	if r, ok := typeSkips[typ]; ok {
		return r
	}
	return "the begin or end of a tool call, which its response items show"
}

func (cs *thread) unknown(desc string, raw []byte, t time.Time) {
	cs.system(true, t, cs.f.Unknown(desc, raw))
}

// assistant returns the message of the current model response.
func (cs *thread) assistant(t time.Time) *transcript.Message {
	if cs.cur == nil || cs.curDone {
		m := &transcript.Message{Role: transcript.Assistant, Model: cs.model, Time: t}
		cs.add(m)
		cs.cur, cs.curDone = m, false
	}
	return cs.cur
}

// twin finds, and forgets, the other copy of text. A message's copies
// match as a whole or, as images wrap a prompt in tags, part for part.
func (cs *thread) twin(event bool, role transcript.Role, kind transcript.PartKind, texts ...string) *transcript.Message {
	for i, e := range cs.echoes {
		if e.event == event || e.role != role || e.kind != kind {
			continue
		}
		for _, t := range texts {
			if t = strings.TrimSpace(t); t != "" && slices.Contains(e.texts, t) {
				cs.echoes = slices.Delete(cs.echoes, i, i+1)
				return e.m
			}
		}
	}
	return nil
}

func (cs *thread) remember(event bool, role transcript.Role, kind transcript.PartKind, m *transcript.Message, texts ...string) {
	var ts []string
	for _, t := range texts {
		if t = strings.TrimSpace(t); t != "" {
			ts = append(ts, t)
		}
	}
	if len(ts) > 0 {
		if len(cs.echoes) >= 32 {
			cs.echoes = cs.echoes[1:]
		}
		cs.echoes = append(cs.echoes, echo{event, role, kind, ts, m})
	}
}

// mergeImages adds the images of a dropped copy when the kept one has none.
func mergeImages(m *transcript.Message, parts []*transcript.Part) {
	if slices.ContainsFunc(m.Parts, func(p *transcript.Part) bool { return p.Kind == transcript.ImagePart }) {
		return
	}
	for _, p := range parts {
		if p.Kind == transcript.ImagePart {
			m.Parts = append(m.Parts, p)
		}
	}
}

func (cs *thread) item(n int, raw, line []byte, t time.Time) error {
	var it responseItem
	if err := ingest.Unmarshal(raw, &it); err != nil {
		return err
	}
	cs.sawItem = true
	switch read := itemReaders[it.Type]; {
	case read != nil:
		read(cs, n, &it, line, t)
	case it.Type == "compaction", it.Type == "context_compaction", it.Type == "compaction_summary":
		cs.compaction("", t)
	case it.Type == "ghost_snapshot", it.Type == "additional_tools":
		cs.skip("response_item/" + it.Type)
	default:
		cs.unknown("Unknown response item "+strconv.Quote(it.Type), line, t)
	}
	return nil
}

// itemReaders read each type of response item.
var itemReaders = map[string]func(cs *thread, n int, it *responseItem, line []byte, t time.Time){
	"message":          func(cs *thread, n int, it *responseItem, _ []byte, t time.Time) { cs.message(n, it, t) },
	"reasoning":        func(cs *thread, _ int, it *responseItem, _ []byte, t time.Time) { cs.reasoning(it, t) },
	"function_call":    (*thread).functionCall,
	"custom_tool_call": (*thread).functionCall,
	"local_shell_call": func(cs *thread, _ int, it *responseItem, _ []byte, t time.Time) {
		cs.call(&transcript.ToolCall{ID: ingest.FirstNonEmpty(it.CallID, it.ID), Name: it.Type, Kind: transcript.ShellTool, Input: ingest.Text(it.Action)}, t)
	},
	"web_search_call": func(cs *thread, _ int, it *responseItem, _ []byte, t time.Time) {
		cs.call(&transcript.ToolCall{ID: it.ID, Name: "web_search", Kind: transcript.SearchTool, Input: ingest.Text(it.Action)}, t)
	},
	"tool_search_call": func(cs *thread, _ int, it *responseItem, _ []byte, t time.Time) {
		// A search the server ran has no call_id, and its output none either.
		cs.toolSearch = ingest.FirstNonEmpty(it.CallID, it.ID)
		cs.call(&transcript.ToolCall{ID: cs.toolSearch, Name: "tool_search", Kind: transcript.SearchTool, Input: ingest.Text(it.Arguments)}, t)
	},
	"image_generation_call": func(cs *thread, n int, it *responseItem, _ []byte, t time.Time) { cs.imageGeneration(n, it, t) },
	"function_call_output": func(cs *thread, n int, it *responseItem, _ []byte, t time.Time) {
		cs.result(cs.output(n, it.CallID, it.Output), t)
	},
	"custom_tool_call_output": func(cs *thread, n int, it *responseItem, _ []byte, t time.Time) {
		cs.result(cs.output(n, it.CallID, it.Output), t)
	},
	"tool_search_output": func(cs *thread, _ int, it *responseItem, _ []byte, t time.Time) {
		cs.result(&transcript.ToolResult{CallID: ingest.FirstNonEmpty(it.CallID, cs.toolSearch), Output: strings.Join(foundTools(it.Tools), "\n")}, t)
	},
	"agent_message": func(cs *thread, n int, it *responseItem, _ []byte, t time.Time) {
		cs.agentMessage(it.Author, it.Recipient, cs.content(n, it.Content), t)
	},
}

// reasoning reads a reasoning item: its summary, or the raw reasoning of
// models that show it; an encrypted one is counted.
func (cs *thread) reasoning(it *responseItem, t time.Time) {
	var content []contentItem
	_ = ingest.Unmarshal(it.Content, &content)
	texts := it.Summary
	if len(texts) == 0 {
		texts = content
	}
	if len(texts) == 0 {
		cs.skip("response_item/reasoning (encrypted)")
	}
	for _, c := range texts {
		if strings.TrimSpace(c.Text) == "" || cs.twin(false, transcript.Assistant, transcript.ThinkingPart, c.Text) != nil {
			continue
		}
		m := cs.assistant(t)
		m.Parts = append(m.Parts, &transcript.Part{Kind: transcript.ThinkingPart, Text: c.Text})
		cs.remember(false, transcript.Assistant, transcript.ThinkingPart, m, c.Text)
	}
}

// functionCall reads a function or custom tool call.
func (cs *thread) functionCall(_ int, it *responseItem, line []byte, t time.Time) {
	if it.Name == "" {
		cs.unknown("Tool call without a name", line, t)
		return
	}
	name := it.Namespace + it.Name
	input := ingest.Text(it.Arguments)
	if it.Type == "custom_tool_call" {
		input = ingest.Text(it.Input)
	}
	cs.call(&transcript.ToolCall{ID: it.CallID, Name: name, Kind: Tools.Kind(name), Input: input}, t)
}

// imageGeneration reads an image the model generated, as a call and its
// result.
func (cs *thread) imageGeneration(n int, it *responseItem, t time.Time) {
	cs.call(&transcript.ToolCall{ID: it.ID, Name: "image_generation", Kind: transcript.OtherTool, Input: it.RevisedPrompt}, t)
	r := &transcript.ToolResult{CallID: it.ID}
	if p := cs.image(n, ingest.Text(it.Result)); p.Image != nil {
		r.Images = []*transcript.Image{p.Image}
	} else {
		r.Output = p.Text
	}
	cs.result(r, t)
}

// message reads a message item. The harness puts its context (AGENTS.md,
// the environment, permissions) in user and developer messages: it is kept
// as meta, apart from what the user typed.
func (cs *thread) message(n int, it *responseItem, t time.Time) {
	parts := cs.content(n, it.Content)
	var texts []string
	for _, p := range parts {
		if p.Kind == transcript.TextPart {
			texts = append(texts, p.Text)
		}
	}
	joined := strings.Join(texts, "\n")
	switch it.Role {
	case "assistant":
		if m := cs.twin(false, transcript.Assistant, transcript.TextPart, joined); m != nil {
			mergeImages(m, parts)
			return
		}
		m := cs.assistant(t)
		if m.ID == "" {
			m.ID = it.ID
		}
		m.Parts = append(m.Parts, parts...)
		cs.remember(false, transcript.Assistant, transcript.TextPart, m, joined)
	case "user":
		cs.userItem(it.ID, parts, t)
	default: // developer and system messages are the harness's instructions
		if len(parts) > 0 {
			cs.add(&transcript.Message{ID: it.ID, Role: transcript.System, Time: t, Meta: true, Parts: contextParts(parts)})
		}
	}
}

// userItem reads a user message item: what the user typed, and what the
// harness and the IDE put beside it, which is kept as context.
func (cs *thread) userItem(id string, parts []*transcript.Part, t time.Time) {
	var u userParts
	for _, p := range parts {
		u.add(p)
	}
	meta, typed, ide, texts := u.meta, u.typed, u.ide, u.texts
	if len(meta) > 0 {
		cs.add(&transcript.Message{ID: id, Role: transcript.User, Time: t, Meta: true, Parts: meta})
	}
	if len(typed) == 0 {
		cs.ideContext(ide, t)
		return
	}
	texts = append(texts, strings.Join(texts, "\n"))
	if m := cs.twin(false, transcript.User, transcript.TextPart, texts...); m != nil {
		// The event's copy came first, with the IDE's context.
		mergeImages(m, typed)
		m.ID = ingest.FirstNonEmpty(m.ID, id)
		return
	}
	m := &transcript.Message{ID: id, Role: transcript.User, Time: t, Parts: typed}
	cs.add(m)
	cs.remember(false, transcript.User, transcript.TextPart, m, texts...)
	cs.ideContext(ide, t)
}

// ideContext adds what the IDE told the model beside a prompt (the open
// files, the selection) as context after it, in the prompt's turn.
// userParts sorts the parts of a user message item: the context the
// harness injected (meta), what the user typed and attached (typed, with
// the typed texts), and the context an IDE put before a request (ide).
type userParts struct {
	meta, typed, ide []*transcript.Part
	texts            []string
}

func (u *userParts) add(p *transcript.Part) {
	switch {
	case p.Kind != transcript.TextPart:
		u.typed = append(u.typed, p)
	case Tools.IsInjected(p.Text):
		u.meta = append(u.meta, contextPart(p.Text))
	default:
		u.typedText(p.Text)
	}
}

func (u *userParts) typedText(text string) {
	if ctx, req, ok := ideRequest(text); ok {
		u.ide = append(u.ide, &transcript.Part{Kind: transcript.TextPart, Text: ctx})
		text = req
	}
	if strings.TrimSpace(text) != "" {
		u.typed = append(u.typed, &transcript.Part{Kind: transcript.TextPart, Text: text})
		u.texts = append(u.texts, text)
	}
}

func (cs *thread) ideContext(parts []*transcript.Part, t time.Time) {
	if len(parts) > 0 {
		cs.add(&transcript.Message{Role: transcript.User, Time: t, Meta: true, Parts: parts})
	}
}

// contextPart is a text part of injected context, without its tags.
func contextPart(text string) *transcript.Part {
	return &transcript.Part{Kind: transcript.TextPart, Text: contextText(text)}
}

// contextParts shows the text parts of the harness's instructions without
// their tags.
func contextParts(parts []*transcript.Part) []*transcript.Part {
	for i, p := range parts {
		if p.Kind == transcript.TextPart {
			parts[i] = contextPart(p.Text)
		}
	}
	return parts
}

// content reads message content: a string, or an array of content items.
func (cs *thread) content(n int, raw []byte) []*transcript.Part {
	items, ok := contentItems(raw)
	if !ok {
		if s := ingest.Text(raw); strings.TrimSpace(s) != "" {
			return []*transcript.Part{{Kind: transcript.TextPart, Text: s}}
		}
		return nil
	}
	return cs.parts(n, items)
}

func (cs *thread) parts(n int, items []contentItem) []*transcript.Part {
	var parts []*transcript.Part
	for _, c := range items {
		switch c.Type {
		case "input_image", "output_image", "image", "inputImage":
			parts = append(parts, cs.image(n, ingest.FirstNonEmpty(c.ImageURL, c.Data, c.URL)))
		case "encrypted_content":
			cs.skip("encrypted_content")
		default: // input_text, output_text, text, refusal
			if strings.TrimSpace(c.Text) != "" {
				parts = append(parts, &transcript.Part{Kind: transcript.TextPart, Text: c.Text})
			}
		}
	}
	return parts
}

// contentItems reads an array of content items, each with a type.
func contentItems(raw []byte) ([]contentItem, bool) {
	var items []contentItem
	if ingest.Unmarshal(raw, &items) != nil || len(items) == 0 {
		return nil, false
	}
	for i, c := range items {
		if c.Type == "" {
			return nil, false
		}
		if c.Text == "" {
			items[i].Text = c.OutputText
		}
	}
	return items, true
}

// image reads an image: a data: URL, bare base64 or a web address.
func (cs *thread) image(n int, u string) *transcript.Part {
	switch {
	case u == "":
		return &transcript.Part{Kind: transcript.TextPart, Text: "(image without data)"}
	case strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://"):
		return &transcript.Part{Kind: transcript.ImagePart, Image: &transcript.Image{URL: u}}
	}
	img, ok := ingest.DecodeImage(cs.f, u)
	if !ok {
		cs.f.Warn(n, "image data is not base64; skipped")
		return &transcript.Part{Kind: transcript.TextPart, Text: "(unreadable image)"}
	}
	return &transcript.Part{Kind: transcript.ImagePart, Image: img}
}

func (cs *thread) agentMessage(author, recipient string, parts []*transcript.Part, t time.Time) {
	desc := strings.TrimSpace("Message from " + ingest.FirstNonEmpty(author, "another agent") + " to " + ingest.FirstNonEmpty(recipient, "this agent"))
	cs.system(true, t, append([]*transcript.Part{ingest.EventPart("agent message", desc, nil)}, parts...)...)
}

func (cs *thread) call(c *transcript.ToolCall, t time.Time) {
	m := cs.assistant(t)
	m.Parts = append(m.Parts, &transcript.Part{Kind: transcript.CallPart, Call: c})
	if c.ID != "" {
		cs.calls[c.ID] = call{c, m}
	}
	if c.Name == "web_search" {
		cs.searches = append(cs.searches, call{c, m})
	}
}

// result adds a tool output to the current response, applying what an end
// event already said about the call.
func (cs *thread) result(r *transcript.ToolResult, t time.Time) {
	m := cs.cur
	if m == nil {
		m = &transcript.Message{Role: transcript.Tool, Time: t}
		cs.add(m)
		cs.cur = m
	}
	m.Parts = append(m.Parts, &transcript.Part{Kind: transcript.ResultPart, Result: r})
	cs.curDone = true
	if r.CallID == "" {
		return
	}
	cs.results[r.CallID] = r
	if e, ok := cs.ends[r.CallID]; ok {
		e.apply(r)
		delete(cs.ends, r.CallID)
	}
	if c := cs.calls[r.CallID].c; c != nil && c.Name == "spawn_agent" {
		var out struct {
			AgentID string `json:"agent_id"`
		}
		if ingest.Unmarshal([]byte(r.Output), &out) == nil && out.AgentID != "" {
			cs.spawned(c, out.AgentID)
		}
	}
}

func (cs *thread) spawned(c *transcript.ToolCall, child string) {
	if c != nil {
		c.Subagent = child
	}
	ingest.AddChild(cs.s, child)
}

func (e endEvent) apply(r *transcript.ToolResult) {
	r.IsError = r.IsError || e.isErr
	if r.ExitCode == nil {
		r.ExitCode = e.exit
	}
	if r.Output == "" && len(r.Images) == 0 {
		r.Output, r.Images = e.output, e.images
	}
	if r.Patch == nil && !r.IsError {
		r.Patch = e.patch
	}
}

// ended records what an end event says about call id. When the event is
// the only record of the call, mk makes the call from it.
func (cs *thread) ended(id string, e endEvent, t time.Time, mk func() *transcript.ToolCall) {
	switch {
	case cs.results[id] != nil:
		e.apply(cs.results[id])
	case id != "" && cs.calls[id].c != nil:
		if _, ok := cs.ends[id]; !ok {
			cs.endIDs = append(cs.endIDs, id)
		}
		cs.ends[id] = e
	case mk != nil:
		c := mk()
		c.ID = id
		cs.call(c, t)
		r := &transcript.ToolResult{CallID: id}
		e.apply(r)
		cs.result(r, t)
	}
}

// output reads a tool output: a string (plain, behind an exec header, or
// JSON {output, metadata}), an array of content items, or {content, success}.
func (cs *thread) output(n int, callID string, raw []byte) *transcript.ToolResult {
	r := &transcript.ToolResult{CallID: callID}
	var s string
	if ingest.Unmarshal(raw, &s) == nil {
		cs.textOutput(n, s, r)
	} else if !cs.itemsOutput(n, raw, r) {
		r = cs.objectOutput(n, callID, raw, r)
	}
	r.IsError = r.IsError || r.ExitCode != nil && *r.ExitCode != 0
	return r
}

// textOutput reads an output given as a string: JSON of an output and its
// exit code, JSON of content items, or what an exec call printed.
func (cs *thread) textOutput(n int, s string, r *transcript.ToolResult) {
	trimmed := strings.TrimSpace(s)
	var wrapped struct {
		Output   *string `json:"output"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	switch {
	case strings.HasPrefix(trimmed, "{") && ingest.Unmarshal([]byte(trimmed), &wrapped) == nil && wrapped.Output != nil:
		r.Output, r.ExitCode = *wrapped.Output, wrapped.Metadata.ExitCode
	case strings.HasPrefix(trimmed, "[") && cs.itemsOutput(n, []byte(trimmed), r):
	default:
		r.Output, r.ExitCode = execOutput(s)
	}
}

// objectOutput reads an output given as an object: content (read again,
// as an output) with whether it succeeded, one content item, or anything
// else as text. It returns the result, r or a new one.
func (cs *thread) objectOutput(n int, callID string, raw []byte, r *transcript.ToolResult) *transcript.ToolResult {
	var obj struct {
		Content json.RawMessage `json:"content"`
		Success *bool           `json:"success"`
		contentItem
	}
	switch {
	case ingest.Unmarshal(raw, &obj) != nil:
		r.Output = ingest.Text(raw)
	case obj.Content != nil && obj.Content[0] != '{': // a string or items, not nested again
		r = cs.output(n, callID, obj.Content)
		r.IsError = obj.Success != nil && !*obj.Success
	case obj.Type != "":
		cs.fill(n, []contentItem{obj.contentItem}, r)
	default:
		r.Output = ingest.Text(raw)
	}
	return r
}

// itemsOutput reads a tool's output given as content items, which newer
// rollouts write, a command's or a patch's behind the header older ones
// wrote as a string ("Exit code: 0", "Wall time: …", "Output:").
func (cs *thread) itemsOutput(n int, raw []byte, r *transcript.ToolResult) bool {
	if !cs.contentOutput(n, raw, r) {
		return false
	}
	r.Output, r.ExitCode = execOutput(r.Output)
	return true
}

// contentOutput reads an array of content items into r.
func (cs *thread) contentOutput(n int, raw []byte, r *transcript.ToolResult) bool {
	items, ok := contentItems(raw)
	if ok {
		cs.fill(n, items, r)
	}
	return ok
}

func (cs *thread) fill(n int, items []contentItem, r *transcript.ToolResult) {
	var texts []string
	for _, p := range cs.parts(n, items) {
		if p.Image != nil {
			r.Images = append(r.Images, p.Image)
		} else {
			texts = append(texts, p.Text)
		}
	}
	r.Output = strings.Join(texts, "\n")
}

// execOutput splits the header Codex writes before a command's output
// ("Exit code: 1" or "Process exited with code 1", "Wall time: …", then
// "Output:") from the output, and reads the exit code from it.
func execOutput(s string) (string, *int) {
	var code *int
	for rest := s; ; {
		line, tail, more := strings.Cut(rest, "\n")
		if line == "Output:" {
			return tail, code
		}
		num, isCode := strings.CutPrefix(line, "Exit code: ")
		if !isCode {
			num, isCode = strings.CutPrefix(line, "Process exited with code ")
		}
		switch {
		case isCode:
			if c, err := strconv.Atoi(strings.TrimSpace(num)); err == nil {
				code = &c
			}
		case !slices.ContainsFunc(execHeaders, func(h string) bool { return strings.HasPrefix(line, h) }):
			return s, nil
		}
		if !more {
			return s, nil
		}
		rest = tail
	}
}

var execHeaders = []string{"Chunk ID: ", "Wall time: ", "Original token count: ", "Total output lines: ", "Process running with session ID "}

// foundTools lists the tools a tool search found, a line each with what
// it does: functions, alone or in a named group (an MCP server's), which
// may say what it is for too. Their parameters' schemas are left out.
func foundTools(raw []byte) []string {
	type tool struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Tools       []tool `json:"tools"`
	}
	var tools []tool
	_ = ingest.Unmarshal(raw, &tools)
	var lines []string
	line := func(name, desc string) {
		if desc = strings.TrimSpace(desc); desc != "" {
			name += " — " + strings.ReplaceAll(desc, "\n", "\n  ")
		}
		lines = append(lines, name)
	}
	for _, t := range tools {
		if len(t.Tools) == 0 || t.Description != "" {
			line(t.Name, t.Description)
		}
		for _, sub := range t.Tools {
			line(t.Name+"."+sub.Name, sub.Description)
		}
	}
	return lines
}

func (cs *thread) compaction(summary string, t time.Time) {
	m := cs.last
	if m == nil || len(m.Parts) == 0 || m.Parts[0].Event == nil || m.Parts[0].Event.Kind != transcript.Compaction {
		m = &transcript.Message{Role: transcript.User, Meta: true, Time: t,
			Parts: []*transcript.Part{ingest.EventPart(transcript.Compaction, "Conversation compacted", nil)}}
		cs.add(m)
	}
	if strings.TrimSpace(summary) != "" && len(m.Parts) == 1 {
		m.Parts = append(m.Parts, &transcript.Part{Kind: transcript.TextPart, Text: summary})
	}
}

func (cs *thread) turnStatus(status string) {
	if n := len(cs.s.Turns); n > 0 {
		cs.s.Turns[n-1].Status = status
	}
	cs.openTurn = false
	cs.echoes = nil
}

// An event is an event_msg record as its handler reads it.
type event struct {
	*eventMsg
	n             int
	payload, line []byte
	t             time.Time
}

func (cs *thread) event(n int, payload, line []byte, t time.Time) error {
	var ev eventMsg
	if err := ingest.Unmarshal(payload, &ev); err != nil {
		return err
	}
	e := &event{eventMsg: &ev, n: n, payload: payload, line: line, t: t}
	if read := eventReaders[ev.Type]; read != nil {
		return read(cs, e)
	}
	if copiedEvents[ev.Type] {
		cs.skip("event_msg/" + ev.Type)
		return nil
	}
	cs.unknown("Unknown event "+strconv.Quote(ev.Type), line, t)
	return nil
}

// copiedEvents are events that copy a response item, or carry settings:
// counted, not shown.
var copiedEvents = map[string]bool{
	"image_generation_end": true, "view_image_tool_call": true, "collab_agent_interaction_end": true,
	"collab_waiting_end": true, "collab_close_end": true, "collab_resume_end": true,
	"dynamic_tool_call_request": true, "thread_settings_applied": true, "agent_reasoning_section_break": true,
	"mcp_tool_call_begin": true, "exec_command_begin": true, "patch_apply_begin": true,
}

// eventReaders read each type of event: what the user and the agent
// wrote; what happened to a turn and to the thread; the end of a tool
// call, a subagent's start or activity, a review's start and end; a goal,
// an undo or a guardian's assessment; and a completed turn item.
var eventReaders map[string]func(cs *thread, e *event) error

func init() {
	eventReaders = map[string]func(cs *thread, e *event) error{
		"user_message":                (*thread).userMessage,
		"agent_message":               (*thread).agentText,
		"agent_reasoning":             (*thread).agentText,
		"agent_reasoning_raw_content": (*thread).agentText,
		"token_count":                 func(cs *thread, e *event) error { cs.tokens(e.Info); return nil },
		"task_started":                (*thread).turnStarted,
		"turn_started":                (*thread).turnStarted,
		"task_complete":               (*thread).turnComplete,
		"turn_complete":               (*thread).turnComplete,
		"turn_aborted":                (*thread).turnAborted,
		"context_compacted":           func(cs *thread, e *event) error { cs.compaction("", e.t); return nil },
		"error":                       (*thread).problem,
		"stream_error":                (*thread).problem,
		"warning":                     (*thread).problem,
		"thread_name_updated":         func(cs *thread, e *event) error { cs.title = e.ThreadName; return nil },
		"thread_rolled_back":          func(cs *thread, e *event) error { cs.rollback(e.NumTurns, e.t); return nil },
		"patch_apply_end":             (*thread).patchApplied,
		"exec_command_end":            (*thread).execEnd,
		"mcp_tool_call_end":           (*thread).mcpCallEnd,
		"dynamic_tool_call_response":  (*thread).dynamicEnd,
		"web_search_end":              func(cs *thread, e *event) error { cs.searchResults(e.eventMsg); return nil },
		"collab_agent_spawn_end":      func(cs *thread, e *event) error { cs.spawned(cs.calls[e.CallID].c, e.NewThread); return nil },
		"sub_agent_activity":          (*thread).subagentActivity,
		"entered_review_mode":         func(cs *thread, e *event) error { cs.enterReview(e.eventMsg, e.t); return nil },
		"exited_review_mode":          func(cs *thread, e *event) error { cs.exitReview(e.Review, e.t); return nil },
		"thread_goal_updated":         (*thread).goal,
		"undo_completed":              (*thread).undo,
		"guardian_assessment":         (*thread).guardian,
		"item_completed":              (*thread).itemCompleted,
	}
}

// agentText reads what the agent wrote or thought, once, however many
// records carry it.
func (cs *thread) agentText(e *event) error {
	kind, s := transcript.TextPart, ingest.Text(e.Message)
	if e.Type != "agent_message" {
		kind, s = transcript.ThinkingPart, e.Text
	}
	if strings.TrimSpace(s) == "" || cs.twin(true, transcript.Assistant, kind, s) != nil {
		return nil
	}
	m := cs.assistant(e.t)
	m.Parts = append(m.Parts, &transcript.Part{Kind: kind, Text: s})
	cs.remember(true, transcript.Assistant, kind, m, s)
	return nil
}

// userMessage reads what the user typed, with its images: once, however
// many records carry it.
func (cs *thread) userMessage(e *event) error {
	if cs.review.c != nil {
		cs.reviewPrompt(e)
		return nil
	}
	msg := ingest.Text(e.Message)
	var parts, ide []*transcript.Part
	for _, u := range e.Images {
		parts = append(parts, cs.image(e.n, u))
	}
	if ctx, req, ok := ideRequest(msg); ok {
		ide = []*transcript.Part{{Kind: transcript.TextPart, Text: ctx}}
		msg = req
	}
	if m := cs.twin(true, transcript.User, transcript.TextPart, msg); m != nil {
		mergeImages(m, parts) // the item's copy came first, with the IDE's context
		return nil
	}
	injected := Tools.IsInjected(msg)
	if strings.TrimSpace(msg) != "" {
		parts = append([]*transcript.Part{{Kind: transcript.TextPart, Text: typedText(msg, injected)}}, parts...)
	}
	if len(parts) > 0 {
		m := &transcript.Message{Role: transcript.User, Time: e.t, Meta: injected, Parts: parts}
		cs.add(m)
		cs.remember(true, transcript.User, transcript.TextPart, m, msg)
	}
	cs.ideContext(ide, e.t)
	return nil
}

// typedText is what a user message shows: the message, or the context
// an injected one carries.
func typedText(msg string, injected bool) string {
	if injected {
		return contextText(msg)
	}
	return msg
}

// reviewPrompt reads the reviewer's prompt, which /review wrote: not
// typed here.
func (cs *thread) reviewPrompt(e *event) {
	if msg := ingest.Text(e.Message); strings.TrimSpace(msg) != "" {
		cs.add(&transcript.Message{Role: transcript.User, Time: e.t, Meta: true,
			Parts: []*transcript.Part{{Kind: transcript.TextPart, Text: msg}}})
	}
}

func (cs *thread) turnStarted(*event) error {
	cs.openTurn = true
	return nil
}

func (cs *thread) turnComplete(e *event) error {
	if msg := ingest.ErrorMessage(e.Error); msg != "" {
		cs.system(true, e.t, ingest.EventPart(transcript.ErrorEvent, msg, nil))
		cs.turnStatus(transcript.Failed)
		return nil
	}
	cs.turnStatus(transcript.Completed)
	return nil
}

func (cs *thread) turnAborted(e *event) error {
	cs.review = call{} // an aborted review writes no exited_review_mode
	cs.system(true, e.t, ingest.EventPart(transcript.Interrupt, "Turn aborted: "+ingest.FirstNonEmpty(e.Reason, "unknown reason"), nil))
	cs.turnStatus(transcript.Aborted)
	return nil
}

// problemKinds are the event kinds of an error, a retry and a warning.
var problemKinds = map[string]string{"error": transcript.ErrorEvent, "stream_error": transcript.Retry, "warning": "info"}

func (cs *thread) problem(e *event) error {
	msg := ingest.FirstNonEmpty(ingest.Text(e.Message), ingest.ErrorMessage(e.Error), e.Type)
	cs.system(true, e.t, ingest.EventPart(problemKinds[e.Type], msg, nil))
	return nil
}

func (cs *thread) execEnd(e *event) error {
	end := endEvent{exit: e.ExitCode, isErr: e.ExitCode != nil && *e.ExitCode != 0,
		output: ingest.FirstNonEmpty(e.Aggregated, strings.TrimRight(e.Stdout+"\n"+e.Stderr, "\n"))}
	cs.ended(e.CallID, end, e.t, func() *transcript.ToolCall {
		input, _ := json.Marshal(struct {
			Command json.RawMessage `json:"command,omitempty"`
		}{json.RawMessage(e.Command)})
		return &transcript.ToolCall{Name: "exec_command", Kind: transcript.ShellTool, Input: string(input)}
	})
	return nil
}

func (cs *thread) mcpCallEnd(e *event) error {
	cs.ended(e.CallID, cs.mcpEnd(e.n, e.Result), e.t, func() *transcript.ToolCall {
		name := "mcp__" + e.Invocation.Server + "__" + e.Invocation.Tool
		return &transcript.ToolCall{Name: name, Kind: transcript.MCPTool, Input: ingest.Text(e.Invocation.Arguments)}
	})
	return nil
}

func (cs *thread) dynamicEnd(e *event) error {
	r := &transcript.ToolResult{}
	cs.fill(e.n, e.ContentItems, r)
	end := endEvent{isErr: failed(e.Success), output: ingest.FirstNonEmpty(r.Output, ingest.ErrorMessage(e.Error)), images: r.Images}
	cs.ended(e.CallID, end, e.t, func() *transcript.ToolCall {
		return &transcript.ToolCall{Name: e.Tool, Kind: Tools.Kind(e.Tool), Input: ingest.Text(e.Arguments)}
	})
	return nil
}

// failed tells whether an event's success field says it failed; a missing
// one does not.
func failed(success *bool) bool { return success != nil && !*success }

func (cs *thread) subagentActivity(e *event) error {
	ingest.AddChild(cs.s, e.AgentTID)
	text := strings.TrimSpace("Subagent " + ingest.FirstNonEmpty(e.AgentPath, e.AgentTID) + ": " + ingest.Text(e.Kind))
	cs.system(true, e.t, ingest.EventPart("subagent", text, nil))
	return nil
}

// patchApplied reads the end of a patch: its output, and the diff of each
// file it changed, which numbers the call's edit.
func (cs *thread) patchApplied(e *event) error {
	out := strings.TrimRight(e.Stdout+"\n"+e.Stderr, "\n")
	var input string
	if c := cs.calls[e.CallID].c; c != nil {
		input = c.Input
	}
	end := endEvent{isErr: failed(e.Success), output: strings.TrimLeft(out, "\n"), patch: patchHunks(e.Changes, cs.s.CWD, input)}
	cs.ended(e.CallID, end, e.t, func() *transcript.ToolCall {
		return &transcript.ToolCall{Name: "apply_patch", Kind: transcript.EditTool, Input: ingest.Text(e.Changes)}
	})
	return nil
}

func (cs *thread) goal(e *event) error {
	var g struct {
		Goal struct{ Objective, Status string }
	}
	_ = ingest.Unmarshal(e.payload, &g)
	cs.system(true, e.t, ingest.EventPart("goal", strings.TrimSpace("Goal: "+g.Goal.Objective+" ("+g.Goal.Status+")"), nil))
	return nil
}

func (cs *thread) undo(e *event) error {
	cs.system(true, e.t, ingest.EventPart("info", "Undo: "+ingest.FirstNonEmpty(ingest.Text(e.Message), "done"), nil))
	return nil
}

func (cs *thread) guardian(e *event) error {
	cs.system(true, e.t, ingest.EventPart("permission", strings.TrimSpace("Guardian assessment "+ingest.Text(e.Status)+": "+e.Rationale), e.line))
	return nil
}

// itemCompleted reads a turn item: newer rollouts write the user's,
// the agent's and the reasoning's in place of the events of older ones.
func (cs *thread) itemCompleted(e *event) error {
	var item struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = ingest.Unmarshal(e.Item, &item)
	switch item.Type {
	case "UserMessage", "AgentMessage", "Reasoning":
		// Newer rollouts write these turn items in place of the
		// user_message, agent_message and agent_reasoning events.
		legacy, err := legacyEvent(e.Item)
		if err != nil {
			return err
		}
		return cs.event(e.n, legacy, e.line, e.t)
	case "Plan": // a plan-mode proposal: no response item carries it
		cs.plan(item.Text, e.t)
	case "Sleep":
		cs.system(true, e.t, ingest.EventPart("info", "Slept", e.line))
	case "HookPrompt":
		cs.hookPrompt(e)
	default: // copies of response items
		cs.skip("event_msg/item_completed/" + item.Type)
	}
	return nil
}

func (cs *thread) plan(text string, t time.Time) {
	if strings.TrimSpace(text) != "" {
		m := cs.assistant(t)
		m.Parts = append(m.Parts, &transcript.Part{Kind: transcript.TextPart, Text: text})
	}
}

// hookPrompt reads what a hook told the model.
func (cs *thread) hookPrompt(e *event) {
	var hp struct {
		Fragments []struct{ Text string } `json:"fragments"`
	}
	_ = ingest.Unmarshal(e.Item, &hp)
	var parts []*transcript.Part
	for _, f := range hp.Fragments {
		parts = append(parts, &transcript.Part{Kind: transcript.TextPart, Text: f.Text})
	}
	cs.add(&transcript.Message{Role: transcript.User, Time: e.t, Meta: true, Parts: parts})
}

// legacyEvent rewrites a UserMessage, AgentMessage or Reasoning turn
// item as the event older rollouts wrote for it.
func legacyEvent(raw []byte) ([]byte, error) {
	var it struct {
		Type    string `json:"type"`
		Content []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			ImageURL string `json:"image_url"`
		} `json:"content"`
		Summary []string `json:"summary_text"`
		Raw     []string `json:"raw_content"`
	}
	if err := ingest.Unmarshal(raw, &it); err != nil {
		return nil, err
	}
	var texts, images []string
	for _, c := range it.Content {
		texts = append(texts, c.Text)
		if c.ImageURL != "" {
			images = append(images, c.ImageURL)
		}
	}
	ev := map[string]any{"type": "user_message", "message": strings.Join(texts, ""), "images": images}
	switch {
	case it.Type == "AgentMessage":
		ev = map[string]any{"type": "agent_message", "message": strings.Join(texts, "")}
	case it.Type == "Reasoning" && len(it.Summary) > 0:
		ev = map[string]any{"type": "agent_reasoning", "text": strings.Join(it.Summary, "\n\n")}
	case it.Type == "Reasoning":
		ev = map[string]any{"type": "agent_reasoning_raw_content", "text": strings.Join(it.Raw, "\n\n")}
	}
	return json.Marshal(ev)
}

// enterReview starts a /review: a call of the review subagent, which
// merge links to the subagent's own rollout.
func (cs *thread) enterReview(ev *eventMsg, t time.Time) {
	var target struct {
		Type         string `json:"type"`
		Instructions string `json:"instructions"`
	}
	_ = ingest.Unmarshal(ev.Target, &target)
	in := map[string]any{"description": "Review " + ingest.FirstNonEmpty(ev.Hint, target.Type, ingest.Text(ev.Message))}
	if p := ingest.FirstNonEmpty(ev.Prompt, target.Instructions); p != "" {
		in["prompt"] = p
	}
	if ev.Target != nil {
		in["target"] = json.RawMessage(ev.Target)
	}
	input, _ := json.Marshal(in)
	cs.reviews++
	c := &transcript.ToolCall{ID: fmt.Sprintf("review-%d", cs.reviews), Name: reviewCall, Kind: transcript.TaskTool, Input: string(input)}
	cs.system(false, t, &transcript.Part{Kind: transcript.CallPart, Call: c})
	cs.review = call{c, cs.last}
}

// exitReview gives the open review's call its findings.
func (cs *thread) exitReview(out *reviewOutput, t time.Time) {
	md := "The review ended without a result: it was interrupted."
	if out != nil {
		md = ingest.FirstNonEmpty(out.markdown(), "No findings.")
	}
	if cs.review.c == nil { // the review began before this file did
		cs.system(false, t, ingest.EventPart("review", "Review finished", nil), &transcript.Part{Kind: transcript.TextPart, Text: md})
		return
	}
	r := &transcript.ToolResult{CallID: cs.review.c.ID, Output: md}
	cs.review.m.Parts = append(cs.review.m.Parts, &transcript.Part{Kind: transcript.ResultPart, Result: r})
	cs.results[r.CallID] = r
	cs.review = call{}
}

// tokens counts a token_count once per model response: Codex repeats the
// last count when only the rate limits change, which leaves the total as it
// was.
func (cs *thread) tokens(raw []byte) {
	var info struct {
		Total *usage `json:"total_token_usage"`
		Last  *usage `json:"last_token_usage"`
		// Some 0.50 rollouts wrote bare prompt and completion counts.
		Prompt     int64 `json:"prompt"`
		Completion int64 `json:"completion"`
	}
	if ingest.Unmarshal(raw, &info) != nil {
		return
	}
	last := info.Last
	if last == nil && info.Total == nil && info.Prompt+info.Completion > 0 {
		last = &usage{Input: info.Prompt, Output: info.Completion}
	}
	if info.Total != nil && !cs.newTotal(info.Total) || last == nil {
		return
	}
	cs.sum.Add(last.usage())
	if cs.cur != nil {
		cs.cur.Usage.Add(last.usage())
	}
}

// newTotal keeps a token count's running total; it reports false for a
// repeat of the last, whose turn was counted already.
func (cs *thread) newTotal(total *usage) bool {
	if cs.lastTotal != nil && *cs.lastTotal == *total {
		return false
	}
	cs.lastTotal = total
	cs.total = total.usage()
	return true
}

func (cs *thread) mcpEnd(n int, raw []byte) endEvent {
	var res struct {
		Ok *struct {
			Content json.RawMessage `json:"content"`
			IsError bool            `json:"isError"`
		} `json:"Ok"`
		Err json.RawMessage `json:"Err"`
	}
	if ingest.Unmarshal(raw, &res) != nil || res.Ok == nil {
		return endEvent{isErr: res.Err != nil, output: ingest.FirstNonEmpty(ingest.Text(res.Err), ingest.Text(raw))}
	}
	r := &transcript.ToolResult{}
	cs.contentOutput(n, res.Ok.Content, r)
	return endEvent{isErr: res.Ok.IsError, output: r.Output, images: r.Images}
}

// searchResults gives a web search call the results its end event lists.
// The call is found by id or, as ids often differ, by its query.
func (cs *thread) searchResults(ev *eventMsg) {
	if len(ev.Results) == 0 {
		cs.skip("event_msg/" + ev.Type)
		return
	}
	var lines []string
	for _, h := range ev.Results {
		lines = append(lines, strings.TrimSpace(h.Title+" "+h.URL+"\n"+h.Snippet))
	}
	c := cs.calls[ev.CallID].c
	if c == nil {
		c = cs.searchByQuery(ev)
	}
	if c == nil || c.ID == "" || cs.results[c.ID] != nil {
		cs.skip("event_msg/" + ev.Type)
		return
	}
	r := &transcript.ToolResult{CallID: c.ID, Output: strings.Join(lines, "\n\n")}
	cs.results[c.ID] = r
	m := cs.calls[c.ID].m
	m.Parts = append(m.Parts, &transcript.Part{Kind: transcript.ResultPart, Result: r})
}

// searchByQuery is the first web search call still without results that
// asked ev's query; a call without an id takes ev's.
func (cs *thread) searchByQuery(ev *eventMsg) *transcript.ToolCall {
	for _, sc := range cs.searches {
		if (sc.c.ID == "" || cs.results[sc.c.ID] == nil) && asked(sc.c, ev.Query) {
			if sc.c.ID == "" { // the call had no id: the event's names it
				sc.c.ID = ev.CallID
				cs.calls[sc.c.ID] = sc
			}
			return sc.c
		}
	}
	return nil
}

// asked tells whether web search call c asked query.
func asked(c *transcript.ToolCall, query string) bool {
	var a struct {
		Query string `json:"query"`
	}
	return ingest.Unmarshal([]byte(c.Input), &a) == nil && a.Query == query
}

func (r *reviewOutput) markdown() string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	if s := strings.TrimSpace(r.Correctness + ": " + r.Explanation); s != ":" {
		b.WriteString(strings.Trim(s, ": ") + "\n")
	}
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "\n- **%s** (%s:%d-%d)\n  %s\n", f.Title, f.Location.Path, f.Location.Range.Start, f.Location.Range.End, f.Body)
	}
	return strings.TrimSpace(b.String())
}

// rollback marks the last n turns, which the user rolled back, as a branch
// off the conversation's final line. Branch holds the id of the message
// they branched from, or the number of the turns kept when it has none.
func (cs *thread) rollback(n int, t time.Time) {
	turns := cs.s.Turns
	keep := min(max(len(turns)-n, 0), len(turns))
	branch := fmt.Sprintf("turn %d", keep)
	if keep > 0 {
		if ms := turns[keep-1].Messages; len(ms) > 0 && ms[len(ms)-1].ID != "" {
			branch = ms[len(ms)-1].ID
		}
	}
	for _, turn := range turns[keep:] {
		for _, m := range turn.Messages {
			if m.Branch == "" {
				m.Branch = branch
			}
		}
	}
	turnWord := "turns"
	if n == 1 {
		turnWord = "turn"
	}
	cs.system(true, t, ingest.EventPart("rewind", fmt.Sprintf("Rolled back %d %s", n, turnWord), nil))
}

// finish settles what the whole file was needed for.
func (cs *thread) finish() {
	for _, id := range cs.endIDs {
		e, ok := cs.ends[id]
		if !ok {
			continue
		}
		// The call's output was never written: its end event is all there is.
		r := &transcript.ToolResult{CallID: id}
		e.apply(r)
		m := cs.calls[id].m
		m.Parts = append(m.Parts, &transcript.Part{Kind: transcript.ResultPart, Result: r})
	}
	if cs.openTurn && len(cs.s.Turns) > 0 {
		cs.s.Turns[len(cs.s.Turns)-1].Status = transcript.Incomplete
	}
	cs.s.Title = cs.title // else the site shows the first prompt
	cs.s.Ended = cs.lastRecord
	if cs.lastTotal != nil {
		cs.s.Usage = cs.total
	} else {
		cs.s.Usage = cs.sum
	}
}

// merge links sessions across files: a fork or spawned thread to the
// session it came from. A rollout read twice (a plain and a .zst copy, or
// an active and an archived one) becomes one session.
func merge(ss []*transcript.Session) []*transcript.Session {
	byID := map[string]int{}
	var out []*transcript.Session
	for _, s := range ss {
		i, dup := byID[s.ID]
		if !dup || s.Started.IsZero() {
			byID[s.ID] = len(out)
			out = append(out, s)
			continue
		}
		out[i] = mergeCopies(out[i], s)
	}
	linkReviews(out)
	linkChildren(out, byID)
	return out
}

// mergeCopies keeps the fuller of two copies of a session, with the
// sources and warnings of both.
func mergeCopies(a, b *transcript.Session) *transcript.Session {
	keep, drop := a, b
	if drop.Stats().Messages > keep.Stats().Messages {
		keep, drop = drop, keep
	}
	keep.Sources = append(append(keep.Sources, drop.Source), drop.Sources...)
	keep.Warnings = append(keep.Warnings, drop.Warnings...)
	return keep
}

// linkChildren links each session of ss to its parent, and titles each
// spawned one by its spawn call; byID numbers ss by id.
func linkChildren(ss []*transcript.Session, byID map[string]int) {
	for _, s := range ss {
		if i, ok := byID[s.ParentID]; ok {
			linkSpawn(ss[i], s)
			ingest.AddChild(ss[i], s.ID)
		}
	}
	for _, s := range ss {
		for _, c := range callsOf(s, "spawn_agent") {
			if i, ok := byID[c.Subagent]; ok {
				titleSpawned(ss[i], c)
			}
		}
	}
}

// titleSpawned names a spawned agent whose rollout holds no prompt (its
// task came as a message from its parent) after the task it was given.
func titleSpawned(child *transcript.Session, c *transcript.ToolCall) {
	var in struct {
		Message  string `json:"message"`
		TaskName string `json:"task_name"`
	}
	if child.Title != "" || child.FirstPrompt() != "" || ingest.Unmarshal([]byte(c.Input), &in) != nil {
		return
	}
	child.Title = ingest.FirstNonEmpty(strings.TrimSpace(in.Message), in.TaskName)
}

// callsOf lists the session's calls of a tool.
func callsOf(s *transcript.Session, name string) []*transcript.ToolCall {
	var out []*transcript.ToolCall
	s.Parts(func(_ *transcript.Message, p *transcript.Part) {
		if p.Call != nil && p.Call.Name == name {
			out = append(out, p.Call)
		}
	})
	return out
}

// Meta keys the merge links sessions by.
const (
	source       = "source"
	agentPathKey = "agent path"
)

// links groups a review subagent whose rollout names no parent (before
// 0.12x) with the sessions of its folder that ran a /review: the review
// call that started it is one of theirs.
func links(s *transcript.Session) []string {
	if s.CWD != "" && (isReviewAgent(s) && s.ParentID == "" || len(reviewCalls(s)) > 0) {
		return []string{"review\x00" + s.CWD}
	}
	return nil
}

func isReviewAgent(s *transcript.Session) bool { return s.Meta[source] == "subagent "+reviewCall }

type timedCall struct {
	s *transcript.Session
	c *transcript.ToolCall
	t time.Time
}

// reviewCalls lists the session's /review calls that no subagent answers yet.
func reviewCalls(s *transcript.Session) []timedCall {
	var out []timedCall
	s.Parts(func(m *transcript.Message, p *transcript.Part) {
		if c := p.Call; c != nil && c.Name == reviewCall && c.Kind == transcript.TaskTool && c.Subagent == "" {
			out = append(out, timedCall{s, c, m.Time})
		}
	})
	return out
}

// reviewSlack is how much earlier than its /review a review subagent's
// rollout may say it started (the two clocks are read apart), and
// reviewWindow how much later, when only the folder ties them.
const (
	reviewSlack  = 5 * time.Second
	reviewWindow = 2 * time.Minute
)

// linkReviews links each review subagent to the /review call that started
// it: the latest one before it began, in the parent its rollout names or,
// when it names none, in a session of the same folder.
func linkReviews(ss []*transcript.Session) {
	var calls []timedCall
	var agents []*transcript.Session
	for _, s := range ss {
		calls = append(calls, reviewCalls(s)...)
		if isReviewAgent(s) {
			agents = append(agents, s)
		}
	}
	slices.SortStableFunc(agents, func(a, b *transcript.Session) int { return a.Started.Compare(b.Started) })
	for _, a := range agents {
		if best := lastStarter(calls, a); best >= 0 {
			c := calls[best]
			c.c.Subagent = a.ID
			a.ParentID = cmp.Or(a.ParentID, c.s.ID)
		}
	}
}

// lastStarter is the index of the latest of calls that may have started
// review agent a, or -1.
func lastStarter(calls []timedCall, a *transcript.Session) int {
	best := -1
	for i, c := range calls {
		if mayStart(c, a) && (best < 0 || c.t.After(calls[best].t)) {
			best = i
		}
	}
	return best
}

// mayStart says whether the /review call c, not yet answered, may have
// started the review agent a: it came before a (give or take
// reviewSlack), in a's parent session when a names one, else in a's
// folder within reviewWindow.
func mayStart(c timedCall, a *transcript.Session) bool {
	switch {
	case c.c.Subagent != "" || c.s == a || c.t.After(a.Started.Add(reviewSlack)):
		return false
	case a.ParentID != "":
		return c.s.ID == a.ParentID
	default:
		return c.s.CWD == a.CWD && a.Started.Sub(c.t) <= reviewWindow
	}
}

// linkSpawn gives the spawn_agent call that started child its link when
// only the agent path ties them: MultiAgentV2's spawn_agent returns the
// path (task_name), not the thread id.
func linkSpawn(parent, child *transcript.Session) {
	path := child.Meta[agentPathKey]
	if path == "" {
		return
	}
	outputs := map[string]string{}
	parent.Parts(func(_ *transcript.Message, p *transcript.Part) {
		if r := p.Result; r != nil {
			outputs[r.CallID] = r.Output
		}
	})
	for _, c := range callsOf(parent, "spawn_agent") {
		var out struct {
			TaskName string `json:"task_name"`
		}
		if c.Subagent == "" && ingest.Unmarshal([]byte(outputs[c.ID]), &out) == nil && out.TaskName == path {
			c.Subagent = child.ID
		}
	}
}
