// Package gemini reads the sessions of Gemini CLI: the chat logs under
// ~/.gemini/tmp (JSONL, and the legacy JSON), their subagents, the prompt
// log logs.json and /chat save checkpoints.
package gemini

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Reader reads Gemini CLI's chat logs, prompt logs and checkpoints.
var Reader = &ingest.Reader{
	Name:  "gemini-cli",
	Agent: "Gemini CLI",
	Files: "~/.gemini/tmp/<project>/chats/session-*.jsonl (legacy .json), subagents in chats/<parent session>/<session>.jsonl, " +
		"the prompt log logs.json and /chat save checkpoint-<tag>.json files",
	Detects: "a record with sessionId and projectHash (the JSONL log's first line, a legacy session document), $rewindTo records, " +
		"type \"gemini\" messages, $set records beside messages, a document whose messages[] have Gemini types; " +
		"an array of {sessionId, messageId, type, message} (logs.json); {\"history\": [{role, parts}]} or a bare [{role, parts}] array (/chat save)",
	Detect:    detect,
	Read:      readFile,
	Merge:     merge,
	Locations: locations,
	Tools:     Tools,
}

// Tools are Gemini CLI's tools, and the context it sends: the session's
// context (and the environment bootstrap before it existed), and the
// summary that replaces compressed history.
var Tools = &ingest.Tools{
	Kinds: map[string]transcript.ToolKind{
		"run_shell_command": transcript.ShellTool,
		"read_many_files":   transcript.ReadTool, "list_directory": transcript.ReadTool,
		"replace":             transcript.EditTool,
		"search_file_content": transcript.SearchTool, "google_web_search": transcript.SearchTool, "grep_search": transcript.SearchTool,
		"write_todos": transcript.TaskTool, "delegate_to_agent": transcript.TaskTool, "codebase_investigator": transcript.TaskTool,
	},
	Injected: []string{
		"<session_context>",
		"This is the Gemini CLI. We are setting up the context for our chat.",
		"<state_snapshot>",
	},
}

// continuation are the prompts Gemini CLI sends by itself, recorded as the
// user's: "Please continue." when its next-speaker check finds the model
// should go on, and "System: Please continue." when a reply came back
// broken (versions 0.10 to 0.41). Only these whole texts, in a chat log,
// are the CLI's: a person who asks the model to go on writes a prompt of
// their own.
var continuation = map[string]bool{"Please continue.": true, "System: Please continue.": true}

func init() { ingest.Register(Reader) }

func locations(home string, getenv func(string) string) []ingest.Location {
	dir := filepath.Join(cmp.Or(getenv("GEMINI_CLI_HOME"), home), ".gemini")
	return []ingest.Location{{Name: "gemini", Dir: filepath.Join(dir, "tmp")}}
}

// types are the message types Gemini CLI records ("model" is a drift
// seen in exported files).
var types = map[string]bool{"user": true, "gemini": true, "model": true, "info": true, "error": true, "warning": true}

func detect(h *ingest.Head) float64 {
	rs := h.Records()
	if len(rs) == 0 {
		return 0
	}
	if h.IsArray() {
		return max(ingest.When(rs[0].Has("sessionId", "messageId", "type", "message"), ingest.Likely), ingest.When(isContent(rs[0]), ingest.Maybe))
	}
	if p := detectLog(rs); p > 0 {
		return p
	}
	return ingest.When(len(rs) == 1 && isDocument(h.Data, rs[0]), ingest.Maybe)
}

// detectLog scores the lines of a JSONL chat log.
func detectLog(rs []ingest.Record) float64 {
	var set, msg bool
	for _, r := range rs {
		if isLogLine(r) {
			return ingest.Likely
		}
		switch {
		case r["$set"] == "{":
			set = true
		case isMessage(r):
			msg = true
		}
	}
	// Both without a metadata line: a log whose first line is gone.
	return ingest.When(set && msg, ingest.Maybe)
}

// isLogLine reports whether r is a line only a chat log has: its metadata,
// a rewind, or a model's message.
func isLogLine(r ingest.Record) bool {
	return r.Has("sessionId", "projectHash") || r["$rewindTo"] != "" || r["type"] == "gemini" && r.Has("id")
}

// isDocument reports whether r, the start of a whole JSON document, is a
// legacy session whose metadata comes after its messages, or a checkpoint.
func isDocument(data []byte, r ingest.Record) bool {
	return r["messages"] == "[" && isMessage(firstElement(data, "messages")) ||
		r["history"] == "[" && isContent(firstElement(data, "history"))
}

func isMessage(r ingest.Record) bool {
	return types[r["type"]] && r.Has("id", "timestamp", "content")
}

// isContent reports whether r is a Gemini API Content, the element of
// a /chat save checkpoint.
func isContent(r ingest.Record) bool {
	return (r["role"] == "user" || r["role"] == "model") && r["parts"] == "["
}

// firstElement returns the keys of the first element of the array under key
// in the JSON object that data starts with, as far as data goes.
func firstElement(data []byte, key string) ingest.Record {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimLeft(data, " \t\r\n\ufeff")))
	if !expect(dec, '{') || !seek(dec, key) || !expect(dec, '[') || !expect(dec, '{') {
		return nil
	}
	r := ingest.Record{}
	for dec.More() && readKey(dec, r) {
	}
	return r
}

// expect reads the next token of dec and reports whether it is want.
func expect(dec *json.Decoder, want json.Delim) bool {
	t, err := dec.Token()
	return err == nil && t == want
}

