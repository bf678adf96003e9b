package domarkx

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/ingest/ingesttest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

func msgRoles(ms []*transcript.Message) string {
	var rs []string
	for _, m := range ms {
		rs = append(rs, string(m.Role))
	}
	return strings.Join(rs, " ")
}

func TestDomarkxDocument(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "session.md")
	ingesttest.WantWarnings(t, warns)
	for _, c := range []struct{ name, got, want string }{
		{"id", s.ID, "session.md"},
		{"format", s.Format, "domarkx"},
		{"agent", s.Agent, "domarkx"},
		{"title", s.Title, "Rename helper"},
		{"author", s.Meta["author"], "kim"},
		{"tags", s.Meta["tags"], `["refactor","python"]`},
		{"agent type", s.Meta["agent type"], "AssistantAgentState 1.0.0"},
		{"includes", s.Meta["includes"], "notes/context.md#-1"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	// The commented-out model line is not the client's model.
	if !slices.Equal(s.Models, []string{"vendor/model-a"}) {
		t.Errorf("models = %v", s.Models)
	}
	st := s.Stats()
	if st.Messages != 6 || st.Prompts != 1 || st.ToolCalls != 2 || st.Errors != 1 || len(s.Turns) != 2 {
		t.Errorf("stats = %+v with %d turns, want 6 messages, 1 prompt, 2 calls, 1 error, 2 turns", st, len(s.Turns))
	}
	ms := s.Messages()
	if got := msgRoles(ms); got != "system system user assistant tool assistant" {
		t.Errorf("roles = %q, want the setup, system_message, User, assistant, tool output and Reviewer", got)
	}

	checkDomarkxSetup(t, ms)
	checkDomarkxAssistant(t, ms)
	checkDomarkxReviewer(t, ms)
}

func checkDomarkxSetup(t *testing.T, ms []*transcript.Message) {
	setup := ms[0]
	if !setup.Meta || ingesttest.Kinds(setup) != "code code" || setup.Parts[0].Name != "session-config" ||
		setup.Parts[1].Lang != "python" || setup.Parts[1].Name != "setup-script" || !strings.Contains(setup.Parts[1].Text, `model="vendor/model-a"`) {
		t.Errorf("setup message = meta %v, parts %q, %+v", setup.Meta, ingesttest.Kinds(setup), setup.Parts)
	}
	if ms[1].Meta || ms[1].Parts[0].Text != "You are a careful coding assistant." {
		t.Errorf("system_message = %+v", ms[1].Parts[0])
	}
	if got := ms[2].Parts[0].Text; got != "Rename `helper` to `tidy` in util.py and run the tests.\n[include](notes/context.md#-1)" {
		t.Errorf("prompt = %q", got)
	}

}

func checkDomarkxAssistant(t *testing.T, ms []*transcript.Message) {
	a := ms[3]
	if got := ingesttest.Kinds(a); got != "thinking text code call call" || a.Model != "vendor/model-a" {
		t.Fatalf("assistant parts = %q, model %q", got, a.Model)
	}
	// exec_doc writes the thought as a quote inside the body: one more '>' per line.
	if got := a.Parts[0].Text; got != "First write the file,\nthen run the tests." {
		t.Errorf("thinking = %q", got)
	}
	if p := a.Parts[2]; p.Lang != "python" || p.Text != "def tidy(x):\n    return x.strip()" {
		t.Errorf("code = %+v", p)
	}
	write := a.Parts[3].Call
	wantInput := `{"path":"util.py","content":"# util\n` + "```python\\ndef tidy(x): return x.strip()  # <b>&</b>\\n```" + `"}`
	if write.ID != "session.md#61" || write.Name != "write_to_file" || write.Kind != transcript.WriteTool || write.Input != wantInput {
		t.Errorf("write call = %+v\nwant input %s", write, wantInput)
	}
	if r := write.Result; r == nil || r.Output != "File 'util.py' written." || r.IsError {
		t.Errorf("write result = %+v", r)
	}
	run := a.Parts[4].Call
	if run.Kind != transcript.ShellTool || run.Input != `{"command":"pytest -q"}` {
		t.Errorf("command call = %+v", run)
	}
	if r := run.Result; r == nil || !r.IsError || r.ExitCode == nil || *r.ExitCode != 2 || !strings.HasSuffix(r.Output, "--- 命令输出 (stdout) ---\n1 failed") {
		t.Errorf("command result = %+v", r)
	}
	if ms[4].StartsTurn() || ingesttest.Kinds(ms[4]) != "result result" {
		t.Errorf("tool output message: starts turn %v, parts %q", ms[4].StartsTurn(), ingesttest.Kinds(ms[4]))
	}

}

func checkDomarkxReviewer(t *testing.T, ms []*transcript.Message) {
	// A free-text speaker takes its role from the metadata's type and is shown.
	rev := ms[5]
	if rev.Role != transcript.Assistant || ingesttest.Kinds(rev) != "event event text" || rev.Parts[0].Text != "Reviewer" ||
		rev.Parts[1].Text != `{"source":"reviewer","type":"AssistantMessage"}` {
		t.Errorf("reviewer = %s %q %+v", rev.Role, ingesttest.Kinds(rev), rev.Parts)
	}
	if got := rev.Parts[2].Text; !strings.Contains(got, "mention <read_file> only as text") {
		t.Errorf("a tag without its closing tag must stay text: %q", got)
	}
}

func TestDomarkxToolPairing(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "tools.md")
	ingesttest.WantWarnings(t, warns)
	ms := s.Messages()
	if got := msgRoles(ms); got != "assistant user assistant tool" {
		t.Fatalf("roles = %q", got)
	}
	if c := ms[0].Parts[0].Call; c.Result != nil {
		t.Errorf("the call nobody ran must stay unanswered, got %+v", c.Result)
	}
	want := []struct{ id, input, output string }{
		{"tools.md#17", `{"path":"b.py"}`, "B"},
		{"tools.md#17.2", `{"path":"c.py"}`, "C"},
		{"tools.md#18", `{"command":"ls -la"}`, "total 0"}, // an unclosed parameter runs to the tool's end
	}
	if got := ingesttest.Kinds(ms[2]); got != "call call call text" {
		t.Fatalf("parts = %q", got)
	}
	for i, w := range want {
		c := ms[2].Parts[i].Call
		if c.ID != w.id || c.Input != w.input || c.Result == nil || c.Result.Output != w.output {
			t.Errorf("call %d = %+v result %+v, want %+v", i, c, c.Result, w)
		}
	}
	if got := ms[2].Parts[3].Text; got != "<read_file>see <path>x</path></read_file>" {
		t.Errorf("text between parameters makes it no call: %q", got)
	}
	orphan := ms[3].Parts[3].Result
	if orphan.Paired || orphan.CallID != "list_files" || orphan.Output != "nothing called this" {
		t.Errorf("unanswerable output = %+v", orphan)
	}
}

