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
	var doc struct {
		Version         json.RawMessage `json:"version"`
		SnapshotID      json.RawMessage `json:"snapshot_id"`
		Metadata        json.RawMessage `json:"metadata"`
		ExecutionConfig json.RawMessage `json:"execution_config"`
		SetupScript     json.RawMessage `json:"setup_script"`
		Conversation    json.RawMessage `json:"conversation"`
	}
	if err := ingest.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("not a Session Snapshot: %w", err)
	}
	d.s.ID = cmp.Or(ingest.Text(doc.SnapshotID), d.f.Rel)
	if v := ingest.Text(doc.Version); v != "" {
		d.s.Meta["snapshot version"] = v
	}
	// Fields are verbatim copies of the file, so their lines can be found.
	lineOf := func(raw []byte) int {
		c := cursor{data: data, line: 1}
		return c.find(raw)
	}
	if present(doc.Metadata) {
		var md struct {
			SourceFile      json.RawMessage            `json:"source_file"`
			ImportTimestamp json.RawMessage            `json:"import_timestamp"`
			UserMetadata    map[string]json.RawMessage `json:"user_metadata"`
		}
		if err := ingest.Unmarshal(doc.Metadata, &md); err != nil {
			d.f.Warn(jsonErrLine(err, doc.Metadata, lineOf(doc.Metadata)), "metadata skipped: %v", err)
		}
		for k, v := range md.UserMetadata {
			d.meta(k, ingest.Text(v))
		}
		d.meta("source file", ingest.Text(md.SourceFile))
		d.meta("imported", ingest.Text(md.ImportTimestamp))
	}

	var setup []*transcript.Part
	if present(doc.ExecutionConfig) {
		var b bytes.Buffer
		_ = json.Indent(&b, doc.ExecutionConfig, "", "  ")
		p := &transcript.Part{Kind: transcript.CodePart, Lang: "json", Name: "execution_config", Text: b.String()}
		setup = append(setup, d.config(doc.ExecutionConfig, lineOf(doc.ExecutionConfig), p))
	}
	if present(doc.SetupScript) {
		var ss struct {
			Language string `json:"language"`
			Code     string `json:"code"`
		}
		if err := ingest.Unmarshal(doc.SetupScript, &ss); err != nil {
			d.f.Warn(jsonErrLine(err, doc.SetupScript, lineOf(doc.SetupScript)), "setup_script skipped: %v", err)
		} else {
			setup = append(setup, d.setup(&transcript.Part{Kind: transcript.CodePart, Lang: ss.Language, Name: "setup_script", Text: ss.Code}))
		}
	}
	if len(setup) > 0 {
		d.append(&transcript.Message{Role: transcript.System, Meta: true, Parts: setup})
	}

	if !present(doc.Conversation) {
		return nil
	}
	var msgs []json.RawMessage
	if err := ingest.Unmarshal(doc.Conversation, &msgs); err != nil {
		d.f.Warn(lineOf(doc.Conversation), "conversation skipped: %v", err)
		return nil
	}
	// Each message follows the one before it with only a comma between.
	c := cursor{data: doc.Conversation, line: lineOf(doc.Conversation)}
	for _, raw := range msgs {
		d.snapshotMessage(raw, c.find(raw))
	}
	return nil
}

func present(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

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
	m := d.newMessage(msg.Role, md)
	addText := func(s string) {
		d.includes(s)
		d.addText(m, messageText{lines: strings.Split(s, "\n"), nums: []int{line}})
	}
	var s string
	var blocks []json.RawMessage
	switch {
	case !present(msg.Content):
	case ingest.Unmarshal(msg.Content, &s) == nil:
		addText(s)
	case ingest.Unmarshal(msg.Content, &blocks) != nil:
		d.f.Warn(line, "content of a %q message is neither text nor a list of blocks: skipped", msg.Role)
	}
	for _, raw := range blocks {
		var b struct {
			Type     string `json:"type"`
			Value    string `json:"value"`
			Language string `json:"language"`
			Name     string `json:"name"`
			Code     string `json:"code"`
		}
		err := ingest.Unmarshal(raw, &b)
		switch {
		case err == nil && b.Type == "text":
			addText(b.Value)
		case err == nil && b.Type == "code":
			d.includes(b.Code)
			m.Parts = append(m.Parts, &transcript.Part{Kind: transcript.CodePart, Lang: b.Language, Name: b.Name, Text: b.Code})
		default:
			m.Parts = append(m.Parts, d.f.Unknown("Unknown content block "+strconv.Quote(b.Type), raw))
		}
	}
	d.append(m)
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
