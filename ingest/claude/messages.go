package claude

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// begin takes the session-level fields a record carries and enters it in
// the conversation graph.
func (cs *session) begin(cf *file, rec *record) {
	recordFacts(cs.s, rec)
	cs.cur, cs.node = cs.cur[:0], nil
	if rec.UUID == "" || cs.dag.Has(rec.UUID) {
		return
	}
	// A compaction boundary has no parent, only a logical one.
	cs.node = cs.dag.Add(rec.UUID, ingest.FirstNonEmpty(rec.ParentUUID, rec.LogicalParentUUID), rec.Timestamp.Time)
	if o := cf.owner[rec.ParentUUID]; o != nil && o != cs && !o.inline && cs.s.ParentID == "" {
		cs.s.ParentID = o.s.ID // a session continued or forked from another
	}
	if cf.owner[rec.UUID] == nil {
		cf.owner[rec.UUID] = cs
	}
}

// recordFacts keeps the facts a record names: the first directory, the
// last branch checked out, the last version.
func recordFacts(s *transcript.Session, rec *record) {
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

// add appends a message the current record made.
func (cs *session) add(m *transcript.Message) {
	cs.s.Append(m)
	cs.cur = append(cs.cur, m)
	cs.count++
}

// end files the current record's messages under its graph node.
func (cs *session) end() {
	if n := cs.node; n != nil {
		for _, m := range cs.cur {
			n.Msgs = append(n.Msgs, m)
			n.Live = n.Live || m.Role == transcript.Assistant || m.StartsTurn()
		}
	}
}

// content is message content: a string, or an array of blocks whose
// elements may themselves be strings. It is decoded in the pass that reads
// its record. Should that pass fail on any of it, decode reads the
// record again with the content raw, handed to UnmarshalJSON: there each
// block is decoded on its own, and one that drifted keeps what it can.
type content struct {
	blocks []block
	err    error // why content that is there could not be read
	set    bool  // whether the record has content, null included
}

func (c *content) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '[' {
		raw, err := dec.ReadValue()
		*c = contentOf(raw)
		return err
	}
	*c = content{set: true} // a repeated key's value replaces the first's
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for k := dec.PeekKind(); k != ']'; k = dec.PeekKind() {
		var b block
		var raw ingest.Raw
		var err error
		switch k {
		case '{':
			raw, err = ingest.DecodeRaw(dec, &b)
		case '"':
			raw, err = ingest.DecodeRaw(dec, &b.Text)
			b.Type = "text"
		default:
			return errors.New("content block of another kind") // for the careful pass
		}
		if err != nil {
			return err
		}
		b.raw = raw
		c.blocks = append(c.blocks, b)
	}
	_, err := dec.ReadToken()
	return err
}

func (c *content) UnmarshalJSON(b []byte) error {
	*c = contentOf(b)
	return nil
}

// contentOf decodes content from its bytes, block by block.
func contentOf(raw []byte) content {
	c := content{set: len(raw) > 0}
	var s string
	var elems []ingest.Raw
	switch {
	case !c.set:
	case ingest.Unmarshal(raw, &s) == nil:
		c.blocks = []block{{Type: "text", Text: s}}
	default:
		if c.err = ingest.Unmarshal(raw, &elems); c.err != nil {
			break
		}
		c.blocks = make([]block, 0, len(elems))
		for _, e := range elems {
			var b block
			if err := decode(e, &b); !ingest.IsDrift(err) {
				b = block{Type: "text", Text: ingest.Text(e)}
			}
			b.raw = e
			c.blocks = append(c.blocks, b)
		}
	}
	return c
}

// blocks returns content's blocks, with a warning when it has none.
func (cf *file) blocks(c content) []block {
	switch {
	case !c.set:
		cf.warn("message has no content")
	case c.err != nil:
		cf.warn("message content skipped: %v", c.err)
	}
	return c.blocks
}

func (cs *session) user(cf *file, rec *record) {
	if rec.Message == nil {
		return
	}
	blocks, tur := resultBlocks(cf.blocks(rec.Message.Content), &rec.ToolUseResult)
	meta := rec.IsMeta || rec.IsCompactSummary
	if len(blocks) == 1 && blocks[0].Type == "text" {
		var done bool
		if meta, done = cs.userText(rec, blocks[0].Text, meta); done {
			return
		}
	}
	if meta && rec.IsCompactSummary {
		cs.compacted(rec)
	}
	cs.userParts(cf, rec, blocks, tur, meta)
}

