package jido

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/ingest/ingesttest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

func TestJidoSession(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "session.json")
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	if len(ss) != 1 {
		t.Fatalf("got %d sessions, want 1", len(ss))
	}
	s := ss[0]
	for _, c := range []struct{ name, got, want string }{
		{"id", s.ID, "7d3e9f10-aaaa-4bbb-8ccc-ddddeeeeffff"},
		{"format", s.Format, "jido-code"},
		{"agent", s.Agent, "jido_code"},
		{"title", s.Title, "Fetcher retries"},
		{"cwd", s.CWD, "/home/lee/fetcher"},
		{"started", s.Started.Format(time.RFC3339Nano), "2026-02-10T09:00:00Z"},
		{"ended", s.Ended.Format(time.RFC3339Nano), "2026-02-10T09:10:20Z"},
		{"closed", s.Meta["closed at"], "2026-02-10T18:00:00.000001Z"},
		{"provider", s.Meta["provider"], "openai"},
		{"language", s.Meta["language"], "elixir"},
		{"cost", s.Meta["cost (USD)"], "0.01"},
		{"prompt history", s.Meta["prompt history"], "Add a retry to `Fetcher.get/1`.\nNow document it."},
		{"config", s.Meta["config"], `{"base_url":null,"max_tokens":8192,"model":"gpt-4.1","provider":"openai","temperature":0.2}`},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if want := []string{"gpt-4.1"}; !slices.Equal(s.Models, want) {
		t.Errorf("models = %v, want %v", s.Models, want)
	}
	if want := (transcript.Usage{Input: 4200, Output: 130}); s.Usage != want {
		t.Errorf("usage = %+v, want %+v", s.Usage, want)
	}
	st := s.Stats()
	if st.Messages != 8 || st.Prompts != 2 || st.ToolCalls != 0 || len(s.Turns) != 3 {
		t.Errorf("stats = %+v with %d turns, want 8 messages, 2 prompts, no calls, 3 turns", st, len(s.Turns))
	}
	ms := s.Messages()
	checkJidoMessages(t, ms)
}

func checkJidoMessages(t *testing.T, ms []*transcript.Message) {
	var roles []string
	for _, m := range ms {
		roles = append(roles, string(m.Role))
	}
	if got := strings.Join(roles, " "); got != "system user assistant tool assistant user assistant system" {
		t.Errorf("roles = %s", got)
	}
	if !ms[0].Meta || ms[0].Parts[0].Text != "You are JidoCode, an Elixir coding assistant." {
		t.Errorf("system prompt = meta %v %q", ms[0].Meta, ms[0].Parts[0].Text)
	}
	if got := ms[1].Time.Format(time.RFC3339Nano); got != "2026-02-10T09:01:00.123456Z" {
		t.Errorf("microsecond time = %s", got)
	}
	if ms[2].Usage != (transcript.Usage{Input: 1200, Output: 80}) || !strings.Contains(ms[2].Parts[0].Text, "```elixir\n") {
		t.Errorf("assistant = %+v %q", ms[2].Usage, ms[2].Parts[0].Text)
	}
	// No call is saved, so the result stays on its own.
	if r := ms[3].Parts[0].Result; r == nil || r.CallID != "" || r.Paired || r.Output != "mix test: 42 tests, 0 failures" {
		t.Errorf("tool result = %+v", r)
	}
	todos := ms[7]
	want := "**Todos**\n\n- [x] Add a retry\n- [ ] Document the retry *(in progress)*\n- [ ] Release 0.2.0"
	if !todos.Meta || len(todos.Parts) != 1 || todos.Parts[0].Kind != transcript.TextPart || todos.Parts[0].Text != want {
		t.Errorf("todos = meta %v %q, want %q", todos.Meta, ingesttest.Kinds(todos), want)
	}
}

func TestJidoFuture(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "future.json")
	ingesttest.CheckWarnings(t, warns, "future.json", []string{
		`:7: conversation[1].timestamp: "not a time" is not a timestamp`,
		`:8: conversation[2].content: expected a string, found an object; shown as JSON`,
		`:8: conversation[2]: unknown role "critic"; kept as an unknown event`,
		`:9: conversation[3]: expected an object, found a string; skipped`,
		`:10: conversation[4].content: expected a string, found an object; shown as JSON`,
		`:18: todos[0]: unknown status "blocked"`,
		`:20: todos[2]: expected an object, found a number; skipped`,
		`:23: version 2 is newer than 1, the version this reader knows: reading what it can`,
	})
	if len(ss) != 1 {
		t.Fatalf("got %d sessions, want 1", len(ss))
	}
	s := ss[0]
	// Without cumulative_usage, usage and cost are the messages' sums.
	if s.Usage != (transcript.Usage{Input: 15, Output: 3}) || s.Meta["cost (USD)"] != "0.75" || s.Title != "" || s.ID != "future-1" {
		t.Errorf("session %q %q usage %+v cost %q", s.ID, s.Title, s.Usage, s.Meta["cost (USD)"])
	}
	ms := s.Messages()
	if len(ms) != 5 {
		t.Fatalf("%d messages, want 5 (the empty one is left out)", len(ms))
	}
	if ev := ms[2].Parts[0].Event; ev == nil || ev.Kind != transcript.Unknown || !strings.Contains(ev.Raw, `"verdict"`) {
		t.Errorf("unknown role = %+v", ms[2].Parts[0])
	}
	if got := ms[3].Parts[0].Text; got != `{"parts":["a"]}` {
		t.Errorf("object content = %q", got)
	}
	if got := ms[4].Parts[0].Text; got != "**Todos**\n\n- [ ] Ship *(blocked)*\n- [ ] Testing" {
		t.Errorf("todos = %q", got)
	}
}

func TestJidoLongConversation(t *testing.T) {
	// The keys after conversation are beyond detection's head.
	long := strings.Repeat("retry ", 20000)
	doc := `{"closed_at":"2026-01-01T00:00:00Z","config":{"model":"m"},"conversation":[` +
		`{"content":"go","id":"1","role":"user","timestamp":"2026-01-01T00:00:00Z"},` +
		`{"content":"` + long + `","id":"2","role":"assistant","timestamp":"2026-01-01T00:00:01Z"}],` +
		`"id":"long","project_path":"/p","todos":[],"version":1}`
	h, _, _, err := ingest.Sniff("long.json", strings.NewReader(doc))
	if err != nil || h.EOF {
		t.Fatalf("head: EOF %v, %v", h.EOF, err)
	}
	if r := ingest.Detect(h); r != Reader {
		t.Fatalf("detected %v, want jido-code", r)
	}
	ss, warns := ingesttest.ReadDoc(t, Reader, "long.json", doc)
	if len(warns) != 0 || len(ss) != 1 || ss[0].ID != "long" || len(ss[0].Messages()) != 2 || len(ss[0].Messages()[1].Parts[0].Text) != len(long) {
		t.Errorf("warnings %v, sessions %v", warns, ss)
	}
}

func FuzzJido(f *testing.F) {
	ingesttest.SeedFuzz(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ingesttest.FuzzRead(t, Reader, "session.json", data)
	})
}
