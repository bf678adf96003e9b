// Package cursor reads the sessions of Cursor: the agent transcripts under
// ~/.cursor/projects and the cursor-agent CLI's SQLite store.
package cursor

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
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

// Reader reads Cursor's agent transcripts (JSONL since early 2026, plain
// text before) and the cursor-agent CLI's SQLite store.
var Reader = &ingest.Reader{
	Name:  "cursor",
	Agent: "Cursor",
	Files: "~/.cursor/projects/<project>/agent-transcripts/<id>/<id>.jsonl with subagents in <id>/subagents/*.jsonl (linked to their parent), " +
		"the older agent-transcripts/<id>.txt, and the cursor-agent store ~/.cursor/chats/<md5 of cwd>/<agent id>/store.db (SQLite, with its -wal)",
	Detects: "JSONL records {role, message: {content}} without type or uuid, and {\"type\": \"turn_ended\", status}; " +
		"text opening with a \"user:\" line followed by <user_query> or an \"assistant:\" line; " +
		"a SQLite database whose schema creates tables blobs and meta",
	Detect:    detect,
	Read:      read,
	Merge:     ingest.LinkParents,
	Locations: locations,
	Tools:     Tools,
}

// Tools are Cursor's tools, and the context it sends beside the
// <user_query> it wraps the prompt in.
var Tools = &ingest.Tools{
	Kinds: map[string]transcript.ToolKind{
		"run_terminal_cmd": transcript.ShellTool,
		"readlints":        transcript.ReadTool, "read_lints": transcript.ReadTool,
		"delete": transcript.WriteTool, "delete_file": transcript.WriteTool,
		"strreplace": transcript.EditTool, "search_replace": transcript.EditTool, "editnotebook": transcript.EditTool,
		"codebase_search": transcript.SearchTool, "grep_search": transcript.SearchTool, "file_search": transcript.SearchTool,
		"todo_write": transcript.TaskTool,
	},
	Injected: []string{
		"<user_info>",
		"<attached_files>",
		"<open_and_recently_viewed_files>",
		"<cursor_commands>",
		"<system_reminder>",
		"<user_rules>",
		"<project_layout>",
		"<git_status>",
	},
}

func init() { ingest.Register(Reader) }

func locations(home string, _ func(string) string) []ingest.Location {
	return []ingest.Location{
		{Name: "cursor", Dir: filepath.Join(home, ".cursor", "projects")},
		{Name: "cursor-chats", Dir: filepath.Join(home, ".cursor", "chats")},
	}
}

func detect(h *ingest.Head) float64 {
	if bytes.HasPrefix(h.Data, ingest.SQLiteMagic) {
		return ingest.When(ingest.SQLiteTables(h, "blobs", "meta"), ingest.Likely)
	}
	if rs := h.Records(); len(rs) > 0 && !h.IsArray() {
		return ingest.When(isTranscript(rs), ingest.Maybe)
	}
	return ingest.When(isText(h.Text()), ingest.Maybe)
}

// isTranscript tells a JSONL agent transcript by its first record. Other
// records may be types Cursor adds later, but carry none of the keys that
// mark other formats' records.
func isTranscript(rs []ingest.Record) bool {
	if !isRecord(rs[0]) {
		return false
	}
	for _, r := range rs {
		if !isRecord(r) && !mayBeLater(r) {
			return false
		}
	}
	return true
}

// foreignKeys mark the records of other formats.
var foreignKeys = []string{"timestamp", "uuid", "sessionId", "parentId", "payload"}

// mayBeLater says whether a record may be of a type Cursor adds later: it
// has a type and none of foreignKeys.
func mayBeLater(r ingest.Record) bool {
	return r.Has("type") && !slices.ContainsFunc(foreignKeys, func(k string) bool { return r.Has(k) })
}

var roles = map[string]bool{"user": true, "assistant": true, "system": true, "tool": true}

