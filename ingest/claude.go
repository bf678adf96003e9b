package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/transcriptsite/transcriptsite/transcript"
)

var claudeCode = &Reader{
	Name:    "claude-code",
	Agent:   "Claude Code",
	Files:   "~/.claude/projects/<project>/<session>.jsonl and subagent agent-*.jsonl files",
	Detects: "JSONL records with uuid, parentUuid and sessionId and a type such as user or assistant, or leading summary, file-history-snapshot, queue-operation or title records",
	Detect:  detectClaude,
	Read:    readClaude,
}

var claudeTypes = map[string]bool{"user": true, "assistant": true, "system": true, "progress": true, "attachment": true}

func detectClaude(h *Head) bool {
	for _, r := range h.Records() {
		switch t := r["type"]; {
		case claudeTypes[t] && r.Has("parentUuid", "sessionId"):
			return true
		case t == "summary" && r.Has("leafUuid"),
			t == "file-history-snapshot" && r.Has("messageId"),
			(t == "queue-operation" || t == "custom-title" || t == "ai-title") && r.Has("sessionId"):
			return true
		}
	}
	return false
}

type ccRecord struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	UUID             string          `json:"uuid"`
	SessionID        string          `json:"sessionId"`
	AgentID          string          `json:"agentId"`
	Timestamp        jsonTime        `json:"timestamp"`
	CWD              string          `json:"cwd"`
	GitBranch        string          `json:"gitBranch"`
	Version          string          `json:"version"`
	IsMeta           bool            `json:"isMeta"`
	IsSidechain      bool            `json:"isSidechain"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	IsAPIError       bool            `json:"isApiErrorMessage"`
	Message          *ccMessage      `json:"message"`
	ToolUseResult    json.RawMessage `json:"toolUseResult"`

	Summary     string `json:"summary"`
	CustomTitle string `json:"customTitle"`
	AITitle     string `json:"aiTitle"`

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
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    *struct {
		Type string `json:"type"`
		Data string `json:"data"`
		URL  string `json:"url"`
	} `json:"source"`
}

// skippedClaude are harness records that are not conversation: they are
// counted on the session, not shown as messages.
var skippedClaude = map[string]bool{
	"file-history-snapshot": true, "progress": true, "queue-operation": true, "last-prompt": true,
	"permission-mode": true, "mode": true, "agent-name": true, "attachment": true,
	"agent-setting": true, "pr-link": true, "tag": true, "worktree-state": true,
}

// ccSession accumulates one session of a Claude Code file.
type ccSession struct {
	s        *transcript.Session
	byMsgID  map[string]*transcript.Message
	titles   map[string]string // record type → last title of that type
	skipped  map[string]int
	versions string
}

func readClaude(ctx context.Context, f *File, r io.Reader) ([]*transcript.Session, error) {
	var (
		order    []*ccSession
		sessions = map[string]*ccSession{}
		orphan   = map[string]string{} // titles in records without a session id
	)
	get := func(rec *ccRecord) *ccSession {
		id := rec.SessionID
		if rec.IsSidechain && rec.AgentID != "" && strings.HasPrefix(stem(f.Rel), "agent-") {
			// A subagent file shares its parent's sessionId; it is its own session.
			id = "agent-" + rec.AgentID
		}
		if id == "" {
			if len(order) > 0 {
				return order[len(order)-1]
			}
			id = stem(f.Rel)
		}
		cs := sessions[id]
		if cs == nil {
			cs = &ccSession{
				s:       &transcript.Session{ID: id},
				byMsgID: map[string]*transcript.Message{},
				titles:  map[string]string{},
				skipped: map[string]int{},
			}
			if id != rec.SessionID && rec.SessionID != "" {
				cs.s.ParentID = rec.SessionID
			}
			sessions[id] = cs
			order = append(order, cs)
		}
		return cs
	}

	err := jsonl(ctx, f, r, func(n int, line []byte) error {
		var rec ccRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			return err
		}
		switch rec.Type {
		case "summary", "custom-title", "ai-title":
			title := firstNonEmpty(rec.CustomTitle, rec.AITitle, rec.Summary)
			if rec.SessionID == "" {
				orphan[rec.Type] = title
			} else {
				get(&rec).titles[rec.Type] = title
			}
			return nil
		}
		if skippedClaude[rec.Type] {
			if rec.SessionID != "" || len(order) > 0 {
				get(&rec).skipped[rec.Type]++
			}
			return nil
		}
		cs := get(&rec)
		cs.note(&rec)
		switch rec.Type {
		case "user":
			cs.user(f, n, &rec)
		case "assistant":
			cs.assistant(f, n, &rec)
		case "system":
			cs.system(&rec)
		default:
			cs.s.Append(&transcript.Message{
				Role: transcript.System, Time: rec.Timestamp.Time, Meta: true,
				Parts: []*transcript.Part{eventPart(transcript.Unknown, "Unknown record type "+strconv.Quote(rec.Type), line)},
			})
		}
		return nil
	})

	var out []*transcript.Session
	for _, cs := range order {
		for k, v := range orphan {
			if _, ok := cs.titles[k]; !ok {
				cs.titles[k] = v
			}
		}
		cs.s.Title = firstNonEmpty(cs.titles["custom-title"], cs.titles["ai-title"], cs.titles["summary"])
		if len(cs.skipped) > 0 {
			cs.s.Meta = map[string]string{"skipped records": countList(cs.skipped)}
		}
		if len(cs.s.Turns) > 0 {
			out = append(out, cs.s)
		}
	}
	return out, err
}

// note takes the session-level fields a record carries.
func (cs *ccSession) note(rec *ccRecord) {
	s := cs.s
	if rec.CWD != "" && s.CWD == "" {
		s.CWD = rec.CWD
	}
	if rec.GitBranch != "" && rec.GitBranch != "HEAD" {
		s.Branch = rec.GitBranch
	}
	if rec.Version != "" {
		s.AgentVersion = rec.Version
	}
}

func (cs *ccSession) user(f *File, n int, rec *ccRecord) {
	m := &transcript.Message{ID: rec.UUID, Role: transcript.User, Time: rec.Timestamp.Time,
		Meta: rec.IsMeta || rec.IsCompactSummary, Sidechain: rec.IsSidechain}
	if rec.Message == nil {
		return
	}
	var s string
	if json.Unmarshal(rec.Message.Content, &s) == nil {
		m.Parts = userText(s, &m.Meta)
	} else {
		var blocks []ccBlock
		if err := json.Unmarshal(rec.Message.Content, &blocks); err != nil {
			f.Warn(n, "message content skipped: %v", err)
			return
		}
		results := 0
		for _, b := range blocks {
			switch b.Type {
			case "text":
				m.Parts = append(m.Parts, userText(b.Text, &m.Meta)...)
			case "image":
				m.Parts = append(m.Parts, imagePart(f, n, b))
			case "tool_result":
				results++
				m.Parts = append(m.Parts, &transcript.Part{Kind: transcript.ResultPart, Result: toolResult(f, n, b, rec.ToolUseResult)})
			default:
				m.Parts = append(m.Parts, &transcript.Part{Kind: transcript.TextPart,
					Text: firstNonEmpty(text(b.Content), "("+b.Type+" block)")})
			}
		}
		if results > 0 && results == len(blocks) {
			m.Role = transcript.Tool
		}
	}
	if rec.IsCompactSummary {
		m.Parts = append([]*transcript.Part{eventPart(transcript.Compaction, "Summary of the conversation before compaction", nil)}, m.Parts...)
	}
	if len(m.Parts) > 0 {
		cs.s.Append(m)
	}
}

// userText turns typed or injected user text into parts, marking the
// message as meta when the harness wrote it.
func userText(s string, meta *bool) []*transcript.Part {
	if strings.HasPrefix(s, "[Request interrupted by user") {
		return []*transcript.Part{eventPart(transcript.Interrupt, strings.Trim(s, "[]"), nil)}
	}
	if transcript.IsInjected(s) {
		*meta = true
	}
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return []*transcript.Part{{Kind: transcript.TextPart, Text: s}}
}

func (cs *ccSession) assistant(f *File, n int, rec *ccRecord) {
	if rec.Message == nil {
		return
	}
	msg := rec.Message
	// Claude Code writes one line per content block; the lines of one API
	// message share its id and repeat its usage, which is counted once.
	m := cs.byMsgID[msg.ID]
	if m == nil || msg.ID == "" {
		m = &transcript.Message{ID: rec.UUID, Role: transcript.Assistant, Time: rec.Timestamp.Time, Sidechain: rec.IsSidechain}
		if msg.Model != "<synthetic>" {
			m.Model = msg.Model
		}
		if msg.ID != "" {
			cs.byMsgID[msg.ID] = m
		}
		cs.s.Append(m)
	}
	if msg.Usage != nil {
		m.Usage = transcript.Usage{Input: msg.Usage.Input, Output: msg.Usage.Output, CacheRead: msg.Usage.CacheRead, CacheWrite: msg.Usage.CacheWrite}
	}
	var blocks []ccBlock
	var s string
	if json.Unmarshal(msg.Content, &s) == nil {
		blocks = []ccBlock{{Type: "text", Text: s}}
	} else if err := json.Unmarshal(msg.Content, &blocks); err != nil {
		f.Warn(n, "message content skipped: %v", err)
		return
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if rec.IsAPIError {
				m.Parts = append(m.Parts, eventPart(transcript.ErrorEvent, b.Text, nil))
			} else if strings.TrimSpace(b.Text) != "" {
				m.Parts = append(m.Parts, &transcript.Part{Kind: transcript.TextPart, Text: b.Text})
			}
		case "thinking", "redacted_thinking":
			t := b.Thinking
			if t == "" {
				t = "(redacted thinking)"
			}
			m.Parts = append(m.Parts, &transcript.Part{Kind: transcript.ThinkingPart, Text: t})
		case "tool_use", "server_tool_use":
			m.Parts = append(m.Parts, &transcript.Part{Kind: transcript.CallPart, Call: &transcript.ToolCall{
				ID: b.ID, Name: b.Name, Kind: transcript.KindOf(b.Name), Input: text(b.Input),
			}})
		case "image":
			m.Parts = append(m.Parts, imagePart(f, n, b))
		default:
			m.Parts = append(m.Parts, &transcript.Part{Kind: transcript.ResultPart, Result: &transcript.ToolResult{
				CallID: b.ToolUseID, Output: text(b.Content),
			}})
		}
	}
}

func (cs *ccSession) system(rec *ccRecord) {
	var kind, desc string
	content := text(rec.Content)
	switch rec.Subtype {
	case "api_error":
		kind = transcript.Retry
		desc = fmt.Sprintf("API error, retry %d of %d", rec.RetryAttempt, rec.MaxRetries)
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(rec.Error, &e) != nil || e.Message == "" {
			e.Message = text(rec.Error)
		}
		if e.Message != "" {
			desc += ": " + e.Message
		}
	case "compact_boundary":
		kind = transcript.Compaction
		desc = "Conversation compacted"
		if md := rec.CompactMetadata; md != nil {
			desc += fmt.Sprintf(" (%s, %d tokens before)", md.Trigger, md.PreTokens)
		}
	case "local_command":
		kind, desc = transcript.Command, content
	case "turn_duration":
		kind, desc = "info", fmt.Sprintf("Turn took %.1f s", rec.DurationMs/1000)
	default:
		kind = "info"
		if rec.Level == "error" {
			kind = transcript.ErrorEvent
		}
		desc = firstNonEmpty(content, rec.Subtype, "system message")
	}
	cs.s.Append(&transcript.Message{ID: rec.UUID, Role: transcript.System, Time: rec.Timestamp.Time, Meta: true,
		Parts: []*transcript.Part{eventPart(kind, desc, nil)}})
}

var exitCodeRE = regexp.MustCompile(`^(?:Error: )?Exit code (\d+)`)

func toolResult(f *File, n int, b ccBlock, structured json.RawMessage) *transcript.ToolResult {
	r := &transcript.ToolResult{CallID: b.ToolUseID, IsError: b.IsError}
	var s string
	var blocks []ccBlock
	switch {
	case json.Unmarshal(b.Content, &s) == nil:
		r.Output = s
	case json.Unmarshal(b.Content, &blocks) == nil:
		var texts []string
		for _, c := range blocks {
			switch c.Type {
			case "text":
				texts = append(texts, c.Text)
			case "image":
				if p := imagePart(f, n, c); p.Image != nil {
					r.Images = append(r.Images, p.Image)
				}
			default:
				texts = append(texts, text(c.Content))
			}
		}
		r.Output = strings.Join(texts, "\n")
	default:
		r.Output = text(b.Content)
	}
	r.ExitCode = exitCode(r.Output)
	if r.Output == "" && len(structured) > 0 {
		var bash struct{ Stdout, Stderr string }
		if json.Unmarshal(structured, &bash) == nil {
			r.Output = strings.TrimRight(bash.Stdout+"\n"+bash.Stderr, "\n")
		}
	}
	return r
}

// exitCode reads the exit code a shell tool's output starts with, if any.
func exitCode(output string) *int {
	if m := exitCodeRE.FindStringSubmatch(output); m != nil {
		if code, err := strconv.Atoi(m[1]); err == nil {
			return &code
		}
	}
	return nil
}

func imagePart(f *File, n int, b ccBlock) *transcript.Part {
	if b.Source == nil {
		return &transcript.Part{Kind: transcript.TextPart, Text: "(image without data)"}
	}
	if b.Source.URL != "" {
		return &transcript.Part{Kind: transcript.ImagePart, Image: &transcript.Image{URL: b.Source.URL}}
	}
	img, ok := decodeImage(b.Source.Data)
	if !ok {
		f.Warn(n, "image data is not base64; skipped")
		return &transcript.Part{Kind: transcript.TextPart, Text: "(unreadable image)"}
	}
	return &transcript.Part{Kind: transcript.ImagePart, Image: img}
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

// countList formats counts as "a 2, b 1", sorted by name.
func countList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
