package searchdoc

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/site/search"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// toolCall is a call whose Args are filled as ingest fills them.
func toolCall(kind transcript.ToolKind, name, id, input, output string) *transcript.ToolCall {
	c := &transcript.ToolCall{ID: id, Name: name, Kind: kind, Input: input, Result: &transcript.ToolResult{Output: output, Paired: true}}
	ingest.CommonArgs.Fill(c)
	return c
}

// indexedWords are the terms the index takes from a message.
func indexedWords(m *transcript.Message, include map[string]bool) []string {
	d, ok := Doc(m, include)
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

func TestSearchDoc(t *testing.T) {
	call := func(kind transcript.ToolKind, name, id, input, output string) *transcript.Part {
		return &transcript.Part{Kind: transcript.CallPart, Call: toolCall(kind, name, id, input, output)}
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

	words := indexedWords
	sc := search.DefaultConfig()
	if err := sc.Check(); err != nil {
		t.Fatal(err)
	}
	defaults := sc.Includes()
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
	d, _ := Doc(assistant, defaults)
	for _, k := range []transcript.ToolKind{transcript.ShellTool, transcript.ReadTool, transcript.EditTool} {
		if d.Kinds&(1<<slices.Index(toolKinds, k)) == 0 {
			t.Errorf("kinds %b lack %s", d.Kinds, k)
		}
	}
}

// A tool call is indexed from its Args and its result as its view shows
// them, and a result shows the same text: a read's lines without the
// agent's "351→" numbers, a shell call's command and what it is for, an
// edit's file and new text, a reply without the numbers of the lines it
// quotes, no terminal escapes.
func TestSearchDocReadsTheTypedModel(t *testing.T) {
	all := map[string]bool{}
	for _, p := range search.Parts {
		all[p] = true
	}
	for _, c := range []struct {
		name     string
		call     *transcript.ToolCall
		want     []string // words and compounds indexed
		notWant  []string
		shown    []string // in the excerpt
		notShown []string // in the excerpt or the text indexed
	}{
		{
			name: "read",
			call: toolCall(transcript.ReadTool, "Read", "toolu_01R", `{"file_path":"/src/app/lexer.go","offset":349}`,
				"   349→package lexer\n   350→\n   351→func nextToken() {}\n\n<system-reminder>Mind the tabs.</system-reminder>\n"),
			want:     []string{"toolu_01r", "src/app/lexer.go", "lexer.go", "package", "lexer", "nexttoken", "mind"},
			notWant:  []string{"349", "351"},
			shown:    []string{"/src/app/lexer.go", "package lexer", "func nextToken() {}", "Mind the tabs."},
			notShown: []string{"→", "351", "system-reminder"},
		},
		{
			name: "an older read, numbered by cat -n",
			call: toolCall(transcript.ReadTool, "Read", "toolu_01T", `{"file_path":"/src/app/lexer.go"}`, "     1\tpackage lexer\n     2\tvar tabbed = 7\n"),
			want: []string{"tabbed"}, notWant: []string{"1", "2"}, shown: []string{"package lexer var tabbed = 7"}, notShown: []string{"\t"},
		},
		{
			name: "bash",
			call: toolCall(transcript.ShellTool, "Bash", "toolu_01B", `{"command":"go test ./lexer","description":"Run the lexer's unit tests","timeout":60000}`,
				"\x1b[31mFAIL\x1b[0m lexer_test.go:12"),
			want:     []string{"go", "test", "lexer", "run", "unit", "tests", "fail", "lexer_test.go"},
			notWant:  []string{"31m", "0m"},
			shown:    []string{"Bash", "go test ./lexer", "Run the lexer's unit tests", "FAIL lexer_test.go:12"},
			notShown: []string{"\x1b", "[31m"},
		},
		{
			name: "edit",
			call: toolCall(transcript.EditTool, "Edit", "toolu_01E", `{"file_path":"/src/app/lexer.go","old_string":"func oldName() {}","new_string":"func nextToken() {}\nfunc skipSpace() {}"}`,
				"The file /src/app/lexer.go has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n   350→\n   351→func nextToken() {}"),
			want:     []string{"src/app/lexer.go", "lexer.go", "func", "nexttoken", "skipspace", "updated", "snippet"},
			notWant:  []string{"350", "351", "oldname"},
			shown:    []string{"/src/app/lexer.go", "func nextToken() {} func skipSpace() {}", "The file /src/app/lexer.go has been updated."},
			notShown: []string{"→", "351"},
		},
	} {
		m := &transcript.Message{Role: transcript.Assistant, Parts: []*transcript.Part{{Kind: transcript.CallPart, Call: c.call}}}
		got := indexedWords(m, all)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: the index lacks %q: %q", c.name, w, got)
			}
		}
		for _, w := range c.notWant {
			if slices.Contains(got, w) {
				t.Errorf("%s: the index has %q: %q", c.name, w, got)
			}
		}
		d, _ := Doc(m, all)
		shown := strings.Join(strings.Fields(d.Excerpt), " ")
		for _, w := range c.shown {
			if !strings.Contains(shown, w) {
				t.Errorf("%s: the excerpt lacks %q: %q", c.name, w, shown)
			}
		}
		for _, w := range c.notShown {
			if strings.Contains(shown, w) || strings.Contains(d.Text, w) {
				t.Errorf("%s: the text has %q: %q", c.name, w, d.Text)
			}
		}
		if strings.Contains(shown, c.call.ID) {
			t.Errorf("%s: the excerpt shows the call's id: %q", c.name, shown)
		}
	}
}

