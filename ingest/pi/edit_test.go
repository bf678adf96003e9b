package pi

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/ingest/ingesttest"
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// editCalls are the edit calls of the fixture edits.jsonl, their Args
// filled as a build fills them.
func editCalls(t *testing.T) []*transcript.ToolCall {
	t.Helper()
	s, warns := ingesttest.OneSession(t, "edits.jsonl")
	ingesttest.WantWarnings(t, warns)
	names := Tools.Args
	if names == nil {
		names = ingest.CommonArgs // as a build fills them
	}
	var calls []*transcript.ToolCall
	s.Parts(func(_ *transcript.Message, p *transcript.Part) {
		if p.Result != nil && !p.Result.Paired {
			t.Errorf("result %s shown on its own", p.Result.CallID)
		}
		if p.Call != nil {
			names.Fill(p.Call)
			calls = append(calls, p.Call)
		}
	})
	if len(calls) != 6 {
		t.Fatalf("%d calls, want 6", len(calls))
	}
	return calls
}

// Pi's edit names its replacement oldText and newText, one pair or an
// array of them: the page shows them as a diff, not as the call's JSON.
func TestPiEditArgs(t *testing.T) {
	calls := editCalls(t)
	for i, want := range [][]transcript.Edit{
		{{Old: `return "hello"`, New: `return "hello, world"`}},
		{{Old: "one\n", New: "ONE\none and a half\n"}, {Old: "fifteen", New: "FIFTEEN"}},
		{{Old: "# Notes", New: "# Project notes"}, {Old: "TODO\n", New: "DONE\nNext step.\n"}},
	} {
		c := calls[i]
		if c.Kind != transcript.EditTool || !slices.Equal(c.Args.Edits, want) || c.Args.Path == "" {
			t.Errorf("call %s: kind %s, path %q, edits %q, want %q", c.ID, c.Kind, c.Args.Path, c.Args.Edits, want)
		}
	}
}

// The diff Pi reports with an edit's result gives the change its file's
// line numbers.
func TestPiEditPatch(t *testing.T) {
	calls := editCalls(t)
	for _, c := range []struct {
		call int
		want []transcript.Hunk
	}{
		{0, []transcript.Hunk{{OldStart: 6, NewStart: 6, Lines: []string{
			" \tfmt.Println(greeting())", " }", " ", " func greeting() string {",
			"-\treturn \"hello\"", "+\treturn \"hello, world\"", " }", " // end"}}}},
		// An added line moves the second part's lines in the new file.
		{1, []transcript.Hunk{
			{OldStart: 1, NewStart: 1, Lines: []string{"-one", "+ONE", "+one and a half", " two", " three", " four", " five"}},
			{OldStart: 11, NewStart: 12, Lines: []string{" eleven", " twelve", " thirteen", " fourteen", "-fifteen", "+FIFTEEN",
				" sixteen", " seventeen", " eighteen", " nineteen"}}}},
		// A unified patch beside the diff is read instead.
		{2, []transcript.Hunk{
			{OldStart: 1, NewStart: 1, Lines: []string{"-# Notes", "+# Project notes", " ", " Some text.", " More."}},
			{OldStart: 15, NewStart: 15, Lines: []string{" line a", " line b", "-TODO", "+DONE", "+Next step."}}}},
		// Before Pi 0.10.1 the lines leading up to a change after a gap
		// counted from 1: the change's own number is the file's.
		{3, []transcript.Hunk{{OldStart: 26, NewStart: 26, Lines: []string{
			" alpha", " beta", " gamma", " delta", "-epsilon", "+EPSILON", " zeta"}}}},
		// A diff that does not read, and a failed edit: no line numbers.
		{4, nil},
		{5, nil},
	} {
		r := calls[c.call].Result
		if r == nil {
			t.Fatalf("call %d has no result", c.call)
		}
		if !slices.EqualFunc(r.Patch, c.want, func(a, b transcript.Hunk) bool {
			return a.Path == b.Path && a.OldStart == b.OldStart && a.NewStart == b.NewStart && slices.Equal(a.Lines, b.Lines)
		}) {
			t.Errorf("call %d patch:\n%+v\nwant\n%+v", c.call, r.Patch, c.want)
		}
	}
	// The page numbers the first edit from line 6 of hello.go; the one
	// whose diff does not read is shown from its old and new text.
	if fds := render.Edits(calls[0]); len(fds) != 1 || len(fds[0].Rows) == 0 || fds[0].Rows[0].N != 6 || fds[0].Path != "hello.go" {
		t.Errorf("first edit's view = %+v", fds)
	}
	if fds := render.Edits(calls[4]); len(fds) != 1 || !slices.ContainsFunc(fds[0].Rows, func(r render.Row) bool { return r.Op == '+' && r.Text == "// the end" }) {
		t.Errorf("unnumbered edit's view = %+v", fds)
	}
}

func TestNumberedHunks(t *testing.T) {
	one := 1
	for _, c := range []struct {
		name, diff string
		first      *int
		ok         bool
	}{
		{"one change", "-1 a\n+1 b", &one, true},
		{"a newline at the end", "-1 a\n+1 b\n", &one, true},
		{"an empty line's trailing space cut", " 1 a\n 2\n-3 b\n+3 c", nil, true},
		{"first changed line elsewhere", "-1 a\n+1 b\n 2 c", new(int), false},
		{"numbers that skip without a gap", " 1 a\n 5 b\n-6 c", nil, false},
		{"an added line numbered after the removed one", "-4 a\n+5 b", nil, false},
		{"leading lines counted from 1", "    ...\n  1 a\n  2 b\n-30 c\n+30 d", nil, true},
		{"no number", "- a\n+ b", nil, false},
		{"a unified diff", "@@ -1 +1 @@\n-a\n+b", nil, false},
		{"number run into the text", "-12a", nil, false},
		{"empty", "", nil, false},
	} {
		if got := numberedHunks(c.diff, c.first); (got != nil) != c.ok {
			t.Errorf("%s: %q gives %+v, want read %v", c.name, c.diff, got, c.ok)
		}
	}
	if got := numberedHunks(" 1 a\n 2\n-3 b\n+3 c", nil); len(got) != 1 || !slices.Equal(got[0].Lines, []string{" a", " ", "-b", "+c"}) {
		t.Errorf("empty line: %+v", got)
	}
	if got := editPatch([]byte(`{"diff":"-1 a\n+1 b","firstChangedLine":1}`)); len(got) != 1 || strings.Join(got[0].Lines, "|") != "-a|+b" {
		t.Errorf("editPatch = %+v", got)
	}
}

// Pi's names are the shared ones and its own: a name added to the shared
// lists is Pi's too.
func TestPiArgsKeepCommon(t *testing.T) {
	pi, common := reflect.ValueOf(args).Elem(), reflect.ValueOf(ingest.CommonArgs).Elem()
	for i := range pi.NumField() {
		if !pi.Type().Field(i).IsExported() || pi.Field(i).Kind() != reflect.Slice {
			continue
		}
		names := pi.Field(i).Interface().([]string)
		for _, n := range common.Field(i).Interface().([]string) {
			if !slices.Contains(names, n) {
				t.Errorf("%s: Pi's names %q lack %q", pi.Type().Field(i).Name, names, n)
			}
		}
	}
}
