package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/transcriptsite/transcriptsite/transcript"
)

var claudeCode = &Reader{
	Name:  "claude-code",
	Agent: "Claude Code",
	Files: "~/.claude/projects/<project>/<session>.jsonl; subagents in <session>/subagents/agent-<id>.jsonl " +
		"(with agent-<id>.meta.json) or agent-<id>.jsonl beside the session; Claude Code for web exports",
	Detects: "JSONL records with uuid, parentUuid and sessionId and a type such as user or assistant, or leading " +
		"summary, file-history-snapshot, queue-operation or title records; a JSON document {\"loglines\": [...]}; " +
		"an agent-<id>.meta.json with agentType",
	Detect: detectClaude,
	Read:   readClaude,
	Merge:  mergeClaude,
	Links:  claudeLinks,
}

var claudeTypes = map[string]bool{"user": true, "assistant": true, "system": true, "progress": true, "attachment": true}

func detectClaude(h *Head) bool {
	rs := h.Records()
	for _, r := range rs {
		switch t := r["type"]; {
		case claudeTypes[t] && r.Has("parentUuid", "sessionId"):
			return true
		case t == "summary" && r.Has("leafUuid"),
			t == "file-history-snapshot" && r.Has("messageId"),
			(t == "queue-operation" || t == "custom-title" || t == "ai-title") && r.Has("sessionId"):
			return true
		}
	}
	if len(rs) != 1 || h.IsArray() {
		return false
	}
	// A web export is one document; a subagent's companion is recognised by
	// its content, with its name as the tie-breaker.
	return rs[0]["loglines"] == "[" || rs[0].Has("agentType") && isAgentMeta(h.Path)
}

// isAgentMeta reports whether p names a subagent's companion file.
func isAgentMeta(p string) bool {
	b := path.Base(p)
	return strings.HasPrefix(b, "agent-") && strings.HasSuffix(b, ".meta.json")
}

type ccRecord struct {
	Type              string          `json:"type"`
	Subtype           string          `json:"subtype"`
	UUID              string          `json:"uuid"`
	ParentUUID        string          `json:"parentUuid"`
	LogicalParentUUID string          `json:"logicalParentUuid"`
	SessionID         string          `json:"sessionId"`
	AgentID           string          `json:"agentId"`
	Timestamp         jsonTime        `json:"timestamp"`
	CWD               string          `json:"cwd"`
	GitBranch         string          `json:"gitBranch"`
	Version           string          `json:"version"`
	IsMeta            bool            `json:"isMeta"`
	IsSidechain       bool            `json:"isSidechain"`
	IsCompactSummary  bool            `json:"isCompactSummary"`
	IsAPIError        bool            `json:"isApiErrorMessage"`
	Message           *ccMessage      `json:"message"`
	ToolUseResult     json.RawMessage `json:"toolUseResult"`
	Attachment        json.RawMessage `json:"attachment"`

	Operation   string `json:"operation"` // queue-operation
	Summary     string `json:"summary"`
	LeafUUID    string `json:"leafUuid"`
	CustomTitle string `json:"customTitle"`
	AITitle     string `json:"aiTitle"`

	// progress records
	ParentToolUseID string `json:"parentToolUseID"`
	Data            struct {
		Type    string          `json:"type"`
		AgentID string          `json:"agentId"`
		Message json.RawMessage `json:"message"` // agent_progress: a record of the subagent
	} `json:"data"`

	// system records
	Content         json.RawMessage `json:"content"`
	Level           string          `json:"level"`
	Error           json.RawMessage `json:"error"`
	RetryAttempt    int             `json:"retryAttempt"`
	MaxRetries      int             `json:"maxRetries"`
	DurationMs      float64         `json:"durationMs"`
	CompactMetadata *struct {
		Trigger   string `json:"trigger"`
		PreTokens int64  `json:"preTokens"`
	} `json:"compactMetadata"`
	HookCount int `json:"hookCount"`
	HookInfos []struct {
		Command string `json:"command"`
	} `json:"hookInfos"`
	HookErrors            []json.RawMessage `json:"hookErrors"`
	PreventedContinuation bool              `json:"preventedContinuation"`
	StopReason            string            `json:"stopReason"`
	RefusalCategory       string            `json:"apiRefusalCategory"`
	RefusalExplanation    string            `json:"apiRefusalExplanation"`
	OriginalModel         string            `json:"originalModel"`
	FallbackModel         string            `json:"fallbackModel"`
}

