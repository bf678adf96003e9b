package site

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
	d, _ := searchDoc(assistant, defaults)
	for _, k := range []transcript.ToolKind{transcript.ShellTool, transcript.ReadTool, transcript.EditTool} {
		if d.Kinds&(1<<slices.Index(toolKinds, k)) == 0 {
			t.Errorf("kinds %b lack %s", d.Kinds, k)
		}
	}
	if _, _, err := LoadConfig(Options{Source: writeConfig(t, "config.yaml", "search:\n  include: [everything]\n")}); err == nil ||
		!strings.Contains(err.Error(), `search.include: "everything" is not one of`) {
		t.Errorf("an unknown search.include part: %v", err)
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
		s, body := &Session{Project: &Project{}}, &transcript.Session{}
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
		parts := searchSession(s, body, map[string]bool{"assistant": true})
		done.Store(true)
		runtime.GC()
		runtime.GC() // and the scratch pooled for the next session is dropped
		kept := read() - base
		runtime.KeepAlive(parts)
		runtime.KeepAlive(s)
		t.Logf("%d MB of text: %d parts keep %d MB; the heap held %d MB more at most", n*2000>>20, len(parts), kept>>20, (peak.Load()-base-kept)>>20)
		return peak.Load() - base - kept
	}
	small, big := overhead(8000), overhead(24000)
	if big > small*3/2+8<<20 {
		t.Errorf("preparing 48 MB of text held %d MB beyond what it keeps, 16 MB held %d MB: it grows with the session", big>>20, small>>20)
	}
}