// seek reads the members of an object up to key, and reports whether it
// found it.
func seek(dec *json.Decoder, key string) bool {
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return false
		}
		if k == key {
			return true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

// readKey reads one member of an object into r, an array or object by its
// opening bracket, and reports whether the data goes on.
func readKey(dec *json.Decoder, r ingest.Record) bool {
	k, err := dec.Token()
	if err != nil {
		return false
	}
	name, _ := k.(string)
	var v json.RawMessage
	err = dec.Decode(&v)
	r[name] = ingest.Text(v)
	if len(v) > 0 && (v[0] == '[' || v[0] == '{') {
		r[name] = string(v[0])
	}
	return err == nil
}

// record is any record of a Gemini CLI file: a message, a log operation,
// the session metadata, a logs.json entry or a checkpoint Content.
type record struct {
	ID             json.RawMessage `json:"id"`
	Timestamp      ingest.JSONTime `json:"timestamp"`
	TS             ingest.JSONTime `json:"ts"`
	Type           string          `json:"type"`
	Content        json.RawMessage `json:"content"`
	DisplayContent json.RawMessage `json:"displayContent"`
	Model          string          `json:"model"`
	Thoughts       []struct {
		Subject     string `json:"subject"`
		Description string `json:"description"`
	} `json:"thoughts"`
	Tokens *struct {
		Input    int64 `json:"input"`
		Output   int64 `json:"output"`
		Cached   int64 `json:"cached"`
		Thoughts int64 `json:"thoughts"`
		Tool     int64 `json:"tool"`
	} `json:"tokens"`
	ToolCalls []toolCall `json:"toolCalls"`

	Set         map[string]json.RawMessage `json:"$set"`
	RewindTo    *string                    `json:"$rewindTo"`
	SessionID   string                     `json:"sessionId"`
	ProjectHash string                     `json:"projectHash"`
	Message     *string                    `json:"message"` // logs.json
	Role        string                     `json:"role"`    // checkpoint Content
	Parts       json.RawMessage            `json:"parts"`
}

type toolCall struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	Args          json.RawMessage `json:"args"`
	Result        json.RawMessage `json:"result"`
	Status        string          `json:"status"`
	Error         json.RawMessage `json:"error"`
	ResultDisplay json.RawMessage `json:"resultDisplay"`
	AgentID       string          `json:"agentId"`
}

type contentPart struct {
	Text       string `json:"text"`
	Thought    bool   `json:"thought"`
	InlineData *struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"inlineData"`
	FileData *struct {
		MimeType string `json:"mimeType"`
		FileURI  string `json:"fileUri"`
	} `json:"fileData"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *functionResponse `json:"functionResponse"`
	raw              json.RawMessage
}

// functionResponse is a tool's response in a content part.
type functionResponse struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
	Parts    json.RawMessage `json:"parts"`
}

// entry is one message of a replayed log, or an event of the replay.
type entry struct {
	id     string
	rec    *record
	raw    []byte // kept for records of unknown type
	line   int
	event  *transcript.Message
	branch string // set once the message left the conversation's line
}

// logEntry replays one conversation: messages are upserted by id (last write
// wins, first position kept), $set updates metadata, $rewindTo cuts the line.
type logEntry struct {
	origin  string
	entries []*entry
	live    map[string]int // message id → index in entries, while on the line
	first   int            // no entry before this index is on the line
	id      string
	project string
	title   string
	kind    string
	parent  string
	started time.Time
	updated time.Time
	meta    map[string]string
}

// Where a session was recorded: the Meta value Merge tells them apart by.
const (
	chat       = "chat log"
	promptsLog = "logs.json (prompts only)"
	checkpoint = "/chat save checkpoint (no timestamps)"
	originKey  = "recorded in"
)

func newLog(origin string) *logEntry {
	return &logEntry{origin: origin, live: map[string]int{}, meta: map[string]string{}}
}

// upsert records a message; a message with a known id replaces it in place.
func (l *logEntry) upsert(e *entry) {
	if i, ok := l.live[e.id]; ok {
		l.entries[i] = e
		return
	}
	if e.id != "" {
		l.live[e.id] = len(l.entries)
	}
	l.entries = append(l.entries, e)
}

// retire takes the records from index from off the conversation's line.
// They stay in place so nothing the agent did is lost, marked as a branch by
// the id of the first message that left (or by fallback). keep, when set,
// spares the messages it names and every event.
func (l *logEntry) retire(from int, keep map[string]bool, fallback string) int {
	var gone []*entry
	branch := ""
	// Skipping what is already off the line keeps a log of many rewinds linear.
	from = max(from, l.first)
	if keep == nil && from == l.first {
		l.first = len(l.entries)
	}
	for _, e := range l.entries[from:] {
		if e.branch != "" || spared(e, keep) {
			continue
		}
		if branch == "" {
			branch = e.id
		}
		gone = append(gone, e)
		delete(l.live, e.id)
	}
	for _, e := range gone {
		e.branch = ingest.FirstNonEmpty(branch, fallback)
	}
	return len(gone)
}

// spared reports whether a checkpoint keeps e: it names the message, or e
// is an event.
func spared(e *entry, keep map[string]bool) bool {
	return keep[e.id] || (keep != nil && e.id == "")
}

func (l *logEntry) rewind(id string) {
	from, ok := l.live[id]
	if !ok {
		from = 0 // the upstream loader clears everything for an unknown id
	}
	n := l.retire(from, nil, id)
	l.event("rewind", fmt.Sprintf("Rewound to before message %s: %d records left the conversation", id, n))
}

func (l *logEntry) event(kind, desc string) {
	l.entries = append(l.entries, &entry{event: &transcript.Message{Role: transcript.System, Meta: true,
		Parts: []*transcript.Part{ingest.EventPart(kind, desc, nil)}}})
}

// set applies one metadata field, from the first line, a $set or a legacy
// session document.
func (l *logEntry) set(f *ingest.File, n int, key string, raw json.RawMessage) {
	if dst := l.field(key); dst != nil {
		*dst = ingest.Text(raw)
		return
	}
	switch key {
	case "startTime", "start_time":
		l.started = timestamp(raw)
	case "lastUpdated":
		l.updated = timestamp(raw)
	case "messages":
		l.checkpoint(f, n, raw)
	default:
		if s := ingest.Text(raw); s != "" {
			l.meta[key] = s
		}
	}
}

// field is the text field of the log a metadata key sets, or nil.
func (l *logEntry) field(key string) *string {
	switch key {
	case "sessionId":
		return &l.id
	case "projectHash":
		return &l.project
	case "summary":
		return &l.title
	case "kind":
		return &l.kind
	case "parentSessionId":
		return &l.parent
	}
	return nil
}

