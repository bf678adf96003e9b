package specstory

import (
	"slices"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/ingest/ingesttest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

func TestSpecStoryMarkdown(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "history.md")
	ingesttest.WantWarnings(t, warns, "history.md:94: the shell_command tool block is not closed")
	for _, c := range []struct{ name, got, want string }{
		{"id", s.ID, "019a0000-0000-7000-8000-00000000abcd"},
		{"format", s.Format, "specstory"},
		{"agent", s.Agent, "Codex CLI"}, // the session's agent; SpecStory rendered it
		{"title", s.Title, ""},          // v2 titles are only the date
		{"started", s.Started.Format("2006-01-02 15:04:05"), "2026-02-03 08:00:00"},
		{"ended", s.Ended.Format("15:04:05"), "08:01:05"},
		{"models", strings.Join(s.Models, ","), "gpt-5-codex,gpt-5-mini"},
		{"version", s.Meta["markdown version"], "v2.1.0"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	want := []string{"user(text)", "assistant(thinking call result)", "assistant(call result)", "assistant(call result call)",
		"assistant(text)", "user*(text)", "assistant(call result)"}
	if got := ingesttest.Describe(s); !slices.Equal(got, want) {
		t.Fatalf("messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	ms := s.Messages()
	if ms[0].ID != "u-1" || ms[0].Parts[0].Text != "Why does `make` fail?" {
		t.Errorf("prompt %q: %q", ms[0].ID, ms[0].Parts[0].Text)
	}
	if got := ms[1].Parts[0].Text; got != "Run make first.\n\nThen read the error." {
		t.Errorf("thinking = %q", got)
	}
	if !ms[3].Sidechain || ms[3].Model != "gpt-5-mini" || !ms[3].Time.IsZero() {
		t.Errorf("sidechain message: sidechain %v, model %q, time %v", ms[3].Sidechain, ms[3].Model, ms[3].Time)
	}
	// The "---" between speakers is dropped; one inside an answer is kept.
	if got := ms[4].Parts[0].Text; got != "`main.c` had no `main`; fixed.\n\n---\n\nA rule inside the answer, kept." {
		t.Errorf("answer = %q", got)
	}
	for _, c := range []struct {
		call   *transcript.ToolCall
		kind   transcript.ToolKind
		input  string
		output string
		isErr  bool
		exit   int
	}{
		{ms[1].Parts[1].Call, transcript.ShellTool, `{"command":"make","description":"Build the project"}`, "Exit code 2\nmake: *** [all] Error 2", false, 2},
		{ms[2].Parts[0].Call, transcript.ReadTool, `{"file_path":"Makefile"}`, "all:\n\tcc -o app main.c", false, -1},
		{ms[3].Parts[0].Call, transcript.OtherTool, `{"notes":"line one\nline two","query":"cc flags"}`, "lookup is offline", true, -1},
	} {
		r := c.call.Result
		if c.call.Kind != c.kind || c.call.Input != c.input || r == nil || r.Output != c.output || r.IsError != c.isErr || !r.Paired {
			t.Errorf("%s: kind %s, input %s, result %+v", c.call.Name, c.call.Kind, c.call.Input, r)
			continue
		}
		if (c.exit < 0) != (r.ExitCode == nil) || r.ExitCode != nil && *r.ExitCode != c.exit {
			t.Errorf("%s: exit code %v, want %d", c.call.Name, r.ExitCode, c.exit)
		}
	}
	if w := ms[3].Parts[2].Call; w.Kind != transcript.WriteTool || w.Input != `{"content":"int main(void) { return 0; }","description":"Write the fix"}` || w.Result != nil {
		t.Errorf("write call = %+v", w)
	}
	// The file ends inside a block: what it holds is kept.
	if r := ms[6].Parts[0].Call.Result; r == nil || r.Output != "make: building" {
		t.Errorf("last call's result = %+v", r)
	}
}

func TestSpecStoryMarkdownExtension(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "extension.md")
	ingesttest.WantWarnings(t, warns)
	if s.ID != "extension" || s.Title != "Rename the flag" || s.Started.Format("2006-01-02 15:04:05") != "2025-01-02 09:10:11" || s.Agent != "SpecStory" {
		t.Errorf("session %q %q %v %q", s.ID, s.Title, s.Started, s.Agent)
	}
	if got := ingesttest.Describe(s); !slices.Equal(got, []string{"user(text)", "assistant(text)"}) {
		t.Errorf("messages %v", got)
	}
}

func FuzzSpecStoryMarkdown(f *testing.F) {
	ingesttest.SeedFuzz(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ingesttest.FuzzRead(t, MarkdownReader, "history.md", data)
	})
}