func isRecord(r ingest.Record) bool {
	if r["type"] == "turn_ended" {
		return true
	}
	return roles[r["role"]] && r["message"] == "{" && !r.Has("type") && !r.Has("uuid")
}

func isText(s string) bool {
	s = strings.TrimLeft(s, "\ufeff \t\r\n")
	rest, ok := strings.CutPrefix(s, "user:")
	if !ok || !strings.HasPrefix(strings.TrimLeft(rest, " \t\r"), "\n") {
		return false
	}
	return strings.Contains(rest, "<user_query>") || strings.Contains(rest, "\nassistant:")
}

func read(ctx context.Context, f *ingest.File, r io.Reader) ([]*transcript.Session, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(len(ingest.SQLiteMagic))
	if bytes.Equal(head, ingest.SQLiteMagic) {
		return readStore(ctx, f, br)
	}
	b := newBuilder(f)
	var err error
	if start, _ := br.Peek(4096); bytes.HasPrefix(bytes.TrimLeft(start, "\ufeff \t\r\n"), []byte("{")) {
		err = ingest.JSONL(ctx, f, br, b.jsonLine)
	} else {
		err = b.readText(ctx, br)
	}
	if len(b.s.Turns) == 0 {
		return nil, err
	}
	b.finish()
	return []*transcript.Session{b.s}, err
}

// builder builds one Cursor session from messages in order.
type builder struct {
	f       *ingest.File
	s       *transcript.Session
	stem    string
	pending map[string][]string   // tool name → ids of text transcript calls waiting for their result
	added   []*transcript.Message // what add appended, for the store to name
	model   string                // the model the store's reasoning last named
}

func newBuilder(f *ingest.File) *builder {
	b := &builder{f: f, stem: ingest.Stem(f.Rel), pending: map[string][]string{}}
	b.s = &transcript.Session{ID: b.stem, Meta: map[string]string{}}
	// .../<project>/agent-transcripts/<id>/subagents/<sub>.jsonl
	dirs := strings.Split(path.Dir(f.Rel), "/")
	for i, d := range dirs {
		if d == "agent-transcripts" && i > 0 {
			b.s.Project = dirs[i-1]
		}
	}
	if n := len(dirs); n >= 2 && dirs[n-1] == "subagents" {
		b.s.ParentID = dirs[n-2]
	}
	return b
}

func (b *builder) add(m *transcript.Message) {
	if len(m.Parts) > 0 {
		b.s.Append(m)
		b.added = append(b.added, m)
	}
}

func (b *builder) event(kind, desc string, raw []byte) {
	p := ingest.EventPart(kind, desc, raw)
	if kind == transcript.Unknown {
		p = b.f.Unknown(desc, raw)
	}
	b.add(&transcript.Message{Role: transcript.System, Meta: true, Parts: []*transcript.Part{p}})
}

func (b *builder) finish() {
	if b.s.CWD != "" {
		b.s.Project = "" // the site names the project after the directory
	}
}