// checkpoint reads a checkpoint of the whole conversation (compression,
// masking): it replaces the log; messages it leaves out are kept aside.
func (l *logEntry) checkpoint(f *ingest.File, n int, raw json.RawMessage) {
	var msgs []json.RawMessage
	if err := ingest.Unmarshal(raw, &msgs); err != nil {
		f.Warn(n, "messages of a $set skipped: %v", err)
		return
	}
	var es []*entry
	keep := map[string]bool{}
	for i, m := range msgs {
		rec, err := decode(f, n, fmt.Sprintf("$set messages[%d]: ", i), m)
		if err != nil {
			f.Warn(n, "$set messages[%d] skipped: %v", i, err)
			continue
		}
		e := messageEntry(rec, m, n)
		es = append(es, e)
		keep[e.id] = true
	}
	if k := l.retire(0, keep, ""); k > 0 {
		l.event(transcript.Compaction, fmt.Sprintf("History rewritten: %d earlier messages left the conversation", k))
	}
	for _, e := range es {
		l.upsert(e)
	}
}

func timestamp(raw json.RawMessage) time.Time {
	var t ingest.JSONTime
	_ = ingest.Unmarshal(raw, &t)
	return t.Time
}

// decode decodes a record. A field of an unexpected type is reported and
// left out; the rest of the record is kept.
func decode(f *ingest.File, n int, at string, raw []byte) (*record, error) {
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, errors.New("not a JSON object")
	}
	rec := &record{}
	if err := ingest.Unmarshal(raw, rec); err != nil {
		if _, ok := errors.AsType[*json.UnmarshalTypeError](err); !ok {
			return nil, err
		}
		f.Warn(n, "%srecord kept without a field: %v", at, err)
	}
	return rec, nil
}

func messageEntry(rec *record, raw []byte, n int) *entry {
	e := &entry{id: iD(rec.ID), rec: rec, line: n}
	if rec.Role != "" && rec.Type == "" {
		rec.Type = map[string]string{"model": "gemini", "gemini": "gemini"}[rec.Role]
		if rec.Type == "" {
			rec.Type = rec.Role
		}
	}
	if !types[rec.Type] {
		e.raw = bytes.Clone(raw)
	}
	return e
}

func iD(raw json.RawMessage) string {
	if len(raw) > 0 && raw[0] == '"' {
		return ingest.Text(raw)
	}
	return ""
}

// file reads one Gemini CLI file: the conversation it records and, for
// logs.json, one prompt log per session.
type file struct {
	f     *ingest.File
	main  *logEntry
	logs  map[string]*logEntry
	order []string
	at    string // where in a document the record being read is, for warnings
}

// prompt adds a record of logs.json, a prompt the user typed, to the log
// of its session.
func (g *file) prompt(rec *record, raw []byte, n int) {
	pl := g.logs[rec.SessionID]
	if pl == nil {
		pl = newLog(promptsLog)
		pl.id = rec.SessionID
		g.logs[rec.SessionID] = pl
		g.order = append(g.order, rec.SessionID)
	}
	rec.Content, _ = json.Marshal(*rec.Message)
	pl.upsert(messageEntry(rec, raw, n))
}

// setAll applies metadata fields in the order of their keys.
func (l *logEntry) setAll(f *ingest.File, n int, fields map[string]json.RawMessage) {
	for _, k := range sortedKeys(fields) {
		l.set(f, n, k, fields[k])
	}
}

// record sorts one record of any kind, as the upstream loader does: a
// rewind, a message (it has an id), a $set, the metadata line.
func (g *file) record(n int, raw []byte) error {
	rec, err := decode(g.f, n, g.at, raw)
	if err != nil {
		return err
	}
	for _, h := range recordKinds {
		if h.is(rec) {
			h.read(g, rec, raw, n)
			return nil
		}
	}
	g.main.upsert(&entry{line: n, event: &transcript.Message{Role: transcript.System, Meta: true,
		Parts: []*transcript.Part{g.f.Unknown("Unknown record", bytes.Clone(raw))}}})
	return nil
}

// recordKinds tell the kinds of record apart, in the order the upstream
// loader tries them; the first that fits reads the record.
var recordKinds = []struct {
	is   func(*record) bool
	read func(g *file, rec *record, raw []byte, n int)
}{
	{func(r *record) bool { return r.RewindTo != nil }, (*file).rewind},
	{func(r *record) bool { return iD(r.ID) != "" }, (*file).logMessage},
	{func(r *record) bool { return r.Set != nil }, (*file).set},
	{func(r *record) bool { return r.SessionID != "" && r.ProjectHash != "" }, (*file).metadata},
	{func(r *record) bool { return r.SessionID != "" && r.Message != nil }, (*file).prompt},
	{func(r *record) bool { return r.Type != "" || r.Role != "" }, (*file).message},
}

func (g *file) rewind(rec *record, _ []byte, _ int) { g.main.rewind(*rec.RewindTo) }

// logMessage reads a message of a chat log; the first names the session
// when no metadata line did.
func (g *file) logMessage(rec *record, raw []byte, n int) {
	g.main.upsert(messageEntry(rec, raw, n))
	if g.main.id == "" {
		g.main.id = rec.SessionID
	}
}

func (g *file) set(rec *record, _ []byte, n int) { g.main.setAll(g.f, n, rec.Set) }

// metadata reads the first line of a chat log: every field is metadata.
func (g *file) metadata(_ *record, raw []byte, n int) {
	var all map[string]json.RawMessage
	_ = ingest.Unmarshal(raw, &all)
	g.main.setAll(g.f, n, all)
}

// message reads a message without an id: a legacy one, or a checkpoint's
// Content (it has a role).
func (g *file) message(rec *record, raw []byte, n int) {
	if rec.Role != "" {
		g.main.origin = checkpoint
	}
	g.main.upsert(messageEntry(rec, raw, n))
}

