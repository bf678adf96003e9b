package domarkx

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// snapshot reads a domarkx Session Snapshot: one JSON object whose
// conversation holds the messages of a session document. Its text blocks
// are message text like a document's bodies (<think>, tool tags,
// <tool_output>); its code blocks are code.
func (d *session) snapshot(data []byte) error {
	var doc snapshotDoc
	if err := ingest.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("not a Session Snapshot: %w", err)
	}
	doc.data = data
	d.s.ID = cmp.Or(ingest.Text(doc.SnapshotID), d.f.Rel)
	d.meta("snapshot version", ingest.Text(doc.Version))
	if present(doc.Metadata) {
		d.snapshotMeta(&doc)
	}
	if setup := d.snapshotSetup(&doc); len(setup) > 0 {
		d.append(&transcript.Message{Role: transcript.System, Meta: true, Parts: setup})
	}
	if present(doc.Conversation) {
		d.conversation(&doc)
	}
	return nil
}

// snapshotDoc is a Session Snapshot, its fields kept as written.
type snapshotDoc struct {
	Version         json.RawMessage `json:"version"`
	SnapshotID      json.RawMessage `json:"snapshot_id"`
	Metadata        json.RawMessage `json:"metadata"`
	ExecutionConfig json.RawMessage `json:"execution_config"`
	SetupScript     json.RawMessage `json:"setup_script"`
	Conversation    json.RawMessage `json:"conversation"`
	data            []byte          // the whole file
}

// lineOf is the line a field starts on. Fields are verbatim copies of the
// file, so their lines can be found.
func (doc *snapshotDoc) lineOf(raw []byte) int {
	c := cursor{data: doc.data, line: 1}
	return c.find(raw)
}

// snapshotMeta records the snapshot's metadata: its user metadata, the
// document it was made from and when.
func (d *session) snapshotMeta(doc *snapshotDoc) {
	var md struct {
		SourceFile      json.RawMessage            `json:"source_file"`
		ImportTimestamp json.RawMessage            `json:"import_timestamp"`
		UserMetadata    map[string]json.RawMessage `json:"user_metadata"`
	}
	if err := ingest.Unmarshal(doc.Metadata, &md); err != nil {
		d.f.Warn(jsonErrLine(err, doc.Metadata, doc.lineOf(doc.Metadata)), "metadata skipped: %v", err)
	}
	for k, v := range md.UserMetadata {
		d.meta(k, ingest.Text(v))
	}
	d.meta("source file", ingest.Text(md.SourceFile))
	d.meta("imported", ingest.Text(md.ImportTimestamp))
}

// snapshotSetup returns the execution config and the setup script, as the
// code a document's preamble holds.
func (d *session) snapshotSetup(doc *snapshotDoc) []*transcript.Part {
	var setup []*transcript.Part
	if present(doc.ExecutionConfig) {
		var b bytes.Buffer
		_ = json.Indent(&b, doc.ExecutionConfig, "", "  ")
		p := &transcript.Part{Kind: transcript.CodePart, Lang: "json", Name: "execution_config", Text: b.String()}
		setup = append(setup, d.config(doc.ExecutionConfig, doc.lineOf(doc.ExecutionConfig), p))
	}
	if present(doc.SetupScript) {
		setup = append(setup, d.setupScript(doc)...)
	}
	return setup
}

// setupScript returns the setup script, or nothing when it cannot be read.
func (d *session) setupScript(doc *snapshotDoc) []*transcript.Part {
	var ss struct {
		Language string `json:"language"`
		Code     string `json:"code"`
	}
	if err := ingest.Unmarshal(doc.SetupScript, &ss); err != nil {
		d.f.Warn(jsonErrLine(err, doc.SetupScript, doc.lineOf(doc.SetupScript)), "setup_script skipped: %v", err)
		return nil
	}
	return []*transcript.Part{d.setup(&transcript.Part{Kind: transcript.CodePart, Lang: ss.Language, Name: "setup_script", Text: ss.Code})}
}

