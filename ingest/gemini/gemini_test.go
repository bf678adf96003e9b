package gemini

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/ingest/ingesttest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// shape describes each message as "role[~ if meta][@branch] part kinds".
func shape(s *transcript.Session) []string {
	var out []string
	for _, m := range s.Messages() {
		r := string(m.Role)
		if m.Meta {
			r += "~"
		}
		if m.Branch != "" {
			r += "@" + m.Branch
		}
		out = append(out, r+" "+ingesttest.Kinds(m))
	}
	return out
}

func wantShape(t *testing.T, s *transcript.Session, want []string) {
	t.Helper()
	if got := shape(s); !slices.Equal(got, want) {
		t.Errorf("messages:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestGeminiLog(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "log.jsonl")
	ingesttest.WantWarnings(t, warns,
		"log.jsonl:6: skipped: not a JSON object",
		"log.jsonl:8: skipped: not a JSON object",
		"log.jsonl:19: Unknown record: shown as an unknown event",
		`log.jsonl:20: Unknown message type "compression": shown as an unknown event`,
		"log.jsonl:21: incomplete last line skipped",
	)
	for _, c := range []struct{ name, got, want string }{
		{"id", s.ID, "7c0ffee0-1111-4222-8333-444455556666"},
		{"format", s.Format, "gemini-cli"},
		{"agent", s.Agent, "Gemini CLI"},
		{"title ($set summary)", s.Title, "Fix the red build"},
		{"project", s.Project, "aa11"},
		{"started", s.Started.Format("15:04:05"), "10:00:00"},
		{"ended", s.Ended.Format("15:04:05"), "10:02:30"},
		{"directories", s.Meta["directories"], `["/w","/w/lib"]`},
		{"kind", s.Meta["kind"], "main"},
		{"skipped", ingesttest.Skips(s), "functionResponse 1"}, // a result echoed in the next user record
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	wantShape(t, s, []string{
		"user~ text", // <session_context>
		"user text image text image",
		"assistant thinking call result call result call result call result call result call result",
		"assistant@g2 text call result", // rewound past: kept aside
		"system~@g2 event",
		"system~ event", // the rewind itself
		"user text",
		"assistant thinking text",
		"system~ event",
		"system~ event",
		"system~ event", // the unknown $future record
		"system~ event", // the unknown message type
	})
	if len(s.Turns) != 3 {
		t.Errorf("%d turns, want 3", len(s.Turns))
	}
	if want := []string{"gemini-3-pro", "gemini-3-flash"}; !slices.Equal(s.Models, want) {
		t.Errorf("models = %v, want %v", s.Models, want)
	}
	// g1 was written twice (tokens null, then the full record): it counts
	// once. Gemini's 3,500 input tokens hold the 2,700 cached ones; its 40
	// thoughts and 5 tool-use prompt tokens are counted apart.
	if want := (transcript.Usage{Input: 805, Output: 125, CacheRead: 2700, Reasoning: 40}); s.Usage != want {
		t.Errorf("usage = %+v, want %+v", s.Usage, want)
	}
	st := s.Stats()
	if st.Prompts != 2 || st.ToolCalls != 7 || st.Errors != 2 || st.Failed[transcript.ShellTool] != 1 {
		t.Errorf("stats = %+v, want 2 prompts, 7 calls, 2 errors, 1 failed shell command", st)
	}

	ms := s.Messages()
	checkGeminiLogImages(t, ms)
	checkGeminiLogCalls(t, ms)
	checkGeminiLogEvents(t, ms)
}

func checkGeminiLogImages(t *testing.T, ms []*transcript.Message) {
	if img := ms[1].Parts[1].Image; img == nil || img.MediaType != "image/png" || len(img.Data) != 71 {
		t.Errorf("inline image = %+v, want a 71-byte PNG (the bytes win over the jpeg label)", img)
	}
	if p := ms[1].Parts[2]; p.Text != "(application/pdf attachment, 13 bytes)" {
		t.Errorf("pdf attachment = %q", p.Text)
	}
	if img := ms[1].Parts[3].Image; img == nil || img.URL != "https://example.com/shot.png" {
		t.Errorf("fileData image = %+v", img)
	}
}

func checkGeminiLogCalls(t *testing.T, ms []*transcript.Message) {
	g1 := ms[2]
	if g1.Model != "gemini-3-pro" || g1.Parts[0].Text != "**Checking CI**\n\nLook at the failing job first." {
		t.Errorf("g1 model %q, thought %q", g1.Model, g1.Parts[0].Text)
	}
	for _, c := range []struct {
		part    int
		id      string
		kind    transcript.ToolKind
		output  string
		isError bool
		exit    int // -1: none
		images  int
	}{
		{1, "rf-1", transcript.ReadTool, "package main\n", false, -1, 0},
		// Gemini records a command that exits 1 as a success: its exit code says it failed.
		{3, "sh-1", transcript.ShellTool, "Command: go test ./...\nDirectory: (root)\nOutput: FAIL\nError: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4242", true, 1, 0},
		// The output the model saw; the diff is the result's patch.
		{5, "ed-1", transcript.EditTool, "Successfully modified file: /w/main.go (1 replacements).", false, -1, 0},
		{7, "wf-1", transcript.WebTool, "(tool call cancelled)", false, -1, 0},
		{9, "rm-1", transcript.ReadTool, "two files", false, -1, 1}, // a sibling's response is not its own
		// The exit code is the trailer's, not a line of the command's output.
		{11, "sh-2", transcript.ShellTool, "Command: ./check.sh\nDirectory: (root)\nOutput: the last run said:\nExit Code: 3\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4243", false, 0, 0},
	} {
		call := g1.Parts[c.part].Call
		if call == nil || call.ID != c.id || call.Kind != c.kind {
			t.Errorf("part %d = %+v, want call %s of kind %s", c.part, call, c.id, c.kind)
			continue
		}
		r := call.Result
		if r == nil || !r.Paired || r.Output != c.output || r.IsError != c.isError || len(r.Images) != c.images {
			t.Errorf("%s result = %+v, want output %q error %v images %d", c.id, r, c.output, c.isError, c.images)
			continue
		}
		if (r.ExitCode == nil) != (c.exit < 0) || r.ExitCode != nil && *r.ExitCode != c.exit {
			t.Errorf("%s exit code = %v, want %d", c.id, r.ExitCode, c.exit)
		}
	}
	if p := g1.Parts[5].Call.Result.Patch; len(p) != 1 || p[0].Path != "" || p[0].OldStart != 1 || !slices.Equal(p[0].Lines, []string{"-a", "+b"}) {
		t.Errorf("ed-1 patch = %+v", p)
	}
}

func checkGeminiLogEvents(t *testing.T, ms []*transcript.Message) {
	if ev := ms[4].Parts[0].Event; ev.Kind != transcript.Interrupt {
		t.Errorf("Request cancelled = %+v, want an interrupt", ev)
	}
	if ev := ms[5].Parts[0]; ev.Event.Kind != "rewind" || !strings.Contains(ev.Text, "2 records left") {
		t.Errorf("rewind event = %+v %q", ev.Event, ev.Text)
	}
	if g3 := ms[7]; g3.Parts[0].Text != "Thinking aloud" || g3.Parts[1].Text != "Done: the test now passes." {
		t.Errorf("g3 parts = %q, %q", g3.Parts[0].Text, g3.Parts[1].Text)
	}
	for i, kind := range map[int]string{8: "warning", 9: transcript.ErrorEvent, 10: transcript.Unknown, 11: transcript.Unknown} {
		if ev := ms[i].Parts[0].Event; ev.Kind != kind {
			t.Errorf("message %d event = %q, want %q", i, ev.Kind, kind)
		}
	}
	if raw := ms[10].Parts[0].Event.Raw; raw != `{"$future":{"x":1}}` {
		t.Errorf("unknown record raw = %q", raw)
	}
	if raw := ms[11].Parts[0].Event.Raw; !strings.Contains(raw, `"type":"compression"`) {
		t.Errorf("unknown message raw = %q", raw)
	}
}

func TestGeminiRewriteAndRewind(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "checkpointed.jsonl")
	ingesttest.WantWarnings(t, warns)
	// The $set checkpoint keeps c and d, adds s and ack, and drops a and b;
	// the rewind to an unknown id then clears the line, as upstream does.
	wantShape(t, s, []string{
		"user@a text",
		"assistant@a text",
		"user@c text",
		"assistant@c text",
		"system~@c event",
		"user~@c text", // <state_snapshot>
		"assistant@c text",
		"user@c text",
		"system~ event",
		"user text",
	})
	ms := s.Messages()
	if ms[2].Parts[0].Text != "three (masked)" {
		t.Errorf("c = %q, want the checkpoint's version", ms[2].Parts[0].Text)
	}
	if ev := ms[4].Parts[0]; ev.Event.Kind != transcript.Compaction || !strings.Contains(ev.Text, "2 earlier messages") {
		t.Errorf("checkpoint event = %+v %q", ev.Event, ev.Text)
	}
	if s.Ended.Format("15:04:05") != "12:00:07" {
		t.Errorf("ended = %v", s.Ended)
	}
}

func TestGeminiLegacy(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "legacy.json")
	ingesttest.WantWarnings(t, warns,
		"legacy.json: messages[1]: record kept without a field: thoughts: expected an array, found a string",
		"legacy.json: messages[4]: skipped: not a JSON object",
	)
	// Metadata after the messages still applies; m1 written twice keeps its
	// first place and its last content; m2's call, also in its content, shows
	// once; type "model" with parts is drift.
	if s.ID != "legacy-0001" || s.Title != "Find TODOs" || s.Meta["activeExtensionName"] != "conductor" {
		t.Errorf("session = %s %q %v", s.ID, s.Title, s.Meta)
	}
	wantShape(t, s, []string{"user text", "assistant call result", "assistant text"})
	if got := ingesttest.Skips(s); got != "functionCall 1" {
		t.Errorf("skipped %q, want the functionCall copy of m2's call", got)
	}
	ms := s.Messages()
	if ms[0].Parts[0].Text != "List the TODOs please" || ms[2].Parts[0].Text != "One TODO, in a.go." {
		t.Errorf("texts = %q, %q", ms[0].Parts[0].Text, ms[2].Parts[0].Text)
	}
	if !s.Usage.IsZero() || s.Started.Format("15:04:05") != "07:59:59" {
		t.Errorf("usage %+v (tokens null), started %v", s.Usage, s.Started)
	}

	s, warns = ingesttest.OneSession(t, "torn-legacy.json")
	ingesttest.WantWarnings(t, warns, "torn-legacy.json: gemini-cli: messages[1] is incomplete, the file ends early")
	if s.ID != "torn-0001" || len(s.Messages()) != 1 {
		t.Errorf("torn session %s has %d messages, want torn-0001 with 1", s.ID, len(s.Messages()))
	}
}

func TestGeminiCheckpoints(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "checkpoint-refactor.json")
	ingesttest.WantWarnings(t, warns)
	if s.ID != "checkpoint-refactor" || s.Title != "/chat save refactor" || s.Meta["authType"] != "gemini-api-key" {
		t.Errorf("session = %s %q %v", s.ID, s.Title, s.Meta)
	}
	wantShape(t, s, []string{
		"user~ text", // the environment bootstrap
		"assistant text",
		"user text",
		"assistant thinking call call",
		"tool result result",
		"assistant text",
	})
	// Calls without ids pair with responses by name, in order.
	ms := s.Messages()
	for i, want := range []struct {
		out     string
		isError bool
	}{{"a.go", false}, {"no match", true}} {
		r := ms[3].Parts[1+i].Call.Result
		if r == nil || r.Output != want.out || r.IsError != want.isError {
			t.Errorf("call %d result = %+v, want %q error=%v", i, r, want.out, want.isError)
		}
	}
	if st := s.Stats(); st.Prompts != 1 || len(s.Turns) != 2 {
		t.Errorf("%d prompts, %d turns, want 1 and 2", st.Prompts, len(s.Turns))
	}

	// One line, with a byte order mark: still a document, not a log.
	s, warns = ingesttest.OneSession(t, "checkpoint-minified.json")
	ingesttest.WantWarnings(t, warns)
	wantShape(t, s, []string{"user text", "assistant text"})
	if s.Title != "/chat save minified" {
		t.Errorf("title = %q", s.Title)
	}

	s, _ = ingesttest.OneSession(t, "bare-checkpoint.json")
	wantShape(t, s, []string{"user text", "assistant text event"})
	if ev := s.Messages()[1].Parts[1].Event; ev.Kind != transcript.Unknown || !strings.Contains(ev.Raw, "executableCode") {
		t.Errorf("unknown part = %+v", ev)
	}
}

