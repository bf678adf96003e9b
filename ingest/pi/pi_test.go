package pi

import (
	"slices"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/ingest/ingesttest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

func TestPiSession(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "session.jsonl")
	ingesttest.WantWarnings(t, warns,
		"session.jsonl:18: skipped: invalid character",
		`session.jsonl:25: Unknown entry type "future_entry": shown as an unknown event`,
		`session.jsonl:26: Unknown message role "notification": shown as an unknown event`,
		"session.jsonl:27: incomplete last line skipped",
	)
	for _, c := range []struct{ name, got, want string }{
		{"id", s.ID, "s-pi-1"},
		{"format", s.Format, "pi"},
		{"agent", s.Agent, "Pi"},
		{"title", s.Title, "Fix the parser"},
		{"cwd", s.CWD, "/home/kim/app"},
		{"parent", s.ParentID, "s-pi-0"},
		{"models", strings.Join(s.Models, ","), "claude-sonnet-4-5,gpt-5"},
		{"model setting", s.Meta["model"], "anthropic/claude-sonnet-4-5"},
		{"thinking level", s.Meta["thinking level"], "high"},
		{"version", s.Meta["session version"], "3"},
		{"cost", s.Meta["cost (recorded)"], "$0.0037"},
		{"started", s.Started.Format("15:04:05"), "10:00:00"},
		{"ended", s.Ended.Format("15:04:05"), "10:05:04"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	// Every reply counts, the rewound one too: it was paid for.
	if want := (transcript.Usage{Input: 615, Output: 96, CacheRead: 150, CacheWrite: 10}); s.Usage != want {
		t.Errorf("usage = %+v, want %+v", s.Usage, want)
	}
	ms := s.Messages()

	checkPiMessages(t, s)
	checkPiCalls(t, ms)
	checkPiEvents(t, ms, s)
}

func checkPiMessages(t *testing.T, s *transcript.Session) {
	var got []string
	for _, m := range s.Messages() {
		got = append(got, m.ID+" "+string(m.Role)+map[bool]string{true: "*"}[m.Meta]+"("+ingesttest.Kinds(m)+")"+map[bool]string{true: " branch " + m.Branch}[m.Branch != ""])
	}
	want := []string{
		"u1 user(text)", "r1 assistant(thinking text call)", "t1 tool(result)", "r2 assistant(text)",
		"u2 user(text) branch r2", "r3 assistant(text) branch r2", // left for another branch
		"b1 system*(event text)", "l1 system*(event)", "a3 system*(event)",
		"u3 user(text image)", "r4 assistant(call)", "t2 tool(result)", "r5 assistant(event)",
		"c1 system*(event text)", "x1 user*(call result)", "cm1 user*(event text)", "cu1 system*(event)",
		"u4 user(text)", "r6 assistant(text event)", "f1 system*(event)", "m9 system*(event)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(s.Turns) != 4 {
		t.Fatalf("%d turns, want 4", len(s.Turns))
	}
	for i, want := range []string{transcript.Completed, transcript.Completed, transcript.Failed, transcript.Aborted} {
		if got := s.Turns[i].Status; got != want {
			t.Errorf("turn %d status = %q, want %q", i, got, want)
		}
	}

}

func checkPiCalls(t *testing.T, ms []*transcript.Message) {
	call := ms[1].Parts[2].Call
	if call.ID != "call_1" || call.Kind != transcript.ShellTool || call.Input != `{"command":"go test ./..."}` || call.Result == nil {
		t.Errorf("call = %+v", call)
	}
	if r := call.Result; r == nil || !r.IsError || r.ExitCode == nil || *r.ExitCode != 1 {
		t.Errorf("bash result = %+v", r)
	}
	if r := ms[11].Parts[0].Result; !r.Paired || r.Output != "Successfully replaced text in parser.go." || len(r.Images) != 1 {
		t.Errorf("edit result = %+v", r)
	}
	if img := ms[9].Parts[1].Image; img == nil || img.MediaType != "image/png" { // labelled image/jpeg
		t.Errorf("prompt image = %+v", img)
	}
	if ms[1].Usage != (transcript.Usage{Input: 100, Output: 20, CacheRead: 50, CacheWrite: 10}) || ms[1].Model != "claude-sonnet-4-5" {
		t.Errorf("first reply usage %+v, model %q", ms[1].Usage, ms[1].Model)
	}
}

func checkPiEvents(t *testing.T, ms []*transcript.Message, s *transcript.Session) {
	for _, c := range []struct {
		m          int
		kind, text string
	}{
		{6, "branch", "Summary of the branch left at r3"},
		{7, "label", `Label "diagnosis" on entry r2`},
		{8, "model", "Model: openai/gpt-5"},
		{12, transcript.ErrorEvent, "529 overloaded"},
		{13, transcript.Compaction, "Context compacted (12345 tokens before)"},
		{15, "extension", "Extension message: reminder"},
		{16, "extension", "Extension data: todo-state"},
		{18, transcript.Interrupt, "Aborted"},
		{19, transcript.Unknown, `Unknown entry type "future_entry"`},
		{20, transcript.Unknown, `Unknown message role "notification"`},
	} {
		var p *transcript.Part
		for _, q := range ms[c.m].Parts {
			if q.Event != nil {
				p = q
			}
		}
		if p == nil || p.Event.Kind != c.kind || p.Text != c.text {
			t.Errorf("message %d event = %+v, want %s %q", c.m, p, c.kind, c.text)
		}
	}
	if raw := ms[16].Parts[0].Event.Raw; raw != `{"open":2}` {
		t.Errorf("extension data = %q", raw)
	}
	if raw := ms[19].Parts[0].Event.Raw; !strings.Contains(raw, `"payloadx":1`) {
		t.Errorf("unknown entry raw = %q", raw)
	}
	bash := ms[14].Parts
	if c, r := bash[0].Call, bash[1].Result; c.ID != "!x1" || c.Input != `{"command":"go test ./..."}` || r.CallID != "!x1" || r.Output != "ok" || r.ExitCode == nil || *r.ExitCode != 0 || r.IsError {
		t.Errorf("user command = %+v %+v", c, r)
	}
	if st := s.Stats(); st.Prompts != 4 || st.ToolCalls != 3 || st.Errors != 2 {
		t.Errorf("stats = %+v", st)
	}
}

func TestPiVersion1(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "v1.jsonl")
	ingesttest.WantWarnings(t, warns)
	if s.ID != "old-1" || s.ParentID != "old-0" || s.Meta["model"] != "anthropic/claude-opus-4" || s.Meta["thinking level"] != "off" {
		t.Errorf("session = %s parent %s meta %v", s.ID, s.ParentID, s.Meta)
	}
	var got []string
	for _, m := range s.Messages() {
		got = append(got, string(m.Role)+map[bool]string{true: "*"}[m.Meta]+"("+ingesttest.Kinds(m)+")"+m.Branch)
	}
	// Entries without ids follow each other: no branches.
	want := []string{"user(text)", "assistant(text)", "system*(event)", "user*(event text)", "user*(call result)", "user*(call result)"}
	if !slices.Equal(got, want) {
		t.Errorf("messages = %q, want %q", got, want)
	}
	// The same command run twice with "!" is two calls, each showing its
	// own output: no result left over to show on its own.
	for i, want := range []string{"a.txt\n", "a.txt\nb.txt\n"} {
		ps := s.Messages()[4+i].Parts
		if c, r := ps[0].Call, ps[1].Result; c.Result != r || !r.Paired || r.Output != want {
			t.Errorf("command %d: call %+v shows %+v, want its own output %q", i+1, c, c.Result, want)
		}
	}
	if p := s.Messages()[2].Parts[0]; p.Event.Kind != "thinking-level" || p.Text != "Thinking level: medium" {
		t.Errorf("thinking level change = %+v", p)
	}
	if p := s.Messages()[3].Parts[0]; p.Text != "Extension message: lint" {
		t.Errorf("hook message = %+v", p)
	}
}

func TestPiDetect(t *testing.T) {
	for _, c := range []struct {
		name, head string
		want       bool
	}{
		{"header", `{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}`, true},
		{"entries without a header", `{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}`, true},
		{"codex envelope", `{"timestamp":"2026-01-01T00:00:00Z","type":"session","payload":{"id":"x"}}`, false},
		{"typed message without a tree", `{"type":"message","role":"user","content":"hi"}`, false},
		{"claude record", `{"parentUuid":null,"sessionId":"s","type":"user","uuid":"u","timestamp":"2026-01-01T00:00:00Z","message":{}}`, false},
	} {
		h := &ingest.Head{Path: "x.jsonl", Data: []byte(c.head + "\n")}
		if got := detect(h) > 0; got != c.want {
			t.Errorf("%s: detected %v, want %v", c.name, got, c.want)
		}
		if r := ingest.Detect(h); c.want && r != Reader {
			t.Errorf("%s: read by %v, want pi", c.name, r)
		}
	}
}

func FuzzPi(f *testing.F) {
	ingesttest.SeedFuzz(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ingesttest.FuzzRead(t, Reader, "2026-01-01T00-00-00-000Z_x.jsonl", data)
	})
}

func TestPiLocations(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want ingest.Location
	}{
		{nil, ingest.Location{Name: "pi", Dir: "/home/u/.pi/agent/sessions"}},
		{map[string]string{"PI_CODING_AGENT_DIR": "/opt/pi"}, ingest.Location{Name: "pi", Dir: "/opt/pi/sessions"}},
	} {
		locs := Reader.Locations("/home/u", func(k string) string { return c.env[k] })
		if len(locs) != 1 || locs[0] != c.want {
			t.Errorf("env %v: locations %v, want %v", c.env, locs, c.want)
		}
	}
}
