package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/klauspost/compress/zstd"
	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/ingest/ingesttest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

func TestCodexSession(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "basic.jsonl")
	ingesttest.WantWarnings(t, warns, `basic.jsonl:39: Unknown record type "future_thing": shown as an unknown event`,
		`basic.jsonl:40: Unknown event "brand_new_event": shown as an unknown event`)
	if len(ss) != 1 {
		t.Fatalf("got %d sessions, want 1", len(ss))
	}
	s := ss[0]
	for _, c := range []struct{ name, got, want string }{
		{"id", s.ID, "0199aaaa-0000-7000-8000-000000000001"},
		{"format", s.Format, "codex"},
		{"agent", s.Agent, "Codex CLI"},
		{"title", s.Title, "Cart total rounding"}, // named by thread_name_updated
		{"first prompt", s.FirstPrompt(), "Why is the cart total wrong?"},
		{"cwd", s.CWD, "/home/ana/shop"},
		{"branch", s.Branch, "fix/cart"},
		{"version", s.AgentVersion, "0.120.0"},
		{"models", strings.Join(s.Models, ","), "gpt-5.2-codex"},
		{"started", s.Started.Format("15:04:05.000"), "09:00:00.000"},
		{"ended", s.Ended.Format("15:04:05.000"), "09:02:02.000"},
		{"commit", s.Meta["git commit"], "c0ffee"},
		{"source", s.Meta["source"], "cli"},
		{"skipped", ingesttest.Skips(s), ""},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	// The last total, not the sum of four token_count events (one repeats).
	if want := (transcript.Usage{Input: 2000, Output: 200, CacheRead: 2000, Reasoning: 60}); s.Usage != want {
		t.Errorf("usage = %+v, want %+v", s.Usage, want)
	}
	ms := s.Messages()

	checkCodexMessages(t, s)
	checkCodexCalls(t, ms, s)
}

