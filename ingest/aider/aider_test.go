package aider

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/ingest/ingesttest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

func TestAiderHistory(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, ".aider.chat.history.md")
	ingesttest.WantWarnings(t, warns)
	var ids []string
	for _, s := range ss {
		ids = append(ids, s.ID)
		if s.Format != "aider" || s.Agent != "Aider" {
			t.Errorf("%s: format %q, agent %q", s.ID, s.Format, s.Agent)
		}
	}
	// The file begins mid-session; a session with a header alone is left out;
	// two headers of the same second stay apart.
	if want := []string{"aider-before-20250301-090000", "aider-20250301-090000", "aider-20250301-110000", "aider-20250301-110000-2"}; !slices.Equal(ids, want) {
		t.Fatalf("sessions %v, want %v", ids, want)
	}
	for i, want := range [][]string{
		{"system(code)", "user(text)"},
		{"system(code)", "user(text)", "assistant(thinking text call call text)", "system(result result event)",
			"user(text)", "system(code)", "user(text)", "assistant(call)", "system(result)"},
		{"system(code)", "user(text)", "assistant(text call)", "system(result)", "user(text)", "assistant(text)", "system(event)"},
		{"system(code)", "user(text)", "assistant(call)", "system(result event)"},
	} {
		if got := ingesttest.Describe(ss[i]); !slices.Equal(got, want) {
			t.Errorf("%s messages:\n%s\nwant\n%s", ss[i].ID, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}

	checkAiderSession(t, ss)
	checkAiderOtherEdits(t, ss)
}

func checkAiderSession(t *testing.T, ss []*transcript.Session) {
	s := ss[1]
	for _, c := range []struct{ name, got, want string }{
		{"started", s.Started.Format("2006-01-02 15:04:05"), "2025-03-01 09:00:00"},
		{"version", s.AgentVersion, "0.80.1"},
		{"models", strings.Join(s.Models, ","), "anthropic/claude-3-7-sonnet"},
		{"weak model", s.Meta["weak model"], "anthropic/claude-3-5-haiku"},
		{"edit format", s.Meta["edit format"], "diff"},
		{"command", s.Meta["command"], "aider --model sonnet calc.py"},
		{"cost", s.Meta["cost (USD)"], "0.02"},
		{"skipped", ingesttest.Skips(s), "empty input 1"},
		{"first prompt", s.FirstPrompt(), "Add a mul function\nand test it"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	ms := s.Messages()
	reply := ms[2]
	if reply.Model != "anthropic/claude-3-7-sonnet" || reply.Parts[0].Text != "The file has add; mul goes after it." {
		t.Errorf("reply model %q, thinking %q", reply.Model, reply.Parts[0].Text)
	}
	// A heading and a quote in a response are the response's.
	if got := reply.Parts[1].Text; got != "#### Plan\n\n> Keep it small." {
		t.Errorf("response text = %q", got)
	}
	// 2.5k sent holds the 1,024 cache hits.
	if u := reply.Usage; u != (transcript.Usage{Input: 1476, Output: 120, CacheRead: 1024}) {
		t.Errorf("reply usage = %+v", u)
	}
	for i, want := range []struct{ path, old, new string }{
		{"calc.py", "def add(a, b):\n    return a + b", "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b"},
		{"test_calc.py", "", "#### not a prompt  \nfrom calc import mul"}, // a file's line inside the fence
	} {
		c := reply.Parts[2+i].Call
		var in struct{ File_path, Old_string, New_string string }
		if err := json.Unmarshal([]byte(c.Input), &in); err != nil {
			t.Fatal(err)
		}
		if c.Kind != transcript.EditTool || in.File_path != want.path || in.Old_string != want.old || in.New_string != want.new {
			t.Errorf("edit %d = %s %+v", i, c.Kind, in)
		}
		if c.Result == nil || c.Result.Output != "Applied edit to "+want.path || c.Result.IsError {
			t.Errorf("edit %d result = %+v", i, c.Result)
		}
	}
	if e := ms[3].Parts[2]; e.Event == nil || e.Event.Kind != "commit" || e.Text != "Commit 1a2b3c4 feat: Add mul" {
		t.Errorf("commit = %+v", e)
	}
	// A tool message of several lines: only its first has "> ".
	if got := ms[5].Parts[0].Text; got != "1 passed in 0.01s\n\npytest output continues without a prefix\n\nlast line of it\nAdd the output to the chat? (Y)es/(N)o [Yes]: n" {
		t.Errorf("command output = %q", got)
	}
	failed := ms[7].Parts[0].Call
	if failed.Result == nil || !failed.Result.IsError || !strings.HasPrefix(failed.Result.Output, "The LLM did not conform to the edit format.\nSearchReplaceNoExactMatch") {
		t.Errorf("failed edit result = %+v", failed.Result)
	}
	if u := ms[7].Usage; u != (transcript.Usage{Input: 900, Output: 40}) {
		t.Errorf("failed reply usage = %+v", u)
	}

}

func checkAiderOtherEdits(t *testing.T, ss []*transcript.Session) {
	whole := ss[2].Messages()[2].Parts[1].Call
	if whole.Kind != transcript.WriteTool || whole.Input != `{"content":"print(\"hello\")","file_path":"hello.py"}` || whole.Result == nil {
		t.Errorf("whole-file edit = %+v", whole)
	}
	if st := ss[2].Turns[2].Status; st != transcript.Failed {
		t.Errorf("turn with an error: status %q", st)
	}
	udiff := ss[3].Messages()[2].Parts[0].Call
	if udiff.Name != "udiff" || udiff.Kind != transcript.EditTool || !strings.Contains(udiff.Input, `"patch":"--- calc.py\n+++ calc.py\n@@ ... @@\n-x = 1\n+y = 1"`) || udiff.Result == nil {
		t.Errorf("udiff edit = %+v", udiff)
	}
}

// TestAiderHiddenFile checks that a content dir's walk reads the history,
// whose name starts with a dot.
func TestAiderHiddenFile(t *testing.T) {
	dir := t.TempDir() // testdata/ holds the fuzz corpus too
	data, err := os.ReadFile("testdata/.aider.chat.history.md")
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, ".aider.chat.history.md"), data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	res, err := ingest.Load(context.Background(), ingest.Root{FS: os.DirFS(dir)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 1 || len(res.Sessions) != 4 || res.Sessions[0].Source != ".aider.chat.history.md" {
		t.Errorf("read %d files into %d sessions", res.Files, len(res.Sessions))
	}
}

func TestAiderResponses(t *testing.T) {
	for _, c := range []struct {
		name, format, text string
		want               string // kinds of the parts
		input              string // the first call's input
	}{
		{"code block in a diff response", "diff", "Run:\n\n```bash\nmake\n```", "text", ""},
		{"filename and code, not whole format", "diff", "calc.py\n```python\nx = 1\n```", "text", ""},
		{"whole file", "whole", "calc.py\n```python\nx = 1\n```", "call", `{"content":"x = 1","file_path":"calc.py"}`},
		{"diff fence, not udiff format", "diff", "```diff\n--- a\n+++ a\n```", "text", ""},
		{"search without a file", "diff", "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE", "call", `{"file_path":"","new_string":"b","old_string":"a"}`},
		{"bold file name", "diff", "**src/a.go**\n```go\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\nAfter.", "call text", `{"file_path":"src/a.go","new_string":"b","old_string":"a"}`},
		{"cut off inside a block", "diff", "a.go\n```go\n<<<<<<< SEARCH\na\n===", "call", `{"file_path":"a.go","new_string":"","old_string":"a\n==="}`},
		{"patch", "patch", "```\n*** Begin Patch\n*** Update File: a.go\n-a\n+b\n*** End Patch\n```\nOk.", "call text", `{"patch":"*** Begin Patch\n*** Update File: a.go\n-a\n+b\n*** End Patch"}`},
		{"fence opened on the last line", "whole", "a.py\n```", "call", `{"content":"","file_path":"a.py"}`},
		{"udiff without a file name", "udiff", "```diff\n--- \n+++ ", "call", `{"file_path":"","patch":"--- \n+++ "}`},
		{"think tags", "diff", "<think>\nhmm\n</think>\nAnswer.", "thinking text", ""},
		{"thinking cut off", "diff", "<think>\nhmm", "thinking", ""},
	} {
		a := &reader{format: c.format, at: 1}
		parts := a.response(strings.Split(c.text, "\n"))
		var ks []string
		for _, p := range parts {
			ks = append(ks, string(p.Kind))
		}
		if got := strings.Join(ks, " "); got != c.want {
			t.Errorf("%s: parts %q, want %q", c.name, got, c.want)
			continue
		}
		if c.input != "" && parts[0].Call.Input != c.input {
			t.Errorf("%s: input %s, want %s", c.name, parts[0].Call.Input, c.input)
		}
	}
}

func TestAiderDetect(t *testing.T) {
	for _, c := range []struct {
		name, path, head string
		want             bool
	}{
		{"header", "notes.md", "\n# aider chat started at 2025-03-01 09:00:00\n\n", true},
		{"mid-session", "h.md", "> Tokens: 1 sent, 2 received.  \n\n#### next  \n> Applied edit to a.py  \n", true},
		{"its name and one line", "repo/.aider.chat.history.md", "#### hi  \n", true},
		{"Markdown with a heading and a quote", "README.md", "#### Install  \n\n> note  \n", false},
		{"Markdown without the line breaks", "README.md", "#### Install\n\n> note\n\n#### Use\n", false},
	} {
		h := &ingest.Head{Path: c.path, Data: []byte(c.head), EOF: true}
		if got := detect(h) > 0; got != c.want {
			t.Errorf("%s: detected %v, want %v", c.name, got, c.want)
		}
	}
}

// TestAiderWithoutHeader reads a file that holds the end of one session.
func TestAiderWithoutHeader(t *testing.T) {
	ss, warns := ingesttest.ReadDoc(t, Reader, "repo/.aider.chat.history.md", "#### hi  \n\nHello!\n\n> Tokens: 10 sent, 2 received.  \n")
	ingesttest.WantWarnings(t, warns)
	if len(ss) != 1 || ss[0].ID != "aider-repo/.aider.chat.history.md" || !ss[0].Started.IsZero() {
		t.Fatalf("sessions %+v", ss)
	}
	if got := ingesttest.Describe(ss[0]); !slices.Equal(got, []string{"user(text)", "assistant(text)"}) {
		t.Errorf("messages %v", got)
	}
}

// TestAiderRunWithoutPrompts names a session that only ran a command.
func TestAiderRunWithoutPrompts(t *testing.T) {
	ss, warns := ingesttest.ReadDoc(t, Reader, "h.md", "\n# aider chat started at 2024-08-05 19:33:02\n\n> /home/kim/.venv/bin/aider --lint --commit  \n> Commit d0ffbf1 fix: Reorder imports  \n")
	ingesttest.WantWarnings(t, warns)
	if len(ss) != 1 || ss[0].Title != "aider --lint --commit" {
		t.Fatalf("sessions %+v", ss)
	}
	if got := ingesttest.Describe(ss[0]); !slices.Equal(got, []string{"system(code event)"}) {
		t.Errorf("messages %v", got)
	}
}

func FuzzAider(f *testing.F) {
	ingesttest.SeedFuzz(f)
	f.Add([]byte("#### a  \n\nb\n```\n<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n> x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ingesttest.FuzzRead(t, Reader, ".aider.chat.history.md", data)
	})
}
