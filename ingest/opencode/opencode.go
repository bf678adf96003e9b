// Package opencode reads the sessions of opencode: its SQLite database,
// its legacy storage tree and the JSON of `opencode export`.
package opencode

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Reader reads opencode's three storage generations: the SQLite database
// (db.go), the legacy storage/ tree of one JSON file per object
// (storage.go), and `opencode export` JSON. All three hold the same
// session, message and part objects, mapped here.
var Reader = &ingest.Reader{
	Name:  "opencode",
	Agent: "opencode",
	Files: "~/.local/share/opencode/opencode.db or opencode-<channel>.db (every session in it; the -wal beside it is read too), " +
		"the legacy ~/.local/share/opencode/storage/ tree (session/<project>/, message/<session>/, part/<message>/, project/, todo/: " +
		"one JSON file per object, joined into sessions) and the JSON `opencode export <id>` prints; child sessions linked to their parent",
	Detects: "a SQLite database whose schema in its first 64 KiB creates the tables session, message and part (or named opencode*.db); " +
		"a JSON object with a ses_ id, a title and a time object (a session), a msg_ id and a role (a message), a prt_ id and a type (a part); " +
		"project, todo, permission, session_share and session_diff JSON in a storage/ tree; an export {info, messages} naming a ses_ id",
	Detect:    detect,
	Read:      read,
	Merge:     merge,
	Links:     links,
	Locations: locations,
	Tools:     Tools,
}

// Tools are opencode's tools, and the reminders it injects (besides the
// parts it marks synthetic).
var Tools = &ingest.Tools{
	Kinds: map[string]transcript.ToolKind{
		"multiedit":  transcript.EditTool,
		"codesearch": transcript.SearchTool,
	},
	Injected: []string{
		"<system-reminder>",
	},
}

func init() { ingest.Register(Reader) }

// locations: opencode.db and the legacy storage/ tree both live
// in opencode's data folder.
func locations(home string, getenv func(string) string) []ingest.Location {
	data := cmp.Or(getenv("XDG_DATA_HOME"), filepath.Join(home, ".local", "share"))
	return []ingest.Location{{Name: "opencode", Dir: filepath.Join(data, "opencode")}}
}

// schema finds the CREATE TABLE statements of opencode's tables, which
// SQLite keeps as text in the schema page at the start of the file.
var schema = regexp.MustCompile("CREATE TABLE\\s+[`\"']?(session|message|part)[`\"']?\\s*\\(")

// dBName is the name opencode gives its database, a hint for a database
// whose schema lies past the head.
var dBName = regexp.MustCompile(`^opencode(-[\w.-]+)?\.db$`)

func detect(h *ingest.Head) float64 {
	if ingest.IsSQLite(h) {
		found := map[string]bool{}
		for _, m := range schema.FindAllSubmatch(h.Data, -1) {
			found[string(m[1])] = true
		}
		return max(ingest.When(len(found) == 3, ingest.Likely), ingest.When(dBName.MatchString(path.Base(h.Path)), ingest.Maybe))
	}
	if kind := sqliteCompanion(h.Data); kind != "" {
		return ingest.When(dBName.MatchString(strings.TrimSuffix(path.Base(h.Path), "-"+kind)), ingest.Maybe)
	}
	return ingest.When(kindOf(h) != "", ingest.Likely)
}

// sqliteCompanion says which of the files SQLite keeps beside a database b
// starts: "wal", the write-ahead log, or "shm", its index; or "".
func sqliteCompanion(b []byte) string {
	if len(b) < 4 {
		return ""
	}
	switch string(b[:4]) {
	case "\x37\x7f\x06\x82", "\x37\x7f\x06\x83":
		return "wal"
	case "\x18\xe2\x2d\x00", "\x00\x2d\xe2\x18": // version 3007000, in either byte order
		return "shm"
	}
	return ""
}

// kindOf says which opencode JSON file the head is: "export", a kind of
// the storage tree ("session", "message", "part", "project", "todo", …), or
// "". Sessions, messages and parts are known by their ids; the other files
// of the tree have generic shapes, so their place in it decides.
func kindOf(h *ingest.Head) string {
	loc, inTree := locate(h.Path)
	rs := h.Records()
	switch {
	case h.IsArray():
		return arrayKind(loc, inTree, rs)
	case len(rs) != 1:
		return ""
	}
	if k := idKind(h, rs[0]); k != "" {
		return k
	}
	return treeKind(loc, inTree, rs[0])
}

