package transcript

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// A header holds what its session does, its strings in one string and its
// slices and maps its own; its first prompt is a copy of the cut, not of
// the whole message.
func TestHeaderPacked(t *testing.T) {
	long := strings.Repeat("é", maxPrompt) // cut between two bytes of a rune
	s := &Session{ID: "s1", Format: "claude-code", Agent: "Claude Code", Source: "a/s1.jsonl", CWD: "/w", Branch: "main",
		Sources: []string{"a/s0.jsonl"}, ChildIDs: []string{"c1"}, Warnings: []string{"line 3: bad"},
		Meta: map[string]string{"k": "v"}, Skipped: []Skip{{Kind: "progress", Count: 2, Reason: "noise"}}}
	call := &Part{Kind: CallPart, Call: &ToolCall{ID: "t1", Name: "Task", Kind: TaskTool, Subagent: "c1"}}
	for _, m := range []*Message{
		{Role: User, Parts: []*Part{text(long)}},
		{Role: Assistant, Model: "m1", Usage: Usage{Input: 1}, Parts: []*Part{call}},
		{Role: Tool, Parts: []*Part{{Kind: ResultPart, Result: &ToolResult{CallID: "t1", IsError: true}}}},
	} {
		s.Append(m)
	}
	s.Finish()
	want := *s
	want.Turns = nil
	wantSum := s.Summary()

	h := s.Header()
	if !reflect.DeepEqual(*h.Session, want) || !reflect.DeepEqual(h.Summary, wantSum) {
		t.Fatalf("header %+v %+v, want %+v %+v", *h.Session, h.Summary, want, wantSum)
	}
	if s.Redacted != nil || h.Session.Redacted != nil {
		t.Error("a nil map became a map")
	}

	// Every string lies in one block no longer than all of them together.
	var strs []string
	hs, sum := h.Session, h.Summary
	strs = append(strs, hs.ID, hs.Format, hs.Agent, hs.Source, hs.CWD, hs.Branch, sum.FirstPrompt,
		hs.Sources[0], hs.ChildIDs[0], hs.Warnings[0], hs.Skipped[0].Kind, hs.Skipped[0].Reason, hs.Models[0],
		sum.Models[0], sum.Subagents[0].CallID, sum.Subagents[0].Session)
	for k, v := range hs.Meta {
		strs = append(strs, k, v)
	}
	for k := range sum.Usage {
		strs = append(strs, k)
	}
	for k := range sum.Stats.ByKind {
		strs = append(strs, string(k)) // a conversion keeps the data
	}
	for k := range sum.Stats.Failed {
		strs = append(strs, string(k))
	}
	lo, hi, total := ^uintptr(0), uintptr(0), uintptr(0)
	for _, x := range strs {
		p := uintptr(unsafe.Pointer(unsafe.StringData(x)))
		lo, hi, total = min(lo, p), max(hi, p+uintptr(len(x))), total+uintptr(len(x))
	}
	if hi-lo > total {
		t.Errorf("the header's %d strings span %d bytes, more than their %d", len(strs), hi-lo, total)
	}

	// The header's slices and maps are not the session's.
	h.Session.Sources[0], h.Session.Meta["k"], h.Summary.Models[0] = "x", "x", "x"
	if s.Sources[0] != "a/s0.jsonl" || s.Meta["k"] != "v" || s.Summary().Models[0] != "m1" {
		t.Error("changing the header changed its session")
	}
}