type ccMessage struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	Usage   *struct {
		Input      int64 `json:"input_tokens"`
		Output     int64 `json:"output_tokens"`
		CacheRead  int64 `json:"cache_read_input_tokens"`
		CacheWrite int64 `json:"cache_creation_input_tokens"`
	} `json:"usage"`
}

type ccBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	ToolName  string          `json:"tool_name"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	} `json:"source"`
	From, To *struct {
		Model string `json:"model"`
	} // a model fallback

	raw json.RawMessage
}

// ccSkipped are harness records that are not conversation, with why the
// page leaves them out. Those with a uuid still take part in the
// conversation graph.
var ccSkipped = map[string]string{
	"file-history-snapshot": "checkpoints of the files Claude Code changed, kept for /rewind",
	"progress":              "progress of a running tool; its result is shown with its call",
	"last-prompt":           "the last prompt again, kept for the prompt history",
	"permission-mode":       "a change of permission mode",
	"mode":                  "a change of input mode",
	"agent-name":            "the name Claude Code gave the agent",
	"agent-setting":         "the agent's settings",
	"pr-link":               "a pull request linked to the session",
	"tag":                   "a tag on the session",
	"worktree-state":        "the git worktree the session works in",
	"frame-link":            "a link to a preview the agent made",
	"relocated":             "the session's working directory moved",
	"bridge-session":        "remote-control state",
	"atis-latch":            "harness state",
}

// ccProgressSkipped says why each kind of progress record is left out.
var ccProgressSkipped = map[string]string{
	"hook_progress":           "a hook's progress while it ran",
	"bash_progress":           "a command's output while it ran; its result is shown with its call",
	"agent_progress":          "a subagent's messages, shown in the subagent's own session",
	"waiting_for_task":        "waiting for a background task",
	"mcp_progress":            "an MCP tool's progress while it ran",
	"query_update":            "a web search's progress while it ran",
	"search_results_received": "a web search's progress while it ran",
}

// ccSkipReason returns why a record of kind (its type, "progress/x" for
// progress) is left out, or "" when it is not.
func ccSkipReason(kind string) string {
	typ, sub, _ := strings.Cut(kind, "/")
	if typ == "progress" && sub != "" {
		if r := ccProgressSkipped[sub]; r != "" {
			return r
		}
	}
	return ccSkipped[typ]
}

// ccFile is the state of one Claude Code file being read.
type ccFile struct {
	f        *File
	sessions map[string]*ccSession
	order    []*ccSession
	owner    map[string]*ccSession // uuid → the session that wrote it
	titles   map[string][]string   // titles of records without a session id
	skipped  []transcript.Skip     // harness records met before any session
	agentOf  map[string]string     // Task call id → the agent it started
	leaves   []ccTitle             // summaries, resolved by leafUuid at the end
	agent    string                // the agent's session id in a subagent file
	parent   string                // its parent session, from the file's path
	line     int                   // the record being read: its line,
	elem     int                   // or its index + 1 in a web export's loglines
}

type ccTitle struct{ leaf, text string }

// ccSession accumulates one session of a Claude Code file.
type ccSession struct {
	s       *transcript.Session
	byMsgID map[string]*transcript.Message
	titles  map[string][]string // record type → its titles, the last the latest
	dag     ccDAG
	node    *ccNode               // the record being read, when it has a uuid
	cur     []*transcript.Message // the messages it made
	count   int                   // messages made so far
	queue   []*ccQueued           // prompts typed while the agent worked
}

func readClaude(ctx context.Context, f *File, r io.Reader) ([]*transcript.Session, error) {
	if isAgentMeta(f.Rel) {
		return readAgentMeta(f, r)
	}
	cf := &ccFile{
		f: f, sessions: map[string]*ccSession{}, owner: map[string]*ccSession{},
		titles: map[string][]string{}, agentOf: map[string]string{},
	}
	if b := path.Base(f.Rel); strings.HasPrefix(b, "agent-") {
		cf.agent = stem(b)
		if dir := path.Dir(f.Rel); path.Base(dir) == "subagents" {
			cf.parent = path.Base(path.Dir(dir))
		}
	}
	br := bufio.NewReaderSize(r, headSize)
	head, _ := br.Peek(headSize)
	var err error
	if isClaudeWebExport(head) {
		err = cf.readLoglines(ctx, br)
	} else {
		err = jsonl(ctx, f, br, func(n int, line []byte) error {
			cf.line = n
			return cf.record(line)
		})
	}
	return cf.finish(), err
}

// isClaudeWebExport reports whether data opens a JSON document with loglines.
func isClaudeWebExport(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		if k, err := dec.Token(); err != nil || k == "loglines" {
			return err == nil
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

// readLoglines reads a Claude Code for web export: one JSON document whose
// loglines hold the records a JSONL file would.
func (cf *ccFile) readLoglines(ctx context.Context, r io.Reader) error {
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.Join(errors.New("not a JSON object"), err)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if t != "loglines" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return errors.Join(errors.New("loglines is not an array"), err)
		}
		for i := 1; dec.More(); i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return err
			}
			cf.elem = i
			if err := cf.record(raw); err != nil {
				cf.warn("skipped: %v", err)
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
	}
	return nil
}

// warn records a problem with the record being read.
func (cf *ccFile) warn(format string, args ...any) {
	if cf.elem > 0 {
		cf.f.Warn(0, "loglines[%d]: "+format, append([]any{cf.elem - 1}, args...)...)
		return
	}
	cf.f.Warn(cf.line, format, args...)
}

func (cf *ccFile) record(line []byte) error {
	var rec ccRecord
	if err := unmarshal(line, &rec); !isDrift(err, "message") {
		return err
	}
	switch rec.Type {
	case "custom-title", "ai-title":
		cf.title(&rec, rec.Type, firstNonEmpty(rec.CustomTitle, rec.AITitle))
		return nil
	case "summary":
		if rec.Message == nil {
			// Older versions wrote these at the top of a file, for a leaf
			// that may be in another session.
			cf.leaves = append(cf.leaves, ccTitle{rec.LeafUUID, rec.Summary})
			return nil
		}
		// A compaction summary written as a summary record with a message.
		rec.Type, rec.IsCompactSummary = "user", true
	}
	kind := rec.Type
	if rec.Type == "progress" && rec.Data.Type != "" {
		kind += "/" + rec.Data.Type
	}
	if rec.SessionID == "" && len(cf.order) == 0 && cf.agent == "" && ccSkipped[rec.Type] != "" {
		cf.skipped = append(cf.skipped, transcript.Skip{Kind: kind, Count: 1, Reason: ccSkipReason(kind)})
		return nil
	}
	cs := cf.session(&rec)
	cs.begin(cf, &rec)
	switch {
	case rec.Type == "user":
		cs.user(cf, &rec)
	case rec.Type == "assistant":
		cs.assistant(cf, &rec)
	case rec.Type == "system":
		cs.system(&rec, line)
	case rec.Type == "attachment":
		cs.attachment(cf, &rec)
	case rec.Type == "queue-operation":
		cs.queueOp(cf, &rec)
	case ccSkipped[rec.Type] != "":
		cs.s.Skip(kind, ccSkipReason(kind), 1)
		if rec.Type == "progress" && rec.Data.AgentID != "" {
			if rec.ParentToolUseID != "" {
				cf.agentOf[rec.ParentToolUseID] = "agent-" + rec.Data.AgentID
			}
			cf.progressAgent(&rec)
		}
	default:
		cs.add(&transcript.Message{
			ID: rec.UUID, Role: transcript.System, Time: rec.Timestamp.Time, Meta: true,
			Parts: []*transcript.Part{cf.f.unknown("Unknown record type "+strconv.Quote(rec.Type), line)},
		})
	}
	cs.end()
	return nil
}

// session returns the session a record belongs to, creating it.
func (cf *ccFile) session(rec *ccRecord) *ccSession {
	id := rec.SessionID
	switch {
	case rec.IsSidechain && rec.AgentID != "":
		// A subagent (a Task's agent, a warm-up, a compaction) carries its
		// parent's sessionId, whatever its file is called: it is a
		// session of its own, never its parent's main line.
		id = "agent-" + rec.AgentID
	case cf.agent != "":
		id = cf.agent // an older subagent file, named for its agent
	case id == "" && len(cf.order) > 0:
		return cf.order[len(cf.order)-1]
	case id == "":
		id = stem(cf.f.Rel)
	}
	parent := cf.parent
	if parent == "" && rec.SessionID != id {
		parent = rec.SessionID
	}
	return cf.sessionByID(id, parent)
}

// sessionByID returns the session id of the file, creating it as a child
// of parent.
func (cf *ccFile) sessionByID(id, parent string) *ccSession {
	cs := cf.sessions[id]
	if cs == nil {
		cs = &ccSession{
			s:       &transcript.Session{ID: id, ParentID: parent},
			byMsgID: map[string]*transcript.Message{},
			titles:  map[string][]string{},
			dag:     ccDAG{nodes: map[string]*ccNode{}},
		}
		cf.sessions[id] = cs
		cf.order = append(cf.order, cs)
	}
	return cs
}

// progressAgent reads a subagent's message that an agent_progress record
// repeats. Older versions wrote no file for the subagent: these records
// are all there is of it, and make its session. Where its file exists,
// Merge keeps the file's.
func (cf *ccFile) progressAgent(rec *ccRecord) {
	var inner ccRecord
	if len(rec.Data.Message) == 0 || unmarshal(rec.Data.Message, &inner) != nil || inner.Message == nil {
		return
	}
	cs := cf.sessionByID("agent-"+rec.Data.AgentID, rec.SessionID)
	if inner.UUID != "" && cs.dag.nodes[inner.UUID] != nil {
		return // a copy of a message already read
	}
	setMeta(cs.s, ccFromProgress, "the agent_progress records of its parent")
	if inner.Timestamp.IsZero() {
		inner.Timestamp = rec.Timestamp
	}
	inner.IsSidechain = true
	cs.begin(cf, &inner)
	switch inner.Type {
	case "user":
		cs.user(cf, &inner)
	case "assistant":
		cs.assistant(cf, &inner)
	}
	cs.end()
}

// ccCompactionAgent begins the id of the agent that summarises a
// conversation to compact it (its file is agent-acompact-<hex>.jsonl).
const ccCompactionAgent = "agent-acompact-"

// ccFromProgress is the Meta key of a subagent read from its parent's
// progress records.
const ccFromProgress = "read from"

func (cf *ccFile) title(rec *ccRecord, kind, title string) {
	if rec.SessionID == "" {
		cf.titles[kind] = append(cf.titles[kind], title)
		return
	}
	cs := cf.session(rec)
	cs.titles[kind] = append(cs.titles[kind], title)
}

// finish resolves what needed the whole file and returns its sessions.
func (cf *ccFile) finish() []*transcript.Session {
	for _, l := range cf.leaves {
		if cs := cf.owner[l.leaf]; cs != nil {
			cs.titles["summary"] = append(cs.titles["summary"], l.text)
		} else {
			cf.titles["summary"] = append(cf.titles["summary"], l.text)
		}
	}
	var out []*transcript.Session
	for _, cs := range cf.order {
		s := cs.s
		cs.unqueue(cf)
		if len(s.Turns) == 0 {
			continue
		}
		if len(out) == 0 {
			for _, k := range cf.skipped {
				s.Skip(k.Kind, k.Reason, k.Count)
			}
		}
		for k, v := range cf.titles {
			if _, ok := cs.titles[k]; !ok {
				cs.titles[k] = v
			}
		}
		cs.title()
		// A worktree Claude Code made for an agent, <repo>/.claude/worktrees/<name>,
		// is of the repository's project.
		if repo, _, ok := strings.Cut(strings.ReplaceAll(s.CWD, `\`, "/"), "/.claude/worktrees/"); ok && s.Project == "" {
			s.Project = path.Base(repo)
		}
		if strings.HasPrefix(s.ID, ccCompactionAgent) {
			// The agent that summarised the conversation when it was
			// compacted: its first prompt is only the instruction to.
			setMeta(s, "agent type", "compaction")
			if s.Title == "" {
				s.Title = "Compaction of the conversation"
				setMeta(s, "title source", "compaction")
			}
		}
		s.Parts(func(_ *transcript.Message, p *transcript.Part) {
			if c := p.Call; c != nil && c.Kind == transcript.TaskTool && cf.agentOf[c.ID] != "" {
				c.Subagent = cf.agentOf[c.ID]
			}
		})
		cs.dag.markBranches()
		out = append(out, s)
	}
	return out
}

// title names the session by the latest title of the strongest kind. The
// others, older or weaker, are kept in Meta.
func (cs *ccSession) title() {
	s := cs.s
	var others []string
	for _, kind := range ccTitleKinds {
		ts := cs.titles[kind]
		for i := len(ts) - 1; i >= 0; i-- {
			switch t := strings.TrimSpace(ts[i]); {
			case t == "":
			case s.Title == "":
				s.Title = t
				setMeta(s, "title source", kind)
			case t != s.Title && !slices.Contains(others, t):
				others = append(others, t)
			}
		}
	}
	if len(others) > 0 {
		setMeta(s, "other titles", strings.Join(others, "\n"))
	}
}

// ccTitleKinds are the records that name a session, strongest first.
var ccTitleKinds = []string{"custom-title", "ai-title", "summary", "description"}

func setMeta(s *transcript.Session, k, v string) {
	if s.Meta == nil {
		s.Meta = map[string]string{}
	}
	s.Meta[k] = v
}

// readAgentMeta reads a subagent's companion file into a session without
// messages that Merge folds into the subagent it describes.
func readAgentMeta(f *File, r io.Reader) ([]*transcript.Session, error) {
	var m struct {
		AgentType   string `json:"agentType"`
		Description string `json:"description"`
		ToolUseID   string `json:"toolUseId"`
	}
	if err := json.NewDecoder(r).Decode(&m); err != nil {
		return nil, err
	}
	s := &transcript.Session{ID: stem(f.Rel), Source: f.Rel, Meta: map[string]string{}}
	for k, v := range map[string]string{"agent type": m.AgentType, "description": m.Description, "tool use id": m.ToolUseID} {
		if v != "" {
			s.Meta[k] = v
		}
	}
	return []*transcript.Session{s}, nil
}

func eventPart(kind, desc string, raw []byte) *transcript.Part {
	return &transcript.Part{Kind: transcript.EventPart, Text: desc, Event: &transcript.Event{Kind: kind, Raw: string(raw)}}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

// isDrift reports whether err is nil or only says that a field held
// another type than expected: formats drift, and Unmarshal still fills the
// other fields. A value that is not an object at all, or one of the fields
// the record cannot do without, is a real error.
func isDrift(err error, vital ...string) bool {
	var te *json.UnmarshalTypeError
	if err == nil {
		return true
	}
	return errors.As(err, &te) && te.Field != "" && !slices.Contains(vital, te.Field)
}