func TestGeminiPromptLog(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "logs.json")
	ingesttest.WantWarnings(t, warns)
	if len(ss) != 2 || ss[0].ID != "s-a" || ss[1].ID != "s-b" {
		t.Fatalf("sessions = %v, want s-a and s-b", ss)
	}
	if st := ss[0].Stats(); st.Messages != 2 || st.Prompts != 2 || ss[0].FirstPrompt() != "first prompt" {
		t.Errorf("s-a stats %+v, first prompt %q", st, ss[0].FirstPrompt())
	}
	if got := ss[0].Ended.Format("15:04"); got != "09:05" {
		t.Errorf("s-a ended %s, want 09:05", got)
	}
	// The prompt log holds what the user typed, "Please continue." too.
	if st := ss[1].Stats(); st.Prompts != 2 {
		t.Errorf("s-b stats %+v, want 2 prompts", st)
	}
}

// The prompts Gemini CLI sends by itself to have the model go on are
// context: no prompt, no turn, no title.
func TestGeminiContinuation(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "continue.jsonl")
	ingesttest.WantWarnings(t, warns)
	var got []string
	for _, m := range s.Messages() {
		got = append(got, m.ID+" "+string(m.Role)+map[bool]string{true: "*"}[m.Meta])
	}
	want := []string{"c0 user*", "g0 assistant", "u1 user", "g1 assistant", "c1 user*", "g2 assistant", "c2 user*", "g3 assistant",
		"u2 user", "g4 assistant"}
	if !slices.Equal(got, want) {
		t.Errorf("messages = %q, want %q", got, want)
	}
	if st := s.Stats(); st.Prompts != 2 || len(s.Turns) != 3 {
		t.Errorf("%d prompts in %d turns, want 2 in 3 (the first holds what came before a prompt)", st.Prompts, len(s.Turns))
	}
	if p := s.FirstPrompt(); p != "Make the build script stop on the first error" {
		t.Errorf("first prompt = %q", p)
	}
	if n := len(s.Turns[1].Messages); n != 6 {
		t.Errorf("the first prompt's turn has %d messages, want 6: the model going on is part of it", n)
	}
}