// record is a line of a JSONL agent transcript.
type record struct {
	Type    string          `json:"type"`
	Status  string          `json:"status"`
	Error   json.RawMessage `json:"error"`
	Role    string          `json:"role"`
	Message *struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

func (b *builder) jsonLine(n int, line []byte) error {
	var ln record
	if err := ingest.Unmarshal(line, &ln); err != nil {
		return err
	}
	switch {
	case ln.Type == "turn_ended":
		b.turnEnded(ln.Status, ingest.Text(ln.Error), line)
	case ln.Type == "" && ln.Role != "" && ln.Message != nil:
		b.message(n, ln.Role, ln.Message.Content, line)
	default:
		b.event(transcript.Unknown, "Unknown record", bytes.Clone(line))
	}
	return nil
}

// turnStatuses maps turn_ended statuses to the model's.
var turnStatuses = map[string]string{"success": transcript.Completed, "aborted": transcript.Aborted, "error": transcript.Failed}

// turnEnded closes the turn: Cursor writes no other sign of how it ended.
func (b *builder) turnEnded(status, errText string, raw []byte) {
	st, known := turnStatuses[status]
	switch {
	case !known:
		b.event("info", "Turn ended: "+ingest.FirstNonEmpty(status, "(no status)"), bytes.Clone(raw))
	case errText != "" && status == "aborted":
		b.event(transcript.Interrupt, errText, nil)
	case errText != "" || status == "error":
		b.event(transcript.ErrorEvent, ingest.FirstNonEmpty(errText, "The turn ended with an error"), nil)
	}
	if len(b.s.Turns) == 0 {
		b.event("info", "Turn ended: "+status, nil) // an IDE transcript keeps only these markers
	}
	if known {
		b.s.Turns[len(b.s.Turns)-1].Status = st
	}
}

// contentBlock is a content block of any Cursor container: Anthropic-style in
// transcripts (text, tool_use), Vercel AI SDK-style in the store (text,
// reasoning, tool-call, tool-result, image, file).
type contentBlock struct {
	Type       string          `json:"type"`
	Text       string          `json:"text"`
	Thinking   string          `json:"thinking"`
	ID         string          `json:"id"`
	ToolCallID string          `json:"toolCallId"`
	ToolUseID  string          `json:"tool_use_id"`
	Name       string          `json:"name"`
	ToolName   string          `json:"toolName"`
	Input      json.RawMessage `json:"input"`
	Args       json.RawMessage `json:"args"`
	Result     json.RawMessage `json:"result"`
	Output     json.RawMessage `json:"output"`
	Content    json.RawMessage `json:"content"`
	IsError    bool            `json:"isError"`
	IsErr      bool            `json:"is_error"`
	Image      string          `json:"image"`
	Data       string          `json:"data"`
	URL        string          `json:"url"`
	MimeType   string          `json:"mimeType"`
	MediaType  string          `json:"mediaType"`
	Source     *struct {
		Data string `json:"data"`
		URL  string `json:"url"`
	} `json:"source"`
	ProviderOptions struct {
		Cursor struct {
			ModelName string `json:"modelName"`
		} `json:"cursor"`
	} `json:"providerOptions"`
	raw json.RawMessage
}

// parts decodes content: a string or an array of blocks.
func parts(raw json.RawMessage) []contentBlock {
	var s string
	if ingest.Unmarshal(raw, &s) == nil {
		return []contentBlock{{Type: "text", Text: s}}
	}
	var items []json.RawMessage
	if ingest.Unmarshal(raw, &items) != nil {
		if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
			return nil
		}
		return []contentBlock{{Type: "?", raw: raw}}
	}
	ps := make([]contentBlock, 0, len(items))
	for _, it := range items {
		ps = append(ps, decodeBlock(it))
	}
	return ps
}

// decodeBlock decodes one item of content: a string is a text block, what
// is no block has type "?".
func decodeBlock(it json.RawMessage) contentBlock {
	p := contentBlock{raw: it}
	var s string
	if ingest.Unmarshal(it, &s) == nil {
		p.Type, p.Text = "text", s
	} else if ingest.Unmarshal(it, &p) != nil {
		p.Type = "?"
	}
	return p
}

// message maps one message of any Cursor container. n is its line (0 in
// the store), raw the record it came from.
func (b *builder) message(n int, role string, content json.RawMessage, raw []byte) {
	read := messageRoles[role]
	if read == nil {
		b.event(transcript.Unknown, "Unknown role "+strconv.Quote(role), bytes.Clone(raw))
		return
	}
	read(b, n, parts(content))
}

// messageRoles map a message of each role.
var messageRoles = map[string]func(b *builder, n int, ps []contentBlock){
	"user": (*builder).user,
	"system": func(b *builder, n int, ps []contentBlock) {
		b.add(&transcript.Message{Role: transcript.System, Meta: true, Parts: b.blockParts(n, ps)})
	},
	"assistant": (*builder).assistant,
	"tool": func(b *builder, n int, ps []contentBlock) {
		b.add(&transcript.Message{Role: transcript.Tool, Parts: b.blockParts(n, ps)})
	},
}

