package specstory

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/ingest/ingesttest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

func TestSpecStoryCodex(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "codex.json")
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	if len(ss) != 1 {
		t.Fatalf("got %d sessions, want 1", len(ss))
	}
	s := ss[0]
	for _, c := range []struct{ name, got, want string }{
		{"id", s.ID, "0199a1b2-0000-7000-8000-00000000c0de"},
		{"format", s.Format, "specstory"},
		{"agent", s.Agent, "Codex CLI"},
		{"version", s.AgentVersion, "0.146.0"},
		{"title", s.Title, "Fix the flaky cache test"},
		{"cwd", s.CWD, "/home/ana/cachelib"},
		{"started", s.Started.Format(time.RFC3339), "2026-03-02T09:00:00Z"},
		{"ended", s.Ended.Format(time.RFC3339), "2026-03-02T09:10:00Z"},
		{"provider", s.Meta["provider"], "codex-cli"},
		{"slug", s.Meta["slug"], "the-cache-test-fails-one"},
		{"path hints", s.Meta["path hints"], "cache, cache/cache_test.go"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if want := []string{"gpt-5-codex"}; !slices.Equal(s.Models, want) {
		t.Errorf("models = %v, want %v", s.Models, want)
	}
	// Codex's input_tokens, which SpecStory copies, hold the cached ones.
	if want := (transcript.Usage{Input: 1500, Output: 430, CacheRead: 17000, Reasoning: 120}); s.Usage != want {
		t.Errorf("usage = %+v, want %+v", s.Usage, want)
	}
	st := s.Stats()
	if st.Messages != 9 || st.Prompts != 2 || st.ToolCalls != 4 || st.Errors != 0 || len(s.Turns) != 2 || len(s.Turns[0].Messages) != 6 {
		t.Errorf("stats = %+v with %d turns, want 9 messages, 2 prompts, 4 calls, 2 turns of 6 and 3", st, len(s.Turns))
	}
	ms := s.Messages()
	if got := ingesttest.Kinds(ms[1]); got != "thinking" || ms[1].Role != transcript.Assistant || ms[1].Time.Format("05.000") != "05.250" {
		t.Errorf("reasoning message = %s %q at %v", ms[1].Role, got, ms[1].Time)
	}
	checkSpecStoryCodexTools(t, ms)
	checkSpecStoryCodexViews(t, ms)
}

func checkSpecStoryCodexTools(t *testing.T, ms []*transcript.Message) {
	for i, c := range []struct {
		msg    int
		kind   transcript.ToolKind
		output string
		exit   int // -1: none
	}{
		{2, transcript.ShellTool, "--- FAIL: TestExpiry (0.01s)\nFAIL", -1},                          // {"raw": …}
		{3, transcript.ShellTool, "cache/cache_test.go:41:\ttime.Sleep(10 * time.Millisecond)", 0},   // Codex's own JSON output
		{4, transcript.EditTool, "Success. Updated the following files:\nM cache/cache_test.go", -1}, // the output beside its formattedMarkdown
	} {
		m := ms[c.msg]
		if got := ingesttest.Kinds(m); got != "call result" {
			t.Fatalf("tool %d parts = %q, want call result", i, got)
		}
		call := m.Parts[0].Call
		r := call.Result
		if call.Kind != c.kind || r == nil || r != m.Parts[1].Result || !r.Paired || r.CallID != call.ID || r.Output != c.output {
			t.Errorf("tool %d = %+v, result %+v", i, call, r)
			continue
		}
		if (c.exit < 0) != (r.ExitCode == nil) || r.ExitCode != nil && *r.ExitCode != c.exit {
			t.Errorf("tool %d exit code = %v, want %d", i, r.ExitCode, c.exit)
		}
	}
	if in := ms[2].Parts[0].Call.Input; in != `{"cmd":"go test -count=20 ./cache"}` {
		t.Errorf("exec_command input = %s", in)
	}
}

func checkSpecStoryCodexViews(t *testing.T, ms []*transcript.Message) {
	// SpecStory's summary and formatted Markdown are the call's own view,
	// shown before what the tool was given and gave back.
	for _, c := range []struct {
		msg               int
		summary, markdown string
	}{
		{2, "Tool use: **exec_command** `go test -count=20 ./cache`", ""},
		{3, "", ""},
		{4, "", "Patched `cache/cache_test.go`: the test advances a fake clock."},
	} {
		if p := ms[c.msg].Parts[0]; p.Name != c.summary || p.Text != c.markdown {
			t.Errorf("message %d: summary %q, markdown %q; want %q, %q", c.msg, p.Name, p.Text, c.summary, c.markdown)
		}
	}
	// A call without output has no result; messages without a timestamp
	// take the exchange's start (user) or end (agent), whatever the key order.
	plan := ms[7].Parts[0].Call
	if plan.Name != "update_plan" || plan.Kind != transcript.TaskTool || plan.Result != nil || len(ms[7].Parts) != 1 {
		t.Errorf("update_plan = %+v in %q", plan, ingesttest.Kinds(ms[7]))
	}
	if ms[6].Time.Format("15:04") != "09:05" || ms[7].Time.Format("15:04") != "09:06" || ms[8].Time.Format("15:04") != "09:06" {
		t.Errorf("fallback times = %v %v %v", ms[6].Time, ms[7].Time, ms[8].Time)
	}
}

func TestSpecStoryClaude(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "claude.json")
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	if len(ss) != 1 {
		t.Fatalf("got %d sessions, want 1", len(ss))
	}
	s := ss[0]
	if s.Agent != "Claude Code" || s.AgentVersion != "" || s.Title != "" {
		t.Errorf("agent %q version %q title %q, want Claude Code, no version (\"unknown\"), no title", s.Agent, s.AgentVersion, s.Title)
	}
	// The thinking and the Bash call are blocks of one API response: its
	// usage is written on both and counts once.
	if want := (transcript.Usage{Input: 20, Output: 180, CacheRead: 49500, CacheWrite: 2000}); s.Usage != want {
		t.Errorf("usage = %+v, want %+v", s.Usage, want)
	}
	if want := []string{"claude-sonnet-4-5", "claude-haiku-4-5"}; !slices.Equal(s.Models, want) {
		t.Errorf("models = %v, want %v", s.Models, want)
	}
	// The third exchange has no messages: it makes no turn.
	st := s.Stats()
	if len(s.Turns) != 2 || st.Messages != 11 || st.Prompts != 1 || st.ToolCalls != 4 || st.Errors != 1 {
		t.Errorf("stats = %+v with %d turns, want 11 messages, 1 prompt, 4 calls, 1 error, 2 turns", st, len(s.Turns))
	}
	ms := s.Messages()
	checkSpecStoryClaudeMessages(t, ms)
}