// arrayKind is the kind of a JSON array file of the tree: a session's
// todos, permissions or diffs.
func arrayKind(loc treeLoc, inTree bool, rs []ingest.Record) string {
	switch {
	case !inTree:
	case loc.kind == "todo" && (len(rs) == 0 || rs[0].Has("content", "status")),
		loc.kind == "permission", loc.kind == "session_diff":
		return loc.kind
	}
	return ""
}

// idKind knows an export, a session, a message or a part by its ids,
// wherever it lies.
func idKind(h *ingest.Head, r ingest.Record) string {
	for _, k := range idKinds {
		if k.is(h, r) {
			return k.kind
		}
	}
	return ""
}

// idKinds are the objects known by their ids, in the order they are tried.
var idKinds = []struct {
	kind string
	is   func(h *ingest.Head, r ingest.Record) bool
}{
	{"export", isExport},
	{"part", func(_ *ingest.Head, r ingest.Record) bool {
		return hasID(r, "id", "prt_") && hasID(r, "messageID", "msg_") && r.Has("type")
	}},
	{"message", func(_ *ingest.Head, r ingest.Record) bool {
		return hasID(r, "id", "msg_") && hasID(r, "sessionID", "ses_") && r.Has("role")
	}},
	{"session", isSession},
}

// hasID says whether r's key holds an id of opencode's with the prefix.
func hasID(r ingest.Record, key, prefix string) bool { return strings.HasPrefix(r[key], prefix) }

// isExport knows `opencode export`'s {info, messages} by the session id in it.
func isExport(h *ingest.Head, r ingest.Record) bool {
	return r["info"] == "{" && r["messages"] == "[" && bytes.Contains(h.Data, []byte(`"ses_`))
}

// isSession knows a session's info: a ses_ id, a time, a title and its
// project or folder.
func isSession(_ *ingest.Head, r ingest.Record) bool {
	return hasID(r, "id", "ses_") && r["time"] == "{" && r.Has("title") && (r.Has("projectID") || r.Has("directory"))
}

// treeKind is the kind of another object file, by its place in the tree.
func treeKind(loc treeLoc, inTree bool, r ingest.Record) string {
	switch {
	case !inTree:
	case loc.kind == "project" && r.Has("id", "worktree"),
		loc.kind == "session_share" && r.Has("url"),
		loc.kind == "permission":
		return loc.kind
	}
	return ""
}

func read(ctx context.Context, f *ingest.File, r io.Reader) ([]*transcript.Session, error) {
	br := bufio.NewReaderSize(r, ingest.HeadSize)
	head, err := br.Peek(ingest.HeadSize)
	switch {
	case bytes.HasPrefix(head, ingest.SQLiteMagic):
		return readDB(ctx, f, br)
	case sqliteCompanion(head) != "":
		// Read with its database; this only lists it among the sessions' files.
		return []*transcript.Session{piece(f, sqliteCompanion(head), treeLoc{}, nil)}, nil
	}
	h := &ingest.Head{Path: f.Rel, Data: head, EOF: err != nil}
	kind := kindOf(h)
	if kind == "export" {
		return readExport(ctx, f, br)
	}
	return readPiece(f, kind, br)
}

// readExport reads the output of `opencode export`: {info, messages:
// [{info, parts}], todos}, a message at a time.
func readExport(ctx context.Context, f *ingest.File, r io.Reader) ([]*transcript.Session, error) {
	e := &export{ctx: ctx, f: f, d: ingest.NewJSONDoc(f, r, 1), b: newBuilder(nil)}
	e.b.warn = func(format string, args ...any) { f.Warn(e.b.line, format, args...) }
	_, err := e.d.Object("the document", e.field)
	if _, err := e.d.End(ctx, err); err != nil {
		return nil, err
	}
	e.b.todos(e.todos)
	s := e.b.done()
	s.ID = ingest.FirstNonEmpty(s.ID, ingest.Stem(f.Rel))
	return []*transcript.Session{s}, nil
}