// compacted marks the compaction a compaction summary follows, unless
// a boundary marked it already.
func (cs *session) compacted(rec *record) {
	if !cs.afterCompaction() {
		cs.add(&transcript.Message{ID: subID(rec.UUID, "#compaction"), Role: transcript.System, Time: rec.Timestamp.Time, Meta: true,
			Parts: []*transcript.Part{ingest.EventPart(transcript.Compaction, "Conversation compacted", nil)}})
	}
}

// resultBlocks pairs a user record's blocks with its toolUseResult t: t
// describes the record's one result; with no result block to hold it, a
// result given as text becomes one. Else t describes nothing here.
func resultBlocks(blocks []block, t *structured) ([]block, *structured) {
	switch count(blocks, "tool_result") {
	case 1:
		return blocks, t
	case 0:
		if t.isText && strings.TrimSpace(t.text) != "" {
			blocks = append(blocks, block{Type: "tool_result", Content: output{text: t.text, isText: true}})
		}
	}
	return blocks, &structured{}
}

// userText reads a user record that is one text: a command's output or a
// shell command the user ran are shown as such (done); a command the user
// typed is not meta, whatever the record says.
func (cs *session) userText(rec *record, text string, meta bool) (isMeta, done bool) {
	if out, isErr, ok := commandOutput(text); ok {
		cs.commandOutput(rec, out, isErr)
		return meta, true
	}
	if cs.userShell(rec, text) {
		return meta, true
	}
	if _, _, ok := command(text); ok {
		return false, false
	}
	return meta, false
}

// userParts adds the messages of user content. Harness-injected blocks (IDE
// context, reminders) that share a record with what the user typed become a
// Meta message of their own, so the prompt stays a prompt.
func (cs *session) userParts(cf *file, rec *record, blocks []block, tur *structured, meta bool) {
	u := userBlocks{cf: cf, tur: tur, meta: meta}
	for _, b := range blocks {
		u.read(b)
	}
	m := &transcript.Message{ID: rec.UUID, Role: transcript.User, Time: rec.Timestamp.Time, Meta: meta,
		Sidechain: rec.IsSidechain, Parts: u.typed}
	if u.results > 0 && u.results == len(u.typed) {
		m.Role = transcript.Tool
	} else if !meta && len(u.typed) > 0 {
		cs.carry(blocks)
	}
	ctx := u.context(m)
	if len(u.typed) == 0 {
		m = nil
	}
	if u.injectedFirst {
		m, ctx = ctx, m
	}
	cs.addNonEmpty(m, ctx)
}

// addNonEmpty adds each of ms that has parts.
func (cs *session) addNonEmpty(ms ...*transcript.Message) {
	for _, m := range ms {
		if m != nil && len(m.Parts) > 0 {
			cs.add(m)
		}
	}
}

// userBlocks sorts a user record's blocks into what the user typed (and
// tool results) and what the harness injected.
type userBlocks struct {
	cf            *file
	tur           *structured
	meta          bool
	typed         []*transcript.Part
	injected      []*transcript.Part
	results       int
	injectedFirst bool
}

func (u *userBlocks) read(b block) {
	var p *transcript.Part
	switch b.Type {
	case "text":
		var taken bool
		if p, taken = u.text(b.Text); taken {
			return
		}
	case "image":
		p = u.cf.imagePart(b)
	case "tool_result":
		u.results++
		p = &transcript.Part{Kind: transcript.ResultPart, Result: u.cf.toolResult(b, u.tur)}
	case "document":
		p = &transcript.Part{Kind: transcript.TextPart, Text: document(b)}
	default:
		p = unknownBlock(u.cf.f, b)
	}
	if p != nil {
		u.typed = append(u.typed, p)
	}
}

// text reads a text block: a slash command or injected context it takes
// itself; otherwise it returns the block's part.
func (u *userBlocks) text(text string) (p *transcript.Part, taken bool) {
	if cmd, extra, ok := command(text); ok {
		u.typed = append(u.typed, &transcript.Part{Kind: transcript.TextPart, Text: cmd})
		for _, e := range extra {
			u.injected = append(u.injected, &transcript.Part{Kind: transcript.TextPart, Text: e})
		}
		return nil, true
	}
	p = userPart(text)
	if p != nil && Tools.IsInjected(text) && !u.meta {
		u.injectedFirst = u.injectedFirst || len(u.typed) == 0
		u.injected = append(u.injected, p)
		return nil, true
	}
	return p, false
}

