// Package jido reads the sessions jido_code saves under
// ~/.jido_code/sessions, one JSON document each.
package jido

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Reader reads the sessions jido_code saves when one is closed.
var Reader = &ingest.Reader{
	Name:      "jido-code",
	Agent:     "jido_code",
	Files:     "~/.jido_code/sessions/<session id>.json: one pretty-printed JSON document per saved session",
	Detects:   "a JSON document with an integer version, project_path, a conversation array and todos; or, when a long conversation pushes those past the head, the leading keys closed_at, config and conversation",
	Detect:    detect,
	Read:      read,
	Locations: locations,
	Tools:     Tools,
}

// Tools: jido_code's tools are the names every agent shares.
var Tools = &ingest.Tools{}

func init() { ingest.Register(Reader) }

func locations(home string, _ func(string) string) []ingest.Location {
	return []ingest.Location{{Name: "jido_code", Dir: filepath.Join(home, ".jido_code", "sessions")}}
}

func detect(h *ingest.Head) float64 {
	rs := h.Records()
	if h.IsArray() || len(rs) != 1 || rs[0]["conversation"] != "[" {
		return 0
	}
	r := rs[0]
	if _, err := strconv.Atoi(r["version"]); err == nil && r.Has("project_path", "todos") {
		return ingest.Likely
	}
	// jido_code writes its keys sorted: in a long session, everything after
	// conversation is beyond the head.
	return ingest.When(!h.EOF && r["closed_at"] != "" && r["config"] == "{", ingest.Maybe)
}

// version is the file version this reader follows.
const version = 1

