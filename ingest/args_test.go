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
	if read := fill(transcript.ReadTool, `{"path":"x.go","offset":5,"limit":20}`, nil); read.Path != "x.go" || read.Offset != "5" || read.Start != 5 || read.Limit != "20" {
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

// The fields of an input its call's view does not show are listed in
// Rest, in the input's order: a string as it is, anything else as JSON;
// those the view shows are not, nor any when the view shows the input
// whole.
func TestArgsRest(t *testing.T) {
	for _, c := range []struct {
		kind transcript.ToolKind
		in   string
		want string
	}{
		// Claude Code's Bash: the command and what it is for show.
		{transcript.ShellTool, `{"command":"make","description":"Build","timeout":120000,"run_in_background":true,"sandbox":{"network":false}}`,
			`[{timeout 120000} {run_in_background true} {sandbox {"network":false}}]`},
		{transcript.ShellTool, `{"command":"make","dangerouslyDisableSandbox":true,"description":""}`, `[{dangerouslyDisableSandbox true}]`},
		// Codex's shell and exec_command, Gemini CLI's run_shell_command.
		{transcript.ShellTool, `{"command":["bash","-lc","ls"],"workdir":"/w","timeout_ms":9000}`, `[{workdir /w} {timeout_ms 9000}]`},
		{transcript.ShellTool, `{"cmd":"ls","yield_time_ms":2500,"max_output_tokens":4000}`, `[{yield_time_ms 2500} {max_output_tokens 4000}]`},
		{transcript.ShellTool, `{"command":"ls","description":"List","dir_path":"web"}`, `[{dir_path web}]`},
		// No command: the view shows the input whole.
		{transcript.ShellTool, `{"task_id":"b1","block":true}`, `[]`},
		{transcript.MCPTool, `{"issue":"X-1","fields":["a"]}`, `[]`},
		{transcript.OtherTool, `{"level":3}`, `[]`},
		{transcript.EditTool, `{"replace_all":true,"file_path":"a.go","old_string":"x","new_string":"y"}`, `[{replace_all true}]`},
		{transcript.EditTool, `{"file_path":"a.go","old_string":"","new_string":"y"}`, `[]`}, // an empty old text is what the diff shows
		{transcript.EditTool, `{"file_path":"a.go","edits":[{"old_string":"x","new_string":"y","replace_all":true},{"old_string":"p","new_string":"q"}],"note":"n"}`,
			`[{edits[0].replace_all true} {note n}]`},
		{transcript.ReadTool, `{"file_path":"a.go","offset":3,"limit":9,"pages":"1-2"}`, `[{pages 1-2}]`},
		{transcript.SearchTool, `{"pattern":"x","path":"/s","glob":"*.go","type":"go","-n":true,"output_mode":"content"}`,
			`[{type go} {-n true} {output_mode content}]`},
		// An empty or null alternative of a field the view shows says nothing more.
		{transcript.SearchTool, `{"type":"search","query":"q","pattern":null,"url":null}`, `[{type search} {url null}]`},
		{transcript.WriteTool, `{"file_path":"a","content":"c","mode":"append"}`, `[{mode append}]`},
		{transcript.WebTool, `{"url":"https://x.org","prompt":"p","max_length":5000}`, `[{max_length 5000}]`},
		{transcript.TaskTool, `{"description":"d","prompt":"p","subagent_type":"x","model":"haiku","run_in_background":true}`,
			`[{model haiku} {run_in_background true}]`},
		{transcript.TaskTool, `{"explanation":"Why","plan":[{"step":"a","status":"pending"}]}`, `[{explanation Why}]`},
		{transcript.OtherTool, `{"plan":"## P","launchSwarm":false}`, `[{launchSwarm false}]`},
		// A value as text: a string with its newlines, JSON short on a
		// line and long indented; the last of a repeated name, where it
		// first was; an empty string as "".
		{transcript.ShellTool, `{"command":"ls","env":{"A":"1"},"env":{"B":"2"},"note":"a\nb","empty":"","none":null,"long":[1111111111,2222222222,3333333333,4444444444,5555555555,6666666666]}`,
			"[{env {\"B\":\"2\"}} {note a\nb} {empty \"\"} {none null} {long [\n  1111111111,\n  2222222222,\n  3333333333,\n  4444444444,\n  5555555555,\n  6666666666\n]}]"},
	} {
		got := fmt.Sprint(fill(c.kind, c.in, nil).Rest)
		if c.want == "[]" && fill(c.kind, c.in, nil).Rest != nil {
			t.Errorf("%s %s: Rest %q, want none", c.kind, c.in, got)
		}
		if got != c.want {
			t.Errorf("%s %s:\nRest %q\nwant %q", c.kind, c.in, got, c.want)
		}
	}
}