// context is the Meta message of what was injected beside m, or nil.
func (u *userBlocks) context(m *transcript.Message) *transcript.Message {
	if len(u.injected) == 0 {
		return nil
	}
	ctx := &transcript.Message{ID: m.ID, Role: transcript.User, Time: m.Time, Meta: true,
		Sidechain: m.Sidechain, Parts: u.injected}
	if len(u.typed) > 0 {
		ctx.ID = subID(ctx.ID, "#context")
	}
	return ctx
}

// subID names a second message made from one record.
func subID(uuid, suffix string) string {
	if uuid == "" {
		return ""
	}
	return uuid + suffix
}

// afterCompaction reports whether the last message is a compaction marker.
func (cs *session) afterCompaction() bool {
	last := cs.last()
	return last != nil && len(last.Parts) == 1 && last.Parts[0].Event != nil && last.Parts[0].Event.Kind == transcript.Compaction
}

func count(bs []block, typ string) int {
	n := 0
	for _, b := range bs {
		if b.Type == typ {
			n++
		}
	}
	return n
}

func (cs *session) assistant(cf *file, rec *record) {
	if rec.Message == nil {
		return
	}
	msg := rec.Message
	m := cs.assistantMessage(rec)
	if msg.Usage != nil {
		m.Usage = transcript.Usage{Input: msg.Usage.Input, Output: msg.Usage.Output, CacheRead: msg.Usage.CacheRead, CacheWrite: msg.Usage.CacheWrite}
	}
	for _, b := range cf.blocks(msg.Content) {
		if p := cf.assistantPart(rec, b); p != nil {
			m.Parts = append(m.Parts, p)
		}
	}
}

// assistantMessage is the message rec's content blocks go to. Claude
// Code writes one line per content block; the lines of one API message
// share its id and repeat its usage, which is counted once.
func (cs *session) assistantMessage(rec *record) *transcript.Message {
	msg := rec.Message
	if m := cs.byMsgID[msg.ID]; m != nil && msg.ID != "" {
		return m
	}
	m := &transcript.Message{ID: rec.UUID, Role: transcript.Assistant, Time: rec.Timestamp.Time, Sidechain: rec.IsSidechain}
	if msg.Model != "<synthetic>" {
		m.Model = msg.Model
	}
	if msg.ID != "" {
		cs.byMsgID[msg.ID] = m
	}
	cs.add(m)
	return m
}

// assistantPart reads one content block of the assistant's; nil for an
// empty text.
func (cf *file) assistantPart(rec *record, b block) *transcript.Part {
	if read := assistantBlocks[b.Type]; read != nil {
		return read(cf, rec, b)
	}
	if strings.HasSuffix(b.Type, "_tool_result") {
		// Results of server tools (web search, web fetch) come back
		// inside the assistant's own message.
		return &transcript.Part{Kind: transcript.ResultPart, Result: cf.toolResult(b, &structured{})}
	}
	return unknownBlock(cf.f, b)
}

// assistantBlocks read each type of block of an assistant's message.
var assistantBlocks = map[string]func(cf *file, rec *record, b block) *transcript.Part{
	"text":              assistantText,
	"thinking":          thinking,
	"redacted_thinking": thinking,
	"tool_use":          toolCall,
	"server_tool_use":   toolCall,
	"image":             func(cf *file, _ *record, b block) *transcript.Part { return cf.imagePart(b) },
	"fallback":          fallback,
}

// assistantText is what the model wrote, or the API's error that stands
// in for it.
func assistantText(_ *file, rec *record, b block) *transcript.Part {
	if rec.IsAPIError {
		return ingest.EventPart(transcript.ErrorEvent, b.Text, nil)
	}
	if strings.TrimSpace(b.Text) == "" {
		return nil
	}
	return &transcript.Part{Kind: transcript.TextPart, Text: b.Text}
}

func thinking(_ *file, _ *record, b block) *transcript.Part {
	return &transcript.Part{Kind: transcript.ThinkingPart, Text: cmp.Or(b.Thinking, "(redacted thinking)")}
}

