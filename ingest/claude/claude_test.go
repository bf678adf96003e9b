package claude

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/ingest/ingesttest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

func TestClaudeSession(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "basic.jsonl")
	ingesttest.WantWarnings(t, warns, `basic.jsonl:12: Unknown record type "a-record-from-the-future": shown as an unknown event`)
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
		{"source", s.Source, "basic.jsonl"},
		{"started", s.Started.Format("15:04:05"), "10:00:00"},
		{"ended", s.Ended.Format("15:04:05"), "10:01:00"},
		{"skipped", ingesttest.Skips(s), "file-history-snapshot 1"},
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
	ms := s.Messages()

	st := s.Stats()
	if st.Messages != 10 || st.Prompts != 2 || st.ToolCalls != 2 || st.Errors != 1 || len(s.Turns) != 2 {
		t.Errorf("stats = %+v with %d turns, want 10 messages, 2 prompts, 2 calls, 1 error, 2 turns", st, len(s.Turns))
	}
	checkClaudeMessages(t, ms)
}

func checkClaudeMessages(t *testing.T, ms []*transcript.Message) {
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
	ss, warns := ingesttest.ReadFile(t, "malformed.jsonl")
	ingesttest.WantWarnings(t, warns,
		"malformed.jsonl:2: skipped: not a JSON object",
		"malformed.jsonl:3: skipped: not a JSON object",
		"malformed.jsonl:5: skipped: message: expected an object, found a string",
		"malformed.jsonl:8: incomplete last line skipped",
	)
	if len(ss) != 1 || ss[0].Stats().Messages != 3 {
		t.Fatalf("the good lines must still make a session of 3 messages: %v", ss)
	}
	if len(ss[0].Warnings) != 4 {
		t.Errorf("session carries %d warnings, want 4", len(ss[0].Warnings))
	}
}

func TestClaudeImages(t *testing.T) {
	ss, _ := ingesttest.ReadFile(t, "images.jsonl")
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

// describe summarises a message as role (with * when Meta), its part kinds
// and, for events, their kind: "user*:text", "system*:event(retry)".
func describe(m *transcript.Message) string {
	role := string(m.Role)
	if m.Meta {
		role += "*"
	}
	var ks []string
	for _, p := range m.Parts {
		k := string(p.Kind)
		if p.Event != nil {
			k += "(" + p.Event.Kind + ")"
		}
		ks = append(ks, k)
	}
	return role + ":" + strings.Join(ks, " ")
}

func TestClaudeRewind(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "rewind.jsonl")
	if len(warns) != 0 || len(ss) != 1 {
		t.Fatalf("%d sessions, warnings %v", len(ss), warns)
	}
	s := ss[0]
	// b1u and b1a were written last, but the user went back to the map
	// line: compaction continues it through logicalParentUuid, so they are
	// the abandoned branch, left from a1 (through the hook record h1). The
	// Grep result r2 ends a parallel call: a fork, but not a branch.
	want := []struct{ id, desc, branch string }{
		{"u1", "user:text", ""},
		{"a1", "assistant:text", ""},
		{"b2u", "user:text", ""},
		{"b2a-1", "assistant:call call", ""},
		{"r2", "tool:result", ""},
		{"r1", "tool:result", ""},
		{"b2a3", "assistant:text", ""},
		{"b1u", "user:text", "a1"},
		{"b1a", "assistant:text", "a1"},
		{"cb", "system*:event(compaction)", ""},
		{"cs", "user*:text", ""},
		{"p1u", "user:text", ""},
		{"p1a", "assistant:text", ""},
	}
	ms := s.Messages()
	if len(ms) != len(want) {
		t.Fatalf("got %d messages, want %d", len(ms), len(want))
	}
	for i, w := range want {
		if m := ms[i]; m.ID != w.id || describe(m) != w.desc || m.Branch != w.branch {
			t.Errorf("message %d = %s %s branch %q, want %s %s branch %q", i, m.ID, describe(m), m.Branch, w.id, w.desc, w.branch)
		}
	}
	if st := s.Stats(); st.Prompts != 4 || st.ToolCalls != 2 {
		t.Errorf("stats = %+v, want 4 prompts and 2 calls", st)
	}
	// The two lines of msg_b2 repeat its usage: it counts once.
	if want := (transcript.Usage{Input: 65, Output: 40}); s.Usage != want {
		t.Errorf("usage = %+v, want %+v", s.Usage, want)
	}
	if s.Title != "Cart storage" || s.Branch != "feat/cart" || s.AgentVersion != "2.1.3" {
		t.Errorf("title %q, branch %q, version %q", s.Title, s.Branch, s.AgentVersion)
	}
}