func TestDomarkxMalformed(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "malformed.md")
	ingesttest.WantWarnings(t, warns,
		"malformed.md:3: session-config is not a JSON object",
		"malformed.md:12: msg-metadata of \"user\" skipped",
		"malformed.md:18: text of message \"user\" outside its blockquote is kept",
		"malformed.md:20: message \"assistant\" has no blockquote body",
		"malformed.md:28: message \"odd speaker\" has no blockquote body: its unquoted text is kept",
		"malformed.md:30: code fence is never closed",
	)
	if len(s.Warnings) != 6 {
		t.Errorf("session carries %d warnings, want 6", len(s.Warnings))
	}
	ms := s.Messages()
	if got := msgRoles(ms); got != "system user assistant assistant user" {
		t.Fatalf("roles = %q", got)
	}
	if p := ms[0].Parts[0]; p.Kind != transcript.CodePart || !strings.Contains(p.Text, `"version": }`) {
		t.Errorf("an invalid session-config is still shown: %+v", p)
	}
	if got := ms[1].Parts[0].Text; got != "first line\nlazy continuation\n\nUnquoted note." {
		t.Errorf("user body = %q", got)
	}
	if len(ms[2].Parts) != 0 {
		t.Errorf("message without a body has parts %q", ingesttest.Kinds(ms[2]))
	}
	if p := ms[3].Parts[0]; p.Kind != transcript.CodePart || p.Lang != "python" || p.Text != "print(1)" {
		t.Errorf("quoted fence = %+v", p)
	}
	odd := ms[4]
	if ingesttest.Kinds(odd) != "event code" || odd.Parts[0].Text != "odd speaker" || odd.Parts[1].Text != "never closed\n## not a heading" {
		t.Errorf("odd speaker = %q %+v", ingesttest.Kinds(odd), odd.Parts)
	}
}

func TestDomarkxBadFrontMatter(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "badyaml.md")
	ingesttest.WantWarnings(t, warns, "badyaml.md:3: front matter is not valid YAML (mapping values are not allowed in this context): read as Markdown")
	ms := s.Messages()
	if s.Title != "" || len(ms) != 2 || !ms[0].Meta || !strings.Contains(ms[0].Parts[0].Text, "author: kim: lee") || ms[1].Parts[0].Text != "hi" {
		t.Errorf("title %q, messages %d: %+v", s.Title, len(ms), ms[0].Parts)
	}
}

