// Package pi reads the sessions of the Pi coding agent (pi-mono): the
// JSONL files under ~/.pi/agent/sessions.
package pi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Reader reads the sessions of the Pi coding agent (pi-mono): a JSONL tree of
// entries linked by id and parentId, after a session header.
var Reader = &ingest.Reader{
	Name:  "pi",
	Agent: "Pi",
	Files: "~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl (the agent dir moves with $PI_CODING_AGENT_DIR), " +
		"session versions 1 to 3; branches of the session tree shown as branches, forks linked to the session they came from",
	Detects: "a first line {\"type\": \"session\", id, timestamp[, cwd, version]}, or entries {type, id, parentId, timestamp} " +
		"of Pi's types (message, model_change, thinking_level_change, compaction, branch_summary, custom, custom_message, label, session_info)",
	Detect:    detect,
	Read:      read,
	Merge:     ingest.LinkParents,
	Locations: locations,
	Tools:     Tools,
}

// Tools: Pi's tools (read, bash, edit, write, grep, find, ls) are the
// names every agent shares; their inputs name some fields Pi's own way.
var Tools = &ingest.Tools{Args: args}

// args are the names of the fields of Pi's tools' inputs: the names every
// agent shares (an extension's tools may use any of them), and the edit
// tool's oldText and newText, one pair or, in later versions, an array of
// them (edits).
var args = func() *ingest.ArgNames {
	c := ingest.CommonArgs
	return &ingest.ArgNames{
		Path: c.Path, WritePath: c.WritePath, SearchIn: c.SearchIn, Command: c.Command, Pattern: c.Pattern,
		Query: c.Query, Files: c.Files, Beside: c.Beside, URL: c.URL, Prompt: c.Prompt, Agent: c.Agent,
		Desc: c.Desc, Offset: c.Offset, Limit: c.Limit, Start: c.Start, Content: c.Content, Edits: c.Edits, Patch: c.Patch,
		Plan: c.Plan, Todos: c.Todos, TodoText: c.TodoText, Status: c.Status, Summary: c.Summary,
		Old: append([]string{"oldText"}, c.Old...), New: append([]string{"newText"}, c.New...),
		EditOld: append([]string{"oldText"}, c.EditOld...), EditNew: append([]string{"newText"}, c.EditNew...),
	}
}()

func init() { ingest.Register(Reader) }

func locations(home string, getenv func(string) string) []ingest.Location {
	dir := cmp.Or(getenv("PI_CODING_AGENT_DIR"), filepath.Join(home, ".pi", "agent"))
	return []ingest.Location{{Name: "pi", Dir: filepath.Join(dir, "sessions")}}
}

var types = map[string]bool{
	"message": true, "model_change": true, "thinking_level_change": true, "compaction": true, "branch_summary": true,
	"custom": true, "custom_message": true, "label": true, "session_info": true,
}

func detect(h *ingest.Head) float64 {
	rs := h.Records()
	if len(rs) == 0 || h.IsArray() {
		return 0
	}
	if r := rs[0]; r["type"] == "session" && r.Has("id", "timestamp") && !r.Has("payload") {
		return ingest.Likely
	}
	for _, r := range rs {
		if types[r["type"]] && r.Has("id", "parentId", "timestamp") {
			return ingest.Likely
		}
	}
	return 0
}

// entry is any line: the session header or an entry of the tree.
type entry struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	ParentID  *string         `json:"parentId"`
	Timestamp ingest.JSONTime `json:"timestamp"`

	// session header; version 1 also names the model
	Version       json.RawMessage `json:"version"`
	CWD           string          `json:"cwd"`
	ParentSession string          `json:"parentSession"`
	BranchedFrom  string          `json:"branchedFrom"`
	Provider      string          `json:"provider"`
	ModelID       string          `json:"modelId"`
	ThinkingLevel string          `json:"thinkingLevel"`

	Message json.RawMessage `json:"message"`

	Summary      string          `json:"summary"` // compaction, branch_summary
	TokensBefore int64           `json:"tokensBefore"`
	FromID       string          `json:"fromId"`
	FromHook     bool            `json:"fromHook"`
	CustomType   string          `json:"customType"` // custom, custom_message
	Data         json.RawMessage `json:"data"`
	Content      json.RawMessage `json:"content"`
	TargetID     string          `json:"targetId"` // label
	Label        *string         `json:"label"`
	Name         *string         `json:"name"` // session_info
}