func TestClaudeTools(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "tools.jsonl")
	ingesttest.WantWarnings(t, warns, `tools.jsonl:23: Unknown content block "future_block": shown as an unknown event`)
	if len(ss) != 2 {
		t.Fatalf("%d sessions, warnings %v", len(ss), warns)
	}
	// The Agent call's subagent has no file: its agent_progress record is
	// all there is of it, and makes its session.
	if sub := ss[1]; sub.ID != "agent-cd34" || sub.ParentID != "tl-0001" || sub.Stats().Messages != 1 ||
		!strings.Contains(sub.Messages()[0].Parts[0].Text, "Reading docs") {
		t.Errorf("subagent from progress: %s parent %q, %d messages", sub.ID, sub.ParentID, sub.Stats().Messages)
	}
	calls := map[string]*transcript.ToolCall{}
	var unknown []string
	ss[0].Parts(func(_ *transcript.Message, p *transcript.Part) {
		if p.Call != nil {
			calls[p.Call.ID] = p.Call
		}
		if p.Event != nil && p.Event.Kind == transcript.Unknown {
			unknown = append(unknown, p.Event.Raw)
		}
	})
	checkClaudeToolResults(t, calls, unknown, ss)
}

func checkClaudeToolResults(t *testing.T, calls map[string]*transcript.ToolCall, unknown []string, ss []*transcript.Session) {
	code := func(n int) *int { return &n }
	for _, c := range []struct {
		id, output string
		exit       *int
		isError    bool
		images     int
		subagent   string
	}{
		{id: "toolu_ok", output: "ok\nwarning: unused", exit: code(0)},
		{id: "toolu_fail", output: "Exit code 2\nmain.go:3: undefined: x", exit: code(2), isError: true},
		{id: "toolu_int", output: "=== RUN TestA\n[interrupted]"},
		{id: "toolu_bo", output: "<status>completed</status>\nmade", exit: code(3)}, // stdout the model did not see, kept
		{id: "toolu_edit", output: "The file /src/a.go has been updated successfully."},
		{id: "toolu_read", output: "    10→func A() {}\n    11→func B() {}"},
		{id: "toolu_img", images: 1},                        // the copy in toolUseResult is not added
		{id: "toolu_img2", output: "Image read", images: 1}, // only toolUseResult has it
		{id: "toolu_task", output: "A is called from main.", subagent: "agent-ab12"},
		{id: "toolu_agent", output: "Docs are fine.", subagent: "agent-cd34"},
		{id: "srvtoolu_ws", output: "Go 1.26 Release Notes\nhttps://go.dev/doc/go1.26"},
		{id: "toolu_ts", output: "WebFetch\nWebSearch"},
		{id: "toolu_task2", output: "Notes drafted.\nagentId: ef56 (use SendMessage with to: 'ef56' to continue this agent)", subagent: "agent-ef56"},
	} {
		call := calls[c.id]
		if call == nil || call.Result == nil {
			t.Errorf("%s: no call or no result", c.id)
			continue
		}
		r := call.Result
		if r.Output != c.output || r.IsError != c.isError || len(r.Images) != c.images || call.Subagent != c.subagent {
			t.Errorf("%s: output %q error %v images %d subagent %q; want %q %v %d %q",
				c.id, r.Output, r.IsError, len(r.Images), call.Subagent, c.output, c.isError, c.images, c.subagent)
		}
		if (r.ExitCode == nil) != (c.exit == nil) || r.ExitCode != nil && *r.ExitCode != *c.exit {
			t.Errorf("%s: exit code %v, want %v", c.id, r.ExitCode, c.exit)
		}
	}
	// The edit's patch comes with its line numbers.
	if p := calls["toolu_edit"].Result.Patch; len(p) != 1 || p[0].OldStart != 1 || p[0].NewStart != 1 ||
		!slices.Equal(p[0].Lines, []string{" package a", "-var x = 1", "+var y = 1"}) {
		t.Errorf("edit patch = %+v", p)
	}
	if len(unknown) != 1 || !strings.Contains(unknown[0], `"future_block"`) {
		t.Errorf("unknown blocks = %q, want the future_block", unknown)
	}
	// The agent_progress copy of the subagent's message is no message here.
	if st := ss[0].Stats(); st.Messages != 26 || st.ToolCalls != 13 || ingesttest.Skips(ss[0]) != "progress/agent_progress 1" {
		t.Errorf("stats = %+v, skipped %s; want 26 messages and 13 calls", st, ingesttest.Skips(ss[0]))
	}
	// The Task result's usage is the subagent's, not this session's.
	if ss[0].Usage != (transcript.Usage{}) {
		t.Errorf("usage = %+v, want none", ss[0].Usage)
	}
}

