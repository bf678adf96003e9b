package ingest

import (
	"fmt"
	"testing"

	"github.com/transcriptsite/transcriptsite/transcript"
)

func TestArgsField(t *testing.T) {
	keep := map[string]bool{"a": true, "b": true}
	for _, c := range []struct {
		in   string
		keys []string
		want string
	}{
		{`{"a":"x","b":"y"}`, []string{"b"}, "y"},
		{`{"a":"","b":"y"}`, []string{"a", "b"}, "y"},             // the first non-empty by preference
		{`{"b":"y","a":"x"}`, []string{"a", "b"}, "x"},            // preference, not order in the input
		{`{"a":{"n":[1,2]},"b":2}`, []string{"a"}, `{"n":[1,2]}`}, // not a string: as JSON
		{`{"a":"x","a":"z"}`, []string{"a"}, "z"},                 // the last of repeated names
		{`{"a":null}`, []string{"a"}, ""},
		{`{"a":"x\n\u00e9"}`, []string{"a"}, "x\né"},
		{`{"a":"x",`, []string{"a"}, ""}, // not JSON
		{`["a"]`, []string{"a"}, ""},
		{`plain`, []string{"a"}, ""},
		{`{"c":{"a":"deep"}}`, []string{"a"}, ""}, // only top-level keys
	} {
		if got := parseInput(c.in, keep).first(c.keys); got != c.want {
			t.Errorf("first(%s, %q) = %q, want %q", c.in, c.keys, got, c.want)
		}
	}
}

// fill returns the Args CommonArgs fill a call of kind with input and result r.
func fill(kind transcript.ToolKind, input string, r *transcript.ToolResult) transcript.Args {
	c := &transcript.ToolCall{Kind: kind, Input: input, Result: r}
	CommonArgs.Fill(c)
	return c.Args
}

func TestArgsSummary(t *testing.T) {
	for _, c := range []struct {
		kind     transcript.ToolKind
		in, want string
	}{
		{transcript.ShellTool, `{"command":"go test ./...","description":"run"}`, "go test ./..."},
		{transcript.ShellTool, `{"command":["bash","-lc","ls -la"]}`, "bash -lc ls -la"},
		{transcript.EditTool, `{"file_path":"/a/b.go","old_string":"x"}`, "/a/b.go"},
		{transcript.SearchTool, `{"pattern":"TODO"}`, "TODO"},
		// A search says what it looks for before where.
		{transcript.SearchTool, `{"path":"/src","pattern":"func main"}`, "func main"},
		{transcript.OtherTool, "free text\nof a tool", "free text\nof a tool"},
		{transcript.OtherTool, `{"other":1}`, ""},
	} {
		if got := fill(c.kind, c.in, nil).Summary; got != c.want {
			t.Errorf("Summary of %s = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestArgsSearch(t *testing.T) {
	shell := fill(transcript.ShellTool, "ls -la", nil)
	if shell.Command != "ls -la" {
		t.Errorf("a command as text: %+v", shell)
	}
	grep := fill(transcript.SearchTool, `{"pattern":"TODO\\(","path":"/src","glob":"*.go"}`, nil)
	if grep.Pattern != `TODO\(` || grep.Query || grep.Path != "/src" || grep.Files != "*.go" {
		t.Errorf("grep: %+v", grep)
	}
	if glob := fill(transcript.SearchTool, `{"glob":"*.go"}`, nil); glob.Pattern != "*.go" || glob.Files != "" {
		t.Errorf("a glob alone is the pattern: %+v", glob)
	}
	web := fill(transcript.SearchTool, `{"query":"x"}`, &transcript.ToolResult{Output: "Web search results for query: \"x\"\n\nLinks: [{\"title\":\"T\",\"url\":\"https://x.org\"}]\n\nFound."})
	if !web.Query || web.Web == nil || fmt.Sprint(web.Web.Pages) != "[{T https://x.org}]" || web.Web.Text != "Found." {
		t.Errorf("web search: %+v", web)
	}
}

func TestArgsFiles(t *testing.T) {
	multi := fill(transcript.EditTool, `{"file_path":"a.txt","edits":[{"old_string":"a","new_string":"b"},{"old_str":"c","new_str":"d"}]}`, nil)
	if multi.Path != "a.txt" || fmt.Sprint(multi.Edits) != "[{a b} {c d}]" {
		t.Errorf("multiedit: %+v", multi)
	}
	patch := fill(transcript.EditTool, "*** Begin Patch\n*** Add File: b.go\n+z\n*** End Patch", nil)
	if patch.Patch == "" || patch.Edits != nil {
		t.Errorf("apply_patch: %+v", patch)
	}
	if read := fill(transcript.ReadTool, `{"path":"x.go","offset":5}`, nil); read.Path != "x.go" || read.Offset != "5" || read.Start != 5 {
		t.Errorf("read: %+v", read)
	}
	if w := fill(transcript.WriteTool, `{"filePath":"x.go","contents":"package x"}`, nil); w.Path != "x.go" || w.Content != "package x" {
		t.Errorf("write: %+v", w)
	}
}

func TestArgsTasks(t *testing.T) {
	todos := fill(transcript.TaskTool, `{"todos":[{"content":"a","status":"completed"},{"content":"b","status":"pending"}]}`, nil).Todos
	plan := fill(transcript.TaskTool, `{"plan":[{"step":"x","status":"in_progress"}]}`, nil)
	if fmt.Sprint(todos) != "[{a completed} {b pending}]" || fmt.Sprint(plan.Todos) != "[{x in_progress}]" || plan.Plan != "" {
		t.Errorf("todos %+v plan %+v", todos, plan)
	}
	if p := fill(transcript.OtherTool, `{"plan":"## Plan"}`, nil); p.Plan != "## Plan" || p.Todos != nil {
		t.Errorf("plan: %+v", p)
	}
	q := fill(transcript.OtherTool, `{"questions":[{"question":"Which?","header":"H","options":[{"label":"A"},{"label":"B","description":"b"}]},{"question":""}]}`,
		&transcript.ToolResult{Output: `User has answered your questions: "Which?"="B". Go on.`})
	if fmt.Sprint(q.Questions) != "[{H Which? [{A } {B b}] false B}]" {
		t.Errorf("questions: %+v", q.Questions)
	}
	task := fill(transcript.TaskTool, `{"description":"Find it","subagent_type":"Explore","prompt":"Look"}`, nil)
	if task.Agent != "Explore" || task.Description != "Find it" || task.Prompt != "Look" || task.Summary != "Find it" {
		t.Errorf("task: %+v", task)
	}
}
