package codelia

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/ingest/ingesttest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// roles lists the role of every message, with "*" after meta messages.
func roles(s *transcript.Session) string {
	var rs []string
	for _, m := range s.Messages() {
		r := string(m.Role)
		if m.Meta {
			r += "*"
		}
		rs = append(rs, r)
	}
	return strings.Join(rs, " ")
}

func TestCodeliaRun(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "run.jsonl")
	ingesttest.WantWarnings(t, warns, "run.jsonl:24: llm.response seq 2 repeated; the copy is skipped",
		`run.jsonl:30: Unknown record type "x.acme.audit": shown as an unknown event`,
		`run.jsonl:31: Unknown agent event "a_future_event": shown as an unknown event`)
	for _, c := range []struct{ name, got, want string }{
		{"id", s.ID, "sess-1"},
		{"agent", s.Agent, "codelia"},
		{"cwd", s.CWD, "/home/ana/shop"},
		{"version", s.AgentVersion, "0.5.0"}, // the client's, not the server's 0.5.1
		{"started", s.Started.Format("15:04:05"), "10:00:00"},
		{"ended", s.Ended.Format("15:04:05"), "10:00:26"},
		{"run", s.Meta["run"], "run-a"},
		{"tools", s.Meta["tool definitions"], "2: shell, read"},
		{"effort", s.Meta["reasoning effort"], "high"},
		{"platform", s.Meta["platform"], "darwin/arm64"},
		{"context", s.Meta["context left"], "88%"},
		{"roles", roles(s), "user system* assistant tool assistant tool system system* tool assistant system* system* system* system*"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if !slices.Equal(s.Models, []string{"openai/gpt-5"}) {
		t.Errorf("models = %v", s.Models)
	}
	// Three responses, each counted once; the repeated seq 2 is not. The
	// 3,500 input tokens hold the 2,200 read from and 50 written to the cache.
	if want := (transcript.Usage{Input: 1250, Output: 65, CacheRead: 2200, CacheWrite: 50}); s.Usage != want {
		t.Errorf("usage = %+v, want %+v", s.Usage, want)
	}
	if len(s.Turns) != 1 || s.Turns[0].Status != transcript.Completed {
		t.Fatalf("turns = %d, status %q: want one completed turn", len(s.Turns), s.Turns[0].Status)
	}
	st := s.Stats()
	if st.Prompts != 1 || st.ToolCalls != 3 || st.Errors != 0 {
		t.Errorf("stats = %+v", st)
	}

	ms := s.Messages()
	checkResponses(t, ms)
	checkEvents(t, ms, s)
}

func checkResponses(t *testing.T, ms []*transcript.Message) {
	if p := ms[0].Parts; len(p) != 2 || p[0].Text != "fix the cart total" || p[1].Image == nil || p[1].Image.MediaType != "image/png" {
		t.Errorf("prompt parts = %v, want text and a PNG (its bytes beat the jpeg label)", ingesttest.Kinds(ms[0]))
	}
	if ms[1].ID != systemPrompt || ms[1].Parts[0].Text != "You are codelia, a coding agent.\nFollow AGENTS.md." {
		t.Errorf("system prompt message = %+v", ms[1])
	}
	if got := ingesttest.Kinds(ms[2]); got != "thinking call" || ms[2].Model != "openai/gpt-5" {
		t.Errorf("first response = %q model %q", got, ms[2].Model)
	}
	read := ms[2].Parts[1].Call
	if read.Kind != transcript.ReadTool || read.Input != `{"path":"cart.ts"}` || read.Result == nil ||
		read.Result.Output != "export const total = (items) => sum(items)\n" || len(read.Result.Images) != 1 {
		t.Errorf("read call = %+v, result %+v (want the tool.output result with the event's screenshot)", read, read.Result)
	}
	// The hosted web search is told only by agent events: it joins the response.
	calls := ms[4].Parts
	if len(calls) != 2 || calls[0].Call.Name != "edit" || calls[1].Call.Name != "web_search" ||
		calls[1].Call.Kind != transcript.SearchTool || calls[1].Call.Result == nil {
		t.Errorf("second response = %q %+v", ingesttest.Kinds(ms[4]), calls)
	}
}

func checkEvents(t *testing.T, ms []*transcript.Message, s *transcript.Session) {
	if p := ms[6].Parts; len(p) != 2 || p[0].Event.Kind != "permission" ||
		p[0].Text != "Permission preview for edit cart.ts: 1 line changed (diff truncated)" ||
		p[1].Kind != transcript.CodePart || p[1].Lang != "diff" || p[1].Name != "cart.ts" {
		t.Errorf("permission preview = %q %+v", ingesttest.Kinds(ms[6]), p[0])
	}
	if got := ms[9].Parts; len(got) != 1 || got[0].Text != "The total now includes tax." {
		t.Errorf("final answer parts = %q: the final event and run.end copies must not add text", ingesttest.Kinds(ms[9]))
	}
	for i, want := range []struct{ kind, text string }{
		{transcript.Compaction, "Compacting the conversation"},
		{transcript.Compaction, "Conversation compacted"},
		{transcript.Unknown, `Unknown record type "x.acme.audit"`},
		{transcript.Unknown, `Unknown agent event "a_future_event"`},
	} {
		p := ms[10+i].Parts[0]
		if p.Event == nil || p.Event.Kind != want.kind || p.Text != want.text {
			t.Errorf("event %d = %+v %q, want %s %q", i, p.Event, p.Text, want.kind, want.text)
		}
	}
	if raw := ms[13].Parts[0].Event.Raw; !strings.Contains(raw, `"detail":"kept"`) {
		t.Errorf("unknown event raw = %q, want the whole record", raw)
	}
	// The prompt snapshots of llm.request are never the transcript.
	s.Parts(func(_ *transcript.Message, p *transcript.Part) {
		if strings.Contains(p.Text, "DECOY") || strings.Contains(p.Text, "a copy of seq 2") {
			t.Errorf("part %q comes from a record that must not be shown", p.Text)
		}
	})
}

func TestCodeliaAgentEventFallback(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "events.jsonl")
	ingesttest.WantWarnings(t, warns)
	// No session_id: the run is its own session.
	if s.ID != "run-b" || s.AgentVersion != "0.4.9" || s.CWD != "/srv/app" {
		t.Errorf("id %q version %q cwd %q", s.ID, s.AgentVersion, s.CWD)
	}
	if got, want := roles(s), "user assistant tool assistant tool assistant user* assistant system* system* system*"; got != want {
		t.Errorf("roles = %q, want %q", got, want)
	}
	if len(s.Turns) != 1 || s.Turns[0].Status != transcript.Aborted {
		t.Errorf("turns = %d status %q, want one aborted turn", len(s.Turns), s.Turns[0].Status)
	}
	ms := s.Messages()
	// The prompt's time has a +02:00 zone.
	if got := ms[0].Time.Format("15:04:05Z07:00"); got != "08:00:01Z" {
		t.Errorf("prompt time = %s", got)
	}
	if got := ingesttest.Kinds(ms[1]); got != "thinking call" || ms[1].Model != "anthropic/claude-sonnet-4-5" {
		t.Errorf("first assistant message = %q model %q", got, ms[1].Model)
	}
	todo := ms[1].Parts[1].Call
	if todo.Kind != transcript.TaskTool || todo.Input != "{}" || todo.Result == nil || todo.Result.Output != "1. ship it" {
		t.Errorf("todo_read = %+v, result %+v", todo, todo.Result)
	}
	if r := ms[3].Parts[0].Call.Result; r == nil || !r.IsError || r.Output != "ls: todo: No such file" {
		t.Errorf("shell result from the event = %+v", r)
	}
	if s.Stats().Errors != 1 {
		t.Errorf("errors = %d, want 1", s.Stats().Errors)
	}
	checkFallbackMessages(t, ms)
}