func toolCall(_ *file, _ *record, b block) *transcript.Part {
	return &transcript.Part{Kind: transcript.CallPart, Call: &transcript.ToolCall{
		ID: b.ID, Name: b.Name, Kind: Tools.Kind(b.Name), Input: ingest.Text(b.Input),
	}}
}

// fallback is the model's switch to another, or an unknown block when
// the record names neither.
func fallback(cf *file, _ *record, b block) *transcript.Part {
	if b.From == nil || b.To == nil {
		return unknownBlock(cf.f, b)
	}
	return ingest.EventPart("info", "Model fell back from "+b.From.Model+" to "+b.To.Model, nil)
}

// unknownBlock keeps a content block of a type the reader does not know.
func unknownBlock(f *ingest.File, b block) *transcript.Part {
	return f.Unknown("Unknown content block "+strconv.Quote(b.Type), b.raw)
}

func document(b block) string {
	if b.Source != nil && b.Source.Type == "text" {
		return b.Source.Data
	}
	mt := "document"
	if b.Source != nil && b.Source.MediaType != "" {
		mt = b.Source.MediaType
	}
	return "(attached " + mt + ")"
}

// system reads a system record as an event; a local command's output
// is the user's command's result.
func (cs *session) system(rec *record, line []byte) {
	content := ingest.Text(rec.Content)
	if rec.Subtype == "local_command" {
		if out, isErr, ok := commandOutput(content); ok {
			cs.commandOutput(rec, out, isErr)
			return
		}
	}
	var raw []byte
	kind, desc := otherSystem(rec, content)
	if read := systemEvents[rec.Subtype]; read != nil {
		kind, desc = read(rec, content)
	} else if content == "" {
		raw = line // a record of a kind not read yet: what it holds is kept
	}
	cs.add(&transcript.Message{ID: rec.UUID, Role: transcript.System, Time: rec.Timestamp.Time, Meta: true,
		Sidechain: rec.IsSidechain, Parts: []*transcript.Part{ingest.EventPart(kind, desc, raw)}})
}

// systemEvents read each subtype of system record as an event's kind and
// text.
var systemEvents = map[string]func(rec *record, content string) (kind, desc string){
	"api_error": func(rec *record, _ string) (string, string) {
		desc := "API error"
		if rec.MaxRetries > 0 {
			desc = fmt.Sprintf("API error, retry %d of %d", rec.RetryAttempt, rec.MaxRetries)
		}
		if e := systemError(rec); e != "" {
			desc += ": " + e
		}
		return transcript.Retry, desc
	},
	"error": func(rec *record, content string) (string, string) {
		return transcript.ErrorEvent, ingest.FirstNonEmpty(systemError(rec), content, "Error")
	},
	"compact_boundary": func(rec *record, _ string) (string, string) {
		desc := "Conversation compacted"
		if md := rec.CompactMetadata; md != nil {
			desc += fmt.Sprintf(" (%s, %d tokens before)", md.Trigger, md.PreTokens)
		}
		return transcript.Compaction, desc
	},
	"local_command": func(_ *record, content string) (string, string) {
		if cmd, extra, ok := command(content); ok {
			return transcript.Command, strings.Join(append([]string{cmd}, extra...), "\n")
		}
		return transcript.Command, content
	},
	"turn_duration": func(rec *record, _ string) (string, string) {
		return "info", fmt.Sprintf("Turn took %.1f s", rec.DurationMs/1000)
	},
	"stop_hook_summary": stopHooks,
	"api_refusal": func(rec *record, content string) (string, string) {
		desc := "The API refused the request: " + ingest.FirstNonEmpty(rec.RefusalExplanation, rec.RefusalCategory, content)
		if content != "" && !strings.Contains(desc, content) {
			desc += " (" + content + ")"
		}
		return transcript.ErrorEvent, desc
	},
	"model_refusal_fallback": func(rec *record, _ string) (string, string) {
		return "info", fmt.Sprintf("Model %s refused; fell back to %s", rec.OriginalModel, rec.FallbackModel)
	},
}

// systemError is a system record's error: its message, or the error as
// written.
func systemError(rec *record) string {
	var e struct {
		Message string `json:"message"`
	}
	if ingest.Unmarshal(rec.Error, &e) != nil || e.Message == "" {
		return ingest.Text(rec.Error)
	}
	return e.Message
}

