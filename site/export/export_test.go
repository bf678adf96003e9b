package export

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/transcriptsite/transcriptsite/transcript"
)

var update = flag.Bool("update", false, "rewrite golden files")

func exit(n int) *int { return &n }

// sample is a session with a part of every kind, outputs that hold
// fences, a reply cut off mid-block, injected context, a rewound branch,
// a result with no call and a call with no result.
func sample() *transcript.Session {
	at := func(day, sec int) time.Time { return time.Date(2026, 5, day, 10, 0, sec, 0, time.UTC) }
	png := &transcript.Image{MediaType: "image/png", Data: []byte("\x89PNG fake")}
	// The calls' Args, as a reader fills them.
	grep, patch := "grep -n '```' parse.go", "*** Begin Patch\n*** Update File: parse.go\n-a\n+b\n*** End Patch"
	s := &transcript.Session{
		ID: "s-1", Format: "claude-code", Agent: "Claude Code", AgentVersion: "2.1.0",
		Source: "alpha/one.jsonl", Sources: []string{"alpha/one-resumed.jsonl"},
		Title: "Fix the <b>parser</b>", Project: "alpha", CWD: "/src/alpha", Branch: "main",
		ParentID: "p-0", ChildIDs: []string{"c-2"},
		Meta:     map[string]string{"version": "2.1.0", "entrypoint": "cli"},
		Warnings: []string{"one.jsonl:9: skipped: bad JSON"},
		Redacted: map[string]int{"github-pat": 1},
	}
	for _, m := range []*transcript.Message{
		{Role: transcript.System, Meta: true, Time: at(1, 0), Parts: []*transcript.Part{
			{Kind: transcript.TextPart, Text: "<system-reminder>cwd is /src/alpha</system-reminder>"}}},
		{ID: "u1", Role: transcript.User, Time: at(1, 1), Parts: []*transcript.Part{
			{Kind: transcript.TextPart, Text: "Why does `parse` fail?\n\n```\nparse: unexpected ``` token\n```"},
			{Kind: transcript.ImagePart, Image: png}}},
		{ID: "a1", Role: transcript.Assistant, Model: "claude-sonnet-4-5", Time: at(1, 5),
			Usage: transcript.Usage{Input: 10, Output: 5, CacheRead: 100}, Parts: []*transcript.Part{
				{Kind: transcript.ThinkingPart, Text: "The tokenizer sees ``` as three tokens."},
				{Kind: transcript.TextPart, Text: "Let me look:"},
				{Kind: transcript.CodePart, Lang: "go`evil", Name: "parse.go", Text: "s := \"````\"\n"},
				{Kind: transcript.CallPart, Call: &transcript.ToolCall{ID: "t1", Name: "Bash", Kind: transcript.ShellTool,
					Input: `{"command":"grep -n '` + "```" + `' parse.go","timeout":60000,"env":{"LC_ALL":"C","GREP_COLORS":"mt=01;31:fn=35:ln=32:bn=32:se=36"}}`,
					Args: transcript.Args{Command: grep, Summary: grep, Rest: []transcript.Field{{Name: "timeout", Value: "60000"},
						{Name: "env", Value: "{\n  \"LC_ALL\": \"C\",\n  \"GREP_COLORS\": \"mt=01;31:fn=35:ln=32:bn=32:se=36\"\n}"}}}}},
				{Kind: transcript.CallPart, Call: &transcript.ToolCall{ID: "t2", Name: "apply_patch", Kind: transcript.EditTool,
					Input: patch, Args: transcript.Args{Patch: patch, Summary: patch}}},
				{Kind: transcript.CallPart, Call: &transcript.ToolCall{ID: "t3", Name: "Task", Kind: transcript.TaskTool,
					Input: `{"prompt":"find tests"}`, Subagent: "c-2", Args: transcript.Args{Prompt: "find tests", Summary: "find tests"}}},
			}},
		{Role: transcript.Tool, Time: at(1, 6), Parts: []*transcript.Part{
			{Kind: transcript.ResultPart, Result: &transcript.ToolResult{CallID: "t1", IsError: true, ExitCode: exit(2),
				Output: "12: s := \"````\"\n\x1b[31mfailed\x1b[0m"}},
			{Kind: transcript.ResultPart, Result: &transcript.ToolResult{CallID: "t2", Output: "",
				Images: []*transcript.Image{{MediaType: "image/jpeg", URL: "https://example.com/a b.jpg"}}}},
			{Kind: transcript.ResultPart, Result: &transcript.ToolResult{CallID: "gone", Output: "an orphan result"}},
		}},
		{ID: "a2", Role: transcript.Assistant, Model: "claude-sonnet-4-5", Time: at(2, 0), Branch: "a1", Parts: []*transcript.Part{
			{Kind: transcript.TextPart, Text: "Cut off:\n```python\nprint(1)"}}},
		{Role: transcript.System, Time: at(2, 1), Parts: []*transcript.Part{
			{Kind: transcript.EventPart, Text: "Conversation compacted\nsecond line", Event: &transcript.Event{Kind: transcript.Compaction}},
			{Kind: transcript.EventPart, Text: "zz-record", Event: &transcript.Event{Kind: transcript.Unknown, Raw: `{"type":"zz-record","x":"` + "```" + `"}`}},
		}},
		{ID: "u2", Role: transcript.User, Sidechain: true, Time: at(2, 2), Parts: []*transcript.Part{
			{Kind: transcript.TextPart, Text: "And again"},
			{Kind: transcript.ImagePart, Image: &transcript.Image{MediaType: "image/png", URL: "javascript:alert(1)"}}}},
	} {
		s.Append(m)
	}
	s.Turns[len(s.Turns)-1].Status = transcript.Aborted
	s.Finish()
	return s
}