// export is the reading of one export.
type export struct {
	ctx   context.Context
	f     *ingest.File
	d     *ingest.JSONDoc
	b     *builder
	todos []string
}

// exportFields read the fields of an export; the others are skipped.
var exportFields = map[string]func(e *export, key string, line int) error{
	"info": (*export).info,
	"messages": func(e *export, key string, _ int) error {
		return e.d.Array(key, e.message)
	},
	"todos": func(e *export, _ string, _ int) error { return e.d.Todos(&e.todos) },
}

func (e *export) field(key string, line int) error {
	if read := exportFields[key]; read != nil {
		return read(e, key, line)
	}
	return e.d.Skip()
}

// info reads the session's info.
func (e *export) info(key string, line int) error {
	var raw json.RawMessage
	if err := e.d.Value(key, line, &raw); err != nil {
		return err
	}
	var si sessionInfo
	if ingest.DecodeAt(e.f, line, key, raw, &si) {
		e.b.session(&si)
	}
	return nil
}

// message reads messages[i], {info, parts}.
func (e *export) message(i, line int, raw json.RawMessage) error {
	if err := e.ctx.Err(); err != nil {
		return err
	}
	var m struct {
		Info  json.RawMessage   `json:"info"`
		Parts []json.RawMessage `json:"parts"`
	}
	if !ingest.DecodeAt(e.f, line, fmt.Sprintf("messages[%d]", i), raw, &m) {
		return nil
	}
	parts := make([]rawPart, len(m.Parts))
	for j, p := range m.Parts {
		parts[j] = rawPart{data: p}
	}
	e.b.line = line
	e.b.message("", m.Info, parts)
	return nil
}

// sessionInfo is a session's info.
type sessionInfo struct {
	ID        string `json:"id"`
	Slug      string `json:"slug"`
	Version   string `json:"version"`
	ProjectID string `json:"projectID"`
	Directory string `json:"directory"`
	ParentID  string `json:"parentID"`
	Title     string `json:"title"`
	Time      struct {
		Created, Updated, Archived ingest.JSONTime
	} `json:"time"`
	Summary *struct {
		Additions, Deletions, Files int64
	} `json:"summary"`
	Share struct {
		URL string `json:"url"`
	} `json:"share"`
	Revert revert `json:"revert"`
}

// revert is a pending /undo: the first message it reverts.
type revert struct {
	MessageID string `json:"messageID"`
}

// message is a message's info. Fields whose type differs between the
// user and assistant messages, or between versions, are kept raw.
type message struct {
	ID         string `json:"id"`
	Role       string `json:"role"`
	Time       struct{ Created ingest.JSONTime }
	ModelID    string          `json:"modelID"`
	ProviderID string          `json:"providerID"`
	Agent      json.RawMessage `json:"agent"`
	Path       struct{ Cwd string }
	Cost       float64         `json:"cost"`
	Tokens     *tokens         `json:"tokens"`
	Summary    json.RawMessage `json:"summary"` // true on a compaction summary; an object on a user message
	Error      json.RawMessage `json:"error"`
	System     json.RawMessage `json:"system"` // a user's custom system prompt, or an old assistant's whole prompt
}

type tokens struct {
	Input, Output, Reasoning int64
	Cache                    struct{ Read, Write int64 }
}

// usage reads opencode's counts, whose input excludes the cached tokens
// and whose output excludes the reasoning: opencode prices the two apart.
func (t *tokens) usage() transcript.Usage {
	if t == nil {
		return transcript.Usage{}
	}
	return transcript.Usage{Input: t.Input, Output: t.Output + t.Reasoning, Reasoning: t.Reasoning, CacheRead: t.Cache.Read, CacheWrite: t.Cache.Write}
}

// partInfo is a part of a message; its type says which fields are set.
type partInfo struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
	Type      string `json:"type"`
	Text      string `json:"text"`
	Synthetic bool   `json:"synthetic"`
	Ignored   bool   `json:"ignored"`

	Mime     string `json:"mime"` // file
	Filename string `json:"filename"`
	URL      string `json:"url"`

	CallID string     `json:"callID"` // tool
	Tool   string     `json:"tool"`
	State  *toolState `json:"state"`

	Tokens *tokens  `json:"tokens"` // step-finish
	Files  []string `json:"files"`  // patch

	Name        string          `json:"name"` // agent
	Prompt      string          `json:"prompt"`
	Description string          `json:"description"` // subtask
	Agent       string          `json:"agent"`
	Command     string          `json:"command"`
	Attempt     int             `json:"attempt"` // retry
	Error       json.RawMessage `json:"error"`
	Auto        bool            `json:"auto"` // compaction
	Overflow    bool            `json:"overflow"`
}