// assistant maps the model's message. Only reasoning names the model:
// later replies keep the last one named.
func (b *builder) assistant(n int, ps []contentBlock) {
	for _, p := range ps {
		if mn := p.ProviderOptions.Cursor.ModelName; mn != "" {
			b.model = mn
		}
	}
	b.add(&transcript.Message{Role: transcript.Assistant, Model: b.model, Parts: b.blockParts(n, ps)})
}

// blockParts maps content blocks, leaving out those that show nothing.
func (b *builder) blockParts(n int, ps []contentBlock) []*transcript.Part {
	var out []*transcript.Part
	for i, p := range ps {
		if part := b.part(n, p, i); part != nil {
			out = append(out, part)
		}
	}
	return out
}

// part maps one content block. i is its index, for synthesized call ids.
func (b *builder) part(n int, p contentBlock, i int) *transcript.Part {
	if make := contentParts[p.Type]; make != nil {
		return make(b, n, p, i)
	}
	return b.f.Unknown("Unknown content part", p.raw)
}

// contentParts make the part of a content block, by its type (Anthropic's
// names and the AI SDK's). Set by init: a tool result's output holds
// content blocks again.
var contentParts map[string]func(b *builder, n int, p contentBlock, i int) *transcript.Part

func init() {
	contentParts = map[string]func(b *builder, n int, p contentBlock, i int) *transcript.Part{
		"text":               (*builder).textPart,
		"reasoning":          (*builder).thinkingPart,
		"thinking":           (*builder).thinkingPart,
		"redacted-reasoning": (*builder).thinkingPart,
		"tool_use":           (*builder).callPart,
		"tool-call":          (*builder).callPart,
		"tool_result":        (*builder).resultPart,
		"tool-result":        (*builder).resultPart,
		"image":              (*builder).imagePart,
		"file":               (*builder).imagePart,
	}
}

func (b *builder) textPart(_ int, p contentBlock, _ int) *transcript.Part {
	if strings.TrimSpace(p.Text) == "" {
		return nil
	}
	return &transcript.Part{Kind: transcript.TextPart, Text: p.Text}
}

// thinkingPart: blank reasoning is no part, unless it was redacted.
func (b *builder) thinkingPart(_ int, p contentBlock, _ int) *transcript.Part {
	t := cmp.Or(p.Text, p.Thinking)
	if strings.TrimSpace(t) == "" {
		if p.Type != "redacted-reasoning" {
			return nil
		}
		t = "(redacted reasoning)"
	}
	return &transcript.Part{Kind: transcript.ThinkingPart, Text: t}
}

// callPart: transcripts have no ids, so one is made from the file and the
// block's place.
func (b *builder) callPart(n int, p contentBlock, i int) *transcript.Part {
	name := ingest.FirstNonEmpty(p.Name, p.ToolName)
	input := p.Input
	if len(input) == 0 {
		input = p.Args
	}
	id := ingest.FirstNonEmpty(p.ToolCallID, p.ID, fmt.Sprintf("%s#%d.%d", b.stem, n, i))
	return &transcript.Part{Kind: transcript.CallPart, Call: &transcript.ToolCall{
		ID: id, Name: name, Kind: Tools.Kind(name), Input: ingest.Text(input)}}
}

// resultPart reads the output of whichever field holds it.
func (b *builder) resultPart(n int, p contentBlock, _ int) *transcript.Part {
	r := &transcript.ToolResult{CallID: ingest.FirstNonEmpty(p.ToolCallID, p.ToolUseID), IsError: p.IsError || p.IsErr}
	out := p.Result
	for _, alt := range []json.RawMessage{p.Output, p.Content} {
		if len(out) == 0 {
			out = alt
		}
	}
	var isErr bool
	r.Output, r.Images, isErr = b.output(n, out)
	r.IsError = r.IsError || isErr
	r.ExitCode = ingest.ExitCode(r.Output)
	return &transcript.Part{Kind: transcript.ResultPart, Result: r}
}