func TestClaudeContext(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "context.jsonl")
	ingesttest.WantWarnings(t, warns, `context.jsonl:29: Unknown record type "brand-new-record": shown as an unknown event`)
	if len(ss) != 1 {
		t.Fatalf("%d sessions, warnings %v", len(ss), warns)
	}
	s := ss[0]
	want := []string{
		"user*:text",                // isMeta caveat
		"user:text",                 // <command-name>: the user typed /model
		"system:result",             // <local-command-stdout>: what /model printed
		"user*:text",                // the IDE context of the next prompt
		"user:text",                 // the prompt itself
		"assistant:text call",       //
		"tool:result",               // the Read result
		"user*:text",                // the reminder that came with it
		"user*:text",                // a skill body (isMeta)
		"assistant:text",            //
		"user:event(interrupt)",     // [Request interrupted by user]
		"user*:text",                // a teammate's message
		"user:text",                 // a prompt queued while the agent worked
		"user*:text",                // hook_additional_context
		"system*:event(hook)",       // hook_non_blocking_error
		"system*:event(retry)",      // api_error
		"system*:event(info)",       // turn_duration
		"system*:event(command)",    // local_command
		"system*:event(hook)",       // stop_hook_summary
		"system*:event(warning)",    // informational, by level
		"system*:event(error)",      // api_refusal
		"system*:event(error)",      // error
		"system*:event(compaction)", // the marker before a compaction summary
		"user*:text",                // the summary
		"assistant:event(error)",    // isApiErrorMessage
		"system*:event(unknown)",    // brand-new-record
	}
	ms := s.Messages()
	var got []string
	for _, m := range ms {
		got = append(got, describe(m))
	}
	if !slices.Equal(got, want) {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(ms) != len(want) {
		t.Fatalf("got %d messages", len(ms))
	}
	if ms[3].ID != "c4#context" || ms[4].ID != "c4" || ms[4].Parts[0].Text != "Why does A panic?" {
		t.Errorf("split prompt = %q %q %q", ms[3].ID, ms[4].ID, ms[4].Parts[0].Text)
	}
	for i, d := range map[int]string{
		14: "Stop hook failed (exit 1): make lint\nlint failed",
		15: "API error, retry 2 of 10: Overloaded",
		16: "Turn took 65.0 s",
		18: "Stop hooks ran (2)\nmake lint\nerror: lint failed\nprevented continuation: fix lint first",
		20: "The API refused the request: Refused for policy reasons.",
		21: "Rate limited",
	} {
		if got := ms[i].Parts[0].Text; got != d {
			t.Errorf("event %d = %q, want %q", i, got, d)
		}
	}
	if st := s.Stats(); len(s.Turns) != 4 || st.Prompts != 3 || st.Errors != 3 {
		t.Errorf("%d turns, stats %+v; want 4 turns, 3 prompts, 3 errors", len(s.Turns), st)
	}
	if ms[1].Parts[0].Text != "/model" || ms[2].Parts[0].Result.Output != "Set model to opus" || ms[17].Parts[0].Text != "/cost" {
		t.Errorf("command %q, its output %+v, local command %q", ms[1].Parts[0].Text, ms[2].Parts[0].Result, ms[17].Parts[0].Text)
	}
	if got, want := ingesttest.Skips(s), "attachment/deferred_tools_delta 1, file-history-snapshot 1, permission-mode 1, progress/hook_progress 1"; got != want {
		t.Errorf("skipped = %q, want %q", got, want)
	}
	if s.Models == nil || slices.Contains(s.Models, "<synthetic>") {
		t.Errorf("models = %v", s.Models)
	}
}