type toolState struct {
	Status      string          `json:"status"`
	Input       json.RawMessage `json:"input"`
	Raw         string          `json:"raw"`
	Output      string          `json:"output"`
	Error       string          `json:"error"`
	Metadata    json.RawMessage `json:"metadata"`
	Attachments []partInfo      `json:"attachments"`
}

// rawPart is a part as stored, with the id its container gives it.
type rawPart struct {
	id   string
	data json.RawMessage
}

// builder maps one session's messages, in order, from any container.
type builder struct {
	s      *transcript.Session
	warn   func(format string, args ...any)
	line   int // the line of the message being read, for warnings about an export
	cost   float64
	system string // the last whole system prompt shown
	revert string // the first message a pending /undo reverts
	kept   string // the last message before it
	branch string // set from the reverted message on
}

func newBuilder(warn func(format string, args ...any)) *builder {
	return &builder{s: &transcript.Session{Meta: map[string]string{}}, warn: warn}
}

// unknown keeps what the reader does not know as an event, and says so.
func (b *builder) unknown(desc string, raw []byte) *transcript.Part {
	if b.warn != nil {
		b.warn("%s: shown as an unknown event", desc)
	}
	return ingest.EventPart(transcript.Unknown, desc, raw)
}

// session applies a session's info.
func (b *builder) session(si *sessionInfo) {
	s := b.s
	s.ID, s.Title, s.CWD, s.ParentID = si.ID, si.Title, si.Directory, si.ParentID
	s.AgentVersion, s.Started, s.Ended = si.Version, si.Time.Created.Time, si.Time.Updated.Time
	if si.Summary != nil && si.Summary.Files > 0 {
		s.Meta["changes"] = fmt.Sprintf("%d files, +%d −%d", si.Summary.Files, si.Summary.Additions, si.Summary.Deletions)
	}
	if si.Share.URL != "" {
		s.Meta["share url"] = si.Share.URL
	}
	if !si.Time.Archived.IsZero() {
		s.Meta["archived"] = si.Time.Archived.Format("2006-01-02 15:04:05Z07:00")
	}
	for k, v := range map[string]string{"slug": si.Slug, "project id": si.ProjectID} {
		if v != "" {
			s.Meta[k] = v
		}
	}
	b.revert = si.Revert.MessageID
}

// message maps one message and its parts, in order. raw is nil when the
// message's own file is missing (a legacy tree the app was still writing).
func (b *builder) message(id string, raw json.RawMessage, parts []rawPart) {
	info, ps, raws, ok := b.decode(&id, raw, parts)
	if !ok {
		return
	}
	if id != "" && id == b.revert {
		// opencode deletes the messages a pending /undo reverts at the next
		// prompt; until then they are a branch off the kept ones.
		b.branch = ingest.FirstNonEmpty(b.kept, "reverted")
	} else if b.branch == "" {
		b.kept = id
	}
	m := &transcript.Message{ID: id, Time: info.Time.Created.Time, Branch: b.branch}
	// Context opencode added to a message (synthetic text, file changes) is
	// shown apart from it, as a meta message after it.
	meta := b.role(m, &info, raw)
	var steps transcript.Usage
	for i, p := range ps {
		parts, isMeta := b.part(m, &p, raws[i])
		if isMeta {
			meta = append(meta, parts...)
		} else {
			m.Parts = append(m.Parts, parts...)
		}
		if p.Type == "step-finish" {
			steps.Add(p.Tokens.usage())
		}
	}
	// Each step-finish is one model response; the message's own tokens are
	// only its last step's.
	m.Usage = steps
	if steps.IsZero() {
		m.Usage = info.Tokens.usage()
	}
	b.add(m, meta, &info)
}