// TestGeminiTree reads a ~/.gemini/tmp tree: a legacy session and the .jsonl
// it was migrated to, its subagent, logs.json and a checkpoint.
func TestGeminiTree(t *testing.T) {
	res, err := ingest.Load(context.Background(), ingest.Root{FS: os.DirFS("testdata/tree")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 || len(res.Sessions) != 3 {
		t.Fatalf("%d sessions, warnings %v; want 3 and none", len(res.Sessions), res.Warnings)
	}
	const parent, child = "aaaa1111-0000-4000-8000-000000000001", "bbbb2222-0000-4000-8000-000000000002"
	byID := ingesttest.ByID(res.Sessions)
	p, c, cp := byID[parent], byID[child], byID["checkpoint-before-fix"]
	if p == nil || c == nil || cp == nil {
		t.Fatalf("sessions %v", byID)
	}
	chats := "tmp/proj-one/chats/"
	if p.Source != chats+"session-2026-02-01T09-00-aaaa1111.jsonl" ||
		!slices.Equal(p.Sources, []string{chats + "session-2026-02-01T09-00-aaaa1111.json", "tmp/proj-one/logs.json"}) {
		t.Errorf("parent source %s, sources %v", p.Source, p.Sources)
	}
	// The info record only the legacy file has is merged in by time.
	wantShape(t, p, []string{"user text", "system~ event", "assistant text call result", "user text", "assistant text"})
	if p.Project != "proj-one" || c.Project != "proj-one" || cp.Project != "proj-one" {
		t.Errorf("projects %q %q %q, want proj-one", p.Project, c.Project, cp.Project)
	}
	if c.ParentID != parent || !slices.Equal(p.ChildIDs, []string{child}) || c.Meta["kind"] != "subagent" {
		t.Errorf("child parent %q, parent children %v, kind %q", c.ParentID, p.ChildIDs, c.Meta["kind"])
	}
	if call := p.Messages()[2].Parts[1].Call; call.Subagent != child || call.Kind != transcript.TaskTool {
		t.Errorf("delegate call = %+v", call)
	}
	if want := (transcript.Usage{Input: 200, Output: 15, CacheRead: 100}); p.Usage != want {
		t.Errorf("parent usage = %+v, want %+v", p.Usage, want)
	}
}

func TestGeminiDetect(t *testing.T) {
	long := `{"messages":[{"id":"m1","timestamp":"2025-01-01T00:00:00Z","type":"user","content":"` + strings.Repeat("x", ingest.HeadSize)
	for _, c := range []struct {
		name, head string
		want       bool
	}{
		{"jsonl metadata", `{"sessionId":"s","projectHash":"p","startTime":"t","kind":"main"}` + "\n", true},
		{"legacy document", "{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"p\",\n  \"messages\": []\n}", true},
		{"legacy messages first, cut by the head", long, true},
		{"log without its metadata line", `{"id":"u","timestamp":"t","type":"user","content":"hi"}` + "\n" + `{"$set":{"lastUpdated":"t"}}`, true},
		{"rewind", `{"$rewindTo":"m"}`, true},
		{"gemini message", `{"id":"g","type":"gemini","content":""}`, true},
		{"logs.json", `[{"sessionId":"s","messageId":0,"type":"user","message":"hi","timestamp":"t"}]`, true},
		{"checkpoint", `{"history":[{"role":"user","parts":[{"text":"hi"}]}],"authType":"x"}`, true},
		{"bare checkpoint", `[{"role":"model","parts":[{"text":"hi"}]}]`, true},
		{"claude record", `{"parentUuid":null,"sessionId":"s","type":"user","uuid":"u","message":{"content":"hi"}}`, false},
		{"claude queue operation", `{"type":"queue-operation","operation":"enqueue","sessionId":"s","timestamp":"t"}`, false},
		{"user message alone", `{"id":"u","timestamp":"t","type":"user","content":"hi"}`, false},
		{"$set alone", `{"$set":{"a":1}}`, false},
		{"history of other things", `{"history":[{"type":"user","text":"hi"}]}`, false},
		{"messages of other things", `{"messages":[{"info":{},"parts":[]}]}`, false},
		{"cursor transcript", `{"role":"user","message":{"content":[{"type":"text","text":"hi"}]}}`, false},
		{"array of strings", `["a","b"]`, false},
	} {
		if got := Reader.Detect(&ingest.Head{Path: "x", Data: []byte(c.head)}) > 0; got != c.want {
			t.Errorf("%s: detected %v, want %v", c.name, got, c.want)
		}
	}
}

// TestGeminiDetectCorpus checks detection on every corpus file: Gemini's
// files are claimed, no other format's are.
func TestGeminiDetectCorpus(t *testing.T) {
	if _, err := os.Stat(ingesttest.CorpusDir()); err != nil {
		t.Skip("no shared corpus beside the repository")
	}
	fsys := os.DirFS(ingesttest.CorpusDir())
	n := 0
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || ingesttest.NotSession(p) || strings.HasPrefix(p, "LICENSES/") {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		h, _, done, err := ingest.Sniff(p, bytes.NewReader(data))
		if err != nil {
			return nil
		}
		defer done()
		want := strings.HasPrefix(p, "gemini-cli/")
		if got := Reader.Detect(h) > 0; got != want {
			t.Errorf("%s: detected as Gemini = %v, want %v", p, got, want)
		}
		if want {
			n++
		}
		return nil
	})
	if n != 10 {
		t.Errorf("%d Gemini files in the corpus, want 10", n)
	}
}

func FuzzGemini(f *testing.F) {
	ingesttest.SeedFuzz(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ingesttest.FuzzRead(t, Reader, "tmp/p/chats/parent/child.jsonl", data)
	})
}