// message is an AgentMessage: pi-ai's user, assistant and toolResult
// messages, and the coding agent's own roles.
type message struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Timestamp ingest.JSONTime `json:"timestamp"`

	Provider string `json:"provider"` // assistant
	Model    string `json:"model"`
	Usage    *struct {
		Input      int64 `json:"input"`
		Output     int64 `json:"output"`
		CacheRead  int64 `json:"cacheRead"`
		CacheWrite int64 `json:"cacheWrite"`
		Cost       struct {
			Total float64 `json:"total"`
		} `json:"cost"`
	} `json:"usage"`
	StopReason   string `json:"stopReason"`
	ErrorMessage string `json:"errorMessage"`

	ToolCallID string          `json:"toolCallId"` // toolResult
	ToolName   string          `json:"toolName"`
	IsError    bool            `json:"isError"`
	Details    json.RawMessage `json:"details"` // what the tool reports beside its reply: an edit's diff

	Command        string `json:"command"` // bashExecution: the user's !command
	Output         string `json:"output"`
	ExitCode       *int   `json:"exitCode"`
	Cancelled      bool   `json:"cancelled"`
	Truncated      bool   `json:"truncated"`
	FullOutputPath string `json:"fullOutputPath"`

	CustomType   string `json:"customType"` // custom (hookMessage before version 3)
	Summary      string `json:"summary"`    // branchSummary, compactionSummary
	FromID       string `json:"fromId"`
	TokensBefore int64  `json:"tokensBefore"`
}

// block is a content block: text, thinking, toolCall or image.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Redacted  bool            `json:"redacted"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Data      string          `json:"data"`
	MimeType  string          `json:"mimeType"`
	raw       json.RawMessage
}

type reader struct {
	f       *ingest.File
	s       *transcript.Session
	dag     ingest.Tree
	prev    string // the last entry, parent of a version 1 entry
	header  bool
	started bool   // a message was read: settings changes are events from now on
	stop    string // the last assistant message's stopReason
	cost    float64
}

func read(ctx context.Context, f *ingest.File, r io.Reader) ([]*transcript.Session, error) {
	p := &reader{f: f, s: &transcript.Session{ID: sessionID(f.Rel), Meta: map[string]string{}},
		dag: ingest.Tree{}}
	err := ingest.JSONL(ctx, f, r, p.line)
	if len(p.s.Turns) == 0 {
		return nil, err
	}
	p.dag.MarkBranches()
	if p.cost > 0 {
		p.s.Meta["cost (recorded)"] = fmt.Sprintf("$%.4f", p.cost)
	}
	return []*transcript.Session{p.s}, err
}

// sessionID is the session id in a file name <time>_<id>.jsonl.
func sessionID(name string) string {
	b := ingest.Stem(path.Base(name))
	return b[strings.LastIndexByte(b, '_')+1:]
}

func (p *reader) line(n int, line []byte) error {
	var e entry
	if err := ingest.Unmarshal(line, &e); !ingest.IsDrift(err, "type", "id") {
		return err
	} else if err != nil {
		p.f.Warn(n, "entry kept without a field: %v", err)
	}
	if e.Type == "session" {
		p.sessionHeader(&e, line)
		return nil
	}
	key, parent := p.place(&e, n)
	p.prev = key
	m := p.entry(&e, line)
	node := p.dag.Add(key, parent, e.Timestamp.Time)
	if m == nil {
		return nil
	}
	m.ID = e.ID
	if !e.Timestamp.IsZero() {
		m.Time = e.Timestamp.Time // when it was written; a reply's own time is when it started
	}
	p.s.Append(m)
	node.Msgs = append(node.Msgs, m)
	node.Live = m.Role == transcript.Assistant || m.StartsTurn()
	if m.Role == transcript.Assistant {
		p.s.Turns[len(p.s.Turns)-1].Status = status[p.stop]
	}
	return nil
}

// place is the key of the entry on line n in the tree, and its parent's.
// Version 1 entries have no ids: each follows the one before.
func (p *reader) place(e *entry, n int) (key, parent string) {
	key, parent = e.ID, p.prev
	if key == "" {
		key = fmt.Sprintf("line %d", n)
	}
	if e.ParentID != nil {
		parent = *e.ParentID
	}
	return key, parent
}