func TestDomarkxSnapshot(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "snapshot.json")
	ingesttest.WantWarnings(t, warns,
		`snapshot.json:14: Unknown content block "image": shown as an unknown event`,
		"snapshot.json:19: message skipped: not a JSON object",
		"snapshot.json:20: msg-metadata of \"user\" skipped",
	)
	for _, c := range []struct{ name, got, want string }{
		{"id", s.ID, "snap-0001"},
		{"title", s.Title, "Fix the parser"},
		{"author", s.Meta["author"], "lee"},
		{"priority", s.Meta["priority"], "2"},
		{"config", s.Meta["config"], `{"llm_context":{},"tools":["roo_code"]}`},
		{"imported", s.Meta["imported"], "2025-11-14T10:45:00Z"},
		{"source file", s.Meta["source file"], "sessions/fix.md"},
		{"snapshot version", s.Meta["snapshot version"], "1.0"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if !slices.Equal(s.Models, []string{"vendor/model-b"}) {
		t.Errorf("models = %v", s.Models)
	}
	ms := s.Messages()
	if got := msgRoles(ms); got != "system system user assistant tool assistant" {
		t.Fatalf("roles = %q", got)
	}
	if setup := ms[0]; !setup.Meta || ingesttest.Kinds(setup) != "code code" || setup.Parts[0].Name != "execution_config" ||
		setup.Parts[1].Text != "client = make(model='vendor/model-b')" {
		t.Errorf("setup = %+v", setup.Parts)
	}
	if got := ms[2].Parts[0].Text; got != "Read parser.py please." || !ms[2].StartsTurn() {
		t.Errorf("content given as a string = %q", got)
	}
	a := ms[3]
	if got := ingesttest.Kinds(a); got != "thinking text call code event" {
		t.Fatalf("assistant parts = %q", got)
	}
	if a.Parts[0].Text != "Read it first." || a.Parts[3].Name != "parser.py" || a.Model != "vendor/model-b" {
		t.Errorf("assistant = %+v", a.Parts)
	}
	c := a.Parts[2].Call
	if c.ID != "snapshot.json#14" || c.Kind != transcript.ReadTool || c.Result == nil || c.Result.Output != "def parse(): ..." {
		t.Errorf("call = %+v result %+v", c, c.Result)
	}
	if ev := a.Parts[4].Event; ev.Kind != transcript.Unknown || !strings.Contains(ev.Raw, "x.png") {
		t.Errorf("unknown block = %+v", ev)
	}
	if critic := ms[5]; critic.Role != transcript.Assistant || ingesttest.Kinds(critic) != "event event text" || critic.Parts[0].Text != "critic" {
		t.Errorf("critic = %s %q", critic.Role, ingesttest.Kinds(critic))
	}
}

func TestDomarkxDetect(t *testing.T) {
	readme, err := os.ReadFile("testdata/readme.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, head string
		want       bool
	}{
		{"session-config", "```json session-config\n{}\n```\n", true},
		{"session-config after front matter", "---\ntitle: x\n---\n\n~~~~ json session-config\n{}\n~~~~\n", true},
		{"heading and msg-metadata", "Notes.\n\n## assistant\n\n```json msg-metadata\n{}\n```\n\n> hi\n", true},
		{"snapshot", `{"version":"1.0","snapshot_id":"s","execution_config":{},"conversation":[]}`, true},
		{"snapshot without config", `{"snapshot_id":"s","conversation":[{"role":"user"}]}`, true},
		{"README with a session-config under a heading", string(readme), false},
		{"quoted session-config", "> ```json session-config\n> {}\n> ```\n", false},
		{"msg-metadata without a heading", "```json msg-metadata\n{}\n```\n", false},
		{"heading then other code", "## user\n\n```json\n{}\n```\n", false},
		{"front matter comment", "---\n## user\n---\n```json\n{}\n```\n", false},
		{"snapshot_id alone", `{"snapshot_id":"s","messages":[]}`, false},
		{"array of snapshots", `[{"snapshot_id":"s","execution_config":{},"conversation":[]}]`, false},
		{"include line", "[include](a.md)\n", false},
	} {
		if got := detect(&ingest.Head{Path: "x", Data: []byte(c.head), EOF: true}) > 0; got != c.want {
			t.Errorf("%s: detected %v, want %v", c.name, got, c.want)
		}
	}
}

func FuzzDomarkx(f *testing.F) {
	ingesttest.SeedFuzz(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ingesttest.FuzzRead(t, Reader, "fuzz.md", data)
	})
}