func TestClaudeTitles(t *testing.T) {
	ss, _ := ingesttest.ReadFile(t, "titles.jsonl")
	got := map[string]string{}
	for _, s := range ss {
		got[s.ID] = s.Title + " / " + s.Meta["title source"]
	}
	for id, want := range map[string]string{
		"t-one":   "Custom one, last / custom-title", // custom beats ai; the last one wins
		"t-two":   "AI two / ai-title",               // ai beats summary
		"t-three": "Summary of three / summary",      // the summary of its leaf
		"t-four":  "Summary of a session elsewhere / summary",
	} {
		if got[id] != want {
			t.Errorf("%s: title %q, want %q", id, got[id], want)
		}
	}
}

func TestClaudeWebExport(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "web.json")
	if len(warns) != 1 || !strings.HasPrefix(warns[0].String(), "web.json: loglines[3]: skipped: expected an object, found a number") {
		t.Errorf("warnings = %v", warns)
	}
	if len(ss) != 1 {
		t.Fatalf("got %d sessions", len(ss))
	}
	s := ss[0]
	if st := s.Stats(); s.ID != "web" || st.Messages != 4 || st.Prompts != 1 || st.ToolCalls != 1 {
		t.Errorf("session %s: %+v", s.ID, st)
	}
	if r := s.Messages()[1].Parts[1].Call.Result; r == nil || r.Output != "2 passing" {
		t.Errorf("result = %+v", r)
	}
	if s.Started.Format(time.TimeOnly) != "12:00:00" || s.Ended.Format(time.TimeOnly) != "12:00:12" {
		t.Errorf("times %v – %v", s.Started, s.Ended)
	}
}