func (p *reader) sessionHeader(e *entry, raw []byte) {
	if p.header {
		p.system(ingest.EventPart("info", "Another session header: "+ingest.FirstNonEmpty(e.ID, "(no id)"), bytes.Clone(raw)))
		return
	}
	p.header = true
	s := p.s
	s.ID = ingest.FirstNonEmpty(e.ID, s.ID)
	s.CWD = e.CWD
	s.Started = e.Timestamp.Time
	if v := ingest.Text(e.Version); v != "" {
		s.Meta["session version"] = v
	}
	if from := ingest.FirstNonEmpty(e.ParentSession, e.BranchedFrom); from != "" {
		s.ParentID = sessionID(from)
		s.Meta["forked from"] = from
	}
	p.setting("model", ingest.JoinNonEmpty("/", e.Provider, e.ModelID))
	p.setting("thinking level", e.ThinkingLevel)
}

// setting records a model or thinking level: as session facts before the
// conversation starts, as events once it has.
func (p *reader) setting(name, value string) *transcript.Message {
	if value == "" {
		return nil
	}
	if !p.started {
		p.s.Meta[name] = value
		return nil
	}
	return sysMessage(ingest.EventPart(strings.ReplaceAll(name, " ", "-"), strings.ToUpper(name[:1])+name[1:]+": "+value, nil))
}

func sysMessage(parts ...*transcript.Part) *transcript.Message {
	return &transcript.Message{Role: transcript.System, Meta: true, Parts: parts}
}

func (p *reader) system(parts ...*transcript.Part) {
	p.s.Append(sysMessage(parts...))
}

// entry maps one entry of the tree to a message, or to nothing.
func (p *reader) entry(e *entry, raw []byte) *transcript.Message {
	if read := entries[e.Type]; read != nil {
		return read(p, e, raw)
	}
	return sysMessage(p.f.Unknown("Unknown entry type "+strconv.Quote(e.Type), bytes.Clone(raw)))
}

// entries map each type of entry.
var entries = map[string]func(p *reader, e *entry, raw []byte) *transcript.Message{
	"message": func(p *reader, e *entry, raw []byte) *transcript.Message {
		p.started = true
		return p.message(e, raw)
	},
	"model_change": func(p *reader, e *entry, _ []byte) *transcript.Message {
		return p.setting("model", ingest.JoinNonEmpty("/", e.Provider, e.ModelID))
	},
	"thinking_level_change": func(p *reader, e *entry, _ []byte) *transcript.Message {
		return p.setting("thinking level", e.ThinkingLevel)
	},
	"compaction": func(_ *reader, e *entry, _ []byte) *transcript.Message {
		return branchSummary(transcript.Compaction, compacted(e.TokensBefore, e.FromHook), e.Summary)
	},
	"branch_summary": func(_ *reader, e *entry, _ []byte) *transcript.Message {
		return branchSummary("branch", "Summary of the branch left at "+ingest.FirstNonEmpty(e.FromID, "the start"), e.Summary)
	},
	"custom": func(_ *reader, e *entry, _ []byte) *transcript.Message {
		return sysMessage(ingest.EventPart("extension", "Extension data: "+e.CustomType, e.Data))
	},
	"custom_message": func(p *reader, e *entry, _ []byte) *transcript.Message { return p.custom(e.CustomType, e.Content) },
	"label":          func(_ *reader, e *entry, _ []byte) *transcript.Message { return label(e) },
	"session_info": func(p *reader, e *entry, _ []byte) *transcript.Message {
		if e.Name != nil && strings.TrimSpace(*e.Name) != "" {
			p.s.Title = strings.TrimSpace(*e.Name)
		}
		return nil
	},
}

// label says what label an entry got, or that it lost it.
func label(e *entry) *transcript.Message {
	if e.Label == nil || *e.Label == "" {
		return sysMessage(ingest.EventPart("label", "Label removed from entry "+e.TargetID, nil))
	}
	return sysMessage(ingest.EventPart("label", fmt.Sprintf("Label %q on entry %s", *e.Label, e.TargetID), nil))
}

func compacted(tokens int64, byExtension bool) string {
	s := fmt.Sprintf("Context compacted (%d tokens before)", tokens)
	if byExtension {
		s += " by an extension"
	}
	return s
}

func branchSummary(kind, desc, summary string) *transcript.Message {
	m := sysMessage(ingest.EventPart(kind, desc, nil))
	if strings.TrimSpace(summary) != "" {
		m.Parts = append(m.Parts, &transcript.Part{Kind: transcript.TextPart, Text: summary})
	}
	return m
}

// status maps an assistant message's stopReason to its turn's status;
// "toolUse" leaves the turn going.
var status = map[string]string{"stop": transcript.Completed, "length": transcript.Completed,
	"aborted": transcript.Aborted, "error": transcript.Failed}