func checkFallbackMessages(t *testing.T, ms []*transcript.Message) {
	// final repeats the text event only when it says something new; the
	// tests' {"type":"final","text"} form is read too.
	var texts []string
	for _, m := range ms {
		if m.Role == transcript.Assistant {
			for _, p := range m.Parts {
				if p.Kind == transcript.TextPart {
					texts = append(texts, p.Text)
				}
			}
		}
	}
	if want := []string{"There is one todo.", "There is one todo: ship it.", "Permission request was denied. Turn stopped."}; !slices.Equal(texts, want) {
		t.Errorf("assistant texts = %q, want %q", texts, want)
	}
	if ms[6].Parts[0].Text != "<system-reminder>Resumed in /srv/app</system-reminder>" {
		t.Errorf("hidden user message = %q", ms[6].Parts[0].Text)
	}
	for i, want := range []string{"info:Run stopped: permission_denied", `status:Run status "awaiting_ui"`, "interrupt:Run cancelled: cancelled by user"} {
		p := ms[8+i].Parts[0]
		if got := p.Event.Kind + ":" + p.Text; got != want {
			t.Errorf("event %d = %q, want %q", i, got, want)
		}
	}
}

func TestCodeliaCrashedRun(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "crashed.jsonl")
	ingesttest.WantWarnings(t, warns, "crashed.jsonl:5: incomplete last line skipped")
	if s.Turns[0].Status != transcript.Incomplete {
		t.Errorf("status = %q, want incomplete: the run has no run.end", s.Turns[0].Status)
	}
	if got := roles(s); got != "user system* assistant" {
		t.Errorf("roles = %q", got)
	}
	if c := s.Messages()[2].Parts[0].Call; c == nil || c.Result != nil {
		t.Errorf("call = %+v, want a call that got no result", c)
	}
	if s.Usage.Input != 500 || s.Usage.Output != 12 {
		t.Errorf("usage = %+v", s.Usage)
	}
}