func (b *builder) imagePart(n int, p contentBlock, _ int) *transcript.Part { return b.image(n, p) }

// image maps an image or file part: base64 data, a data: URL or a link.
func (b *builder) image(n int, p contentBlock) *transcript.Part {
	data := ingest.FirstNonEmpty(p.Image, p.Data, p.URL)
	if p.Source != nil {
		data = ingest.FirstNonEmpty(p.Source.Data, p.Source.URL)
	}
	mime := ingest.FirstNonEmpty(p.MimeType, p.MediaType)
	if strings.HasPrefix(data, "http://") || strings.HasPrefix(data, "https://") {
		return link(p.Type, data, mime)
	}
	img, ok := ingest.DecodeImage(b.f, data)
	switch {
	case !ok:
		b.f.Warn(n, "%s data is not base64; skipped", p.Type)
		return &transcript.Part{Kind: transcript.TextPart, Text: "(unreadable " + ingest.FirstNonEmpty(mime, p.Type) + " data)"}
	case img.MediaType == "application/octet-stream":
		return &transcript.Part{Kind: transcript.TextPart, Text: fmt.Sprintf("(%s attachment, %d bytes)", ingest.FirstNonEmpty(mime, p.Type), len(img.Data))}
	}
	return &transcript.Part{Kind: transcript.ImagePart, Image: img}
}

// link maps an image or file part that links to its data: an image by its
// URL, a file as text that names it.
func link(typ, url, mime string) *transcript.Part {
	if typ == "image" || strings.HasPrefix(mime, "image/") {
		return &transcript.Part{Kind: transcript.ImagePart, Image: &transcript.Image{URL: url}}
	}
	return &transcript.Part{Kind: transcript.TextPart, Text: fmt.Sprintf("(file %s, %s)", url, mime)}
}

// output reads a tool result: a string, content blocks, or an AI SDK v5
// output {type, value}.
func (b *builder) output(n int, raw json.RawMessage) (out string, imgs []*transcript.Image, isErr bool) {
	var v5 struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	}
	if ingest.Unmarshal(raw, &v5) == nil && v5.Type != "" && v5.Value != nil {
		if v5.Type != "content" {
			return ingest.Text(v5.Value), nil, strings.HasPrefix(v5.Type, "error")
		}
		raw = v5.Value
	}
	if len(raw) == 0 || raw[0] != '[' {
		return ingest.Text(raw), nil, false
	}
	out, imgs = b.outputBlocks(n, parts(raw))
	return out, imgs, false
}

// outputBlocks reads the content blocks of a tool result: its text and
// images; a block of another kind shows as its JSON.
func (b *builder) outputBlocks(n int, ps []contentBlock) (string, []*transcript.Image) {
	var texts []string
	var imgs []*transcript.Image
	for _, p := range ps {
		part := b.part(n, p, 0)
		switch {
		case part == nil:
		case part.Kind == transcript.ImagePart:
			imgs = append(imgs, part.Image)
		case part.Kind == transcript.TextPart:
			texts = append(texts, part.Text)
		default:
			texts = append(texts, ingest.Text(p.raw))
		}
	}
	return strings.Join(texts, "\n"), imgs
}