func checkCodexMessages(t *testing.T, s *transcript.Session) {
	st := s.Stats()
	if st.Messages != 15 || st.Prompts != 2 || st.ToolCalls != 6 || st.Errors != 3 || len(s.Turns) != 3 {
		t.Errorf("stats = %+v with %d turns, want 15 messages, 2 prompts, 6 calls, 3 errors, 3 turns", st, len(s.Turns))
	}
	for i, want := range []string{"", transcript.Completed, transcript.Aborted} {
		if got := s.Turns[i].Status; got != want {
			t.Errorf("turn %d status = %q, want %q", i, got, want)
		}
	}
	var got []string
	for _, m := range s.Messages() {
		got = append(got, string(m.Role)+map[bool]string{true: "*"}[m.Meta]+"("+ingesttest.Kinds(m)+")")
	}
	want := []string{
		"system*(text)", "user*(text text)", // permissions; AGENTS.md and environment
		"user(text image)", // the prompt: its event_msg copy is not repeated
		"assistant(thinking call result)", "assistant(thinking call result)",
		"assistant(call result)", "assistant(call result)", "assistant(call result text)",
		"user(text)", "assistant(call)", "system*(event)", "tool(result)",
		"user*(event text)", // compacted and context_compacted: one compaction
		"system*(event)", "system*(event)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

}

func checkCodexCalls(t *testing.T, ms []*transcript.Message, s *transcript.Session) {
	if u := ms[3].Usage; u != (transcript.Usage{Input: 200, Output: 50, CacheRead: 800, Reasoning: 20}) {
		t.Errorf("first response usage = %+v", u)
	}
	if img := ms[2].Parts[1].Image; img == nil || img.MediaType != "image/png" {
		t.Errorf("prompt image = %+v", img)
	}
	calls := map[string]*transcript.ToolCall{}
	s.Parts(func(_ *transcript.Message, p *transcript.Part) {
		if p.Call != nil {
			calls[p.Call.Name] = p.Call
		}
	})
	for _, c := range []struct {
		name   string
		kind   transcript.ToolKind
		isErr  bool
		exit   int // -1: none
		output string
	}{
		{"exec_command", transcript.ShellTool, false, 0, "cart.go:12: total += price\n"},  // unified exec header removed
		{"shell", transcript.ShellTool, true, 1, "--- FAIL: TestTotal\nFAIL\n"},           // JSON {output, metadata}
		{"apply_patch", transcript.EditTool, true, -1, "apply_patch verification failed"}, // patch_apply_end: success false
		{"mcp__docs__lookup", transcript.MCPTool, true, -1, "no such page"},               // mcp_tool_call_end: isError
		{"web_search", transcript.SearchTool, false, -1, "Floating point in Go https://example.org/floats\nUse integers for money."},
		{"local_shell_call", transcript.ShellTool, false, -1, "aborted by user"},
	} {
		call := calls[c.name]
		if call == nil || call.Kind != c.kind || call.Result == nil {
			t.Errorf("%s: call %+v, want kind %s with a result", c.name, call, c.kind)
			continue
		}
		r := call.Result
		exit := -1
		if r.ExitCode != nil {
			exit = *r.ExitCode
		}
		if r.IsError != c.isErr || exit != c.exit || r.Output != c.output {
			t.Errorf("%s result: error %v exit %d output %q; want %v %d %q", c.name, r.IsError, exit, r.Output, c.isErr, c.exit, c.output)
		}
	}
	if in := calls["apply_patch"].Input; !strings.HasPrefix(in, "*** Begin Patch\n") {
		t.Errorf("apply_patch input = %q, want the raw patch", in)
	}
	if sum := ms[12].Parts[1].Text; !strings.HasPrefix(sum, "Summary: cart totals used floats") {
		t.Errorf("compaction summary = %q", sum)
	}
	for i, want := range []string{"future_thing", "brand_new_event"} {
		if ev := ms[13+i].Parts[0].Event; ev == nil || ev.Kind != transcript.Unknown || !strings.Contains(ev.Raw, want) {
			t.Errorf("unknown record %s kept as %+v", want, ev)
		}
	}
}

func TestCodexLegacy(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "legacy.jsonl")
	if len(warns) != 0 || len(ss) != 1 {
		t.Fatalf("got %d sessions, warnings %v", len(ss), warns)
	}
	s := ss[0]
	if s.ID != "5c1d2e3f-0000-4000-8000-00000000beef" || s.Branch != "main" || s.Started.Format("2006-01-02 15:04") != "2025-06-02 14:00" {
		t.Errorf("session %s, branch %q, started %v", s.ID, s.Branch, s.Started)
	}
	if got, want := ingesttest.Skips(s), "record_type/state 2, response_item/reasoning (encrypted) 1"; got != want {
		t.Errorf("skipped = %q, want %q", got, want)
	}
	ms := s.Messages()
	if st := s.Stats(); st.Messages != 7 || st.Prompts != 1 || st.ToolCalls != 2 || st.Errors != 1 {
		t.Fatalf("stats = %+v, want 7 messages, 1 prompt, 2 calls, 1 error", st)
	}
	for i := range 3 { // instructions, <user_instructions>, <environment_context>
		if !ms[i].Meta || ms[i].StartsTurn() {
			t.Errorf("message %d (%q) is not injected context", i, ms[i].Parts[0].Text)
		}
	}
	if r := ms[4].Parts[0].Call.Result; r == nil || !r.IsError || !strings.HasPrefix(r.Output, "ls: db/migrations") {
		t.Errorf("{content, success:false} output = %+v", r)
	}
	if r := ms[5].Parts[0].Call.Result; r == nil || r.IsError || r.ExitCode == nil || *r.ExitCode != 0 || r.Output != "001_init.sql\n002_users.sql" {
		t.Errorf("Exit code header output = %+v", r)
	}
}

func TestCodexTypeScriptRollout(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "rollout-2025-04-20-ts.json")
	if len(warns) != 0 || len(ss) != 1 {
		t.Fatalf("got %d sessions, warnings %v", len(ss), warns)
	}
	s := ss[0]
	if s.ID != "ts-0001" || s.Format != "codex" || s.Stats().Messages != 3 {
		t.Fatalf("session %s (%s) with %d messages, want ts-0001 with 3", s.ID, s.Format, s.Stats().Messages)
	}
	if r := s.Messages()[1].Parts[0].Call.Result; r == nil || r.Output != "main.go:3: flag.Parse()" {
		t.Errorf("result = %+v", r)
	}
}

func TestCodexBadLines(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "malformed.jsonl")
	want := []string{
		"malformed.jsonl:2: skipped: not a JSON object",
		"malformed.jsonl:4: skipped: not a JSON object",
		"malformed.jsonl:5: skipped: summary: expected an array, found a string",
		"malformed.jsonl:8: incomplete last line skipped",
	}
	if len(warns) != len(want) {
		t.Fatalf("warnings %v, want %d", warns, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(warns[i].String(), want[i]) {
			t.Errorf("warning %d = %q, want prefix %q", i, warns[i], want[i])
		}
	}
	if len(ss) != 1 || ss[0].Stats().Messages != 2 || len(ss[0].Warnings) != 4 {
		t.Fatalf("the good lines must make a session of 2 messages carrying 4 warnings: %v", ss)
	}
}

