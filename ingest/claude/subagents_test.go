package claude

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/ingest/ingesttest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

func loadDir(t *testing.T, dir string) map[string]*transcript.Session {
	t.Helper()
	res, err := ingest.Load(context.Background(), ingest.Root{FS: os.DirFS(dir)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings: %v", res.Warnings)
	}
	return ingesttest.ByID(res.Sessions)
}

// TestClaudeInlineSidechains reads a Claude Code 1.0 file whose Task agents
// are written inline: each chain from a root marked isSidechain is a
// subagent of its own, linked from the call whose prompt it was given,
// whatever order the chains were written in.
func TestClaudeInlineSidechains(t *testing.T) {
	byID := loadDir(t, "testdata/inline")
	const handlers, queries = "sidechain-s2-u1-in1", "sidechain-s1-u1-in1"
	main, h, q := byID["in1"], byID[handlers], byID[queries]
	if len(byID) != 3 || main == nil || h == nil || q == nil {
		t.Fatalf("sessions %v", slices.Sorted(func(yield func(string) bool) {
			for id := range byID {
				yield(id)
			}
		}))
	}
	// The main session holds what the user typed, and each report once:
	// in its Task call.
	st := main.Stats()
	if st.Prompts != 2 || len(main.Turns) != 2 || st.Messages != 7 {
		t.Errorf("main: %d prompts, %d turns, %d messages; want 2, 2, 7", st.Prompts, len(main.Turns), st.Messages)
	}
	subagents := map[string]string{}
	reports := 0
	main.Parts(func(m *transcript.Message, p *transcript.Part) {
		if m.Sidechain {
			t.Errorf("main holds a sidechain message %s", m.ID)
		}
		if p.Call != nil {
			subagents[p.Call.ID] = p.Call.Subagent
		}
		if p.Result != nil && strings.Contains(p.Result.Output, "3 handlers") {
			reports++
		}
	})
	if subagents["toolu_task1"] != queries || subagents["toolu_task2"] != handlers || reports != 1 {
		t.Errorf("calls start %v, the report is shown %d times", subagents, reports)
	}
	if !slices.Equal(main.ChildIDs, []string{handlers, queries}) {
		t.Errorf("children %v", main.ChildIDs)
	}
	for _, sub := range []*transcript.Session{h, q} {
		ms := sub.Messages()
		if sub.ParentID != "in1" || sub.Stats().Prompts != 1 || len(ms) != 4 || !ms[0].StartsTurn() {
			t.Errorf("%s: parent %q, %d prompts, %d messages", sub.ID, sub.ParentID, sub.Stats().Prompts, len(ms))
		}
		// Each is of its parent's project, wherever it went.
		if sub.ProjectName() != main.ProjectName() || sub.Title == "" {
			t.Errorf("%s: project %q, want %q; title %q", sub.ID, sub.ProjectName(), main.ProjectName(), sub.Title)
		}
	}
	read := h.Messages()[1].Parts[0].Call
	if read == nil || read.Result == nil || !read.Result.Paired || !strings.HasPrefix(read.Result.Output, "     1→package shop") {
		t.Errorf("the subagent's read = %+v", read)
	}
}

// TestClaudeProgressSubagent: a subagent that only its parent's
// agent_progress records hold is of its parent's project (they name no
// directory, and the folder's name is Claude's encoding of it), and its
// Read shows with its result.
func TestClaudeProgressSubagent(t *testing.T) {
	byID := loadDir(t, "testdata/progress")
	p, sub := byID["pg1"], byID["agent-a77e1"]
	if p == nil || sub == nil {
		t.Fatalf("sessions %v", byID)
	}
	if sub.ProjectName() != "web" || p.ProjectName() != "web" || sub.ParentID != "pg1" {
		t.Errorf("projects %q and %q, parent %q", p.ProjectName(), sub.ProjectName(), sub.ParentID)
	}
	var read *transcript.ToolCall
	sub.Parts(func(_ *transcript.Message, part *transcript.Part) {
		if part.Call != nil && part.Call.Kind == transcript.ReadTool {
			read = part.Call
		}
	})
	if read == nil || read.Result == nil || !read.Result.Paired || read.Args.Path != "/home/kim/proj/web/server.go" {
		t.Errorf("read = %+v", read)
	}
}

// TestClaudeUserShell: a command the user ran with "!" is their own shell
// call, with what it printed as its result; the caveat before it is
// context, shown without its tags.
func TestClaudeUserShell(t *testing.T) {
	ss, warns := ingesttest.ReadFile(t, "shell.jsonl")
	if len(warns) != 0 || len(ss) != 1 {
		t.Fatalf("%d sessions, warnings %v", len(ss), warns)
	}
	s := ss[0]
	var got []string
	for _, m := range s.Messages() {
		got = append(got, describe(m))
	}
	want := []string{"user*:text", "user*:call result", "user:text", "assistant:text", "user*:text", "user*:call result", "user:text", "assistant:text"}
	if !slices.Equal(got, want) {
		t.Fatalf("messages %v, want %v", got, want)
	}
	// What the user ran before their first prompt opens the session.
	if st := s.Stats(); st.Prompts != 2 || len(s.Turns) != 3 {
		t.Errorf("%d prompts, %d turns; want 2, 3", st.Prompts, len(s.Turns))
	}
	ms := s.Messages()
	if c := ms[0].Parts[0].Text; !strings.HasPrefix(c, "Caveat: The messages below") || strings.Contains(c, "<") {
		t.Errorf("caveat = %q", c)
	}
	for _, c := range []struct {
		m               *transcript.Message
		command, output string
		isErr           bool
	}{
		{ms[1], "git status --short", " M notes.md\n?? draft.txt", false},
		{ms[5], "make lint", "make: *** No rule to make target 'lint'.  Stop.", true},
	} {
		call := c.m.Parts[0].Call
		if !c.m.UserShell() || call.Name != "bash" || call.Kind != transcript.ShellTool || call.Input != `{"command":"`+c.command+`"}` {
			t.Errorf("call %+v (user shell %v)", call, c.m.UserShell())
		}
		if r := call.Result; r == nil || !r.Paired || r.Output != c.output || r.IsError != c.isErr {
			t.Errorf("%s: result %+v", c.command, r)
		}
	}
}