// user maps a user message. Cursor wraps what the user typed in
// <user_query> and puts the context it adds (<user_info>, open files,
// rules) beside it: that becomes a meta message before the prompt.
func (b *builder) user(n int, ps []contentBlock) {
	ctxMsg := &transcript.Message{Role: transcript.User, Meta: true}
	prompt := &transcript.Message{Role: transcript.User}
	for i, p := range ps {
		if p.Type != "text" {
			if part := b.part(n, p, i); part != nil {
				prompt.Parts = append(prompt.Parts, part)
			}
			continue
		}
		b.userText(p.Text, ctxMsg, prompt)
	}
	if prompt.Meta { // injected text Cursor did not wrap
		ctxMsg.Parts = append(ctxMsg.Parts, prompt.Parts...)
		prompt.Parts = nil
	}
	if !slices.ContainsFunc(prompt.Parts, func(p *transcript.Part) bool { return p.Kind != transcript.ResultPart }) {
		prompt.Role = transcript.Tool
	}
	b.add(ctxMsg)
	b.add(prompt)
}

// userText splits a text block of a user message between the context
// Cursor added (ctxMsg) and what the user typed (prompt); the time its
// <timestamp> gives is both messages'.
func (b *builder) userText(s string, ctxMsg, prompt *transcript.Message) {
	q, rest, t := wrappers(s)
	if !t.IsZero() {
		prompt.Time, ctxMsg.Time = t, t
	}
	if rest != "" {
		b.userInfo(rest)
		ctxMsg.Parts = append(ctxMsg.Parts, &transcript.Part{Kind: transcript.TextPart, Text: rest})
	}
	if q != "" {
		prompt.Parts = append(prompt.Parts, ingest.UserText(Tools, q, &prompt.Meta)...)
	}
}

var (
	queryRE     = regexp.MustCompile(`(?s)<user_query>\s*(.*?)\s*(?:</user_query>|$)`)
	timestampRE = regexp.MustCompile(`(?s)<timestamp>\s*(.*?)\s*</timestamp>`)
	workspaceRE = regexp.MustCompile(`(?m)^\s*Workspace Path:\s*(.+?)\s*$`)
	keyRE       = regexp.MustCompile(`(?m)^\s*(OS Version|Shell):\s*(.+?)\s*$`)
)

// wrappers splits a user text into the query the user typed, the
// rest (context Cursor added), and the time its <timestamp> tag gives. A
// text without <user_query> is all query, unless it is injected context.
func wrappers(s string) (query, rest string, t time.Time) {
	if m := timestampRE.FindStringSubmatchIndex(s); m != nil {
		if ts, ok := tagTime(s[m[2]:m[3]]); ok {
			t = ts
			s = s[:m[0]] + s[m[1]:]
		}
	}
	m := queryRE.FindStringSubmatchIndex(s)
	if m == nil {
		if Tools.IsInjected(s) {
			return "", strings.TrimSpace(s), t
		}
		return strings.TrimSpace(s), "", t
	}
	return s[m[2]:m[3]], strings.TrimSpace(s[:m[0]] + s[m[1]:]), t
}

// zoneRE reads the zone Cursor writes after the time: "(UTC+1)", "(UTC-5:30)".
var zoneRE = regexp.MustCompile(`^(.*?)\s*\(UTC(?:([+-])(\d{1,2})(?::?(\d{2}))?)?\)$`)

var timeLayouts = []string{
	"Monday, Jan 2, 2006, 3:04 PM", "Monday, January 2, 2006, 3:04 PM", "Monday, Jan 2, 2006, 3:04:05 PM",
	"Mon, Jan 2, 2006, 3:04 PM", "Jan 2, 2006, 3:04 PM", "1/2/2006, 3:04:05 PM", "1/2/2006, 3:04 PM",
}

// tagTime parses the text of a <timestamp> tag: "Tuesday, Mar 3, 2026,
// 10:15 AM (UTC+1)", or an ISO time.
func tagTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	loc := time.UTC
	if m := zoneRE.FindStringSubmatch(s); m != nil {
		s = m[1]
		if m[2] != "" {
			h, _ := strconv.Atoi(m[3])
			mins, _ := strconv.Atoi(m[4])
			off := (h*60 + mins) * 60
			if m[2] == "-" {
				off = -off
			}
			loc = time.FixedZone("UTC"+m[2]+m[3], off)
		}
	}
	for _, l := range timeLayouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t.UTC(), true
		}
	}
	return ingest.ParseTime(s)
}