// sortedKeys keeps the result of applying a record independent of map order:
// "messages" goes last, after the metadata it comes with.
func sortedKeys(m map[string]json.RawMessage) []string {
	keys := slices.Sorted(maps.Keys(m))
	if i := slices.Index(keys, "messages"); i >= 0 {
		keys = append(slices.Delete(keys, i, i+1), "messages")
	}
	return keys
}

func readFile(ctx context.Context, f *ingest.File, r io.Reader) ([]*transcript.Session, error) {
	g := &file{f: f, main: newLog(chat), logs: map[string]*logEntry{}}
	// A JSONL log is a whole JSON object on its first line and more lines; a
	// legacy session, logs.json or a checkpoint is one document, usually
	// pretty-printed.
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := br.ReadBytes('\n')
	if err != nil && err != io.EOF {
		return nil, err
	}
	first = bytes.TrimPrefix(first, []byte("\ufeff"))
	body := io.MultiReader(bytes.NewReader(first), br)
	if isJSONL(bytes.TrimSpace(first), br) {
		err = ingest.JSONL(ctx, f, body, g.record)
	} else {
		err = g.document(ctx, json.NewDecoder(body))
	}
	return g.sessions(), err
}

// isJSONL reports whether a file is a JSONL log by its first line, and
// whether more follows it.
func isJSONL(first []byte, rest *bufio.Reader) bool {
	_, more := rest.Peek(1)
	return more == nil && len(first) > 0 && first[0] == '{' && json.Valid(first)
}

// sessions are the sessions of the file's logs that hold anything.
func (g *file) sessions() []*transcript.Session {
	var out []*transcript.Session
	for _, l := range append([]*logEntry{g.main}, g.logsInOrder()...) {
		if s := l.session(g.f); s != nil {
			out = append(out, s)
		}
	}
	return out
}

// logsInOrder are the prompt logs of logs.json, in the order of their
// sessions' first prompts.
func (g *file) logsInOrder() []*logEntry {
	ls := make([]*logEntry, len(g.order))
	for i, id := range g.order {
		ls[i] = g.logs[id]
	}
	return ls
}

// document streams a JSON document: a legacy session object, a checkpoint,
// or an array of logs.json entries or Contents. Messages are decoded one at
// a time, so a large session is never held twice.
func (g *file) document(ctx context.Context, dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t == json.Delim('[') {
		return g.array(ctx, dec, "")
	}
	if t != json.Delim('{') {
		return errors.New("not a JSON object or array")
	}
	for dec.More() {
		if err := g.member(ctx, dec); err != nil {
			return err
		}
	}
	return nil
}

// member reads one member of a session document: its messages, a
// checkpoint's history, or a metadata field.
func (g *file) member(ctx context.Context, dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	key, _ := t.(string)
	if key == "messages" || key == "history" {
		return g.array(ctx, dec, key)
	}
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	g.main.set(g.f, 0, key, raw)
	return nil
}

func (g *file) array(ctx context.Context, dec *json.Decoder, key string) error {
	if key != "" {
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return fmt.Errorf("%s is not an array", key)
		}
	}
	if key == "history" {
		g.main.origin = checkpoint
	}
	for i := 0; dec.More(); i++ {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := g.element(dec, key, i); err != nil {
			return err
		}
	}
	g.at = ""
	_, err := dec.Token()
	return err
}

// element reads element i of the array under key; an element that is not
// a record is skipped, a broken one ends the file.
func (g *file) element(dec *json.Decoder, key string, i int) error {
	var raw json.RawMessage
	if err := dec.Decode(&raw); errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s[%d] is incomplete, the file ends early (the agent may still be writing it)", key, i)
	} else if err != nil {
		return fmt.Errorf("%s[%d] (byte %d): %w", key, i, dec.InputOffset(), err)
	}
	g.at = fmt.Sprintf("%s[%d]: ", key, i)
	if err := g.record(0, raw); err != nil {
		g.f.Warn(0, "%sskipped: %v", g.at, err)
	}
	return nil
}

// session maps the replayed log to the model.
func (l *logEntry) session(f *ingest.File) *transcript.Session {
	s := &transcript.Session{ID: cmp.Or(l.id, ingest.Stem(f.Rel)), Title: l.title, Project: l.project,
		Started: l.started, Ended: l.updated, Meta: l.sessionMeta()}
	l.place(s, strings.Split(path.Dir(f.Rel), "/"))
	if l.origin == checkpoint && s.Title == "" {
		s.Title = checkpointTitle(f.Rel)
	}
	l.replay(f, s)
	if len(s.Turns) == 0 {
		return nil
	}
	if isRootHash(s.Project) {
		nameProject(s, l.meta["directories"])
	}
	return s
}

// sessionMeta is what the session's Meta shows of the log: where it was
// recorded, its metadata fields, its project's hash and its kind.
func (l *logEntry) sessionMeta() map[string]string {
	meta := map[string]string{originKey: l.origin}
	maps.Copy(meta, l.meta)
	if l.project != "" {
		meta["project hash"] = l.project
	}
	if l.kind != "" {
		meta["kind"] = l.kind
	}
	return meta
}

// checkpointTitle names a /chat save checkpoint by the tag of its file
// name, checkpoint-<tag>.json.
func checkpointTitle(rel string) string {
	if _, tag, ok := strings.Cut(ingest.Stem(rel), "checkpoint-"); ok {
		return "/chat save " + tag
	}
	return ""
}

// place finds the session's project and parent from the folders of its
// file: ~/.gemini/tmp/<project>/chats/... (logs.json and checkpoints sit
// beside chats/ and have no projectHash), and a subagent lives in
// chats/<parent session id>/<session id>.jsonl.
func (l *logEntry) place(s *transcript.Session, dirs []string) {
	if p := projectDir(dirs); p != "" {
		s.Project = p
	}
	s.ParentID = l.parent
	if n := len(dirs); s.ParentID == "" && l.kind == "subagent" && n >= 2 && dirs[n-2] == "chats" {
		s.ParentID = dirs[n-1]
	}
}