func markdown(t *testing.T, s *transcript.Session, o Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Markdown(&buf, s, o); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestMarkdownGolden(t *testing.T) {
	opts := Options{Title: "Fix the <b>parser</b>", Project: "alpha",
		Image: func(img *transcript.Image) string {
			if len(img.Data) > 0 {
				return "img/fake.png"
			}
			return ""
		}}
	got := markdown(t, sample(), opts)
	if again := markdown(t, sample(), opts); !bytes.Equal(got, again) {
		t.Error("two exports of the same session differ")
	}
	golden := filepath.Join("testdata", "session.md")
	if *update {
		_ = os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./site/export -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("export differs from %s; if the change is intended, run go test ./site/export -update\n%s", golden, got)
	}
}

// TestMarkdownKeepsEveryOutputWhole parses the export as Markdown and
// finds each tool output, input and code block as the whole content of
// one fenced block: a fence in the content did not end its block.
func TestMarkdownKeepsEveryOutputWhole(t *testing.T) {
	s := sample()
	src := markdown(t, s, Options{})
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	var blocks []string
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if b, ok := n.(*ast.FencedCodeBlock); ok && entering {
			var buf strings.Builder
			for i := range b.Lines().Len() {
				seg := b.Lines().At(i)
				buf.Write(seg.Value(src))
			}
			blocks = append(blocks, buf.String())
		}
		return ast.WalkContinue, nil
	})
	want := []string{
		"s := \"````\"\n",                      // code
		"grep -n '```' parse.go\n",             // a shell command, as shell
		"-a\n+b\n",                             // an apply_patch edit, as a diff
		"{\n  \"prompt\": \"find tests\"\n}\n", // any other input: JSON, indented
		"12: s := \"````\"\nfailed\n",          // output, ANSI removed
		"an orphan result\n",
		`{"type":"zz-record","x":"` + "```" + `"}` + "\n", // raw record
	}
	for _, w := range want {
		found := false
		for _, b := range blocks {
			found = found || b == w
		}
		if !found {
			t.Errorf("no fenced block holds exactly %q; blocks: %q", w, blocks)
		}
	}
	// Every message's text is there, and the reply cut off mid-block was
	// closed: what follows it is not code.
	for _, w := range []string{"Why does `parse` fail?", "The tokenizer sees ``` as three tokens.", "Let me look:",
		"Conversation compacted\n> second line", "And again", "<system-reminder>cwd is /src/alpha</system-reminder>"} {
		if !bytes.Contains(src, []byte(w)) {
			t.Errorf("the export lacks %q", w)
		}
	}
	for _, b := range blocks {
		if strings.Contains(b, "compaction") || strings.Contains(b, "And again") {
			t.Errorf("a block swallowed what follows it: %q", b)
		}
	}
}