// userInfo takes the session's working directory and environment from
// the <user_info> context.
func (b *builder) userInfo(s string) {
	if !strings.Contains(s, "<user_info>") {
		return
	}
	if m := workspaceRE.FindStringSubmatch(s); m != nil && b.s.CWD == "" {
		b.s.CWD = m[1]
	}
	for _, m := range keyRE.FindAllStringSubmatch(s, -1) {
		b.s.Meta[strings.ToLower(m[1])] = m[2]
	}
}

// textLine is a line of a plain-text transcript.
type textLine struct {
	n    int
	text string
}

// readText reads a plain-text transcript: "user:" and "assistant:" blocks;
// in the assistant's, "[Thinking] …" lines, "[Tool call] Name" with
// indented "key: value" arguments, and "[Tool result] Name" with the
// output up to the next marker. Results pair with the oldest unanswered
// call of the same name.
func (b *builder) readText(ctx context.Context, r io.Reader) error {
	var ls []textLine
	err := ingest.Lines(ctx, b.f, r, func(n int, line []byte, _ bool) error {
		if line == nil {
			b.f.Warn(n, "skipped: %v", ingest.ErrTooLong)
		}
		ls = append(ls, textLine{n, strings.TrimPrefix(string(line), "\ufeff")})
		return nil
	})
	for i := 0; i < len(ls); {
		i = b.textBlock(ls, i)
	}
	return err
}

// textBlock reads the user: or assistant: block that starts at ls[i], or
// skips the line when it starts none; it returns where the next starts.
func (b *builder) textBlock(ls []textLine, i int) int {
	role, ok := roleLine(ls[i].text)
	if !ok {
		if strings.TrimSpace(ls[i].text) != "" {
			b.f.Warn(ls[i].n, "text outside a user: or assistant: block skipped")
		}
		return i + 1
	}
	end := i + 1
	for end < len(ls) && !isRole(ls[end].text) {
		end++
	}
	if role == "user" {
		b.textUser(ls[i].n, ls[i+1:end])
	} else {
		b.textAssistant(ls[i+1 : end])
	}
	return end
}

func roleLine(s string) (string, bool) {
	s = strings.TrimRight(s, " \t")
	if s == "user:" || s == "assistant:" {
		return s[:len(s)-1], true
	}
	return "", false
}

func isRole(s string) bool { _, ok := roleLine(s); return ok }

// joinLines joins lines without the blank ones around them.
func joinLines(ls []textLine) string {
	for len(ls) > 0 && strings.TrimSpace(ls[0].text) == "" {
		ls = ls[1:]
	}
	for len(ls) > 0 && strings.TrimSpace(ls[len(ls)-1].text) == "" {
		ls = ls[:len(ls)-1]
	}
	texts := make([]string, len(ls))
	for i, l := range ls {
		texts[i] = l.text
	}
	return strings.Join(texts, "\n")
}

func (b *builder) textUser(n int, ls []textLine) {
	s := joinLines(ls)
	b.user(n, []contentBlock{{Type: "text", Text: s}})
}

var (
	markerRE = regexp.MustCompile(`^\[(Thinking|Tool call|Tool result)\](?: (.*))?$`)
	argRE    = regexp.MustCompile(`^(?:  |\t)([A-Za-z_][\w.-]*):(?: (.*))?$`) // deeper lines continue a value
)

func (b *builder) textAssistant(ls []textLine) {
	t := &textTurn{b: b, m: &transcript.Message{Role: transcript.Assistant}}
	for i := 0; i < len(ls); i++ {
		mk := markerRE.FindStringSubmatch(ls[i].text)
		if mk == nil {
			t.text = append(t.text, ls[i])
			continue
		}
		t.flush()
		if read := markers[mk[1]]; read != nil {
			i = read(t, ls, i, strings.TrimSpace(mk[2]))
		}
	}
	t.flush()
	b.add(t.m)
}