func checkSpecStoryClaudeMessages(t *testing.T, ms []*transcript.Message) {
	bash := ms[2].Parts[0].Call
	if r := bash.Result; r == nil || !r.IsError || r.ExitCode == nil || *r.ExitCode != 2 {
		t.Errorf("bash result = %+v, want an error with exit code 2", r)
	}
	for _, c := range []struct {
		msg    int
		name   string
		kind   transcript.ToolKind
		output string
	}{
		{3, "Edit", transcript.EditTool, `{"type":"update","filePath":"/srv/app/main.go"}`},         // "write" that is an edit
		{4, "Read", transcript.ReadTool, `{"type":"text","filePath":"/srv/app/main.go"}`},           // the output beside its formattedMarkdown
		{6, "mcp__search__grep", transcript.MCPTool, `[{"type":"text","text":"no other callers"}]`}, // "unknown": by name
	} {
		call := ms[c.msg].Parts[0].Call
		if call.Name != c.name || call.Kind != c.kind || call.Result == nil || call.Result.Output != c.output {
			t.Errorf("message %d call = %+v, result %+v", c.msg, call, call.Result)
		}
	}
	if !ms[5].Sidechain || !ms[6].Sidechain || ms[4].Sidechain || ms[7].Sidechain {
		t.Errorf("sidechain flags = %v %v %v %v, want false true true false", ms[4].Sidechain, ms[5].Sidechain, ms[6].Sidechain, ms[7].Sidechain)
	}
	if !ms[8].Meta || ms[8].Role != transcript.User {
		t.Errorf("injected /clear = %s meta=%v, want a meta user message", ms[8].Role, ms[8].Meta)
	}
	if ev := ms[9].Parts[0].Event; ev == nil || ev.Kind != transcript.Interrupt {
		t.Errorf("interrupt = %+v", ms[9].Parts[0])
	}
	if got := ingesttest.Kinds(ms[10]); got != "event text" || ms[10].Parts[0].Event.Kind != "info" {
		t.Errorf("queued input parts = %q", got)
	}
}