// At the step limit the final message is the last response with a prefix:
// a marker, not the summary twice.
func TestCodeliaMaxIterations(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "max-iterations.jsonl")
	ingesttest.WantWarnings(t, warns)
	if got := roles(s); got != "user assistant system*" {
		t.Fatalf("roles = %q", got)
	}
	ms := s.Messages()
	if len(ms[1].Parts) != 1 || ms[1].Parts[0].Text != "Migrated core and cli.\nStill pending: web." {
		t.Errorf("summary parts = %q", ingesttest.Kinds(ms[1]))
	}
	if p := ms[2].Parts[0]; p.Event.Kind != "info" || p.Text != "Max iterations reached" {
		t.Errorf("marker = %+v %q", p.Event, p.Text)
	}
}

func TestCodeliaBadLines(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "malformed.jsonl")
	ingesttest.WantWarnings(t, warns,
		"malformed.jsonl:2: skipped: not a JSON object",
		"malformed.jsonl:3: skipped: not a JSON object",
		"malformed.jsonl:4: skipped: outcome: expected a string, found a number",
		"malformed.jsonl:7: image data is not base64; skipped",
		"malformed.jsonl:8: Unknown agent event: shown as an unknown event",
	)
	if len(s.Warnings) != 5 {
		t.Errorf("session carries %d warnings, want 4", len(s.Warnings))
	}
	if got := roles(s); got != "user assistant system* system*" || s.Turns[0].Status != transcript.Failed {
		t.Errorf("roles = %q status %q", got, s.Turns[0].Status)
	}
	ms := s.Messages()
	if got := ingesttest.Kinds(ms[1]); got != "text image text code text" {
		t.Errorf("content parts = %q", got)
	}
	p := ms[1].Parts
	if p[0].Text != "(unreadable image)" || p[1].Image.URL != "https://example.com/chart.png" ||
		p[2].Text != "[document: application/pdf]" || p[3].Name != "anthropic/server_tool_use" ||
		p[3].Text != `{"name":"web_search"}` || p[4].Text != `{"type":"hologram","beam":1}` {
		t.Errorf("content parts = %+v %+v %+v %+v %+v", p[0], p[1], p[2], p[3], p[4])
	}
	if e := ms[2].Parts[0].Event; e.Kind != transcript.Unknown || !strings.Contains(e.Raw, `"event":"not an object"`) {
		t.Errorf("agent.event with a string event = %+v", e)
	}
	if p := ms[3].Parts[0]; p.Event.Kind != transcript.ErrorEvent || p.Text != "TypeError: x is undefined" {
		t.Errorf("run.error = %q", p.Text)
	}
}