// stopHooks says which Stop hooks ran and what they reported.
func stopHooks(rec *record, _ string) (string, string) {
	desc := fmt.Sprintf("Stop hooks ran (%d)", rec.HookCount)
	for _, h := range rec.HookInfos {
		desc += "\n" + h.Command
	}
	for _, e := range rec.HookErrors {
		desc += "\nerror: " + ingest.Text(e)
	}
	if rec.PreventedContinuation {
		desc += "\nprevented continuation: " + rec.StopReason
	}
	return "hook", desc
}

// otherSystem reads a system record of a subtype not known: an
// informational record says how loud it is.
func otherSystem(rec *record, content string) (kind, desc string) {
	switch rec.Level {
	case "error":
		kind = transcript.ErrorEvent
	case "warning":
		kind = "warning"
	default:
		kind = "info"
	}
	return kind, ingest.FirstNonEmpty(content, rec.Subtype, "system message")
}

// attachmentRecord is an attachment record's payload: the fields of every
// type it has, each type reading its own.
type attachmentRecord struct {
	Type          string     `json:"type"`
	Prompt        ingest.Raw `json:"prompt"`
	Content       ingest.Raw `json:"content"`
	HookName      string     `json:"hookName"`
	Command       string     `json:"command"`
	Stdout        string     `json:"stdout"`
	Stderr        string     `json:"stderr"`
	ExitCode      *int       `json:"exitCode"`
	BlockingError *struct {
		BlockingError string `json:"blockingError"`
		Command       string `json:"command"`
	} `json:"blockingError"`
	Filename    string `json:"filename"`
	DisplayPath string `json:"displayPath"`
	Path        string `json:"path"`
	Snippet     string `json:"snippet"`
	Skills      []struct {
		Name    string `json:"name"`
		Path    string `json:"path"`
		Content string `json:"content"`
	} `json:"skills"`
}

// attachmentReaders show an attachment by its type; one that returns
// false showed nothing, and the attachment is counted as skipped.
var attachmentReaders = map[string]func(cs *session, cf *file, rec *record, a *attachmentRecord) bool{
	"queued_command":          (*session).queuedAttachment,
	"hook_additional_context": (*session).hookContext,
	"hook_success":            (*session).hookContext,
	"hook_blocking_error":     (*session).hookBlocked,
	"hook_non_blocking_error": (*session).hookFailed,
	"nested_memory":           (*session).nestedMemory,
	"file":                    (*session).mentionedFile,
	"edited_text_file":        (*session).editedFile,
	"invoked_skills":          (*session).invokedSkills,
}

// attachment keeps what a harness attachment gave the model or the user:
// prompts queued while the agent worked, files and memory put in its
// context, context and errors from hooks. The rest (tool lists, reminders,
// mode changes) is counted with its reason.
func (cs *session) attachment(cf *file, rec *record) {
	var a attachmentRecord
	_ = ingest.Unmarshal(rec.Attachment, &a)
	if read := attachmentReaders[a.Type]; read != nil && read(cs, cf, rec, &a) {
		return
	}
	kind := "attachment/" + a.Type
	cs.s.Skip(kind, attachmentSkipped(a.Type), 1)
}

func (cs *session) queuedAttachment(cf *file, rec *record, a *attachmentRecord) bool {
	if len(a.Prompt) == 0 {
		return false
	}
	cs.queued(cf, rec, a.Prompt)
	return true
}

// hookContext shows what a hook added to the model's context (a successful
// hook mostly adds nothing, and is then only counted).
func (cs *session) hookContext(_ *file, rec *record, a *attachmentRecord) bool {
	var lines []string
	if ingest.Unmarshal(a.Content, &lines) != nil {
		lines = []string{ingest.Text(a.Content)}
	}
	t := strings.Join(lines, "\n")
	if strings.TrimSpace(t) == "" {
		return false
	}
	cs.add(&transcript.Message{ID: rec.UUID, Role: transcript.User, Time: rec.Timestamp.Time, Meta: true,
		Sidechain: rec.IsSidechain, Parts: []*transcript.Part{{Kind: transcript.TextPart, Text: t}}})
	return true
}

func (cs *session) hookBlocked(_ *file, rec *record, a *attachmentRecord) bool {
	b := a.BlockingError
	if b == nil {
		return false
	}
	cs.hookEvent(rec, fmt.Sprintf("%s hook blocked: %s\n%s", a.HookName, b.BlockingError, b.Command))
	return true
}