func TestSpecStoryInvalid(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "invalid.json")
	want := []string{
		`:2: schemaVersion "1.1" is newer than 1.0, the version this reader knows: reading what it can`,
		`:3: provider.version is missing: the SessionData schema requires it`,
		`:4: createdAt: "yesterday" is not a date-time`,
		`:7: exchanges[0]: exchangeId is missing: the SessionData schema requires it`,
		`:9: exchanges[0].messages[0]: a user message needs at least one content part`,
		`:9: exchanges[0].messages[0]: a user message may not have a model`,
		`:10: exchanges[0].messages[1]: a user message may not have a tool`,
		`:10: exchanges[0].messages[1].content[0]: content type "image" is neither text nor thinking; kept as an unknown event`,
		`:11: exchanges[0].messages[2]: an agent message needs content, a tool or pathHints`,
		`:12: exchanges[0].messages[3]: role "model" is neither user nor agent; shown as a system message`,
		`:13: exchanges[0].messages[4]: expected an object, found a string; skipped`,
		`:14: exchanges[0].messages[5].timestamp: "soon" is not a date-time`,
		`:14: exchanges[0].messages[5].content[0]: a content part needs type and text`,
		`:14: exchanges[0].messages[5].tool: tool type "lookup" is not one of write, read, search, shell, task, generic, unknown`,
		`:15: exchanges[0].messages[6].pathHints: expected an array, found a string; ignored`,
		`:15: exchanges[0].messages[6].content[0].text: expected a string, found a number; ignored`,
		`:18: exchanges[1]: expected an object, found a number; skipped`,
		`:19: exchanges[2].messages: expected an array, found an object; skipped`,
		`: sessionId is missing: the SessionData schema requires it`,
	}
	ingesttest.CheckWarnings(t, warns, "invalid.json", want)
	// What the schema forbids is still shown.
	if len(ss) != 1 {
		t.Fatalf("got %d sessions, want 1", len(ss))
	}
	s := ss[0]
	if s.ID != "invalid" || s.Agent != "Gemini CLI" || s.Stats().Messages != 3 {
		t.Fatalf("session %q by %q with %d messages, want invalid by Gemini CLI with 3", s.ID, s.Agent, s.Stats().Messages)
	}
	ms := s.Messages()
	if got := ingesttest.Kinds(ms[0]); got != "event call" || ms[0].Parts[0].Event.Kind != transcript.Unknown || !strings.Contains(ms[0].Parts[0].Event.Raw, "cat.png") {
		t.Errorf("user message with an image part and a tool = %q %+v", got, ms[0].Parts[0].Event)
	}
	if ms[1].Role != transcript.System || !ms[1].Meta || ms[1].Parts[0].Text != "I am the model" {
		t.Errorf("message with role model = %s meta=%v %q", ms[1].Role, ms[1].Meta, ingesttest.Kinds(ms[1]))
	}
	grep := ms[2].Parts[0].Call
	if grep.Kind != transcript.SearchTool || grep.Result == nil || grep.Result.Output != "a.go:1: TODO" || grep.Result.IsError {
		t.Errorf("grep = %+v, result %+v", grep, grep.Result)
	}
}

func TestSpecStoryTruncated(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "truncated.json")
	ingesttest.CheckWarnings(t, warns, "truncated.json", []string{
		":14: the file ends in the middle of the document (the agent may still be writing it): read up to this line",
	})
	if len(ss) != 1 || ss[0].Stats().Messages != 2 || ss[0].Usage != (transcript.Usage{Input: 700, Output: 12, Reasoning: 30}) {
		t.Fatalf("the first exchange must still be read: %v", ss)
	}
	if ss[0].Agent != "Droid" || ss[0].AgentVersion != "0.9.1" || ss[0].ID != "droid-7" {
		t.Errorf("session = %q %q %q", ss[0].ID, ss[0].Agent, ss[0].AgentVersion)
	}
}