// projectDir is the folder of a file's project: the one that holds chats/,
// or else the one in tmp/; "" for neither.
func projectDir(dirs []string) string {
	if i := slices.Index(dirs, "chats"); i > 0 {
		return dirs[i-1]
	}
	if i := slices.Index(dirs, "tmp"); i >= 0 && i+1 < len(dirs) {
		return dirs[i+1]
	}
	return ""
}

// replay appends the log's entries to s as messages.
func (l *logEntry) replay(f *ingest.File, s *transcript.Session) {
	b := &builder{f: f, s: s, calls: map[string]bool{}, answered: map[string]bool{}, pending: map[string][]string{}}
	for _, e := range l.entries {
		f.At(e.line) // for warnings about the entry
		m := e.event
		if m == nil {
			m = b.message(e)
		}
		if m != nil {
			m.Branch = e.branch
			s.Append(m)
		}
	}
}

// isRootHash reports whether a project id is the SHA-256 of its root, as
// Gemini CLI named projects before its projects.json.
func isRootHash(id string) bool {
	return len(id) >= 32 && strings.Trim(strings.ToLower(id), "0123456789abcdef") == ""
}

// workDir finds the folder the session ran in where Gemini's bootstrap
// message states it: "I'm currently working in the directory: X", or the
// first of its "Workspace Directories".
var workDir = regexp.MustCompile(`(?m)(?:^I'm currently working in the directory: |\*\*Workspace Directories:\*\*\s*\n\s*- )(\S.*?)\s*$`)

