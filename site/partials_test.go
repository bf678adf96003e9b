package site

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	transcriptsite "github.com/transcriptsite/transcriptsite"
	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/internal/htmlcheck"
	"github.com/transcriptsite/transcriptsite/site/siteconfig"
	"github.com/transcriptsite/transcriptsite/site/theme"
	"github.com/transcriptsite/transcriptsite/transcript"
)

func exit(n int) *int { return &n }

// toolCases are tool calls of every kind, as readers produce them.
var toolCases = []struct {
	name string
	call transcript.ToolCall
}{
	{"shell", transcript.ToolCall{Name: "Bash", Kind: transcript.ShellTool, Input: `{"command":"go test ./... | grep -v '^ok'","description":"Run the tests"}`,
		Result: &transcript.ToolResult{Output: "\x1b[31m--- FAIL: TestX\x1b[0m\n<b>not bold</b>", IsError: true, ExitCode: exit(1)}}},
	{"shell-folded", transcript.ToolCall{Name: "exec_command", Kind: transcript.ShellTool, Input: `{"cmd":["bash","-lc","seq 25"]}`,
		Result: &transcript.ToolResult{Output: seq(25)}}},
	{"shell-huge", transcript.ToolCall{Name: "Bash", Kind: transcript.ShellTool, Input: `{"command":"cat big.log"}`,
		Result: &transcript.ToolResult{Output: seq(2500)}}},
	{"edit", transcript.ToolCall{Name: "Edit", Kind: transcript.EditTool, Input: `{"file_path":"/src/app/main.go","old_string":"func main() {\n\trun()\n}","new_string":"func main() {\n\tif err := run(); err != nil {\n\t\tlog.Fatal(err)\n\t}\n}"}`,
		Result: &transcript.ToolResult{Output: "The file /src/app/main.go has been updated."}}},
	// Claude Code reports where an edit landed: the diff is numbered from it.
	{"edit-patch", transcript.ToolCall{Name: "Edit", Kind: transcript.EditTool, Input: `{"file_path":"/src/.gitignore","old_string":"main.py.oldscratch","new_string":"main.py.old\nscratch/"}`,
		Result: &transcript.ToolResult{Output: "The file /src/.gitignore has been updated successfully.",
			Patch: []transcript.Hunk{{OldStart: 167, NewStart: 167, Lines: []string{" # Old files", " *.old", "-main.py.oldscratch", "+main.py.old", "+scratch/"}}}}}},
	{"multiedit", transcript.ToolCall{Name: "MultiEdit", Kind: transcript.EditTool, Input: `{"file_path":"a.py","edits":[{"old_string":"x = 1","new_string":"x = 2"},{"old_string":"print(x)","new_string":"print(x, y)"}]}`}},
	{"apply-patch", transcript.ToolCall{Name: "apply_patch", Kind: transcript.EditTool, Input: "*** Begin Patch\n*** Update File: web/app.js\n@@ function hi() {\n-  return 'hi';\n+  return `hello ${name}`;\n*** Add File: web/new.css\n+body { color: red; }\n*** End Patch",
		Result: &transcript.ToolResult{Output: "Success. Updated the following files:\nM web/app.js\nA web/new.css"}}},
	{"write", transcript.ToolCall{Name: "Write", Kind: transcript.WriteTool, Input: `{"file_path":"/tmp/hello.rs","content":"fn main() {\n    println!(\"<hi>\");\n}\n"}`,
		Result: &transcript.ToolResult{Output: "File created successfully at: /tmp/hello.rs"}}},
	{"read", transcript.ToolCall{Name: "Read", Kind: transcript.ReadTool, Input: `{"file_path":"/src/util.py","offset":10}`,
		Result: &transcript.ToolResult{Output: "    10\tdef add(a, b):\n    11\t    return a + b"}}},
	// Claude Code numbers a read with "→" and may add a reminder after it.
	{"read-reminder", transcript.ToolCall{Name: "Read", Kind: transcript.ReadTool, Input: `{"file_path":"/src/deep/CLAUDE.md"}`,
		Result: &transcript.ToolResult{Output: "     1→# Instructions\n     2→\n     3→Run `make test`.\n\n<system-reminder>\nWhenever you read a file, consider whether it is malware.\n</system-reminder>\n"}}},
	{"read-error", transcript.ToolCall{Name: "read_file", Kind: transcript.ReadTool, Input: `{"absolute_path":"/nope"}`,
		Result: &transcript.ToolResult{Output: "File not found: /nope", IsError: true}}},
	{"grep", transcript.ToolCall{Name: "Grep", Kind: transcript.SearchTool, Input: `{"pattern":"TODO\\(","path":"/src","glob":"*.go"}`,
		Result: &transcript.ToolResult{Output: "/src/a.go:12: // TODO(kim): <fix>\n/src/b.go:3: // TODO(ana)"}}},
	{"websearch", transcript.ToolCall{Name: "WebSearch", Kind: transcript.SearchTool, Input: `{"query":"token bucket algorithm"}`,
		Result: &transcript.ToolResult{Output: "Token bucket - Wikipedia https://en.wikipedia.org/wiki/Token_bucket"}}},
	{"websearch-links", transcript.ToolCall{Name: "WebSearch", Kind: transcript.SearchTool, Input: `{"query":"zsh-abbr syntax highlighting"}`,
		Result: &transcript.ToolResult{Output: "Web search results for query: \"zsh-abbr syntax highlighting\"\n\nLinks: [{\"title\":\"Integrate with <zsh-syntax-highlighting>? · Issue #23\",\"url\":\"https://github.com/olets/zsh-abbr/issues/23\"},{\"title\":\"bad\",\"url\":\"javascript:alert(1)\"}]\n\nThe **abbr** plugin styles abbreviations itself."}}},
	{"glob", transcript.ToolCall{Name: "Glob", Kind: transcript.SearchTool, Input: `{"pattern":"**/*.go","path":"/src"}`,
		Result: &transcript.ToolResult{Output: "/src/a.go\n/src/b.go"}}},
	{"question", transcript.ToolCall{Name: "AskUserQuestion", Kind: transcript.OtherTool, Input: `{"questions":[{"question":"Which approach?","header":"Approach","multiSelect":false,"options":[{"label":"CSS variables","description":"One stylesheet, both themes"},{"label":"Theme <context>","description":"A React context"}]}]}`,
		Result: &transcript.ToolResult{Output: `User has answered your questions: "Which approach?"="CSS variables". You can now continue with the user's answers in mind.`}}},
	{"exitplanmode", transcript.ToolCall{Name: "ExitPlanMode", Kind: transcript.OtherTool, Input: `{"plan":"## Plan\n\n1. Add **retries**\n2. Test them"}`,
		Result: &transcript.ToolResult{Output: "User has approved your plan. You can now start coding."}}},
	{"taskoutput", transcript.ToolCall{Name: "TaskOutput", Kind: transcript.ShellTool, Input: `{"task_id":"b3c1f0e","block":true,"timeout":30000}`,
		Result: &transcript.ToolResult{Output: "<status>completed</status>\n<exit_code>0</exit_code>"}}},
	{"webfetch", transcript.ToolCall{Name: "WebFetch", Kind: transcript.WebTool, Input: `{"url":"https://example.com/docs?a=1&b=2","prompt":"Summarise"}`,
		Result: &transcript.ToolResult{Output: "A page about <things>."}}},
	{"webfetch-unsafe", transcript.ToolCall{Name: "WebFetch", Kind: transcript.WebTool, Input: `{"url":"javascript:alert(1)"}`}},
	{"todo", transcript.ToolCall{Name: "TodoWrite", Kind: transcript.TaskTool, Input: `{"todos":[{"content":"Read the code","status":"completed"},{"content":"Fix <the> bug","status":"in_progress"},{"content":"Test","status":"pending"}]}`,
		Result: &transcript.ToolResult{Output: "Todos have been modified successfully."}}},
	{"plan", transcript.ToolCall{Name: "update_plan", Kind: transcript.TaskTool, Input: `{"plan":[{"step":"Inspect","status":"completed"},{"step":"Patch","status":"in_progress"}]}`}},
	{"subagent", transcript.ToolCall{Name: "Task", Kind: transcript.TaskTool, Subagent: "child-1", Input: `{"description":"Find the config loader","subagent_type":"Explore","prompt":"Look for **loadConfig**"}`,
		Result: &transcript.ToolResult{Output: "Found it in `config.go`."}}},
	{"mcp", transcript.ToolCall{Name: "mcp__linear__create_comment", Kind: transcript.MCPTool, Input: `{"issueId":"DATA-1","body":"<script>x</script>"}`,
		Result: &transcript.ToolResult{Output: `{"id":"c_1"}`}}},
	{"other-no-result", transcript.ToolCall{Name: "frobnicate", Kind: transcript.OtherTool, Input: `{"level":3}`}},
}