// TestGeminiReplay checks the log's upsert and rewind rules in sequence.
func TestGeminiReplay(t *testing.T) {
	msg := func(id, typ string) string {
		return `{"id":"` + id + `","timestamp":"2026-01-01T00:00:00Z","type":"` + typ + `","content":"` + id + `"}` + "\n"
	}
	log := `{"sessionId":"r","projectHash":"p"}` + "\n" +
		msg("a", "user") + msg("b", "gemini") + msg("c", "user") + msg("d", "gemini") +
		`{"$rewindTo":"c"}` + "\n" + // c and d leave; a and b stay
		msg("b", "gemini") + // b is still on the line: rewritten in place
		msg("e", "user") +
		`{"$rewindTo":"unknown"}` + "\n" + // everything leaves
		msg("c", "user") + // an id that left comes back as a new message
		`{"$rewindTo":"c"}` + "\n" +
		msg("f", "user")
	f := &ingest.File{Rel: "r.jsonl"}
	ss, err := Reader.Read(context.Background(), f, strings.NewReader(log))
	if err != nil || len(ss) != 1 || len(f.Warnings) != 0 {
		t.Fatalf("sessions %v, err %v, warnings %v", ss, err, f.Warnings)
	}
	wantShape(t, ss[0], []string{
		"user@a text",
		"assistant@a text",
		"user@c text",
		"assistant@c text",
		"system~@a event", // the first rewind, itself rewound by the second
		"user@a text",     // e
		"system~ event",
		"user@c text",
		"system~ event",
		"user text",
	})
	var texts []string
	for _, m := range ss[0].Messages() {
		texts = append(texts, m.Parts[0].Text)
	}
	if got := strings.Join(texts[:4], " "); got != "a b c d" {
		t.Errorf("first messages = %q, want a b c d in first-write order", got)
	}
}