func TestFence(t *testing.T) {
	for _, c := range []struct{ text, lang, want string }{
		{"plain", "go", "```go\nplain\n```\n"},
		{"a ``` b\n", "", "````\na ``` b\n````\n"},
		{"``````", "", "```````\n``````\n```````\n"},
		{"x", "c++ `rm -rf`", "```c++rm-rf\nx\n```\n"},
	} {
		if got := strings.Join(fence(c.text, c.lang), ""); got != c.want {
			t.Errorf("fence(%q, %q) = %q, want %q", c.text, c.lang, got, c.want)
		}
	}
	for in, want := range map[string]string{
		"a`b":  "``a`b``",
		"`x`":  "`` `x` ``",
		"a\nb": "`a b`",
	} {
		if got := code(in); got != want {
			t.Errorf("code(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"```go\nx\n```":          "```go\nx\n```",
		"```go\nx":               "```go\nx\n```\n",
		"~~~~\nx\n```\n":         "~~~~\nx\n```\n~~~~\n",
		"````\n```\nstill code":  "````\n```\nstill code\n````\n",
		"inline ```code``` here": "inline ```code``` here",
	} {
		if got := closeFences(in); got != want {
			t.Errorf("closeFences(%q) = %q, want %q", in, got, want)
		}
	}
}

// kinds are every kind of part the model has.
var kinds = []transcript.PartKind{transcript.TextPart, transcript.ThinkingPart, transcript.CodePart,
	transcript.CallPart, transcript.ResultPart, transcript.ImagePart, transcript.EventPart}

func TestJSONRoundTrips(t *testing.T) {
	s := sample()
	data := jsonExport(t, s)
	if !bytes.HasPrefix(data, []byte("{\n  \"schema\": \"transcriptsite.session/1\",")) {
		t.Errorf("the export does not start with its schema: %.60s", data)
	}
	for _, k := range kinds {
		if !bytes.Contains(data, []byte(`"kind": "`+string(k)+`"`)) {
			t.Errorf("no part of kind %s in the export", k)
		}
	}
	e, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	back := e.Transcript()
	if !reflect.DeepEqual(back, s) {
		t.Errorf("the session read back differs:\n%s", jsonExport(t, back))
	}
	if _, err := Decode([]byte(`{"schema":"transcriptsite.session/2"}`)); err == nil {
		t.Error("a later schema was read as this one")
	}
}

func jsonExport(t *testing.T, s *transcript.Session) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := JSON(&buf, s, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestJSONStreamsTheWhole checks that the JSON written a message at a time
// is the session's export encoded whole, with and without turns and
// messages.
func TestJSONStreamsTheWhole(t *testing.T) {
	empty := &transcript.Session{ID: "e", Format: "codex"}
	noMessages := &transcript.Session{ID: "n", Format: "codex", Turns: []transcript.Turn{{Status: transcript.Aborted}, {}}}
	for _, s := range []*transcript.Session{sample(), empty, noMessages} {
		var whole bytes.Buffer
		enc := json.NewEncoder(&whole)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(From(s)); err != nil {
			t.Fatal(err)
		}
		if got := jsonExport(t, s); !bytes.Equal(got, whole.Bytes()) {
			t.Errorf("session %s: streamed:\n%s\nwhole:\n%s", s.ID, got, whole.Bytes())
		}
	}
}