// nameProject names a project known by the hash of its root after the root:
// the folder whose hash it is among those the session names (its workspace
// folders, the paths its tools were given and their parents), or else the
// folder the session says it ran in, or else a short hash.
func nameProject(s *transcript.Session, directories string) {
	stated, candidates := folders(s, directories)
	root := hashedRoot(s.Project, append(slices.Clone(stated), candidates...))
	if root == "" && len(stated) > 0 {
		root = stated[0]
	}
	if root == "" {
		s.Project = s.Project[:8]
		return
	}
	s.CWD = cmp.Or(s.CWD, root)
	s.Project = root[strings.LastIndexAny(strings.TrimRight(root, `/\`), `/\`)+1:]
}

// folders lists the folders a session states it ran in (its workspace
// folders, those its bootstrap message names), and the absolute paths its
// tools were given.
func folders(s *transcript.Session, directories string) (stated, candidates []string) {
	_ = ingest.Unmarshal([]byte(directories), &stated)
	s.Parts(func(m *transcript.Message, p *transcript.Part) {
		switch {
		case m.Meta && p.Kind == transcript.TextPart:
			for _, sm := range workDir.FindAllStringSubmatch(p.Text, -1) {
				stated = append(stated, sm[1])
			}
		case p.Call != nil:
			candidates = append(candidates, absPaths(p.Call.Input)...)
		}
	})
	return stated, candidates
}

// absPaths are the values of a call's arguments that are absolute paths,
// of either kind.
func absPaths(input string) []string {
	var args map[string]any
	_ = ingest.Unmarshal([]byte(input), &args)
	var out []string
	for _, v := range args {
		if p, ok := v.(string); ok && isAbs(p) {
			out = append(out, p)
		}
	}
	return out
}

// isAbs reports whether p is an absolute path, of either kind.
func isAbs(p string) bool {
	return strings.HasPrefix(p, "/") || len(p) > 2 && p[1] == ':' && p[2] == '\\'
}

// hashedRoot is the first of the folders, or of their parents, whose
// SHA-256 is the project's hash; "" if none.
func hashedRoot(hash string, folders []string) string {
	for _, c := range folders {
		for d := c; d != ""; d = parentDir(d) {
			if sum := sha256.Sum256([]byte(d)); strings.EqualFold(hex.EncodeToString(sum[:]), hash) {
				return d
			}
		}
	}
	return ""
}

// parentDir is the folder that holds p, a slash or a Windows path; "" above
// the root.
func parentDir(p string) string {
	i := strings.LastIndexAny(strings.TrimRight(p, `/\`), `/\`)
	if i <= 0 || i == 2 && p[1] == ':' {
		return ""
	}
	return p[:i]
}

// builder maps messages, keeping each tool call and result once: chat
// records repeat them as functionCall/functionResponse parts.
type builder struct {
	f        *ingest.File
	s        *transcript.Session
	calls    map[string]bool
	answered map[string]bool
	pending  map[string][]string // tool name → ids of id-less calls waiting for a response
}

func (b *builder) message(e *entry) *transcript.Message {
	rec := e.rec
	m := &transcript.Message{ID: e.id, Time: rec.Timestamp.Time}
	if m.Time.IsZero() {
		m.Time = rec.TS.Time // logs.json
	}
	read := messageTypes[rec.Type]
	if read == nil {
		read = (*builder).unknown
	}
	read(b, e, m, messageContent(rec))
	if len(m.Parts) == 0 {
		return nil
	}
	return m
}

// messageTypes read a message by its type.
var messageTypes = map[string]func(b *builder, e *entry, m *transcript.Message, content json.RawMessage){
	"user":    (*builder).user,
	"gemini":  (*builder).model,
	"model":   (*builder).model,
	"info":    (*builder).notice,
	"warning": (*builder).notice,
	"error":   (*builder).notice,
}

// messageContent is a message's content, or a checkpoint Content's parts.
func messageContent(rec *record) json.RawMessage {
	if c := rec.Content; len(c) > 0 && string(c) != `""` && string(c) != "null" {
		return c
	}
	return rec.Parts
}

// notice reads what the CLI told the user: an info, a warning or an error;
// the info that a request was cancelled is an interruption.
func (b *builder) notice(e *entry, m *transcript.Message, content json.RawMessage) {
	m.Role, m.Meta = transcript.System, true
	kind := e.rec.Type
	if kind == "info" && strings.HasPrefix(partsText(content), "Request cancelled") {
		kind = transcript.Interrupt
	}
	m.Parts = []*transcript.Part{ingest.EventPart(kind, partsText(content), nil)}
}

func (b *builder) unknown(e *entry, m *transcript.Message, _ json.RawMessage) {
	m.Role, m.Meta = transcript.System, true
	m.Parts = []*transcript.Part{b.f.Unknown("Unknown message type "+strconv.Quote(e.rec.Type), e.raw)}
}

// user reads a user's message: what the CLI injected is Meta, and a
// message of tool results only is the tools'.
func (b *builder) user(e *entry, m *transcript.Message, content json.RawMessage) {
	m.Role = transcript.User
	if len(content) == 0 {
		content = e.rec.DisplayContent
	}
	m.Parts = b.parts(e.line, content)
	for _, p := range m.Parts {
		if p.Kind == transcript.TextPart && b.injected(p.Text) {
			m.Meta = true
		}
	}
	if resultsOnly(m.Parts) {
		m.Role = transcript.Tool
	}
}

// resultsOnly reports whether parts are tool results, and at least one.
func resultsOnly(parts []*transcript.Part) bool {
	for _, p := range parts {
		if p.Kind != transcript.ResultPart {
			return false
		}
	}
	return len(parts) > 0
}

// model reads the model's message: its thoughts, its content, its tool
// calls and its tokens.
func (b *builder) model(e *entry, m *transcript.Message, content json.RawMessage) {
	rec := e.rec
	m.Role, m.Model = transcript.Assistant, rec.Model
	m.Parts = thoughts(rec)
	for _, tc := range rec.ToolCalls {
		b.calls[tc.ID] = true // a functionCall part repeating it is skipped
	}
	m.Parts = append(m.Parts, b.parts(e.line, content)...)
	for i := range rec.ToolCalls {
		m.Parts = append(m.Parts, b.toolCall(e.line, &rec.ToolCalls[i])...)
	}
	if t := rec.Tokens; t != nil {
		m.Usage = ingest.GeminiUsage(t.Input, t.Output, t.Cached, t.Thoughts, t.Tool)
	}
}

// thoughts are the model's thoughts, each its subject and description.
func thoughts(rec *record) []*transcript.Part {
	var out []*transcript.Part
	for _, t := range rec.Thoughts {
		txt := t.Description
		if t.Subject != "" {
			txt = "**" + t.Subject + "**\n\n" + t.Description
		}
		if strings.TrimSpace(txt) != "" {
			out = append(out, &transcript.Part{Kind: transcript.ThinkingPart, Text: txt})
		}
	}
	return out
}

// injected reports whether a user's text is the CLI's: the context it
// sends, or a prompt it sent by itself to have the model go on. The prompt
// log (logs.json) holds only what the user typed.
func (b *builder) injected(text string) bool {
	return Tools.IsInjected(text) || continuation[strings.TrimSpace(text)] && b.s.Meta[originKey] != promptsLog
}

// partsText flattens content to its text.
func partsText(raw json.RawMessage) string {
	var texts []string
	for _, p := range contentParts(raw) {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	if texts == nil {
		return ingest.Text(raw)
	}
	return strings.Join(texts, "")
}

// contentParts decodes a PartListUnion: a string, one Part, or a list of strings
// and Parts.
func contentParts(raw json.RawMessage) []contentPart {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	items := []json.RawMessage{raw}
	if raw[0] == '[' && ingest.Unmarshal(raw, &items) != nil {
		return []contentPart{{Text: string(raw)}}
	}
	ps := make([]contentPart, 0, len(items))
	for _, it := range items {
		ps = append(ps, decodePart(it))
	}
	return ps
}

// decodePart decodes an item of a PartListUnion: a string is a text.
func decodePart(it json.RawMessage) contentPart {
	p := contentPart{raw: it}
	if len(it) > 0 && it[0] == '"' {
		p.Text = ingest.Text(it)
	} else {
		_ = ingest.Unmarshal(it, &p)
	}
	return p
}

func (b *builder) parts(n int, raw json.RawMessage) []*transcript.Part {
	var out []*transcript.Part
	for _, p := range contentParts(raw) {
		if p.Text != "" {
			out = appendText(out, p)
		} else if part := b.part(n, p); part != nil {
			out = append(out, part)
		}
	}
	return out
}

// appendText adds a text part to out: a thought, or text. Gemini splits a
// prompt around its @file references: the pieces are one text.
func appendText(out []*transcript.Part, p contentPart) []*transcript.Part {
	switch {
	case p.Thought:
		return append(out, &transcript.Part{Kind: transcript.ThinkingPart, Text: p.Text})
	case len(out) > 0 && out[len(out)-1].Kind == transcript.TextPart:
		out[len(out)-1].Text += p.Text
		return out
	}
	return append(out, &transcript.Part{Kind: transcript.TextPart, Text: p.Text})
}

// part maps a content part without text; nil for a copy, or for a part
// that holds nothing.
func (b *builder) part(n int, p contentPart) *transcript.Part {
	switch {
	case p.InlineData != nil:
		return b.image(n, p.InlineData.MimeType, p.InlineData.Data)
	case p.FileData != nil:
		return fileData(p.FileData.FileURI, p.FileData.MimeType)
	case p.FunctionCall != nil:
		return b.functionCall(p.FunctionCall.ID, p.FunctionCall.Name, p.FunctionCall.Args)
	case p.FunctionResponse != nil:
		return b.answer(n, p.FunctionResponse)
	case unknownPart(p.raw):
		return b.f.Unknown("Unknown content part", p.raw)
	}
	return nil
}

// fileData is a file a part refers to: an image is shown by its address.
func fileData(uri, mime string) *transcript.Part {
	if strings.HasPrefix(mime, "image/") {
		return &transcript.Part{Kind: transcript.ImagePart, Image: &transcript.Image{URL: uri}}
	}
	return &transcript.Part{Kind: transcript.TextPart, Text: fmt.Sprintf("(file %s, %s)", uri, mime)}
}

// functionCall is a call of a content part; nil for a copy of a call its
// message records.
func (b *builder) functionCall(id, name string, args json.RawMessage) *transcript.Part {
	if id == "" {
		// Older checkpoints have no call ids: responses follow by name.
		id = fmt.Sprintf("%s#%d", name, len(b.calls)+1)
		b.pending[name] = append(b.pending[name], id)
	}
	if b.calls[id] {
		b.s.Skip("functionCall", "a copy of a tool call its message records", 1)
		return nil
	}
	b.calls[id] = true
	return &transcript.Part{Kind: transcript.CallPart, Call: &transcript.ToolCall{
		ID: id, Name: name, Kind: Tools.Kind(name), Input: ingest.Text(args)}}
}

// answer is the result of a call's response; nil for a copy of a result
// its call records. A response without an id answers the oldest pending
// call of its name.
func (b *builder) answer(n int, fr *functionResponse) *transcript.Part {
	id := fr.ID
	if q := b.pending[fr.Name]; id == "" && len(q) > 0 {
		id, b.pending[fr.Name] = q[0], q[1:]
	}
	if b.answered[id] && id != "" {
		b.s.Skip("functionResponse", "a copy of a tool result its call records", 1)
		return nil
	}
	b.answered[id] = true
	r := &transcript.ToolResult{CallID: id}
	r.Output, r.IsError = response(fr.Response)
	exit(r, Tools.Kind(fr.Name))
	r.Images = b.images(n, fr.Parts)
	return &transcript.Part{Kind: transcript.ResultPart, Result: r}
}

// unknownPart reports whether a part that mapped to nothing holds more than
// empty text and a thought signature.
func unknownPart(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	if ingest.Unmarshal(raw, &m) != nil {
		return len(bytes.TrimSpace(raw)) > 0
	}
	for k := range m {
		if k != "text" && k != "thought" && k != "thoughtSignature" {
			return true
		}
	}
	return false
}

func (b *builder) image(n int, mime, data string) *transcript.Part {
	img, ok := ingest.DecodeImage(b.f, data)
	switch {
	case !ok:
		b.f.Warn(n, "inline data is not base64; skipped")
		return &transcript.Part{Kind: transcript.TextPart, Text: "(unreadable " + mime + " data)"}
	case img.MediaType == "application/octet-stream" && !strings.HasPrefix(mime, "image/"):
		return &transcript.Part{Kind: transcript.TextPart, Text: fmt.Sprintf("(%s attachment, %d bytes)", mime, len(img.Data))}
	}
	return &transcript.Part{Kind: transcript.ImagePart, Image: img}
}

func (b *builder) images(n int, raw json.RawMessage) []*transcript.Image {
	var imgs []*transcript.Image
	for _, p := range contentParts(raw) {
		if p.InlineData != nil {
			if ip := b.image(n, p.InlineData.MimeType, p.InlineData.Data); ip.Image != nil {
				imgs = append(imgs, ip.Image)
			}
		}
	}
	return imgs
}

// response reads a functionResponse's response: its output, its error, or
// the whole response as JSON.
func response(raw json.RawMessage) (string, bool) {
	var r map[string]json.RawMessage
	if ingest.Unmarshal(raw, &r) != nil {
		return ingest.Text(raw), false
	}
	out, hasOut := r["output"]
	e, hasErr := r["error"]
	switch {
	case hasOut && ingest.Text(out) != "":
		return ingest.Text(out), hasErr && ingest.Text(e) != ""
	case hasErr:
		return ingest.Text(e), true
	}
	return ingest.Text(raw), false
}

// exitCode finds the "Exit Code: N" line of the trailer run_shell_command
// writes after a command's output.
var exitCode = regexp.MustCompile(`(?m)^Exit Code: (-?\d+)\s*$`)

// exit reads a shell command's exit code from its output: Gemini records
// the call as a success whatever the command returned.
func exit(r *transcript.ToolResult, kind transcript.ToolKind) {
	ms := exitCode.FindAllStringSubmatch(r.Output, -1)
	if len(ms) == 0 || kind != transcript.ShellTool {
		return
	}
	if code, err := strconv.Atoi(ms[len(ms)-1][1]); err == nil {
		r.ExitCode = &code
		r.IsError = r.IsError || code != 0
	}
}

// toolCall maps a recorded tool call to a call and its result, which holds
// the functionResponse the model was sent.
func (b *builder) toolCall(n int, tc *toolCall) []*transcript.Part {
	call := &transcript.ToolCall{ID: tc.ID, Name: tc.Name, Kind: Tools.Kind(tc.Name), Input: ingest.Text(tc.Args), Subagent: tc.AgentID}
	parts := []*transcript.Part{{Kind: transcript.CallPart, Call: call}}
	r := &transcript.ToolResult{CallID: tc.ID, IsError: tc.Status == "error"}
	r.Output = strings.Join(b.resultParts(n, tc, r), "\n")
	if e := ingest.Text(tc.Error); e != "" {
		r.IsError = true
		if len(e) > len(r.Output) {
			r.Output = e // the recorded error is the fuller message
		}
	}
	display(r, tc)
	exit(r, call.Kind)
	b.answered[tc.ID] = true
	return append(parts, &transcript.Part{Kind: transcript.ResultPart, Result: r})
}

// resultParts reads the parts of a call's result into r's images and
// returns their texts.
func (b *builder) resultParts(n int, tc *toolCall, r *transcript.ToolResult) []string {
	var texts []string
	owner := tc.ID // the call the parts being read belong to
	for _, p := range contentParts(tc.Result) {
		if fr := p.FunctionResponse; fr != nil {
			owner = fr.ID
		}
		if owner != tc.ID && owner != "" && tc.ID != "" {
			continue // a sibling call's response, synced in from history
		}
		if t := b.resultPart(n, p, r); t != "" {
			texts = append(texts, t)
		}
	}
	return texts
}

// resultPart reads one part of a call's result into r's images and error,
// and returns its text.
func (b *builder) resultPart(n int, p contentPart, r *transcript.ToolResult) string {
	switch {
	case p.FunctionResponse != nil:
		out, isErr := response(p.FunctionResponse.Response)
		r.IsError = r.IsError || isErr
		r.Images = append(r.Images, b.images(n, p.FunctionResponse.Parts)...)
		return out
	case p.InlineData != nil:
		r.Images = append(r.Images, b.images(n, p.raw)...)
		return ""
	}
	return p.Text
}

// display reads what the CLI displayed of a result: an edit's diff, or
// the output when the result had none.
func display(r *transcript.ToolResult, tc *toolCall) {
	var shown struct {
		FileDiff string `json:"fileDiff"`
	}
	switch ds := ingest.Text(tc.ResultDisplay); {
	case ingest.Unmarshal(tc.ResultDisplay, &shown) == nil && shown.FileDiff != "" && !r.IsError:
		showDiff(r, shown.FileDiff)
	case r.Output == "" && ds != "":
		r.Output = ds
	case r.Output == "" && tc.Status != "success":
		r.Output = "(tool call " + ingest.FirstNonEmpty(tc.Status, "without a result") + ")"
	}
}

// showDiff shows an edit's diff, with its line numbers: the output the
// model saw only says "Successfully modified file".
func showDiff(r *transcript.ToolResult, diff string) {
	if r.Patch = ingest.UnifiedHunks(diff); r.Patch == nil || r.Output == "" {
		r.Output = strings.TrimLeft(r.Output+"\n"+diff, "\n")
	}
	for i := range r.Patch {
		r.Patch[i].Path = "" // the call's file, which the diff names by its base name only
	}
}

// merge joins what several files say about one session: a legacy
// .json and the .jsonl it was migrated to, the prompts logs.json kept, and
// the subagent sessions a session started.
func merge(ss []*transcript.Session) []*transcript.Session {
	out, prompts, byID := joinChats(ss)
	for _, p := range prompts {
		if s := byID[p.ID]; s != nil {
			// The chat log holds these prompts and all the rest.
			s.Sources = append(s.Sources, p.Source)
			s.Warnings = append(s.Warnings, p.Warnings...)
			continue
		}
		out = append(out, p)
	}
	for _, s := range out {
		adoptSubagents(s, byID)
	}
	for _, s := range out {
		adoptChild(byID[s.ParentID], s)
	}
	return out
}

// joinChats joins the files of each chat log's session, and sets the
// prompt logs aside; byID holds the chat logs.
func joinChats(ss []*transcript.Session) (out, prompts []*transcript.Session, byID map[string]*transcript.Session) {
	byID = map[string]*transcript.Session{}
	for _, s := range ss {
		switch {
		case s.Meta[originKey] == promptsLog:
			prompts = append(prompts, s)
		case s.Meta[originKey] == chat && byID[s.ID] != nil:
			join(byID[s.ID], s)
		default:
			if s.Meta[originKey] == chat {
				byID[s.ID] = s
			}
			out = append(out, s)
		}
	}
	return out, prompts, byID
}

// adoptChild lists s among the children of p, its parent, once.
func adoptChild(p, s *transcript.Session) {
	if p != nil && p != s && !slices.Contains(p.ChildIDs, s.ID) {
		p.ChildIDs = append(p.ChildIDs, s.ID)
	}
}

// adoptSubagents makes s the parent of the sessions its calls started;
// a call's agentId that names no such session is dropped.
func adoptSubagents(s *transcript.Session, byID map[string]*transcript.Session) {
	s.Parts(func(_ *transcript.Message, part *transcript.Part) {
		c := part.Call
		if c == nil || c.Subagent == "" {
			return
		}
		child := byID[c.Subagent]
		if !canAdopt(s, child) {
			c.Subagent = ""
			return
		}
		child.ParentID = s.ID
	})
}

// canAdopt reports whether s can be child's parent: child is another
// session, and has no other parent.
func canAdopt(s, child *transcript.Session) bool {
	return child != nil && child != s && (child.ParentID == "" || child.ParentID == s.ID)
}

// join adds o, another file of session s, to s. Messages s lacks are
// merged in by time.
func join(s, o *transcript.Session) {
	if o.Stats().Messages > s.Stats().Messages {
		s.Turns, o.Turns = o.Turns, s.Turns
		s.Source, o.Source = o.Source, s.Source
	}
	if extra := missing(s, o); len(extra) > 0 {
		interleave(s, extra)
	}
	s.Sources = append(append(s.Sources, o.Source), o.Sources...)
	s.Warnings = append(s.Warnings, o.Warnings...)
	s.Title = ingest.FirstNonEmpty(s.Title, o.Title)
	s.ParentID = ingest.FirstNonEmpty(s.ParentID, o.ParentID)
	if earlier(o.Started, s.Started) {
		s.Started = o.Started
	}
	if o.Ended.After(s.Ended) {
		s.Ended = o.Ended
	}
	for k, v := range o.Meta {
		if _, ok := s.Meta[k]; !ok {
			s.Meta[k] = v
		}
	}
}

// earlier reports whether a is a time before b, or b is unknown.
func earlier(a, b time.Time) bool {
	return !a.IsZero() && (b.IsZero() || a.Before(b))
}

// before reports whether a came before b, both having a time.
func before(a, b *transcript.Message) bool {
	return !a.Time.IsZero() && !b.Time.IsZero() && a.Time.Before(b.Time)
}

// missing lists the messages of o that s lacks.
func missing(s, o *transcript.Session) []*transcript.Message {
	have := map[string]bool{}
	for _, m := range s.Messages() {
		have[m.ID] = true
	}
	var extra []*transcript.Message
	for _, m := range o.Messages() {
		if m.ID == "" || !have[m.ID] {
			extra = append(extra, m)
		}
	}
	return extra
}

// interleave refills s with its messages and extra, by time; a message
// without a time keeps its place.
func interleave(s *transcript.Session, extra []*transcript.Message) {
	ms := s.Messages()
	s.Turns = nil
	for len(ms) > 0 || len(extra) > 0 {
		if len(ms) == 0 || len(extra) > 0 && before(extra[0], ms[0]) {
			s.Append(extra[0])
			extra = extra[1:]
		} else {
			s.Append(ms[0])
			ms = ms[1:]
		}
	}
}
