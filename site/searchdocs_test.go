package site

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/viper"

	"github.com/transcriptsite/transcriptsite/site/search"
	"github.com/transcriptsite/transcriptsite/transcript"
)

func TestSearchDoc(t *testing.T) {
	call := func(kind transcript.ToolKind, name, id, input, output string) *transcript.Part {
		return &transcript.Part{Kind: transcript.CallPart, Call: &transcript.ToolCall{
			ID: id, Name: name, Kind: kind, Input: input, Result: &transcript.ToolResult{Output: output, Paired: true},
		}}
	}
	assistant := &transcript.Message{Role: transcript.Assistant, Parts: []*transcript.Part{
		{Kind: transcript.TextPart, Text: "Looking at the parser"},
		{Kind: transcript.ThinkingPart, Text: "privatethought"},
		call(transcript.ShellTool, "Bash", "toolu_01SHELL", `{"command":"go test ./parser"}`, "FAIL TestParse \x1b[31mred\x1b[0m"),
		call(transcript.ShellTool, "exec_command", "call_2", `{"cmd":["rg","-n","needle"]}`, "hit"),
		call(transcript.ReadTool, "Read", "toolu_01READ", `{"file_path":"/src/parser/lex.go"}`, "package secretcontents"),
		call(transcript.EditTool, "apply_patch", "call_3", "*** Begin Patch\n*** Update File: a.go", ""),
	}}
	prompt := &transcript.Message{Role: transcript.User, Parts: []*transcript.Part{{Kind: transcript.TextPart, Text: "fix the lexer"}}}
	injected := &transcript.Message{Role: transcript.User, Meta: true, Parts: []*transcript.Part{{Kind: transcript.TextPart, Text: "systemreminder"}}}

	words := func(m *transcript.Message, include map[string]bool) []string {
		d, ok := searchDoc(m, include)
		if !ok {
			return nil
		}
		var out []string
		search.Tokenize(d.Text, func(b []byte, compound bool) bool {
			out = append(out, string(b))
			return true
		})
		return out
	}
	defaults, err := searchInclude(viper.New())
	if err != nil {
		t.Fatal(err)
	}
	got := words(assistant, defaults)
	for _, w := range []string{"looking", "parser", "bash", "toolu_01shell", "go", "test", "./parser", "fail", "testparse", "red",
		"exec_command", "call_2", "rg", "needle", "hit", "read", "src/parser/lex.go", "lex.go", "begin", "patch", "a.go"} {
		if !slices.Contains(got, strings.TrimPrefix(w, "./")) {
			t.Errorf("default index of the assistant message lacks %q: %q", w, got)
		}
	}
	for _, w := range []string{"privatethought", "secretcontents", "31m"} {
		if slices.Contains(got, w) {
			t.Errorf("default index of the assistant message has %q", w)
		}
	}
	if got := words(assistant, map[string]bool{"thinking": true, "files": true}); !slices.Contains(got, "privatethought") ||
		!slices.Contains(got, "secretcontents") || slices.Contains(got, "looking") || slices.Contains(got, "testparse") {
		t.Errorf("thinking and files only: %q", got)
	}
	if got := words(prompt, defaults); !slices.Equal(got, []string{"fix", "the", "lexer"}) {
		t.Errorf("prompt: %q", got)
	}
	if got := words(injected, defaults); got != nil {
		t.Errorf("injected context is indexed: %q", got)
	}
	d, _ := searchDoc(assistant, defaults)
	for _, k := range []transcript.ToolKind{transcript.ShellTool, transcript.ReadTool, transcript.EditTool} {
		if d.Kinds&(1<<slices.Index(toolKinds, k)) == 0 {
			t.Errorf("kinds %b lack %s", d.Kinds, k)
		}
	}
	if _, err := searchInclude(func() *viper.Viper { v := viper.New(); v.Set("search.include", []string{"everything"}); return v }()); err == nil {
		t.Error("an unknown search.include part is accepted")
	}
}
