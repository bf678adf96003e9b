package transcript

import (
	"slices"
	"testing"
	"time"
)

func text(s string) *Part { return &Part{Kind: TextPart, Text: s} }

func TestAppendStartsTurnsAtRealPrompts(t *testing.T) {
	var s Session
	at := func(sec int) time.Time { return time.Date(2026, 1, 1, 0, 0, sec, 0, time.UTC) }
	call := &Part{Kind: CallPart, Call: &ToolCall{ID: "c1", Name: "Bash", Kind: ShellTool}}
	result := &Part{Kind: ResultPart, Result: &ToolResult{CallID: "c1", Output: "ok"}}
	orphan := &Part{Kind: ResultPart, Result: &ToolResult{CallID: "gone", Output: "?"}}
	for _, m := range []*Message{
		{Role: System, Meta: true, Parts: []*Part{text("setup")}, Time: at(1)},
		{Role: User, Parts: []*Part{text("first")}, Time: at(2)},
		{Role: Assistant, Parts: []*Part{call}, Time: at(3), Model: "m1", Usage: Usage{Input: 3, Output: 1}},
		{Role: Tool, Parts: []*Part{result, orphan}, Time: at(4)},
		{Role: User, Meta: true, Parts: []*Part{text("<system-reminder>x</system-reminder>")}},
		{Role: User, Parts: []*Part{text("second")}, Time: at(9)},
		{Role: Assistant, Parts: []*Part{text("done")}, Time: at(7), Model: "m2", Usage: Usage{Input: 2, Output: 4}},
	} {
		s.Append(m)
	}
	s.Finish()
	if len(s.Turns) != 3 {
		t.Fatalf("got %d turns, want 3 (leading context, then one per prompt)", len(s.Turns))
	}
	if n := len(s.Turns[1].Messages); n != 4 {
		t.Errorf("turn 2 has %d messages, want 4: the meta user message must not start a turn", n)
	}
	if call.Call.Result != result.Result || !result.Result.Paired || orphan.Result.Paired {
		t.Errorf("pairing: call result %+v, orphan paired %v", call.Call.Result, orphan.Result.Paired)
	}
	if !s.Started.Equal(at(1)) || !s.Ended.Equal(at(9)) {
		t.Errorf("range %v – %v", s.Started, s.Ended)
	}
	if s.Usage != (Usage{Input: 5, Output: 5}) || len(s.Models) != 2 {
		t.Errorf("usage %+v models %v", s.Usage, s.Models)
	}
	st := s.Stats()
	if st.Messages != 7 || st.Prompts != 2 || st.ToolCalls != 1 || st.ByKind[ShellTool] != 1 {
		t.Errorf("stats %+v", st)
	}
	if s.FirstPrompt() != "first" {
		t.Errorf("first prompt %q", s.FirstPrompt())
	}
}

func TestStatsCountFailedCallsByKind(t *testing.T) {
	var s Session
	call := func(id, name string) *Part {
		kind := map[string]ToolKind{"Bash": ShellTool, "Read": ReadTool}[name]
		return &Part{Kind: CallPart, Call: &ToolCall{ID: id, Name: name, Kind: kind}}
	}
	result := func(id string, failed bool) *Part {
		return &Part{Kind: ResultPart, Result: &ToolResult{CallID: id, IsError: failed}}
	}
	s.Append(&Message{Role: User, Parts: []*Part{text("go")}})
	s.Append(&Message{Role: Assistant, Parts: []*Part{call("a", "Bash"), call("b", "Bash"), call("c", "Read")}})
	s.Append(&Message{Role: Tool, Parts: []*Part{result("a", true), result("b", false), result("c", true), result("orphan", true)}})
	s.Finish()
	st := s.Stats()
	// Three errored results (one without a call); two calls failed, one of each kind.
	if st.Errors != 3 || st.Failed[ShellTool] != 1 || st.Failed[ReadTool] != 1 || st.ByKind[ShellTool] != 2 {
		t.Errorf("stats %+v", st)
	}
}

func TestUsageByModelFallsBackToTheSessionTotal(t *testing.T) {
	s := Session{Models: []string{"gpt-5"}, Usage: Usage{Input: 7, Output: 2}}
	order, by := s.UsageByModel()
	if len(order) != 1 || order[0] != "gpt-5" || by["gpt-5"] != s.Usage {
		t.Errorf("one model: %v %v", order, by)
	}
	s.Models = append(s.Models, "gpt-5-mini")
	if order, by := s.UsageByModel(); len(order) != 1 || order[0] != "" || by[""] != s.Usage {
		t.Errorf("two models: %v %v", order, by)
	}
	s.Append(&Message{Role: Assistant, Model: "gpt-5", Usage: Usage{Input: 1}})
	if order, by := s.UsageByModel(); len(order) != 1 || by["gpt-5"] != (Usage{Input: 1}) {
		t.Errorf("with message usage: %v %v", order, by)
	}
}

func TestPartImages(t *testing.T) {
	a, b, c := &Image{URL: "a"}, &Image{URL: "b"}, &Image{URL: "c"}
	for _, tc := range []struct {
		p    Part
		want []*Image
	}{
		{Part{Kind: ImagePart, Image: a}, []*Image{a}},
		{Part{Kind: ResultPart, Result: &ToolResult{Images: []*Image{b, nil, c}}}, []*Image{b, c}},
		{Part{Kind: ResultPart, Image: a, Result: &ToolResult{Images: []*Image{b}}}, []*Image{a, b}},
		{Part{Kind: TextPart, Text: "no picture"}, []*Image{}},
	} {
		if got := tc.p.Images(); !slices.Equal(got, tc.want) {
			t.Errorf("%s part: images %v, want %v", tc.p.Kind, got, tc.want)
		}
	}
}