func TestCodexFork(t *testing.T) {
	ss, _ := ingesttest.ReadFile(t, "fork.jsonl")
	if len(ss) != 1 {
		t.Fatalf("got %d sessions, want 1: copied history stays in the fork", len(ss))
	}
	s := ss[0]
	if s.ID != "F-1" || s.ParentID != "P-1" || s.AgentVersion != "0.130.0" {
		t.Errorf("fork %s parent %q version %s, want F-1, P-1 and its own version", s.ID, s.ParentID, s.AgentVersion)
	}
	ms := s.Messages()
	if ev := ms[0].Parts[0]; ev.Event == nil || ev.Text != "History copied from thread P-1" {
		t.Errorf("first message = %+v, want the copied-history marker", ev)
	}
	if st := s.Stats(); st.Messages != 5 || st.Prompts != 2 {
		t.Errorf("stats = %+v, want 5 messages, 2 prompts", st)
	}
}

func TestCodexSubagents(t *testing.T) {
	res, err := ingest.Load(context.Background(), ingest.Root{FS: os.DirFS("testdata")})
	if err != nil {
		t.Fatal(err)
	}
	byID := ingesttest.ByID(res.Sessions)
	p, child := byID["P-2"], byID["C-1"]
	if p == nil || child == nil || byID["C-3"] == nil {
		t.Fatalf("sessions %v", byID)
	}
	// C-1 in the same file, C-2 only named by collab_agent_spawn_end, C-3 (a
	// review) in another file that names P-2 as its parent.
	if want := []string{"C-1", "C-2", "C-3"}; !slices.Equal(p.ChildIDs, want) {
		t.Errorf("children = %v, want %v", p.ChildIDs, want)
	}
	if child.ParentID != "P-2" || child.Source != "spawn.jsonl" || child.Meta["source"] != "subagent thread_spawn" {
		t.Errorf("child parent %q source %q meta %v", child.ParentID, child.Source, child.Meta)
	}
	if byID["C-3"].ParentID != "P-2" || byID["C-3"].Meta["source"] != "subagent review" {
		t.Errorf("review %+v", byID["C-3"])
	}
	var subs []string
	p.Parts(func(_ *transcript.Message, part *transcript.Part) {
		if part.Call != nil {
			subs = append(subs, part.Call.Subagent)
		}
	})
	if want := []string{"C-1", "C-2"}; !slices.Equal(subs, want) {
		t.Errorf("spawn_agent calls started %v, want %v", subs, want)
	}
	// The parent's records after its child's are the parent's again.
	if st := p.Stats(); st.Messages != 4 || child.Stats().Messages != 2 {
		t.Errorf("parent has %d messages, child %d; want 4 and 2", st.Messages, child.Stats().Messages)
	}
}

// loadDir loads testdata/dir as a content dir, grouping and merging its
// files as a build does, and returns its sessions by id.
func loadDir(t *testing.T, dir string) map[string]*transcript.Session {
	t.Helper()
	res, err := ingest.Load(context.Background(), ingest.Root{FS: os.DirFS("testdata/" + dir)})
	if err != nil {
		t.Fatal(err)
	}
	byID := ingesttest.ByID(res.Sessions)
	return byID
}