func TestCodeliaMessagesLog(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "sessions/messages/sess-log.jsonl")
	ingesttest.WantWarnings(t, warns, "sessions/messages/sess-log.jsonl:8: Unknown line in the messages log: shown as an unknown event")
	if s.ID != "sess-log" || len(s.Turns) != 2 {
		t.Errorf("id %q, %d turns", s.ID, len(s.Turns))
	}
	if got, want := roles(s), "system* user* user assistant assistant tool assistant system* tool"; got != want {
		t.Errorf("roles = %q, want %q", got, want)
	}
	ms := s.Messages()
	if ms[2].Time.Format("15:04:05") != "15:00:00" || ms[4].Time.Format("15:04:05") != "15:00:05" || !ms[3].Time.IsZero() {
		t.Errorf("times = %v %v %v: message_ts as ISO and epoch ms, else none", ms[2].Time, ms[3].Time, ms[4].Time)
	}
	if got := ingesttest.Kinds(ms[2]); got != "text image" {
		t.Errorf("prompt = %q", got)
	}
	if ms[3].Parts[0].Kind != transcript.ThinkingPart {
		t.Errorf("reasoning line = %q", ingesttest.Kinds(ms[3]))
	}
	c := ms[4].Parts[0].Call
	if c.Kind != transcript.ReadTool || c.Result == nil || c.Result.Output != "chart.png (3x2)" || len(c.Result.Images) != 1 {
		t.Errorf("view_image call = %+v, result %+v", c, c.Result)
	}
	if e := ms[7].Parts[0].Event; e.Kind != transcript.Unknown || !strings.Contains(e.Raw, "developer") {
		t.Errorf("unknown role = %+v", e)
	}
	if r := ms[8].Parts[0].Result; !r.IsError || r.Paired {
		t.Errorf("orphan result = %+v, want an unpaired error", r)
	}
}

func TestCodeliaMerge(t *testing.T) {
	res, err := ingest.Load(context.Background(), ingest.Root{FS: os.DirFS("testdata")})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*transcript.Session{}
	sources := map[string]bool{}
	for _, s := range res.Sessions {
		if byID[s.ID] != nil {
			t.Errorf("two sessions %s", s.ID)
		}
		byID[s.ID] = s
		for _, src := range append([]string{s.Source}, s.Sources...) {
			sources[src] = true
		}
	}
	_ = fs.WalkDir(os.DirFS("testdata"), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !sources[p] {
			t.Errorf("%s is in no session", p)
		}
		return err
	})
	if len(res.Sessions) != 7 {
		t.Errorf("got %d sessions, want 7", len(res.Sessions))
	}

	s := byID["sess-merge"]
	if s == nil {
		t.Fatal("no merged session")
	}
	checkMerged(t, s, byID)
}

func checkMerged(t *testing.T, s *transcript.Session, byID map[string]*transcript.Session) {
	// Runs go by started_at, not by file name; the log and the crashed copy
	// of run-2 only add their paths.
	if s.Source != "sessions/2026/03/05/c3.jsonl" {
		t.Errorf("source = %s", s.Source)
	}
	wantSources := []string{"sessions/2026/03/05/a1.jsonl", "sessions/2026/03/05/b2.jsonl",
		"sessions/2026/03/05/a0-crashed.jsonl", "sessions/messages/sess-merge.jsonl"}
	if !slices.Equal(s.Sources, wantSources) {
		t.Errorf("sources = %q, want %q", s.Sources, wantSources)
	}
	var statuses, prompts []string
	for _, tu := range s.Turns {
		statuses = append(statuses, tu.Status)
		prompts = append(prompts, tu.Messages[0].Parts[0].Text)
	}
	if !slices.Equal(statuses, []string{"completed", "completed", "error"}) || !slices.Equal(prompts, []string{"first", "second", "third"}) {
		t.Errorf("turns = %q %q", statuses, prompts)
	}
	// The system prompt shows again only when it changed.
	var system []string
	s.Parts(func(m *transcript.Message, p *transcript.Part) {
		if m.ID == systemPrompt {
			system = append(system, p.Text)
		}
	})
	if !slices.Equal(system, []string{"Prompt one.", "Prompt two."}) {
		t.Errorf("system prompts = %q", system)
	}
	if !slices.Equal(s.Models, []string{"openai/gpt-5", "anthropic/claude-sonnet-4-5"}) {
		t.Errorf("models = %v", s.Models)
	}
	if s.Usage.Input != 30 || s.Meta["runs"] != "3" || s.Meta["run"] != "" || s.AgentVersion != "0.5.3" {
		t.Errorf("usage %+v, meta %v, version %s", s.Usage, s.Meta, s.AgentVersion)
	}
	if s.Started.Format("15:04:05") != "09:00:00" || s.Ended.Format("15:04:05") != "09:20:01" {
		t.Errorf("time range %v – %v", s.Started, s.Ended)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "a0-crashed.jsonl: another copy of run run-2") {
		t.Errorf("warnings = %q", s.Warnings)
	}
	if byID["sess-log"] == nil || byID["sess-log"].Source != "sessions/messages/sess-log.jsonl" {
		t.Error("a log without runs must stay a session of its own")
	}
}