type message struct {
	ID        string          `json:"id"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Timestamp string          `json:"timestamp"`
	Usage     *usage          `json:"usage"`
}

type usage struct {
	Input  float64 `json:"input_tokens"`
	Output float64 `json:"output_tokens"`
	Cost   float64 `json:"total_cost"` // US dollars
}

func (u usage) usage() transcript.Usage {
	return transcript.Usage{Input: int64(u.Input), Output: int64(u.Output)}
}

func read(ctx context.Context, f *ingest.File, r io.Reader) ([]*transcript.Session, error) {
	jr := &reader{ctx: ctx, f: f, d: ingest.NewJSONDoc(f, r, 1), s: &transcript.Session{Meta: map[string]string{}}}
	isObject, err := jr.d.Object("the document", jr.key)
	complete, err := jr.d.End(ctx, err)
	if err != nil {
		return nil, err
	}
	s := jr.s
	if complete && isObject && !jr.sawVersion {
		f.Warn(0, "version is missing: jido_code writes it in every session")
	}
	if len(jr.todos) > 0 {
		s.Append(ingest.TodoMessage(jr.todos))
	}
	s.Title = ingest.FirstNonEmpty(jr.title, jr.name)
	if jr.cost > 0 {
		s.Meta["cost (USD)"] = strconv.FormatFloat(jr.cost, 'f', -1, 64)
	}
	return ingest.Snapshot(f, s), nil
}

// reader reads the keys of a saved session.
type reader struct {
	ctx          context.Context
	f            *ingest.File
	d            *ingest.JSONDoc
	s            *transcript.Session
	todos        []string // lines of a GFM task list
	cost         float64
	name, title  string
	sawVersion   bool
	hasCumulated bool
}

// key reads the value of the document's key, on line.
func (jr *reader) key(key string, line int) error {
	if read := keys[key]; read != nil {
		return read(jr, key, line)
	}
	// signature (an HMAC over the file, not verified) and fields to come
	return jr.d.Skip()
}

// keys read each field of a session file.
var keys = map[string]func(jr *reader, key string, line int) error{
	"version":      func(jr *reader, _ string, line int) error { return jr.version(line) },
	"id":           func(jr *reader, key string, line int) error { return jr.d.Value(key, line, &jr.s.ID) },
	"name":         func(jr *reader, key string, line int) error { return jr.d.Value(key, line, &jr.name) },
	"title":        func(jr *reader, key string, line int) error { return jr.d.Value(key, line, &jr.title) },
	"project_path": func(jr *reader, key string, line int) error { return jr.d.Value(key, line, &jr.s.CWD) },
	"language": func(jr *reader, key string, line int) error {
		var v string
		if err := jr.d.Value(key, line, &v); err != nil {
			return err
		}
		jr.s.Meta["language"] = v
		return nil
	},
	"created_at": (*reader).time,
	"updated_at": (*reader).time,
	"closed_at":  (*reader).time,
	"config":     func(jr *reader, _ string, line int) error { return jr.config(line) },
	"cumulative_usage": func(jr *reader, key string, line int) error {
		var u usage
		if err := jr.d.Value(key, line, &u); err != nil {
			return err
		}
		jr.s.Usage, jr.cost, jr.hasCumulated = u.usage(), u.Cost, true
		return nil
	},
	"prompt_history": func(jr *reader, key string, line int) error {
		var ph []string
		if err := jr.d.Value(key, line, &ph); err != nil {
			return err
		}
		if len(ph) > 0 {
			jr.s.Meta["prompt history"] = strings.Join(ph, "\n")
		}
		return nil
	},
	"conversation": func(jr *reader, key string, _ int) error { return jr.d.Array(key, jr.message) },
	"todos":        func(jr *reader, _ string, _ int) error { return jr.d.Todos(&jr.todos) },
}

func (jr *reader) version(line int) error {
	jr.sawVersion = true
	var raw json.RawMessage
	if err := jr.d.Value("version", line, &raw); err != nil {
		return err
	}
	n, err := strconv.Atoi(string(raw))
	switch {
	case err != nil || n < 1:
		jr.f.Warn(line, "version: expected a positive integer, found %s", raw)
	case n > version:
		jr.f.Warn(line, "version %d is newer than %d, the version this reader knows: reading what it can", n, version)
	}
	return nil
}

// time reads created_at, updated_at (the last activity) or closed_at
// (when it was saved).
func (jr *reader) time(key string, line int) error {
	var v string
	if err := jr.d.Value(key, line, &v); err != nil {
		return err
	}
	t, ok := ingest.ParseTime(v)
	switch {
	case !ok && v != "":
		jr.f.Warn(line, "%s: %q is not a timestamp", key, v)
	case key == "created_at":
		jr.s.Started = t
	case key == "updated_at":
		jr.s.Ended = t
	default:
		jr.s.Meta["closed at"] = v
	}
	return nil
}

func (jr *reader) config(line int) error {
	var c map[string]json.RawMessage
	if err := jr.d.Value("config", line, &c); err != nil {
		return err
	}
	jr.s.AddModel(ingest.Text(c["model"]))
	if p := ingest.Text(c["provider"]); p != "" {
		jr.s.Meta["provider"] = p
	}
	if len(c) > 0 {
		b, _ := json.Marshal(c) // sorted keys: deterministic
		jr.s.Meta["config"] = string(b)
	}
	return nil
}

// message reads element i of the conversation, on line.
func (jr *reader) message(i, line int, raw json.RawMessage) error {
	if err := jr.ctx.Err(); err != nil {
		return err
	}
	if m, c := msg(jr.f, fmt.Sprintf("conversation[%d]", i), line, raw); m != nil {
		jr.s.Append(m)
		if !jr.hasCumulated {
			jr.cost += c
		}
	}
	return nil
}

// roles fill a message of each role with its content.
var roles = map[string]func(m *transcript.Message, content string){
	"user": func(m *transcript.Message, content string) {
		m.Role = transcript.User
		m.Parts = ingest.UserText(Tools, content, &m.Meta)
	},
	"assistant": said(transcript.Assistant),
	"system":    said(transcript.System),
	// jido_code saves no tool calls, and results without the id of theirs:
	// each is shown on its own.
	"tool": func(m *transcript.Message, content string) {
		m.Role = transcript.Tool
		m.Parts = []*transcript.Part{{Kind: transcript.ResultPart, Result: &transcript.ToolResult{Output: content}}}
	},
}

// said fills a message the assistant or the system said; the system's is
// meta.
func said(role transcript.Role) func(*transcript.Message, string) {
	return func(m *transcript.Message, content string) {
		m.Role, m.Meta = role, role == transcript.System
		if strings.TrimSpace(content) != "" {
			m.Parts = []*transcript.Part{{Kind: transcript.TextPart, Text: content}}
		}
	}
}

// msg reads one conversation message and the cost of its response.
func msg(f *ingest.File, path string, line int, raw json.RawMessage) (*transcript.Message, float64) {
	var jm message
	if !ingest.DecodeAt(f, line, path, raw, &jm) {
		return nil, 0
	}
	content := ingest.Text(jm.Content)
	if len(jm.Content) > 0 && jm.Content[0] != '"' && content != "" {
		f.Warn(line, "%s.content: expected a string, found %s; shown as JSON", path, ingest.RawKind(jm.Content))
	}
	m := &transcript.Message{ID: jm.ID}
	if t, ok := ingest.ParseTime(jm.Timestamp); ok {
		m.Time = t
	} else if jm.Timestamp != "" {
		f.Warn(line, "%s.timestamp: %q is not a timestamp", path, jm.Timestamp)
	}
	var cost float64
	if jm.Usage != nil {
		m.Usage, cost = jm.Usage.usage(), jm.Usage.Cost
	}
	if fill := roles[jm.Role]; fill != nil {
		fill(m, content)
	} else {
		f.Warn(line, "%s: unknown role %q; kept as an unknown event", path, jm.Role)
		m.Role, m.Meta = transcript.System, true
		m.Parts = []*transcript.Part{ingest.EventPart(transcript.Unknown, "Message with unknown role "+strconv.Quote(jm.Role), raw)}
	}
	if len(m.Parts) == 0 && m.Usage.IsZero() {
		return nil, cost
	}
	return m, cost
}
