package codex

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/ingest/ingesttest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// TestCodexIDE reads a session of the VS Code extension (0.14x): its
// prompts come wrapped in the IDE's context, which is kept as context
// after the request; the harness's context is shown without its tags.
func TestCodexIDE(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "ide.jsonl")
	if len(warns) != 0 {
		t.Fatalf("warnings %v", warns)
	}
	if got := s.FirstPrompt(); got != "Add a DELETE route for a single note" {
		t.Errorf("first prompt = %q, want the request alone", got)
	}
	want := []string{
		"system*(text text)", "user*(text text)", // permissions and mode; AGENTS.md and environment
		"user(text)", "user*(text)", // the request, then what the IDE said beside it
		"assistant(thinking call result)", "assistant(call result)", "assistant(text)",
		"user(text)", "user*(text)", // the Codex app's wrapper, read from a turn item alone
		"assistant(call result)", "assistant(call result)", "assistant(text)",
	}
	if got := ingesttest.Describe(s); !slices.Equal(got, want) {
		t.Errorf("messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	msgs := s.Messages()
	if len(s.Turns) != 3 || s.Turns[1].Messages[1] != msgs[3] {
		t.Errorf("%d turns; the IDE's context should follow its request in its turn", len(s.Turns))
	}
	for i, c := range []struct {
		msg, part int
		want      string
	}{
		{0, 0, "**Permissions instructions**\n\nThe sandbox lets you write inside the workspace only. Ask before using the network."},
		{0, 1, "**Collaboration mode**\n\n# Collaboration Mode: Default\n\nPrefer doing the work over asking questions."},
		{1, 0, "**AGENTS.md instructions for /home/rin/notes**\n\nKeep handlers small and test every route."},
		{1, 1, "**Environment**\n\n- cwd: `/home/rin/notes`\n- shell: `zsh`\n- writable roots: `/home/rin/notes`, `/tmp/notes_cache`\n" +
			"- current date: `2026-07-20`\n- timezone: `Europe/Lisbon`"},
		{3, 0, "**Context from my IDE setup:**\n\n**Active file: server/routes.go**\n\n**Active selection of the file:**\n\n" +
			"```\nfunc listNotes(w http.ResponseWriter, r *http.Request) {\n```\n**Open tabs:**\n\n- routes.go: server/routes.go\n- store.go: server/store.go"},
		{7, 0, "Document the new route in notes.md"},
		{8, 0, "**Files mentioned by the user:**\n\n**notes.md: /home/rin/notes/docs/notes.md**"},
	} {
		if got := msgs[c.msg].Parts[c.part].Text; got != c.want {
			t.Errorf("%d: message %d part %d =\n%q\nwant\n%q", i, c.msg, c.part, got, c.want)
		}
	}
	checkIDECalls(t, s)
}

func checkIDECalls(t *testing.T, s *transcript.Session) {
	var calls []*transcript.ToolCall
	s.Parts(func(_ *transcript.Message, p *transcript.Part) {
		if p.Call != nil {
			calls = append(calls, p.Call)
		}
	})
	if len(calls) != 4 {
		t.Fatalf("%d calls, want 4", len(calls))
	}
	for i, want := range []string{
		"mcp__devtools — Helpers the editor offers for Go projects.\nmcp__devtools.list_routes — Lists the HTTP routes a Go module registers.",
		"", "docs_writer — Formats a Markdown section.", "Success. Updated the following files:\nM docs/notes.md\n",
	} {
		r := calls[i].Result
		if r == nil || want != "" && r.Output != want {
			t.Errorf("call %d (%s) result = %+v, want output %q", i, calls[i].Name, r, want)
		}
	}
	if r := calls[2].Result; calls[2].ID != "tsc_7f01" || r == nil || r.CallID != "tsc_7f01" {
		t.Errorf("server tool search %q answered by %+v", calls[2].ID, r)
	}
	checkIDEPatches(t, calls[1], calls[3])
}

// checkIDEPatches: patch_apply_end's diffs number the edit; without them
// (the second patch's change has none), the call's own patch is all there
// is. Both outputs' exit codes are read from their headers.
func checkIDEPatches(t *testing.T, first, second *transcript.ToolCall) {
	want := []transcript.Hunk{
		{Path: "server/routes.go", OldStart: 21, NewStart: 21, Lines: []string{" \tmux.HandleFunc(\"GET /notes\", listNotes)", "+\tmux.HandleFunc(\"DELETE /notes/{id}\", deleteNote)", " \tmux.HandleFunc(\"POST /notes\", addNote)"},
			Heading: "func routes(mux *http.ServeMux) {"},
		{Path: "server/delete.go", NewStart: 1, Lines: []string{"+package server", "+", "+// deleteNote removes one note."}},
		{Path: "server/old_store.go → server/store_mem.go", OldStart: 3, NewStart: 3, Lines: []string{"-// memory store", "+// in-memory store"}},
	}
	if got := first.Result.Patch; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("patch:\n%v\nwant\n%v", got, want)
	}
	if second.Result.Patch != nil {
		t.Errorf("second patch = %v, want none", second.Result.Patch)
	}
	for _, c := range []*transcript.ToolCall{first, second} {
		if r := c.Result; r.ExitCode == nil || *r.ExitCode != 0 || r.IsError {
			t.Errorf("apply_patch %s: exit %v, error %v; want exit code 0 read from the output's header", c.ID, r.ExitCode, r.IsError)
		}
	}
}