func TestCodeliaDetect(t *testing.T) {
	header := `{"type":"header","schema_version":1,"run_id":"r","started_at":"2026-01-01T00:00:00Z"}` + "\n"
	long := `{"type":"header","schema_version":1,"run_id":"r","prompts":{"system":"` + strings.Repeat("x", 70<<10) + `"}}`
	log := `{"role":"user","content":"hi"}` + "\n" + `{"role":"assistant","content":null,"tool_calls":[]}` + "\n"
	for _, c := range []struct {
		name, path, data string
		want             bool
	}{
		{"run header", "a/b.jsonl", header, true},
		{"header line longer than the head", "a/b.jsonl", long, true},
		{"header without run_id", "a/b.jsonl", `{"type":"header","schema_version":1}`, false},
		{"header not first", "a/b.jsonl", `{"x":1}` + "\n" + header, false},
		{"log in sessions/messages", ".codelia/sessions/messages/s.jsonl", log, true},
		{"log at the content root", "sessions/messages/s.jsonl", log, true},
		{"log with a future role", "sessions/messages/s.jsonl", log + `{"role":"developer","content":"x"}`, true},
		{"log lines elsewhere", "notes/s.jsonl", log, false},
		{"log that is not JSONL", "sessions/messages/s.json", log, false},
		{"cursor transcript lines", "sessions/messages/s.jsonl", `{"role":"user","message":{"content":[]}}`, false},
		{"records with a type", "sessions/messages/s.jsonl", `{"role":"user","type":"user","content":"x"}`, false},
		{"roles only", "sessions/messages/s.jsonl", `{"role":"user"}`, false},
	} {
		h := &ingest.Head{Path: c.path, Data: []byte(c.data)}
		if len(h.Data) > ingest.HeadSize {
			h.Data = h.Data[:ingest.HeadSize]
		}
		if got := detect(h) > 0; got != c.want {
			t.Errorf("%s: detected %v, want %v", c.name, got, c.want)
		}
	}
}

// A header can be tens of KB (the system prompt, tool definitions): the
// reader must not cap lines.
func TestCodeliaHugeHeader(t *testing.T) {
	system := strings.Repeat("Follow the rules. ", 5000) // 90 KB
	data := `{"type":"header","schema_version":1,"run_id":"big","started_at":"2026-01-01T00:00:00Z","prompts":{"system":"` + system + `"}}` + "\n" +
		`{"type":"run.start","run_id":"big","ts":"2026-01-01T00:00:01Z","input":{"type":"text","text":"go"}}` + "\n"
	res, err := ingest.Load(context.Background(), ingest.Root{FS: fstest.MapFS{"big.jsonl": {Data: []byte(data)}}})
	if err != nil || len(res.Sessions) != 1 || len(res.Warnings) != 0 {
		t.Fatalf("sessions %d, warnings %v, err %v", len(res.Sessions), res.Warnings, err)
	}
	ms := res.Sessions[0].Messages()
	if len(ms) != 2 || ms[0].Parts[0].Text != "go" || ms[1].Parts[0].Text != system {
		t.Errorf("got %d messages", len(ms))
	}
}

// The corpus's crashed copy of a run, read alone, is an incomplete turn.
func TestCodeliaCorpusCrash(t *testing.T) {
	const name = "sessions/2026/02/03/SYNTHETIC_crashed_run_no_end.jsonl"
	if _, err := os.Stat(filepath.Join(ingesttest.CorpusDir(), name)); err != nil {
		t.Skip("no shared corpus beside the repository")
	}
	f := &ingest.File{Rel: name}
	_, ss := ingest.ReadFile(context.Background(), os.DirFS(ingesttest.CorpusDir()), name, f)
	if len(ss) != 1 || ss[0].Turns[0].Status != transcript.Incomplete {
		t.Fatalf("sessions = %v", ss)
	}
	if len(f.Warnings) != 1 || !strings.Contains(f.Warnings[0].Msg, "incomplete last line") {
		t.Errorf("warnings = %v", f.Warnings)
	}
}

func FuzzCodelia(f *testing.F) {
	ingesttest.SeedFuzz(f)
	_ = filepath.WalkDir("testdata/sessions", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
		return nil
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		ingesttest.FuzzRead(t, Reader, "sessions/messages/fuzz.jsonl", data)
	})
}