// A /review's subagent writes its own rollout. Until parent_thread_id
// (0.12x) nothing in it names the parent: the /review that started it is
// the latest one before it, in a session of the same folder.
func TestCodexReviewSubagent(t *testing.T) {
	byID := loadDir(t, "review-tui")
	const parent, review, other = "019d4e00-0000-7000-8000-0000000000a1", "019d4e04-0000-7000-8000-0000000000b2", "019d4df0-0000-7000-8000-0000000000c3"
	p, r, o := byID[parent], byID[review], byID[other]
	if p == nil || r == nil || o == nil {
		t.Fatalf("sessions %v", slices.Collect(maps.Keys(byID)))
	}
	// The session ends with its last record, a token count.
	if got := p.Ended.Format("15:04:05.000"); got != "11:47:21.000" {
		t.Errorf("ended %s, want 11:47:21.000", got)
	}
	if r.ParentID != parent || !slices.Equal(p.ChildIDs, []string{review}) || len(o.ChildIDs) != 0 {
		t.Errorf("review's parent %q, children of the parent %v and of the other session %v", r.ParentID, p.ChildIDs, o.ChildIDs)
	}
	calls := callsOf(p, "review")
	if len(calls) != 1 || calls[0].Subagent != review || calls[0].Result == nil ||
		!strings.Contains(calls[0].Result.Output, "**[P2] Round half to even** (/home/ana/shop/cart.go:12-12)") {
		t.Fatalf("review calls %+v", calls)
	}
	if oc := callsOf(o, "review"); len(oc) != 1 || oc[0].Subagent != "" || oc[0].Result == nil || !strings.Contains(oc[0].Result.Output, "interrupted") {
		t.Errorf("the other session's review, 16 minutes earlier, = %+v", oc)
	}
	// The reviewer's prompt, forwarded into the parent, and the findings
	// handed back to the model are not prompts of the user.
	if st := p.Stats(); st.Prompts != 1 {
		var texts []string
		for _, m := range p.Messages() {
			if m.StartsTurn() {
				texts = append(texts, m.Parts[0].Text)
			}
		}
		t.Errorf("prompts %q, want only the one typed", texts)
	}
}

// MultiAgentV2's spawn_agent returns the agent path, not the thread id;
// the rollouts of its time hold prompts and replies only as turn items.
func TestCodexSpawnV2(t *testing.T) {
	byID := loadDir(t, "spawn-v2")
	const parent, child = "019e1000-0000-7000-8000-00000000d001", "019e1000-0000-7000-8000-00000000d002"
	p, c := byID[parent], byID[child]
	if p == nil || c == nil {
		t.Fatalf("sessions %v", slices.Collect(maps.Keys(byID)))
	}
	if spawns := callsOf(p, "spawn_agent"); len(spawns) != 1 || spawns[0].Subagent != child {
		t.Errorf("spawn_agent calls %+v, want one that started %s", spawns, child)
	}
	if c.ParentID != parent || !slices.Equal(p.ChildIDs, []string{child}) || c.Meta["agent path"] != "/root/scout" {
		t.Errorf("child's parent %q, parent's children %v, agent path %q", c.ParentID, p.ChildIDs, c.Meta["agent path"])
	}
	var got []string
	for _, m := range p.Messages() {
		got = append(got, string(m.Role)+map[bool]string{true: "*"}[m.Meta]+"("+ingesttest.Kinds(m)+")")
	}
	if want := []string{"user(text)", "user*(text)", "assistant(thinking call result)", "assistant(text)"}; !slices.Equal(got, want) {
		t.Errorf("parent's messages %q, want %q", got, want)
	}
	if p.FirstPrompt() != "Map the payment code, then fix the rounding bug" {
		t.Errorf("first prompt %q", p.FirstPrompt())
	}
	if c.Title != "Map the payment code" { // its task came as a message from its parent
		t.Errorf("child's title %q, want the task spawn_agent gave it", c.Title)
	}
	if ms := c.Messages(); len(ms) != 2 || ms[1].Parts[0].Text != "payments/ holds charge.go and refund.go; rounding is in charge.go." {
		t.Errorf("child's messages %+v", ms)
	}
	if ingesttest.Skips(p) != "" {
		t.Errorf("parent skipped %s", ingesttest.Skips(p))
	}
}

func TestCodexEvents(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "events.jsonl")
	if len(warns) != 0 || len(ss) != 1 {
		t.Fatalf("got %d sessions, warnings %v", len(ss), warns)
	}
	s := ss[0]
	if s.Usage != (transcript.Usage{Input: 100, Output: 20}) {
		t.Errorf("usage = %+v, want the 0.50 prompt/completion counts", s.Usage)
	}
	if len(s.Turns) != 2 || s.Turns[1].Status != transcript.Failed {
		t.Fatalf("turns %d, last status %q; want 2, error", len(s.Turns), s.Turns[len(s.Turns)-1].Status)
	}
	ms := s.Messages()
	var branches []string
	for _, m := range ms {
		branches = append(branches, m.Branch)
	}
	// thread_rolled_back dropped the second turn as it was then.
	if want := []string{"", "", "msg_a", "msg_a", "", "", "", "", "", "", ""}; !slices.Equal(branches, want) {
		t.Errorf("branches = %q, want %q", branches, want)
	}
	for i, want := range []struct{ kind, text string }{
		{"rewind", "Rolled back 1 turn"}, {transcript.ErrorEvent, "stream disconnected before completion"},
	} {
		if ev := ms[4+i].Parts[0]; ev.Event == nil || ev.Event.Kind != want.kind || ev.Text != want.text {
			t.Errorf("event %d = %+v %q, want %s %q", i, ev.Event, ev.Text, want.kind, want.text)
		}
	}
	checkCodexReview(t, ms)
}