// TestClaudeProject reads a project folder: subagents in both layouts, a
// companion .meta.json, and a session resumed in a second file.
func TestClaudeProject(t *testing.T) {
	res, err := ingest.Load(context.Background(), ingest.Root{FS: os.DirFS("testdata/project")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings: %v", res.Warnings)
	}
	byID := ingesttest.ByID(res.Sessions)
	if len(res.Sessions) != 5 || len(byID) != 5 {
		t.Fatalf("got sessions %v", slices.Collect(maps.Keys(byID)))
	}
	p := byID["p1"]
	if want := []string{"agent-cc33", "agent-aa11", "agent-bb22"}; !slices.Equal(p.ChildIDs, want) {
		t.Errorf("children = %v, want %v", p.ChildIDs, want)
	}
	// agent_progress repeats a subagent message: it is counted as skipped only.
	if st := p.Stats(); st.Messages != 6 || ingesttest.Skips(p) != "progress/agent_progress 1" {
		t.Errorf("parent: %+v, %v", st, ingesttest.Skips(p))
	}
	checkClaudeSubagents(t, p, byID)
	checkClaudeResumed(t, byID)
}

func checkClaudeSubagents(t *testing.T, p *transcript.Session, byID map[string]*transcript.Session) {
	subagents := map[string]string{}
	p.Parts(func(_ *transcript.Message, part *transcript.Part) {
		if part.Call != nil {
			subagents[part.Call.ID] = part.Call.Subagent
		}
	})
	for _, c := range []struct{ call, id, title, source string }{
		{"toolu_t1", "agent-aa11", "Scan the API handlers", "project/p1/subagents/agent-aa11.meta.json"}, // by the companion's toolUseId
		{"toolu_t2", "agent-bb22", "Check tests", ""},                                                    // by toolUseResult.agentId
		{"toolu_t3", "agent-cc33", "Read docs", ""},                                                      // by the progress record
	} {
		s := byID[c.id]
		if subagents[c.call] != c.id || s.ParentID != "p1" || s.Title != c.title || s.Stats().Messages != 2 {
			t.Errorf("%s: call links %q, parent %q, title %q, %d messages", c.id, subagents[c.call], s.ParentID, s.Title, s.Stats().Messages)
		}
		if c.source != "" && !slices.Contains(s.Sources, strings.TrimPrefix(c.source, "project/")) {
			t.Errorf("%s: sources %v lack its companion", c.id, s.Sources)
		}
	}
	if byID["agent-aa11"].Meta["agent type"] != "Explore" {
		t.Errorf("agent type = %q", byID["agent-aa11"].Meta["agent type"])
	}

}

func checkClaudeResumed(t *testing.T, byID map[string]*transcript.Session) {
	r := byID["r1"]
	var ids []string
	for _, m := range r.Messages() {
		ids = append(ids, m.ID)
	}
	// The resumed file repeats r-u2 and r-a2: each is kept once, in time
	// order. The prompt queued after r-a1 ("later") is in no record of its
	// own: it is shown where it was queued.
	if want := []string{"r-u1", "r-a1", "", "r-u2", "r-a2", "r-u3", "r-a3"}; !slices.Equal(ids, want) {
		t.Errorf("resumed messages = %v, want %v", ids, want)
	}
	if r.Source != "r1.jsonl" || !slices.Equal(r.Sources, []string{"r1-resumed.jsonl"}) {
		t.Errorf("source %q, sources %v", r.Source, r.Sources)
	}
	if r.Title != "Migration" || r.Skipped != nil || r.Usage.Input != 30 || r.Stats().Prompts != 4 {
		t.Errorf("title %q, skipped %v, usage %+v, %d prompts", r.Title, r.Skipped, r.Usage, r.Stats().Prompts)
	}
}

func TestClaudeDetectCompanions(t *testing.T) {
	for _, c := range []struct {
		path, head string
		want       bool
	}{
		{"p/s/subagents/agent-a1.meta.json", `{"agentType":"Explore","description":"d","toolUseId":"toolu_1"}`, true},
		{"p/agent-a1.meta.json", `{"agentType":"general-purpose"}`, true},
		{"p/notes.meta.json", `{"agentType":"Explore"}`, false}, // not an agent's companion
		{"p/agent-a1.meta.json", `{"description":"no agent type"}`, false},
		{"web.json", `{"loglines":[{"type":"user"}]}`, true},
		{"web.json", `{"lines":[]}`, false},
	} {
		if got := Reader.Detect(&ingest.Head{Path: c.path, Data: []byte(c.head)}) > 0; got != c.want {
			t.Errorf("%s %s: detected %v, want %v", c.path, c.head, got, c.want)
		}
	}
}

func FuzzClaude(f *testing.F) {
	ingesttest.SeedFuzz(f)
	ingesttest.SeedFuzz(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ingesttest.FuzzRead(t, Reader, "s.jsonl", data)
		ingesttest.FuzzRead(t, Reader, "s/subagents/agent-a1.jsonl", data)
		ingesttest.FuzzRead(t, Reader, "s/subagents/agent-a1.meta.json", data)
	})
}