// decode reads a message and its parts, reporting what it skips; ok is
// false when the message itself cannot be read. A message whose record is
// missing is guessed from its parts. id becomes the message's own when it
// is "".
func (b *builder) decode(id *string, raw json.RawMessage, parts []rawPart) (info message, ps []partInfo, raws []json.RawMessage, ok bool) {
	if raw != nil {
		if err := json.Unmarshal(raw, &info); !ingest.IsDrift(err) {
			b.warn("message %s skipped: %v", ingest.FirstNonEmpty(*id, "without an id"), err)
			return info, nil, nil, false
		} else if err != nil {
			b.warn("message %s: %v; the rest of it is read", ingest.FirstNonEmpty(*id, info.ID), err)
		}
	}
	*id = ingest.FirstNonEmpty(*id, info.ID)
	ps = make([]partInfo, 0, len(parts))
	raws = make([]json.RawMessage, 0, len(parts))
	for _, r := range parts {
		var p partInfo
		if err := json.Unmarshal(r.data, &p); !ingest.IsDrift(err) {
			b.warn("message %s: part %s skipped: %v", *id, ingest.FirstNonEmpty(r.id, "without an id"), err)
			continue
		}
		p.ID = ingest.FirstNonEmpty(r.id, p.ID)
		ps, raws = append(ps, p), append(raws, r.data)
	}
	if raw == nil {
		info.Role = guessRole(ps)
		b.warn("message %s: its own record is missing; its %d parts are shown as written by the %s", *id, len(ps), info.Role)
	}
	return info, ps, raws, true
}

// role sets who wrote m, and what it tells of the session: an assistant's
// model, provider, folder, cost and system prompt. It returns the context
// shown apart from m: a user's custom system prompt.
func (b *builder) role(m *transcript.Message, info *message, raw json.RawMessage) (meta []*transcript.Part) {
	switch info.Role {
	case "user":
		m.Role = transcript.User
		if s := ingest.Text(info.System); s != "" {
			meta = append(meta, &transcript.Part{Kind: transcript.TextPart, Text: "Custom system prompt:\n\n" + s})
		}
	case "assistant":
		m.Role, m.Model = transcript.Assistant, info.ModelID
		m.Meta = string(info.Summary) == "true" // the summary a compaction wrote
		b.s.AddModel(info.ModelID)
		if info.ProviderID != "" && !slices.Contains(strings.Split(b.s.Meta["providers"], ", "), info.ProviderID) {
			b.s.Meta["providers"] = strings.TrimPrefix(b.s.Meta["providers"]+", "+info.ProviderID, ", ")
		}
		b.s.CWD = ingest.FirstNonEmpty(b.s.CWD, info.Path.Cwd)
		b.cost += info.Cost
		b.systemPrompt(info.System, m)
	default:
		m.Role, m.Meta = transcript.System, true
		m.Parts = append(m.Parts, b.unknown("Message with unknown role "+strconv.Quote(info.Role), raw))
	}
	return meta
}

// add appends m, with its context after it, and ends its turn as its error
// says.
func (b *builder) add(m *transcript.Message, meta []*transcript.Part, info *message) {
	status := endWith(m, info.Error)
	switch {
	case len(m.Parts) > 0 || !m.Usage.IsZero():
		b.s.Append(m)
	case len(meta) == 0:
		b.s.Skip("message without parts", "opencode had not written its parts yet", 1)
	}
	if len(meta) > 0 {
		b.s.Append(&transcript.Message{ID: m.ID + "#context", Role: contextRole(m), Time: m.Time, Meta: true, Parts: meta, Branch: b.branch})
	}
	if status != "" && len(b.s.Turns) > 0 {
		b.s.Turns[len(b.s.Turns)-1].Status = status
	}
}

// endWith shows the error a message ended with, if any, and returns the
// status it gives the turn: aborted by the user, or failed.
func endWith(m *transcript.Message, raw json.RawMessage) (status string) {
	name, desc := apiError(raw)
	switch {
	case name == "MessageAbortedError":
		m.Parts = append(m.Parts, ingest.EventPart(transcript.Interrupt, desc, nil))
		return transcript.Aborted
	case desc != "":
		m.Parts = append(m.Parts, ingest.EventPart(transcript.ErrorEvent, desc, nil))
		return transcript.Failed
	}
	return ""
}

// contextRole is the role of the context shown apart from m: the user's
// own, or opencode's.
func contextRole(m *transcript.Message) transcript.Role {
	if m.Role == transcript.User {
		return transcript.User
	}
	return transcript.System
}