func TestSpecStoryDocuments(t *testing.T) {
	const exchange = `{"exchangeId":"e","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`
	for _, c := range []struct {
		name, doc string
		msgs      int
		warnings  []string
	}{
		{"older version", `{"schemaVersion":"0.9","provider":{"id":"p","name":"P","version":"1"},"sessionId":"s","createdAt":"2026-01-01T00:00:00Z","workspaceRoot":"/","exchanges":[` + exchange + `]}`,
			1, []string{`:1: schemaVersion "0.9" is not 1.0`}},
		{"version as a number", `{"schemaVersion":1,"provider":{"id":"p","name":"P","version":"1"},"sessionId":"s","createdAt":"2026-01-01T00:00:00Z","workspaceRoot":"/","exchanges":[` + exchange + `]}`,
			1, []string{`:1: schemaVersion: expected the string "1.0", found 1`}},
		{"syntax error", "{\"schemaVersion\":\"1.0\",\n\"exchanges\":[\n" + exchange + ",\n" + exchange + "\n{\"exchangeId\":\"x\"}]}",
			2, []string{":5: JSON syntax error: expected comma after array element; the rest of the file is skipped"}},
		{"provider and exchange of the wrong kind", `{"schemaVersion":"1.0","provider":["x"],"sessionId":"s","createdAt":"2026-01-01T00:00:00Z","workspaceRoot":"/","exchanges":[` + exchange + `]}`,
			1, []string{":1: provider: expected an object, found an array; ignored",
				":1: provider.id is missing: the SessionData schema requires it",
				":1: provider.name is missing: the SessionData schema requires it",
				":1: provider.version is missing: the SessionData schema requires it"}},
		{"not an object", `["schemaVersion"]`, 0, []string{":1: the document: expected an object, found an array; skipped"}},
		{"empty", ``, 0, []string{":1: the file ends in the middle of the document (the agent may still be writing it): read up to this line"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ss, warns := ingesttest.ReadDoc(t, Reader, "s.json", c.doc)
			ingesttest.CheckWarnings(t, warns, "s.json", c.warnings)
			n := 0
			for _, s := range ss {
				n += s.Stats().Messages
			}
			if n != c.msgs {
				t.Errorf("%d messages, want %d", n, c.msgs)
			}
		})
	}
}

func FuzzSpecStory(f *testing.F) {
	ingesttest.SeedFuzz(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ingesttest.FuzzRead(t, Reader, "session-data.json", data)
	})
}

// Each provider's counts, as SpecStory copies them, come out the same way:
// input not read from the cache, output with its reasoning.
func TestSpecStoryUsage(t *testing.T) {
	for _, c := range []struct {
		provider, usage string
		want            transcript.Usage
	}{
		{"claude", `{"inputTokens":12,"outputTokens":300,"cacheCreationInputTokens":2000,"cacheReadInputTokens":40000}`,
			transcript.Usage{Input: 12, Output: 300, CacheRead: 40000, CacheWrite: 2000}},
		{"codex", `{"inputTokens":10176,"outputTokens":260,"cachedInputTokens":8576,"reasoningOutputTokens":65}`,
			transcript.Usage{Input: 1600, Output: 260, CacheRead: 8576, Reasoning: 65}},
		{"gemini", `{"inputTokens":11855,"outputTokens":81,"cachedTokens":9000,"thoughtTokens":120,"toolTokens":7}`,
			transcript.Usage{Input: 2862, Output: 201, CacheRead: 9000, Reasoning: 120}},
		{"droid", `{"inputTokens":500,"outputTokens":90,"cacheCreationInputTokens":100,"cacheReadInputTokens":7000,"thinkingTokens":30}`,
			transcript.Usage{Input: 500, Output: 90, CacheRead: 7000, CacheWrite: 100, Reasoning: 30}},
	} {
		var u dataUsage
		if err := json.Unmarshal([]byte(c.usage), &u); err != nil {
			t.Fatal(err)
		}
		if got := u.usage(); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.provider, got, c.want)
		}
	}
}

// Fields the reader does not show are listed with a reason, not dropped
// unseen.
func TestSpecStorySkipped(t *testing.T) {
	ss, _ := ingesttest.ReadDoc(t, Reader, "session-data.json", `{"schemaVersion":"1.0","provider":{"id":"cursoride","name":"Cursor","version":"2.1"},
"sessionId":"s1","createdAt":"2026-03-02T09:00:00Z","workspaceRoot":"/w","futureSummary":"What we did",
"exchanges":[{"exchangeId":"s1:0","metadata":{"mode":"agent"},"rating":5,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}]}`)
	if len(ss) != 1 {
		t.Fatalf("got %d sessions", len(ss))
	}
	if got, want := ingesttest.Skips(ss[0]), "exchange/metadata 1, exchange/rating 1, futureSummary 1"; got != want {
		t.Errorf("skipped %q, want %q", got, want)
	}
}