// TestClaudeQueuedPrompts: a prompt typed while the agent works is queued
// (enqueue), then taken (dequeue, remove). A user record or a
// queued_command attachment usually carries it too; one nothing carries is
// shown where it was taken, and none is shown twice.
func TestClaudeQueuedPrompts(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "queue/q1.jsonl")
	ingesttest.WantWarnings(t, warns)
	s := ss[0]
	var got []string
	for _, m := range s.Messages() {
		d := describe(m)
		if m.Role == transcript.User && !m.Meta {
			d += " " + m.Parts[0].Text + " @" + m.Time.Format("05.000")
		}
		got = append(got, d)
	}
	want := []string{
		"user:text Fix the flaky test in cart_test.go @00.030", // the user record, not its queued copy
		"assistant:call",
		"tool:result",
		"user:text also run it with -race @05.100", // only the queue holds it: shown when taken
		"assistant:call",
		"tool:result",
		"user:text and commit @09.600", // the attachment carries it
		"assistant:text",
	}
	if !slices.Equal(got, want) {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st := s.Stats(); st.Prompts != 3 || s.Skipped != nil {
		t.Errorf("%d prompts, skipped %v; want 3 prompts", st.Prompts, s.Skipped)
	}
}

// TestClaudeWarmupSidechain: a sidechain file shares its parent's
// sessionId. Whatever it is called, it is the parent's subagent, never
// its main line or its title.
func TestClaudeWarmupSidechain(t *testing.T) {
	res, err := ingest.Load(context.Background(), ingest.Root{FS: os.DirFS("testdata/warmup")})
	if err != nil {
		t.Fatal(err)
	}
	byID := ingesttest.ByID(res.Sessions)
	main, warm := byID["w1"], byID["agent-5d1e0c2a"]
	if len(res.Sessions) != 2 || main == nil || warm == nil {
		t.Fatalf("sessions %v", slices.Collect(maps.Keys(byID)))
	}
	if main.Source != "w1.jsonl" || main.FirstPrompt() != "Why is the cart total wrong?" || main.Started.Format("04:05") != "00:10" ||
		len(main.Sources) != 0 || main.Stats().Messages != 2 {
		t.Errorf("main: source %s %v, first prompt %q, started %v, %d messages", main.Source, main.Sources, main.FirstPrompt(), main.Started, main.Stats().Messages)
	}
	if warm.ParentID != "w1" || !slices.Equal(main.ChildIDs, []string{"agent-5d1e0c2a"}) || warm.Source != "5d1e0c2a.jsonl" {
		t.Errorf("warm-up: parent %q, main's children %v, source %s", warm.ParentID, main.ChildIDs, warm.Source)
	}
}

// TestClaudeCompactionAgent: the agent that summarises a conversation for
// compaction is the parent's subagent, named for what it did, and the
// parent's compaction links to it.
func TestClaudeCompactionAgent(t *testing.T) {
	res, err := ingest.Load(context.Background(), ingest.Root{FS: os.DirFS("testdata/compact")})
	if err != nil {
		t.Fatal(err)
	}
	byID := ingesttest.ByID(res.Sessions)
	parent, agent := byID["c1"], byID["agent-acompact-7a3f1c"]
	if len(res.Sessions) != 2 || parent == nil || agent == nil {
		t.Fatalf("sessions %v", slices.Collect(maps.Keys(byID)))
	}
	if agent.Title != "Compaction of the conversation" || agent.Meta["agent type"] != "compaction" || agent.ParentID != "c1" ||
		!slices.Equal(parent.ChildIDs, []string{agent.ID}) {
		t.Errorf("agent %q (%v) parent %q; parent's children %v", agent.Title, agent.Meta, agent.ParentID, parent.ChildIDs)
	}
	var linked []string
	parent.Parts(func(_ *transcript.Message, p *transcript.Part) {
		if p.Event != nil && p.Event.Kind == transcript.Compaction {
			linked = append(linked, p.Event.Session)
		}
	})
	if !slices.Equal(linked, []string{agent.ID}) {
		t.Errorf("compactions link %q, want the agent", linked)
	}
}