func checkCodexReview(t *testing.T, ms []*transcript.Message) {
	// A /review is the call of its subagent; its findings are the result.
	review := ms[6].Parts[0].Call
	if ms[6].Meta || review == nil || review.Name != "review" || review.Kind != transcript.TaskTool ||
		!strings.Contains(review.Input, `"description":"Review current changes"`) {
		t.Fatalf("review = %+v", ms[6].Parts[0])
	}
	if r := review.Result; r == nil || !strings.Contains(r.Output, "**Nil map write** (/src/e/a.go:3-4)") {
		t.Errorf("review findings = %+v", r)
	}
	for _, i := range []int{7, 8} { // image_generation_call and a view_image output
		if r := ms[i].Parts[1].Result; r == nil || len(r.Images) != 1 || r.Images[0].MediaType != "image/png" {
			t.Errorf("message %d result = %+v, want one PNG", i, r)
		}
	}
	if m := ms[9]; !m.Meta || m.Parts[0].Text != "Message from /root/worker to /root" || m.Parts[1].Text != "worker done" {
		t.Errorf("inter-agent message = %q %q", m.Parts[0].Text, m.Parts[1].Text)
	}
	if ev := ms[10].Parts[0]; ev.Event == nil || ev.Event.Kind != transcript.ErrorEvent || ev.Text != "model overloaded" {
		t.Errorf("task_complete error = %+v", ev)
	}
}