var exitRE = regexp.MustCompile(`Command exited with code (-?\d+)\s*$`)

func (p *reader) message(e *entry, raw []byte) *transcript.Message {
	var pm message
	if err := ingest.Unmarshal(e.Message, &pm); err != nil && !ingest.IsDrift(err, "role") {
		return sysMessage(p.f.Unknown("Unreadable message: "+err.Error(), bytes.Clone(raw)))
	}
	read := roles[pm.Role]
	if read == nil {
		return sysMessage(p.f.Unknown("Unknown message role "+strconv.Quote(pm.Role), bytes.Clone(raw)))
	}
	m := read(p, &pm)
	if m.Time.IsZero() {
		m.Time = pm.Timestamp.Time
	}
	return m
}

// roles map a message of each role.
var roles = map[string]func(p *reader, pm *message) *transcript.Message{
	"user": func(p *reader, pm *message) *transcript.Message {
		m := &transcript.Message{Time: pm.Timestamp.Time, Role: transcript.User}
		m.Parts = p.blocks(pm.Content, &m.Meta)
		return m
	},
	"assistant": (*reader).assistant,
	"toolResult": func(p *reader, pm *message) *transcript.Message {
		return &transcript.Message{Time: pm.Timestamp.Time, Role: transcript.Tool,
			Parts: []*transcript.Part{{Kind: transcript.ResultPart, Result: p.result(pm)}}}
	},
	"bashExecution": func(p *reader, pm *message) *transcript.Message { return p.bash(p.prev, pm) }, // prev is this entry's key by now
	"custom":        func(p *reader, pm *message) *transcript.Message { return p.custom(pm.CustomType, pm.Content) },
	"hookMessage":   func(p *reader, pm *message) *transcript.Message { return p.custom(pm.CustomType, pm.Content) },
	"branchSummary": func(_ *reader, pm *message) *transcript.Message {
		return branchSummary("branch", "Summary of the branch left at "+ingest.FirstNonEmpty(pm.FromID, "the start"), pm.Summary)
	},
	"compactionSummary": func(_ *reader, pm *message) *transcript.Message {
		return branchSummary(transcript.Compaction, compacted(pm.TokensBefore, false), pm.Summary)
	},
}

// assistant maps the model's message, its usage and why it stopped.
func (p *reader) assistant(pm *message) *transcript.Message {
	m := &transcript.Message{Time: pm.Timestamp.Time, Role: transcript.Assistant, Model: pm.Model}
	m.Parts = p.blocks(pm.Content, nil)
	if u := pm.Usage; u != nil {
		m.Usage = transcript.Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}
		p.cost += u.Cost.Total
	}
	p.stop = pm.StopReason
	switch pm.StopReason {
	case "error":
		m.Parts = append(m.Parts, ingest.EventPart(transcript.ErrorEvent, ingest.FirstNonEmpty(pm.ErrorMessage, "The request failed"), nil))
	case "aborted":
		m.Parts = append(m.Parts, ingest.EventPart(transcript.Interrupt, ingest.FirstNonEmpty(pm.ErrorMessage, "Aborted"), nil))
	case "length":
		m.Parts = append(m.Parts, ingest.EventPart("info", "The reply reached the output token limit", nil))
	}
	return m
}

// result maps what a tool gave back: its text and images, the exit code a
// shell command's output ends with, and the change an edit made.
func (p *reader) result(pm *message) *transcript.ToolResult {
	r := &transcript.ToolResult{CallID: pm.ToolCallID, IsError: pm.IsError}
	var texts []string
	for _, part := range p.blocks(pm.Content, nil) {
		switch {
		case part.Image != nil:
			r.Images = append(r.Images, part.Image)
		case part.Kind == transcript.TextPart:
			texts = append(texts, part.Text)
		}
	}
	r.Output = strings.Join(texts, "\n")
	if x := exitRE.FindStringSubmatch(r.Output); x != nil {
		code, _ := strconv.Atoi(x[1])
		r.ExitCode = &code
	}
	if !r.IsError && Tools.Kind(pm.ToolName) == transcript.EditTool {
		r.Patch = editPatch(pm.Details)
	}
	return r
}