func seq(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// toolRenderer returns a func that renders a tool call as the page of a
// session with a subagent shows it, its Args filled as a reader fills them.
func toolRenderer(t *testing.T) func(t *testing.T, call *transcript.ToolCall) string {
	tpl, err := theme.Load(siteconfig.Overlay{Upper: os.DirFS(t.TempDir()), Lower: transcriptsite.FS})
	if err != nil {
		t.Fatal(err)
	}
	child := &transcript.Session{ID: "child-1", Format: "claude-code", Title: "Explore"}
	parent := &transcript.Session{ID: "parent-1", Format: "claude-code", ChildIDs: []string{"child-1"}}
	st, _ := testSite(&Config{}, parent, child)
	page := &Page{Site: st, Kind: "session", Path: st.Session("parent-1", "claude-code").Path, Session: st.Session("parent-1", "claude-code")}
	return func(t *testing.T, call *transcript.ToolCall) string {
		ingest.CommonArgs.Fill(call)
		var buf bytes.Buffer
		part := &transcript.Part{Kind: transcript.CallPart, Call: call}
		if err := tpl["session"].ExecuteTemplate(&buf, "partials/tool.html", partView(part, page)); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
}

func TestToolPartialsGolden(t *testing.T) {
	render := toolRenderer(t)
	for _, c := range toolCases {
		t.Run(c.name, func(t *testing.T) {
			call := c.call
			got := render(t, &call)
			if !strings.Contains(got, `class="tool tool-`+string(call.Kind)) {
				t.Errorf("not rendered as a %s tool", call.Kind)
			}
			for _, bad := range []string{"<script>", "<b>not", "<things>", `href="javascript`, "\x1b"} {
				if strings.Contains(got, bad) {
					t.Errorf("output contains %q", bad)
				}
			}
			golden := filepath.Join("testdata", "golden", "tools", c.name+".html")
			if *update {
				_ = os.MkdirAll(filepath.Dir(golden), 0o755)
				_ = os.WriteFile(golden, []byte(got), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./site -run Golden -update)", err)
			}
			if got != string(want) {
				t.Errorf("differs from %s (run go test ./site -run Golden -update if intended)\n%s", golden, firstDiff(string(want), got))
			}
		})
	}
}

// FuzzToolPartial renders a tool call of every kind with arbitrary name,
// input and output: it must not fail, and nothing in them may become an
// element or attribute that runs script or loads from elsewhere.
func FuzzToolPartial(f *testing.F) {
	for i, c := range toolCases {
		out := ""
		if c.call.Result != nil {
			out = c.call.Result.Output
		}
		f.Add(uint8(i), c.call.Name, c.call.Input, out, i%2 == 0)
	}
	tpl, err := theme.Load(siteconfig.Overlay{Upper: os.DirFS(f.TempDir()), Lower: transcriptsite.FS})
	if err != nil {
		f.Fatal(err)
	}
	kinds := []transcript.ToolKind{transcript.ShellTool, transcript.ReadTool, transcript.WriteTool, transcript.EditTool,
		transcript.SearchTool, transcript.WebTool, transcript.TaskTool, transcript.MCPTool, transcript.OtherTool}
	s := &transcript.Session{ID: "s", Format: "claude-code"}
	st, _ := testSite(&Config{}, s)
	page := &Page{Site: st, Kind: "session", Path: st.Sessions[0].Path, Session: st.Sessions[0]}
	f.Fuzz(func(t *testing.T, kind uint8, name, input, output string, isErr bool) {
		call := transcript.ToolCall{Name: name, Kind: kinds[int(kind)%len(kinds)], Input: input,
			Result: &transcript.ToolResult{Output: output, IsError: isErr}}
		ingest.CommonArgs.Fill(&call)
		var buf bytes.Buffer
		part := &transcript.Part{Kind: transcript.CallPart, Call: &call}
		if err := tpl["session"].ExecuteTemplate(&buf, "partials/tool.html", partView(part, page)); err != nil {
			t.Fatal(err)
		}
		if err := htmlcheck.Fragment(buf.String()); err != nil {
			t.Fatalf("%s tool %q input %q output %q: %v\n%s", call.Kind, name, input, output, err, buf.String())
		}
	})
}

// An image a session only names by URL is linked when the URL is on the
// web; a script URL or a path on the agent's machine is shown, not linked.
func TestImagePartialLinksOnlyWebURLs(t *testing.T) {
	tpl, err := theme.Load(siteconfig.Overlay{Upper: os.DirFS(t.TempDir()), Lower: transcriptsite.FS})
	if err != nil {
		t.Fatal(err)
	}
	for u, linked := range map[string]bool{
		"https://example.com/a.png":       true,
		"javascript:alert(1)":             false,
		"data:image/svg+xml,<svg/>":       false,
		"/home/kim/shot.png":              false,
		"../../../index.html":             false,
		"gs://bucket/a.png":               false,
		" JavaScript:alert(1)":            false,
		"file:///C:/Users/kim/Pictures/x": false,
	} {
		var buf bytes.Buffer
		if err := tpl["session"].ExecuteTemplate(&buf, "partials/image.html", &transcript.Image{URL: u}); err != nil {
			t.Fatal(err)
		}
		got := buf.String()
		if strings.Contains(got, "<a ") != linked || strings.Contains(got, "ZgotmplZ") {
			t.Errorf("%q: %s", u, got)
		}
		if linked && !strings.Contains(got, `rel="noopener nofollow"`) {
			t.Errorf("%q: external link without rel: %s", u, got)
		}
	}
}

// TestToolViewLookup checks that a site gives a kind of tool its own view
// by adding its partial, that a call's special view comes before its
// kind's, and that a kind with none falls back to the generic view.
func TestToolViewLookup(t *testing.T) {
	site := fstest.MapFS{"templates/partials/tools/mcp.html": {Data: []byte(`<p class="mine">{{.Call.Name}}</p>`)}}
	tpl, err := theme.Load(siteconfig.Overlay{Upper: site, Lower: transcriptsite.FS})
	if err != nil {
		t.Fatal(err)
	}
	s := &transcript.Session{ID: "s", Format: "claude-code"}
	st, _ := testSite(&Config{}, s)
	page := &Page{Site: st, Kind: "session", Path: st.Sessions[0].Path, Session: st.Sessions[0]}
	for _, c := range []struct {
		call transcript.ToolCall
		want string
	}{
		{transcript.ToolCall{Name: "mcp__x__y", Kind: transcript.MCPTool, Input: `{"q":1}`}, `<p class="mine">mcp__x__y</p>`},
		{transcript.ToolCall{Name: "frobnicate", Kind: transcript.OtherTool, Input: `{"q":1}`}, `<div class="tool-input">`},
		{transcript.ToolCall{Name: "ExitPlanMode", Kind: transcript.OtherTool, Input: `{"plan":"go"}`}, `<div class="plan text">`},
		{transcript.ToolCall{Name: "TodoWrite", Kind: transcript.TaskTool, Input: `{"todos":[{"content":"a"}]}`}, `<ul class="checklist">`},
		{transcript.ToolCall{Name: "Task", Kind: transcript.TaskTool, Input: `{"prompt":"a"}`}, `<div class="subagent">`},
	} {
		ingest.CommonArgs.Fill(&c.call)
		var buf bytes.Buffer
		part := &transcript.Part{Kind: transcript.CallPart, Call: &c.call}
		if err := tpl["session"].ExecuteTemplate(&buf, "partials/tool.html", partView(part, page)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), c.want) {
			t.Errorf("%s: no %s in\n%s", c.call.Name, c.want, buf.String())
		}
	}
}

// TestPartViewHoldsEveryField: a template reads a part through its view,
// which copies the part's fields; a field added to transcript.Part and not
// to the view would be missing from every theme.
func TestPartViewHoldsEveryField(t *testing.T) {
	part := &transcript.Part{}
	pv := reflect.ValueOf(part).Elem()
	for i := range pv.NumField() {
		f := pv.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(pv.Type().Field(i).Name)
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		default:
			t.Fatalf("transcript.Part.%s is a %s: give partView a case for it", pv.Type().Field(i).Name, f.Kind())
		}
	}
	view := reflect.ValueOf(partView(part, &Page{}))
	for i := range pv.NumField() {
		name := pv.Type().Field(i).Name
		got := view.FieldByName(name)
		if !got.IsValid() {
			t.Errorf("PartView has no field %s", name)
			continue
		}
		if !reflect.DeepEqual(got.Interface(), pv.Field(i).Interface()) || got.Kind() == reflect.Pointer && got.Pointer() != pv.Field(i).Pointer() {
			t.Errorf("PartView.%s = %v, want the part's %v", name, got, pv.Field(i))
		}
	}
}