// Gemini CLI named a project's folder by the SHA-256 of its root: the site
// names it after the root, found among the folders the session names.
func TestGeminiProjectName(t *testing.T) {
	hash := func(root string) string { sum := sha256.Sum256([]byte(root)); return hex.EncodeToString(sum[:]) }
	meta := func(project string) string {
		return `{"sessionId":"s1","projectHash":"` + project + `","startTime":"2026-01-16T18:34:00.000Z","lastUpdated":"2026-01-16T18:34:10.000Z","kind":"main"}` + "\n"
	}
	user := func(text string) string {
		b, _ := json.Marshal(map[string]any{"id": "u0", "timestamp": "2026-01-16T18:34:00.500Z", "type": "user", "content": []map[string]string{{"text": text}}})
		return string(b) + "\n"
	}
	read := func(path string) string {
		return `{"id":"g1","timestamp":"2026-01-16T18:34:02.000Z","type":"gemini","content":"","model":"gemini-3-flash-preview","toolCalls":[{"id":"rf-1","name":"read_file","args":{"absolute_path":"` + path + `"},"status":"success","result":[{"functionResponse":{"id":"rf-1","name":"read_file","response":{"output":"x"}}}]}]}` + "\n"
	}
	const prompt = `{"id":"u1","timestamp":"2026-01-16T18:34:01.000Z","type":"user","content":[{"text":"Why is the total wrong?"}]}` + "\n"
	for _, c := range []struct {
		name, file, doc, project, cwd string
	}{
		{"root of a tool's path", "session.jsonl", meta(hash("/home/ana/shop")) + prompt + read("/home/ana/shop/src/cart.ts"), "shop", "/home/ana/shop"},
		{"the folder the bootstrap names", "session.jsonl",
			meta(hash(`D:\Coding\PersonaPortfolio`)) + user("This is the Gemini CLI. We are setting up the context for our chat.\nMy operating system is: win32\nI'm currently working in the directory: D:\\Coding\\PersonaPortfolio\nHere is the folder structure") + prompt,
			"PersonaPortfolio", `D:\Coding\PersonaPortfolio`},
		{"its workspace directories", "session.jsonl",
			meta(hash("/home/dev/app")) + user("<session_context>\nThis is the Gemini CLI.\n- **Workspace Directories:**\n  - /home/dev/app\n  - /home/dev/lib\n- **Directory Structure:**\n</session_context>") + prompt,
			"app", "/home/dev/app"},
		{"paths outside the root", "session.jsonl", meta(hash("/srv/site")) + prompt + read("/etc/hosts"), hash("/srv/site")[:8], ""},
		{"a named project", ".gemini/tmp/my-app/chats/session.jsonl", meta(hash("/srv/my-app")) + prompt, "my-app", ""},
	} {
		ss, _ := ingesttest.ReadDoc(t, Reader, c.file, c.doc)
		if len(ss) != 1 || ss[0].Project != c.project || ss[0].CWD != c.cwd {
			for _, s := range ss {
				t.Errorf("%s: project %q, cwd %q; want %q, %q", c.name, s.Project, s.CWD, c.project, c.cwd)
			}
		}
	}
}