// apiError reads one of opencode's named errors, {name, data: {message}}:
// its name and a description.
func apiError(raw json.RawMessage) (name, desc string) {
	var e struct {
		Name string          `json:"name"`
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal(raw, &e) != nil || e.Name == "" {
		return "", ingest.ErrorMessage(raw)
	}
	return e.Name, strings.TrimSuffix(e.Name+": "+ingest.ErrorMessage(e.Data), ": ")
}

// guessRole says who wrote a message whose record is missing, from its parts.
func guessRole(ps []partInfo) string {
	for _, p := range ps {
		switch p.Type {
		case "text", "file", "agent", "subtask", "compaction":
		default:
			return "assistant"
		}
	}
	return "user"
}

// systemPrompt shows the whole system prompt older versions stored on each
// assistant message, once and again only when it changes.
func (b *builder) systemPrompt(raw json.RawMessage, m *transcript.Message) {
	var lines []string
	if json.Unmarshal(raw, &lines) != nil || len(lines) == 0 {
		return
	}
	if s := strings.Join(lines, "\n\n"); s != b.system {
		b.system = s
		b.s.Append(&transcript.Message{Role: transcript.System, Time: m.Time, Meta: true, Branch: m.Branch,
			Parts: []*transcript.Part{{Kind: transcript.TextPart, Text: s}}})
	}
}

// part maps one part of message m; meta says the parts are context opencode
// added rather than what the user or the model wrote.
func (b *builder) part(m *transcript.Message, p *partInfo, raw json.RawMessage) (parts []*transcript.Part, meta bool) {
	switch p.Type {
	case "text":
		if strings.TrimSpace(p.Text) == "" {
			return nil, false
		}
		meta = p.Synthetic || p.Ignored || m.Role == transcript.User && Tools.IsInjected(p.Text)
		return one(&transcript.Part{Kind: transcript.TextPart, Text: p.Text}), meta
	case "tool":
		return b.tool(p), false
	case "step-start", "step-finish", "snapshot":
		return nil, false // usage is summed by message; snapshots are git trees
	}
	if read := partReaders[p.Type]; read != nil {
		return read(b, p)
	}
	return one(b.unknown("Unknown part type "+strconv.Quote(p.Type), raw)), false
}

func one(p *transcript.Part) []*transcript.Part { return []*transcript.Part{p} }

// partReaders read the other types of part; meta marks a part the
// harness wrote.
var partReaders = map[string]func(b *builder, p *partInfo) (parts []*transcript.Part, meta bool){
	"reasoning": func(b *builder, p *partInfo) ([]*transcript.Part, bool) {
		if strings.TrimSpace(p.Text) == "" {
			b.s.Skip("reasoning (empty)", "reasoning with no text", 1)
			return nil, false
		}
		return one(&transcript.Part{Kind: transcript.ThinkingPart, Text: p.Text}), false
	},
	"file": func(b *builder, p *partInfo) ([]*transcript.Part, bool) { return one(b.file(p)), false },
	"patch": func(_ *builder, p *partInfo) ([]*transcript.Part, bool) {
		if len(p.Files) == 0 {
			return nil, false
		}
		return one(ingest.EventPart("patch", "Changed "+strings.Join(p.Files, ", "), nil)), true
	},
	"retry": func(_ *builder, p *partInfo) ([]*transcript.Part, bool) {
		desc := fmt.Sprintf("Retry %d", p.Attempt)
		if _, msg := apiError(p.Error); msg != "" {
			desc += " after " + msg
		}
		return one(ingest.EventPart(transcript.Retry, desc, nil)), false
	},
	"compaction": func(_ *builder, p *partInfo) ([]*transcript.Part, bool) {
		desc := "Conversation compacted"
		if p.Auto {
			desc += " automatically"
		}
		if p.Overflow {
			desc += " (context overflow)"
		}
		return one(ingest.EventPart(transcript.Compaction, desc, nil)), true
	},
	"agent": func(_ *builder, p *partInfo) ([]*transcript.Part, bool) {
		return one(ingest.EventPart("agent", "@"+p.Name, nil)), false
	},
	"subtask": func(_ *builder, p *partInfo) ([]*transcript.Part, bool) {
		desc := strings.TrimSpace("Subtask for @" + p.Agent + ": " + p.Description)
		if p.Command != "" {
			desc += " (/" + p.Command + ")"
		}
		return []*transcript.Part{ingest.EventPart("subtask", desc, nil), {Kind: transcript.TextPart, Text: p.Prompt}}, false
	},
}

// file maps a file part: a data: URL is decoded (an image is shown, text is
// kept), anything else is a reference.
func (b *builder) file(p *partInfo) *transcript.Part {
	name := ingest.FirstNonEmpty(p.Filename, p.URL)
	switch {
	case strings.HasPrefix(p.URL, "data:"):
		img, ok := ingest.DecodeImage(nil, p.URL)
		switch {
		case !ok:
			b.warn("message part %s: %s data is not base64; skipped", p.ID, p.Mime)
			return &transcript.Part{Kind: transcript.TextPart, Text: fmt.Sprintf("(unreadable %s data: %s)", p.Mime, p.Filename)}
		case img.MediaType != "application/octet-stream":
			return &transcript.Part{Kind: transcript.ImagePart, Image: img}
		case strings.HasPrefix(p.Mime, "text/") && utf8.Valid(img.Data):
			return &transcript.Part{Kind: transcript.CodePart, Name: p.Filename, Text: string(img.Data)}
		}
		return &transcript.Part{Kind: transcript.TextPart, Text: fmt.Sprintf("(%s attachment %s, %d bytes)", p.Mime, p.Filename, len(img.Data))}
	case strings.HasPrefix(p.Mime, "image/") && (strings.HasPrefix(p.URL, "https://") || strings.HasPrefix(p.URL, "http://")):
		return &transcript.Part{Kind: transcript.ImagePart, Image: &transcript.Image{URL: p.URL}}
	}
	return &transcript.Part{Kind: transcript.TextPart, Text: fmt.Sprintf("(file %s, %s)", name, p.Mime)}
}

// subagent finds the child session a task call's output names.
var subagent = regexp.MustCompile(`(?:task_id|session_id): (ses_\w+)`)

// tool maps a tool part to its call and, once it has finished, its result.
func (b *builder) tool(p *partInfo) []*transcript.Part {
	st := p.State
	if st == nil {
		st = &toolState{}
	}
	var md toolMeta
	_ = json.Unmarshal(st.Metadata, &md)
	c := &transcript.ToolCall{ID: p.CallID, Name: ingest.FirstNonEmpty(p.Tool, "unnamed tool"), Kind: Tools.Kind(p.Tool), Input: st.input()}
	if c.Kind == transcript.TaskTool {
		c.Subagent = md.subagent(st.Output)
	}
	parts := []*transcript.Part{{Kind: transcript.CallPart, Call: c}}
	r := &transcript.ToolResult{CallID: p.CallID}
	if !b.result(r, st, &md) {
		return parts // the session ended before the tool did
	}
	return append(parts, &transcript.Part{Kind: transcript.ResultPart, Result: r})
}

// toolMeta is what the metadata of a tool's state tells.
type toolMeta struct {
	Exit      *int   `json:"exit"`
	Diff      string `json:"diff"`
	SessionID string `json:"sessionId"`
}

// input is a call's arguments; while they are still being streamed,
// they are only raw text.
func (st *toolState) input() string {
	input := ingest.Text(st.Input)
	if (input == "" || input == "{}") && st.Raw != "" {
		return st.Raw
	}
	return input
}

// subagent is the child session a task call started: in its metadata, or
// named in its output.
func (md *toolMeta) subagent(output string) string {
	if md.SessionID != "" {
		return md.SessionID
	}
	if m := subagent.FindStringSubmatch(output); m != nil {
		return m[1]
	}
	return ""
}

// result fills r as the tool's state says; it is false while the tool
// is still pending or running.
func (b *builder) result(r *transcript.ToolResult, st *toolState, md *toolMeta) bool {
	switch st.Status {
	case "completed":
		b.completed(r, st, md)
	case "error":
		r.Output, r.IsError = st.Error, true
	case "pending", "running":
		return false
	default:
		r.Output = "(tool call with unknown status " + strconv.Quote(st.Status) + ")"
	}
	return true
}

// completed fills the result of a finished tool: its output, exit code
// and attachments.
func (b *builder) completed(r *transcript.ToolResult, st *toolState, md *toolMeta) {
	r.Output, r.ExitCode = st.Output, md.Exit
	r.IsError = md.Exit != nil && *md.Exit != 0
	if r.Output == "" {
		r.Output = md.Diff // an edit says nothing but what it changed
	}
	for i := range st.Attachments {
		if ip := b.file(&st.Attachments[i]); ip.Image != nil {
			r.Images = append(r.Images, ip.Image)
		} else {
			r.Output = strings.TrimPrefix(r.Output+"\n"+ip.Text, "\n")
		}
	}
}

// todos adds the session's todo list, as a checklist at the end.
func (b *builder) todos(lines []string) {
	if len(lines) > 0 {
		b.s.Append(ingest.TodoMessage(lines))
	}
}

// done settles what the whole session was needed for.
func (b *builder) done() *transcript.Session {
	s := b.s
	if b.cost > 0 {
		s.Meta["cost (USD)"] = strconv.FormatFloat(math.Round(b.cost*1e6)/1e6, 'f', -1, 64)
	}
	if len(s.Meta) == 0 {
		s.Meta = nil
	}
	return s
}

// links joins the files of one storage tree, which are assembled
// together, and a database's -wal to the database.
func links(s *transcript.Session) []string {
	switch s.Meta[kindKey] {
	case "":
		return []string{"db\x00" + s.Source}
	case "wal", "shm":
		return []string{"db\x00" + strings.TrimSuffix(strings.TrimSuffix(s.Source, "-wal"), "-shm")}
	}
	return []string{"tree\x00" + s.Meta[rootKey]}
}

// merge joins the files of legacy storage trees into sessions,
// keeps one copy of a session read from several containers (a database and
// an export of it), and links child sessions to their parents.
func merge(ss []*transcript.Session) []*transcript.Session {
	out, pieces, wals := sortFiles(ss)
	out = append(out, assemble(pieces)...)
	for _, w := range wals {
		// A database's -wal was read with it.
		for _, s := range out {
			if s.Source+"-wal" == w.Source {
				s.Sources = append(s.Sources, w.Source)
			}
		}
	}
	out, byID := dedupe(out)
	for _, s := range out {
		linkFamily(s, byID)
	}
	for _, s := range out {
		slices.Sort(s.ChildIDs)
	}
	return out
}

// sortFiles parts whole sessions from pieces of the storage tree and a
// database's -wal files.
func sortFiles(ss []*transcript.Session) (whole, pieces, wals []*transcript.Session) {
	for _, s := range ss {
		switch s.Meta[kindKey] {
		case "":
			whole = append(whole, s)
		case "wal":
			wals = append(wals, s)
		case "shm": // SQLite's index of the -wal: nothing of the sessions
		default:
			pieces = append(pieces, s)
		}
	}
	return whole, pieces, wals
}

// dedupe keeps one session of each id, the fuller copy in the place of
// the first, with the sources and warnings of all.
func dedupe(ss []*transcript.Session) ([]*transcript.Session, map[string]*transcript.Session) {
	byID := map[string]*transcript.Session{}
	kept := ss[:0]
	for _, s := range ss {
		prev := byID[s.ID]
		if prev == nil || s.ID == "" {
			byID[s.ID] = s
			kept = append(kept, s)
			continue
		}
		if s.Stats().Messages > prev.Stats().Messages {
			*prev, *s = *s, *prev
		}
		prev.Sources = append(append(prev.Sources, s.Source), s.Sources...)
		prev.Warnings = append(prev.Warnings, s.Warnings...)
	}
	return kept, byID
}

// linkFamily links s to its parent, and to the subagents its calls
// started.
func linkFamily(s *transcript.Session, byID map[string]*transcript.Session) {
	if p := byID[s.ParentID]; p != nil && p != s {
		ingest.AddChild(p, s.ID)
	}
	s.Parts(func(_ *transcript.Message, part *transcript.Part) {
		c := part.Call
		if c == nil || c.Subagent == "" {
			return
		}
		ingest.AddChild(s, c.Subagent)
		if child := byID[c.Subagent]; child != nil && child != s && child.ParentID == "" {
			child.ParentID = s.ID
		}
	})
}