// bash maps a command the user ran with "!": the user's own tool call,
// with its output. key is the entry's, unique in the file: a command run
// twice is two calls, each with its own output.
func (p *reader) bash(key string, pm *message) *transcript.Message {
	input, _ := json.Marshal(map[string]string{"command": pm.Command})
	callID := "!" + key
	r := &transcript.ToolResult{CallID: callID, Output: pm.Output, ExitCode: pm.ExitCode,
		IsError: pm.Cancelled || pm.ExitCode != nil && *pm.ExitCode != 0}
	if pm.Cancelled {
		r.Output += "\n\n(command cancelled)"
	}
	if pm.Truncated && pm.FullOutputPath != "" {
		r.Output += "\n\n[Output truncated. Full output: " + pm.FullOutputPath + "]"
	}
	return &transcript.Message{Role: transcript.User, Meta: true, Parts: []*transcript.Part{
		{Kind: transcript.CallPart, Call: &transcript.ToolCall{ID: callID, Name: "bash", Kind: transcript.ShellTool, Input: string(input)}},
		{Kind: transcript.ResultPart, Result: r},
	}}
}

// custom maps a message an extension put into the conversation.
func (p *reader) custom(customType string, content json.RawMessage) *transcript.Message {
	m := &transcript.Message{Role: transcript.User, Meta: true,
		Parts: []*transcript.Part{ingest.EventPart("extension", "Extension message: "+ingest.FirstNonEmpty(customType, "(no type)"), nil)}}
	m.Parts = append(m.Parts, p.blocks(content, nil)...)
	return m
}

// blocks maps content: a string or an array of blocks. meta, for a user
// message, is set when the text was injected by the harness.
func (p *reader) blocks(raw json.RawMessage, meta *bool) []*transcript.Part {
	var str string
	if ingest.Unmarshal(raw, &str) == nil {
		raw, _ = json.Marshal([]block{{Type: "text", Text: str}})
	}
	var items []json.RawMessage
	if err := ingest.Unmarshal(raw, &items); err != nil {
		if len(raw) == 0 || string(raw) == "null" {
			return nil
		}
		return []*transcript.Part{p.f.Unknown("Unknown content", raw)}
	}
	var out []*transcript.Part
	for _, it := range items {
		out = append(out, p.block(it, meta)...)
	}
	return out
}

// block maps one content block by its type.
func (p *reader) block(raw json.RawMessage, meta *bool) []*transcript.Part {
	var b block
	if ingest.Unmarshal(raw, &b) != nil {
		return []*transcript.Part{p.f.Unknown("Unknown content block", raw)}
	}
	part := blockParts[b.Type]
	if part == nil {
		return []*transcript.Part{p.f.Unknown("Unknown content block "+strconv.Quote(b.Type), raw)}
	}
	return part(p, &b, meta)
}

// blockParts make the parts of a content block, by its type.
var blockParts = map[string]func(p *reader, b *block, meta *bool) []*transcript.Part{
	"text":     (*reader).textBlock,
	"thinking": (*reader).thinkingBlock,
	"toolCall": (*reader).callBlock,
	"image":    (*reader).imageBlock,
}

// textBlock: a user's text (meta set) is read for what the harness put
// in it; blank text is no part.
func (p *reader) textBlock(b *block, meta *bool) []*transcript.Part {
	if meta != nil {
		return ingest.UserText(Tools, b.Text, meta)
	}
	if strings.TrimSpace(b.Text) == "" {
		return nil
	}
	return []*transcript.Part{{Kind: transcript.TextPart, Text: b.Text}}
}

func (p *reader) thinkingBlock(b *block, _ *bool) []*transcript.Part {
	switch {
	case strings.TrimSpace(b.Thinking) != "":
		return []*transcript.Part{{Kind: transcript.ThinkingPart, Text: b.Thinking}}
	case b.Redacted:
		return []*transcript.Part{{Kind: transcript.ThinkingPart, Text: "(redacted thinking)"}}
	}
	return nil
}

func (p *reader) callBlock(b *block, _ *bool) []*transcript.Part {
	return []*transcript.Part{{Kind: transcript.CallPart, Call: &transcript.ToolCall{
		ID: b.ID, Name: b.Name, Kind: Tools.Kind(b.Name), Input: ingest.Text(b.Arguments)}}}
}

// imageBlock: data that does not decode is said, not dropped.
func (p *reader) imageBlock(b *block, _ *bool) []*transcript.Part {
	img, ok := ingest.DecodeImage(p.f, b.Data)
	if !ok {
		return []*transcript.Part{{Kind: transcript.TextPart, Text: "(unreadable " + ingest.FirstNonEmpty(b.MimeType, "image") + " data)"}}
	}
	return []*transcript.Part{{Kind: transcript.ImagePart, Image: img}}
}