// textTurn is an assistant's turn of a text transcript being read.
type textTurn struct {
	b    *builder
	m    *transcript.Message
	text []textLine
}

// flush adds the text lines read since the last marker.
func (t *textTurn) flush() {
	if s := joinLines(t.text); s != "" {
		t.m.Parts = append(t.m.Parts, &transcript.Part{Kind: transcript.TextPart, Text: s})
	}
	t.text = t.text[:0]
}

// markers read what follows each kind of marker line at ls[i], whose
// text after the marker is arg, and return the last line they took.
var markers = map[string]func(t *textTurn, ls []textLine, i int, arg string) int{
	"Thinking":    (*textTurn).thinking,
	"Tool call":   (*textTurn).call,
	"Tool result": (*textTurn).result,
}

// thinking reads a thinking marker: its text, or for a bare marker the
// paragraph below it.
func (t *textTurn) thinking(ls []textLine, i int, text string) int {
	if text == "" {
		end := i + 1
		for end < len(ls) && strings.TrimSpace(ls[end].text) != "" && !markerRE.MatchString(ls[end].text) {
			end++
		}
		text, i = joinLines(ls[i+1:end]), end-1
	}
	if text != "" {
		t.m.Parts = append(t.m.Parts, &transcript.Part{Kind: transcript.ThinkingPart, Text: text})
	}
	return i
}

// call reads a tool call and its indented arguments.
func (t *textTurn) call(ls []textLine, i int, name string) int {
	end := i + 1
	for end < len(ls) && strings.TrimSpace(ls[end].text) != "" && (ls[end].text[0] == ' ' || ls[end].text[0] == '\t') {
		end++
	}
	id := fmt.Sprintf("%s#%d", t.b.stem, ls[i].n)
	t.b.pending[name] = append(t.b.pending[name], id)
	t.m.Parts = append(t.m.Parts, &transcript.Part{Kind: transcript.CallPart, Call: &transcript.ToolCall{
		ID: id, Name: name, Kind: Tools.Kind(name), Input: args(ls[i+1 : end])}})
	return end - 1
}

// result reads a tool's result, up to the next marker. The result is the
// tool's, not the assistant's: it gets a message of its own.
func (t *textTurn) result(ls []textLine, i int, name string) int {
	end := i + 1
	for end < len(ls) && !markerRE.MatchString(ls[end].text) {
		end++
	}
	r := &transcript.ToolResult{Output: joinLines(ls[i+1 : end])}
	if q := t.b.pending[name]; len(q) > 0 {
		r.CallID, t.b.pending[name] = q[0], q[1:]
	}
	r.ExitCode = ingest.ExitCode(r.Output)
	t.b.add(t.m)
	t.b.add(&transcript.Message{Role: transcript.Tool, Parts: []*transcript.Part{{Kind: transcript.ResultPart, Result: r}}})
	t.m = &transcript.Message{Role: transcript.Assistant}
	return end - 1
}

// args turns the indented "key: value" lines of a text transcript's tool
// call into a JSON object, in order. A line that is not "key: value"
// continues the previous value.
func args(ls []textLine) string {
	var keys, vals []string
	for _, l := range ls {
		if m := argRE.FindStringSubmatch(l.text); m != nil {
			keys, vals = append(keys, m[1]), append(vals, m[2])
		} else if len(vals) > 0 {
			vals[len(vals)-1] += "\n" + strings.TrimSpace(l.text)
		} else {
			keys, vals = append(keys, "text"), append(vals, strings.TrimSpace(l.text))
		}
	}
	var sb strings.Builder
	sb.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			sb.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(vals[i])
		sb.Write(kb)
		sb.WriteByte(':')
		sb.Write(vb)
	}
	sb.WriteByte('}')
	return sb.String()
}