func (cs *session) hookFailed(_ *file, rec *record, a *attachmentRecord) bool {
	code := ""
	if a.ExitCode != nil {
		code = fmt.Sprintf(" (exit %d)", *a.ExitCode)
	}
	cs.hookEvent(rec, strings.TrimSpace(fmt.Sprintf("%s hook failed%s: %s\n%s\n%s", a.HookName, code, a.Command, a.Stderr, a.Stdout)))
	return true
}

func (cs *session) hookEvent(rec *record, desc string) {
	cs.add(&transcript.Message{ID: rec.UUID, Role: transcript.System, Time: rec.Timestamp.Time, Meta: true,
		Sidechain: rec.IsSidechain, Parts: []*transcript.Part{ingest.EventPart("hook", desc, nil)}})
}

// nestedMemory shows a CLAUDE.md the agent loaded as it entered a folder.
func (cs *session) nestedMemory(_ *file, rec *record, a *attachmentRecord) bool {
	var m struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	_ = ingest.Unmarshal(a.Content, &m)
	return cs.contextFiles(rec, contextFile(ingest.FirstNonEmpty(a.DisplayPath, m.Path, a.Path), m.Content))
}

// mentionedFile shows a file the user mentioned with @, read into the prompt.
func (cs *session) mentionedFile(_ *file, rec *record, a *attachmentRecord) bool {
	var c struct {
		File struct {
			FilePath string `json:"filePath"`
			Content  string `json:"content"`
		} `json:"file"`
	}
	_ = ingest.Unmarshal(a.Content, &c)
	return cs.contextFiles(rec, contextFile(ingest.FirstNonEmpty(a.DisplayPath, a.Filename, c.File.FilePath), c.File.Content))
}

func (cs *session) editedFile(_ *file, rec *record, a *attachmentRecord) bool {
	return cs.contextFiles(rec, contextFile(a.Filename+" (edited by the user)", a.Snippet))
}

func (cs *session) invokedSkills(_ *file, rec *record, a *attachmentRecord) bool {
	var files []*transcript.Part
	for _, sk := range a.Skills {
		files = append(files, contextFile(ingest.FirstNonEmpty(sk.Path, sk.Name), sk.Content)...)
	}
	return cs.contextFiles(rec, files)
}

// contextFile is a file's content put in the model's context, as a part;
// none when it is blank.
func contextFile(name, content string) []*transcript.Part {
	if strings.TrimSpace(content) == "" {
		return nil
	}
	return []*transcript.Part{{Kind: transcript.CodePart, Name: name, Text: content}}
}

// contextFiles shows the files an attachment put in the model's context,
// if there are any.
func (cs *session) contextFiles(rec *record, files []*transcript.Part) bool {
	if len(files) == 0 {
		return false
	}
	cs.add(&transcript.Message{ID: rec.UUID, Role: transcript.User, Time: rec.Timestamp.Time, Meta: true,
		Sidechain: rec.IsSidechain, Parts: files})
	return true
}

// attachmentSkipped says why an attachment of type t is left out.
func attachmentSkipped(t string) string {
	switch t {
	case "hook_success":
		return "a hook that ran and added nothing to the conversation"
	case "deferred_tools_delta", "agent_listing_delta", "mcp_instructions_delta", "skill_listing", "dynamic_skill":
		return "the tools, agents and skills Claude Code listed for the model"
	case "todo_reminder", "task_reminder":
		return "a reminder of the task list, which the task tools show"
	case "compact_file_reference":
		return "a file named after compaction, which the summary mentions"
	}
	return "a note Claude Code gave the model"
}

func (cf *file) imagePart(b block) *transcript.Part {
	if b.Source == nil {
		return &transcript.Part{Kind: transcript.TextPart, Text: "(image without data)"}
	}
	if b.Source.URL != "" {
		return &transcript.Part{Kind: transcript.ImagePart, Image: &transcript.Image{URL: b.Source.URL}}
	}
	img, ok := ingest.DecodeImage(cf.f, b.Source.Data)
	if !ok {
		cf.warn("image data is not base64; skipped")
		return &transcript.Part{Kind: transcript.TextPart, Text: "(unreadable image)"}
	}
	return &transcript.Part{Kind: transcript.ImagePart, Image: img}
}