// TestClaudeWorktree: an agent working in a worktree Claude Code made for
// it is of the repository's project, not a project named for the worktree.
func TestClaudeWorktree(t *testing.T) {
	ss, _ := ingesttest.ReadFile(t, "worktree.jsonl")
	if len(ss) != 1 || ss[0].Project != "shop" || ss[0].CWD != "/src/shop/.claude/worktrees/agent-ab12" {
		t.Fatalf("sessions %+v", ss)
	}
}

// TestClaudeRepeatedKeys: a key given twice keeps its last value, as a
// raw field did before content was decoded in the record's pass; a block
// that drifted (text a number) keeps the record and the other blocks.
func TestClaudeRepeatedKeys(t *testing.T) {
	rec := func(i int, body string) string {
		return fmt.Sprintf(`{"type":"user","sessionId":"s","uuid":"u%d","timestamp":"2025-07-01T00:00:0%dZ",%s}`, i, i, body)
	}
	doc := strings.Join([]string{
		rec(1, `"message":{"role":"user","content":"first","content":[{"type":"text","text":"second"}]}`),
		rec(2, `"message":{"role":"user","content":[{"type":"text","text":"first"}],"content":"third"}`),
		rec(3, `"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"first","content":[{"type":"text","text":"fourth"}]}]},"toolUseResult":"x","toolUseResult":{"stdout":"fourth"}`),
		rec(4, `"message":{"role":"user","content":[{"type":"text","text":5},{"type":"text","text":"fifth"}]}`),
	}, "\n")
	ss, warns := ingesttest.ReadDoc(t, Reader, "s.jsonl", doc)
	if len(warns) != 0 || len(ss) != 1 {
		t.Fatalf("%d sessions, warnings %v", len(ss), warns)
	}
	var got []string
	ss[0].Parts(func(_ *transcript.Message, p *transcript.Part) {
		if p.Result != nil {
			got = append(got, p.Result.Output)
		} else {
			got = append(got, p.Text)
		}
	})
	if want := []string{"second", "third", "fourth", "fifth"}; !slices.Equal(got, want) {
		t.Errorf("parts %q, want %q", got, want)
	}
}

// TestClaudeDriftedBlockKeepsReading: a block that drifted fails the
// record's one pass; the record is then read as json/v2 reads it with its
// content raw (a repeated "cwd" ends null, so empty), not as
// encoding/json would (which keeps the first "cwd").
func TestClaudeDriftedBlockKeepsReading(t *testing.T) {
	doc := `{"type":"user","sessionId":"s","uuid":"u1","cwd":"/a","timestamp":"2025-07-01T00:00:01Z",` +
		`"message":{"role":"user","content":[{"type":"text","text":7},{"type":"text","text":"kept"}]},"cwd":null}`
	ss, warns := ingesttest.ReadDoc(t, Reader, "s.jsonl", doc)
	if len(warns) != 0 || len(ss) != 1 {
		t.Fatalf("%d sessions, warnings %v", len(ss), warns)
	}
	if s := ss[0]; s.CWD != "" || s.FirstPrompt() != "kept" {
		t.Errorf("cwd %q, first prompt %q", s.CWD, s.FirstPrompt())
	}
}
