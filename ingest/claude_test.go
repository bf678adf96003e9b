package ingest

import (
	"slices"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/transcript"
)

func TestClaudeSession(t *testing.T) {
	ss, warns := readTestFile(t, "claude/basic.jsonl")
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	if len(ss) != 1 {
		t.Fatalf("got %d sessions, want 1", len(ss))
	}
	s := ss[0]
	for _, c := range []struct{ name, got, want string }{
		{"id", s.ID, "aa11bb22-0000-4000-8000-000000000001"},
		{"format", s.Format, "claude-code"},
		{"title", s.Title, "Rename the config loader"},
		{"cwd", s.CWD, "/home/kim/proj/loader"},
		{"branch", s.Branch, "main"},
		{"version", s.AgentVersion, "2.1.1"},
		{"source", s.Source, "claude/basic.jsonl"},
		{"started", s.Started.Format("15:04:05"), "10:00:00"},
		{"ended", s.Ended.Format("15:04:05"), "10:01:00"},
		{"skipped", s.Meta["skipped records"], "file-history-snapshot 1"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if want := []string{"claude-sonnet-4-5", "claude-opus-4-5"}; !slices.Equal(s.Models, want) {
		t.Errorf("models = %v, want %v", s.Models, want)
	}
	// Streamed lines of one API message repeat its usage: it counts once.
	want := transcript.Usage{Input: 150, Output: 45, CacheRead: 1000, CacheWrite: 50}
	if s.Usage != want {
		t.Errorf("usage = %+v, want %+v", s.Usage, want)
	}

	st := s.Stats()
	if st.Messages != 10 || st.Prompts != 2 || st.ToolCalls != 2 || st.Errors != 1 || len(s.Turns) != 2 {
		t.Errorf("stats = %+v with %d turns, want 10 messages, 2 prompts, 2 calls, 1 error, 2 turns", st, len(s.Turns))
	}
	ms := s.Messages()
	if got := kinds(ms[1]); got != "thinking call" {
		t.Errorf("merged assistant message parts = %q, want thinking then call", got)
	}
	if ms[2].Role != transcript.Tool {
		t.Errorf("tool result carrier has role %q, want tool", ms[2].Role)
	}
	grep := ms[1].Parts[1].Call
	if grep.Kind != transcript.SearchTool || grep.Result == nil || grep.Result.Output != "main.go:12: cfg := loadCfg()" {
		t.Errorf("grep call = %+v, result %+v", grep, grep.Result)
	}
	bash := ms[3].Parts[0].Call
	if r := bash.Result; r == nil || !r.IsError || r.ExitCode == nil || *r.ExitCode != 2 {
		t.Errorf("bash result = %+v, want an error with exit code 2", r)
	}
	if !ms[5].Meta || ms[5].StartsTurn() {
		t.Errorf("system reminder: meta=%v startsTurn=%v, want meta and no new turn", ms[5].Meta, ms[5].StartsTurn())
	}
	if ev := ms[7].Parts[0]; ev.Event == nil || ev.Event.Kind != transcript.Retry || !strings.Contains(ev.Text, "retry 2 of 10: overloaded") {
		t.Errorf("api error = %+v %q", ev.Event, ev.Text)
	}
	if ev := ms[8].Parts[0]; ev.Event == nil || ev.Event.Kind != transcript.Unknown || !strings.Contains(ev.Event.Raw, "a-record-from-the-future") {
		t.Errorf("unknown record = %+v", ev.Event)
	}
}

func kinds(m *transcript.Message) string {
	var ks []string
	for _, p := range m.Parts {
		ks = append(ks, string(p.Kind))
	}
	return strings.Join(ks, " ")
}

func TestClaudeBadLines(t *testing.T) {
	ss, warns := readTestFile(t, "claude/malformed.jsonl")
	wantWarnings(t, warns,
		"claude/malformed.jsonl:2: skipped: not a JSON object",
		"claude/malformed.jsonl:3: skipped: not a JSON object",
		"claude/malformed.jsonl:5: skipped: json: cannot unmarshal string",
		"claude/malformed.jsonl:8: incomplete last line skipped",
	)
	if len(ss) != 1 || ss[0].Stats().Messages != 3 {
		t.Fatalf("the good lines must still make a session of 3 messages: %v", ss)
	}
	if len(ss[0].Warnings) != 4 {
		t.Errorf("session carries %d warnings, want 4", len(ss[0].Warnings))
	}
}

func TestClaudeImages(t *testing.T) {
	ss, _ := readTestFile(t, "claude/images.jsonl")
	ms := ss[0].Messages()
	img := ms[0].Parts[0].Image
	if img == nil || img.MediaType != "image/png" || len(img.Data) != 70 {
		t.Fatalf("prompt image = %+v, want a 70-byte PNG (the bytes win over the jpeg label)", img)
	}
	if r := ms[1].Parts[0].Call.Result; r == nil || len(r.Images) != 1 || r.Images[0].MediaType != "image/png" {
		t.Errorf("tool result images = %+v", r)
	}
	// Base64 that decodes to a script is not an image.
	if img := ms[3].Parts[0].Image; img == nil || img.MediaType != "application/octet-stream" {
		t.Errorf("non-image data = %+v, want application/octet-stream", img)
	}
}