// What preparing a session for the index holds beside what it keeps does
// not grow with the session: it is prepared a part at a time. Prepared
// whole, a 505 MB session held 460 MB of lists and texts at once beside
// its 220 MB of turns, and a 2 GB one several gigabytes. The live heap is
// read after every collection, collections made frequent.
func TestSearchPreparationIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("tokenizes 64 MB")
	}
	// overhead prepares a session of n messages of 2 KB of text (words of
	// a 20,000-word vocabulary, and numbers), and returns the most the
	// heap held beyond the session and what preparing keeps.
	overhead := func(n int) int64 {
		body := &transcript.Session{}
		var turn transcript.Turn
		rng := rand.New(rand.NewPCG(1, 2))
		for range n {
			var b strings.Builder
			for b.Len() < 2000 {
				fmt.Fprintf(&b, "w%d %d ", rng.IntN(20000), rng.IntN(1000))
			}
			turn.Messages = append(turn.Messages, &transcript.Message{Role: transcript.Assistant, Parts: []*transcript.Part{{Kind: transcript.TextPart, Text: b.String()}}})
		}
		body.Turns = []transcript.Turn{turn}

		defer debug.SetGCPercent(debug.SetGCPercent(5))
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		read := func() int64 { metrics.Read(live); return int64(live[0].Value.Uint64()) }
		runtime.GC()
		base := read()
		var peak atomic.Int64
		var done atomic.Bool
		var watch func()
		watch = func() { // after every collection
			peak.Store(max(peak.Load(), read()))
			if !done.Load() {
				type sentinel struct{ _ *int }
				runtime.AddCleanup(&sentinel{}, func(struct{}) { watch() }, struct{}{})
			}
		}
		watch()
		parts := Prepare(search.Session{}, body, map[string]bool{"assistant": true}, 8<<20)
		done.Store(true)
		runtime.GC()
		runtime.GC() // and the scratch pooled for the next session is dropped
		kept := read() - base
		runtime.KeepAlive(parts)
		t.Logf("%d MB of text: %d parts keep %d MB; the heap held %d MB more at most", n*2000>>20, len(parts), kept>>20, (peak.Load()-base-kept)>>20)
		return peak.Load() - base - kept
	}
	// The peak is sampled after collections, so a run may miss the
	// small session's: the larger of two is nearer the truth.
	small := max(overhead(8000), overhead(8000))
	big := overhead(24000)
	if big > small*3/2+8<<20 {
		t.Errorf("preparing 48 MB of text held %d MB beyond what it keeps, 16 MB held %d MB: it grows with the session", big>>20, small>>20)
	}
}