// TestCodexIDEContextText: the IDE's headings are labels, its selection
// code, and its lines stay lines.
func TestCodexIDEContextText(t *testing.T) {
	ctx, req, ok := ideRequest("\n# Diff comments:\n\n## Comment 1\nFile: web/app.css\nLines: 4\nComment:\nMake it red\n\n" +
		"# In app browser:\n- Current URL: http://localhost:5173/\n\n## My request for Codex:\n\nLook at comment 1\n")
	want := "**Diff comments:**\n\n**Comment 1**\n\nFile: web/app.css  \nLines: 4  \nComment:  \nMake it red\n\n" +
		"**In app browser:**\n\n- Current URL: http://localhost:5173/"
	if !ok || ctx != want || req != "Look at comment 1" {
		t.Errorf("ideRequest = %v\n%q\n%q\nwant\n%q", ok, ctx, req, want)
	}
	if _, _, ok := ideRequest("Why does ## My request for Codex: appear here?"); ok {
		t.Error("a prompt that mentions the marker is not wrapped")
	}
}

// TestCodexContextText: the tags Codex wraps context in are not shown;
// what they hold is, settings as a list.
func TestCodexContextText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"<environment_context>\n  <cwd>/w/a_b_c</cwd>\n  <approval_policy>never</approval_policy>\n</environment_context>",
			"**Environment**\n\n- cwd: `/w/a_b_c`\n- approval policy: `never`"},
		{"<user_instructions>\n\nRun `make`.\n\n</user_instructions>", "**User instructions**\n\nRun `make`."},
		{"<skill>\n<name>pdf</name>\n<path>/s/pdf/SKILL.md</path>\n# PDF\nUse it.\n</skill>",
			"**Skill**\n\n- name: `pdf`\n- path: `/s/pdf/SKILL.md`\n\n# PDF\nUse it."},
		{"<user_shell_command>\n<command>ls</command>\n<result>\nExit code: 0\nOutput:\na.txt\n</result>\n</user_shell_command>",
			"**User shell command**\n\n- command: `ls`\n\nresult:\n\n```\nExit code: 0\nOutput:\na.txt\n```"},
		{"# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nBe brief.\n</INSTRUCTIONS>", "**AGENTS.md instructions for /w**\n\nBe brief."},
		{"<turn_aborted>\nThe user stopped the turn.\n</turn_aborted>", "**Turn aborted**\n\nThe user stopped the turn."},
		{"<not closed>\nkept", "<not closed>\nkept"},
	} {
		if got := contextText(c.in); got != c.want {
			t.Errorf("contextText(%q) =\n%q\nwant\n%q", c.in, got, c.want)
		}
	}
}

// TestCodexPatchShapes: patch_apply_end tags each file's change by a
// "type" since 2026, by a key before; a change without its diff leaves
// the call's own patch to show the edit.
func TestCodexPatchShapes(t *testing.T) {
	for _, c := range []struct {
		name, changes string
		want          int // hunks; 0: none
	}{
		{"typed", `{"/w/a.go":{"type":"update","unified_diff":"@@ -2 +2 @@\n-a\n+b\n","move_path":null},"/w/n.txt":{"type":"add","content":"x\n"},"/w/o.txt":{"type":"delete","content":"y\n"}}`, 3},
		{"keyed", `{"/w/a.go":{"update":{"unified_diff":"@@ -2 +2 @@\n-a\n+b\n","move_path":null}},"/w/o.txt":{"delete":{"content":"y\n"}}}`, 2},
		{"no diff", `{"/w/a.go":{"type":"update"}}`, 0},
		{"one file without", `{"/w/a.go":{"type":"update","unified_diff":"@@ -2 +2 @@\n-a\n+b\n"},"/w/b.go":{"type":"update","unified_diff":""}}`, 0},
		{"not changes", `"delete"`, 0},
	} {
		got := patchHunks(json.RawMessage(c.changes), "/w", "")
		if len(got) != c.want || c.want > 0 && got[0].Path != "a.go" {
			t.Errorf("%s: %v, want %d hunks, the first of a.go", c.name, got, c.want)
		}
	}
}
