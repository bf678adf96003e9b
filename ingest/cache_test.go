package ingest

import (
	"bytes"
	"testing"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// gob sends a pointer to zero as nothing: exit code 0 must survive the
// cache all the same, on a result part and on a call's result.
func TestCacheKeepsExitCodeZero(t *testing.T) {
	zero, one := 0, 1
	m := &transcript.Message{Role: transcript.Assistant, Parts: []*transcript.Part{
		{Kind: transcript.CallPart, Call: &transcript.ToolCall{ID: "a", Result: &transcript.ToolResult{ExitCode: &zero}}},
		{Kind: transcript.ResultPart, Result: &transcript.ToolResult{ExitCode: &zero}},
		{Kind: transcript.ResultPart, Result: &transcript.ToolResult{ExitCode: &one}},
		{Kind: transcript.ResultPart, Result: &transcript.ToolResult{}},
	}}
	s := &transcript.Session{ID: "s"}
	s.Append(m)
	var buf bytes.Buffer
	if err := (&parsed{Reader: 1, Sessions: []*transcript.Session{s}}).encode(&buf); err != nil {
		t.Fatal(err)
	}
	var p parsed
	if err := p.decode(&buf); err != nil {
		t.Fatal(err)
	}
	got := p.Sessions[0].Turns[0].Messages[0].Parts
	code := func(r *transcript.ToolResult) any {
		if r.ExitCode == nil {
			return nil
		}
		return *r.ExitCode
	}
	if a, b, c, d := code(got[0].Call.Result), code(got[1].Result), code(got[2].Result), code(got[3].Result); a != 0 || b != 0 || c != 1 || d != nil {
		t.Errorf("exit codes after the cache: %v %v %v %v, want 0 0 1 nil", a, b, c, d)
	}
}