// conversation reads the snapshot's messages.
func (d *session) conversation(doc *snapshotDoc) {
	var msgs []json.RawMessage
	if err := ingest.Unmarshal(doc.Conversation, &msgs); err != nil {
		d.f.Warn(doc.lineOf(doc.Conversation), "conversation skipped: %v", err)
		return
	}
	// Each message follows the one before it with only a comma between.
	c := cursor{data: doc.Conversation, line: doc.lineOf(doc.Conversation)}
	for _, raw := range msgs {
		d.snapshotMessage(raw, c.find(raw))
	}
}

func present(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// snapshotMessage reads one message of the conversation, on line.
func (d *session) snapshotMessage(raw []byte, line int) {
	d.f.At(line)
	var msg struct {
		Role     string          `json:"role"`
		Metadata json.RawMessage `json:"message_metadata"`
		Content  json.RawMessage `json:"content"`
	}
	if raw[0] != '{' {
		d.f.Warn(line, "message skipped: not a JSON object")
		return
	}
	if err := ingest.Unmarshal(raw, &msg); err != nil {
		d.f.Warn(jsonErrLine(err, raw, line), "message skipped: %v", err)
		return
	}
	var md map[string]json.RawMessage
	if present(msg.Metadata) {
		md = d.msgMeta(msg.Metadata, line, msg.Role)
	}
	c := &content{d: d, m: d.newMessage(msg.Role, md), role: msg.Role, line: line}
	c.read(msg.Content)
	d.append(c.m)
}

// content is the reading of a message's content: text, or a list of text
// and code blocks.
type content struct {
	d    *session
	m    *transcript.Message
	role string // as written
	line int
}

func (c *content) read(raw json.RawMessage) {
	var s string
	var blocks []json.RawMessage
	switch {
	case !present(raw):
	case ingest.Unmarshal(raw, &s) == nil:
		c.text(s)
	case ingest.Unmarshal(raw, &blocks) != nil:
		c.d.f.Warn(c.line, "content of a %q message is neither text nor a list of blocks: skipped", c.role)
	}
	for _, raw := range blocks {
		c.block(raw)
	}
}

// contentBlock is a block of a message's content; its type says which
// fields are set.
type contentBlock struct {
	Type     string `json:"type"`
	Value    string `json:"value"`
	Language string `json:"language"`
	Name     string `json:"name"`
	Code     string `json:"code"`
}

// blockReaders read each type of block.
var blockReaders = map[string]func(c *content, b *contentBlock){
	"text": func(c *content, b *contentBlock) { c.text(b.Value) },
	"code": func(c *content, b *contentBlock) {
		c.d.includes(b.Code)
		c.m.Parts = append(c.m.Parts, &transcript.Part{Kind: transcript.CodePart, Lang: b.Language, Name: b.Name, Text: b.Code})
	},
}

func (c *content) block(raw json.RawMessage) {
	var b contentBlock
	err := ingest.Unmarshal(raw, &b)
	if read := blockReaders[b.Type]; err == nil && read != nil {
		read(c, &b)
		return
	}
	c.m.Parts = append(c.m.Parts, c.d.f.Unknown("Unknown content block "+strconv.Quote(b.Type), raw))
}

// text is message text, read like a document's message body.
func (c *content) text(s string) {
	c.d.includes(s)
	c.d.addText(c.m, messageText{lines: strings.Split(s, "\n"), nums: []int{c.line}})
}

// cursor finds verbatim pieces of data in order and says on which line
// each starts.
type cursor struct {
	data      []byte
	pos, line int
}

// find returns the line raw starts on, searching after the last find, and
// moves past it; 0 if it is not there.
func (c *cursor) find(raw []byte) int {
	i := bytes.Index(c.data[c.pos:], raw)
	if i < 0 || len(raw) == 0 {
		return 0
	}
	c.line += bytes.Count(c.data[c.pos:c.pos+i], []byte("\n"))
	line := c.line
	c.line += bytes.Count(raw, []byte("\n"))
	c.pos += i + len(raw)
	return line
}