func TestCodexZstd(t *testing.T) {
	plain, err := os.ReadFile("testdata/fork.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, _ := zstd.NewWriter(&buf)
	_, _ = w.Write(plain)
	_ = w.Close()
	noMeta := []byte(`{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":{"type":"message","role":"user","content":"hi"}}` + "\n")
	fsys := fstest.MapFS{
		"sessions/rollout-f.jsonl.zst":      {Data: buf.Bytes()},
		"archived_sessions/rollout-f.jsonl": {Data: plain},
		"sessions/rollout-other.jsonl":      {Data: bytes.ReplaceAll(plain, []byte("F-1"), []byte("F-2"))},
		"a/notes.jsonl":                     {Data: noMeta},
		"b/notes.jsonl":                     {Data: noMeta},
	}
	f := &ingest.File{Rel: "sessions/rollout-f.jsonl.zst"}
	r, ss := ingest.ReadFile(context.Background(), fsys, f.Rel, f)
	if r != Reader || len(ss) != 1 || ss[0].ID != "F-1" || ss[0].Stats().Messages != 5 {
		t.Fatalf("zstd rollout read by %v as %v (warnings %v)", r, ss, f.Warnings)
	}
	// The same rollout, compressed and archived, is one session; files
	// without a session_meta are never taken for copies of each other.
	res, err := ingest.Load(context.Background(), ingest.Root{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var merged *transcript.Session
	for _, s := range res.Sessions {
		ids = append(ids, s.ID)
		if s.ID == "F-1" {
			merged = s
		}
	}
	slices.Sort(ids)
	if want := []string{"F-1", "F-2", "notes", "notes"}; !slices.Equal(ids, want) {
		t.Fatalf("sessions %v, want %v", ids, want)
	}
	if s := merged; s.Source != "archived_sessions/rollout-f.jsonl" || !slices.Equal(s.Sources, []string{"sessions/rollout-f.jsonl.zst"}) {
		t.Errorf("merged session source %q, sources %v", s.Source, s.Sources)
	}
}

func TestCodexDetect(t *testing.T) {
	for _, c := range []struct {
		name, head string
		want       bool
	}{
		{"session_meta", `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}`, true},
		{"envelope with ordinal", `{"timestamp":"t","ordinal":3,"type":"event_msg","payload":{"type":"token_count"}}`, true},
		{"later envelope", `{"role":"user","message":"hi"}` + "\n" + `{"timestamp":"t","type":"world_state","payload":{}}`, true},
		{"mid-2025 with instructions", `{"id":"x","timestamp":"t","instructions":null,"git":null}`, true},
		{"mid-2025 bare items", `{"id":"x","timestamp":"t"}` + "\n" + `{"type":"message","role":"user","content":[]}`, true},
		{"mid-2025 state", `{"id":"x","timestamp":"t"}` + "\n" + `{"record_type":"state"}`, true},
		{"TypeScript CLI", "{\n  \"session\": {\"id\": \"x\"},\n  \"items\": []\n}", true},
		{"id and timestamp alone", `{"id":"x","timestamp":"t"}`, false},
		{"payload beside other keys", `{"type":"x","sessionId":"s","timestamp":"t","payload":{}}`, false},
		{"payload not an object", `{"timestamp":"t","type":"x","payload":"s"}`, false},
		{"array", `[{"timestamp":"t","type":"x","payload":{}}]`, false},
	} {
		if got := detect(&ingest.Head{Data: []byte(c.head)}) > 0; got != c.want {
			t.Errorf("%s: detected %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCodexOutput(t *testing.T) {
	cs := &thread{f: &ingest.File{}, s: &transcript.Session{}}
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	for _, c := range []struct {
		name, raw, want string
		exit            int // -1: none
		isErr           bool
	}{
		{"plain", js("ok\n"), "ok\n", -1, false},
		{"exit header", js("Exit code: 2\nWall time: 0.3 seconds\nOutput:\nboom"), "boom", 2, true},
		{"unified exec, running", js("Chunk ID: 1\nWall time: 1.0 seconds\nProcess running with session ID 7\nOriginal token count: 2\nOutput:\nwaiting"), "waiting", -1, false},
		{"header-like text", js("Wall time: is a phrase\nno output line"), "Wall time: is a phrase\nno output line", -1, false},
		{"JSON wrapper", js(js(map[string]any{"output": "x", "metadata": map[string]any{"exit_code": 3}})), "x", 3, true},
		{"JSON string, not a wrapper", js(`{"status":"ok"}`), `{"status":"ok"}`, -1, false},
		{"MCP blocks as a string", js(`[{"type":"text","text":"a"},{"type":"text","text":"b"}]`), "a\nb", -1, false},
		{"JSON array string", js(`[{"name":"a"}]`), `[{"name":"a"}]`, -1, false},
		{"content items", `[{"type":"input_text","text":"a"},{"type":"output_text","text":"b"}]`, "a\nb", -1, false},
		{"text keyed by its type", `[{"type":"output_text","output_text":"b"}]`, "b", -1, false},
		{"content and success", `{"content":"denied","success":false}`, "denied", -1, true},
		{"one content item", `{"type":"input_text","text":"one","image_url":null}`, "one", -1, false},
		{"other object", `{"weird":true}`, `{"weird":true}`, -1, false},
		{"null", `null`, "", -1, false},
	} {
		r := cs.output(1, "c", json.RawMessage(c.raw))
		exit := -1
		if r.ExitCode != nil {
			exit = *r.ExitCode
		}
		if r.Output != c.want || exit != c.exit || r.IsError != c.isErr || r.CallID != "c" {
			t.Errorf("%s: output %q exit %d error %v, want %q %d %v", c.name, r.Output, exit, r.IsError, c.want, c.exit, c.isErr)
		}
	}
}

func FuzzCodex(f *testing.F) {
	ingesttest.SeedFuzz(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ingesttest.FuzzRead(t, Reader, "rollout.jsonl", data)
	})
}

// TestCodexPatch: patch_apply_end reports where each change of an
// apply_patch landed, file by file; the page numbers the diff from it.
func TestCodexPatch(t *testing.T) {
	changes := `{"/w/src/b.go":{"update":{"unified_diff":"@@ -42 +42,2 @@\n-\tw.WriteHeader(429)\n+\tw.Header().Set(\"Retry-After\", s)\n+\tw.WriteHeader(429)\n@@ -90,3 +91,3 @@ func f() {\n x\n-y\n+z\n","move_path":null}},` +
		`"/w/src/a.md":{"add":{"content":"# New\nline\n"}}}`
	got := patchHunks(json.RawMessage(changes), "", "")
	want := []transcript.Hunk{
		{Path: "/w/src/a.md", NewStart: 1, Lines: []string{"+# New", "+line"}},
		{Path: "/w/src/b.go", OldStart: 42, NewStart: 42, Lines: []string{"-\tw.WriteHeader(429)", "+\tw.Header().Set(\"Retry-After\", s)", "+\tw.WriteHeader(429)"}},
		{Path: "/w/src/b.go", OldStart: 90, NewStart: 91, Lines: []string{" x", "-y", "+z"}, Heading: "func f() {"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("patch:\n%v\nwant\n%v", got, want)
	}
}
