package specstory

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/ingest/ingesttest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

func TestSpecStoryMarkdown(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "history.md")
	ingesttest.WantWarnings(t, warns, "history.md:94: the shell_command tool block is not closed")
	for _, c := range []struct{ name, got, want string }{
		{"id", s.ID, "019a0000-0000-7000-8000-00000000abcd"},
		{"format", s.Format, "specstory"},
		{"agent", s.Agent, "Codex CLI"}, // the session's agent; SpecStory rendered it
		{"title", s.Title, ""},          // v2 titles are only the date
		{"started", s.Started.Format("2006-01-02 15:04:05"), "2026-02-03 08:00:00"},
		{"ended", s.Ended.Format("15:04:05"), "08:01:05"},
		{"models", strings.Join(s.Models, ","), "gpt-5-codex,gpt-5-mini"},
		{"version", s.Meta["markdown version"], "v2.1.0"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	want := []string{"user(text)", "assistant(thinking call result)", "assistant(call result)", "assistant(call result call)",
		"assistant(text)", "user*(text)", "assistant(call result)"}
	if got := ingesttest.Describe(s); !slices.Equal(got, want) {
		t.Fatalf("messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	ms := s.Messages()
	if ms[0].ID != "u-1" || ms[0].Parts[0].Text != "Why does `make` fail?" {
		t.Errorf("prompt %q: %q", ms[0].ID, ms[0].Parts[0].Text)
	}
	if got := ms[1].Parts[0].Text; got != "Run make first.\n\nThen read the error." {
		t.Errorf("thinking = %q", got)
	}
	if !ms[3].Sidechain || ms[3].Model != "gpt-5-mini" || !ms[3].Time.IsZero() {
		t.Errorf("sidechain message: sidechain %v, model %q, time %v", ms[3].Sidechain, ms[3].Model, ms[3].Time)
	}
	// The "---" between speakers is dropped; one inside an answer is kept.
	if got := ms[4].Parts[0].Text; got != "`main.c` had no `main`; fixed.\n\n---\n\nA rule inside the answer, kept." {
		t.Errorf("answer = %q", got)
	}
	for _, c := range []struct {
		call   *transcript.ToolCall
		kind   transcript.ToolKind
		input  string
		output string
		isErr  bool
		exit   int
	}{
		{ms[1].Parts[1].Call, transcript.ShellTool, `{"command":"make","description":"Build the project"}`, "Exit code 2\nmake: *** [all] Error 2", false, 2},
		{ms[2].Parts[0].Call, transcript.ReadTool, `{"file_path":"Makefile"}`, "all:\n\tcc -o app main.c", false, -1},
		{ms[3].Parts[0].Call, transcript.OtherTool, `{"notes":"line one\nline two","query":"cc flags"}`, "lookup is offline", true, -1},
	} {
		r := c.call.Result
		if c.call.Kind != c.kind || c.call.Input != c.input || r == nil || r.Output != c.output || r.IsError != c.isErr || !r.Paired {
			t.Errorf("%s: kind %s, input %s, result %+v", c.call.Name, c.call.Kind, c.call.Input, r)
			continue
		}
		if (c.exit < 0) != (r.ExitCode == nil) || r.ExitCode != nil && *r.ExitCode != c.exit {
			t.Errorf("%s: exit code %v, want %d", c.call.Name, r.ExitCode, c.exit)
		}
	}
	if w := ms[3].Parts[2].Call; w.Kind != transcript.WriteTool || w.Input != `{"content":"int main(void) { return 0; }","description":"Write the fix"}` || w.Result != nil {
		t.Errorf("write call = %+v", w)
	}
	// The file ends inside a block: what it holds is kept.
	if r := ms[6].Parts[0].Call.Result; r == nil || r.Output != "make: building" {
		t.Errorf("last call's result = %+v", r)
	}
}

func TestSpecStoryMarkdownExtension(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "extension.md")
	ingesttest.WantWarnings(t, warns)
	if s.ID != "extension" || s.Title != "Rename the flag" || s.Started.Format("2006-01-02 15:04:05") != "2025-01-02 09:10:11" || s.Agent != "SpecStory" {
		t.Errorf("session %q %q %v %q", s.ID, s.Title, s.Started, s.Agent)
	}
	if got := ingesttest.Describe(s); !slices.Equal(got, []string{"user(text)", "assistant(text)"}) {
		t.Errorf("messages %v", got)
	}
}

func FuzzSpecStoryMarkdown(f *testing.F) {
	ingesttest.SeedFuzz(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ingesttest.FuzzRead(t, MarkdownReader, "history.md", data)
	})
}

// TestSpecStoryMarkdownLayouts reads a session of each layout SpecStory
// has written: the Cursor extension's of 2025 and its first one, the
// CLI's of Cursor and of Claude Code.
func TestSpecStoryMarkdownLayouts(t *testing.T) {
	for _, c := range []struct {
		file, id, agent, title, started, models string
		messages                                []string
	}{
		{"cursor-2025.md", "5f1c0e2a-0000-4000-8000-000000000001", "Cursor", "Speed up the test suite", "2025-10-14 22:20:00", "claude-4.5-sonnet-thinking",
			[]string{"user(text)", "assistant(thinking call result call result call call result text call call result call event)", "user(text)", "assistant(call text)"}},
		{"extension-2025.md", "extension-2025", "SpecStory", "Why does start fail", "2025-04-29 16:13:16", "",
			[]string{"user(text)", "assistant(text call result call call result call result text event)"}},
		{"cursor-2026.md", "17d2aa8a-0000-4000-8000-000000000002", "Cursor", "Map app setup", "2026-01-03 14:51:00", "gpt-5.1-codex-max",
			[]string{"user(text)", "assistant(thinking call result call result text call call call result call)", "user(text)"}},
		{"cli-2025.md", "0c56ec44-0000-4000-8000-000000000003", "Claude Code", "", "2025-12-06 19:04:39", "claude-opus-4-5-20251101",
			[]string{"user(text)", "assistant(thinking)", "assistant(call result)", "assistant(call result)", "assistant(call result)", "assistant(call result)", "assistant(text)"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			s, warns := ingesttest.OneSession(t, c.file)
			ingesttest.WantWarnings(t, warns)
			got := fmt.Sprintf("%s|%s|%s|%s|%s", s.ID, s.Agent, s.Title, s.Started.Format(time.DateTime), strings.Join(s.Models, ","))
			if want := strings.Join([]string{c.id, c.agent, c.title, c.started, c.models}, "|"); got != want {
				t.Errorf("session %s, want %s", got, want)
			}
			if got := ingesttest.Describe(s); !slices.Equal(got, c.messages) {
				t.Errorf("messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.messages, "\n"))
			}
			s.Parts(func(_ *transcript.Message, p *transcript.Part) {
				for _, tag := range smMarkup {
					if strings.Contains(p.Text, tag) {
						t.Errorf("%s part shows %s: %q", p.Kind, tag, p.Text)
					}
				}
			})
		})
	}
}

// TestSpecStoryMarkdownHeaders reads each form of message header.
func TestSpecStoryMarkdownHeaders(t *testing.T) {
	for _, c := range []struct{ header, role, model, time string }{
		{"_**User**_", "user", "", ""},
		{"_**User (2025-10-14 22:25Z)**_", "user", "", "2025-10-14 22:25:00"},
		{"_**User (2026-01-23T17:24:15.996Z)**_", "user", "", "2026-01-23 17:24:15"},
		{"_**Assistant**_", "assistant", "", ""},
		{"_**Assistant (claude-4.5-sonnet-thinking)**_", "assistant", "claude-4.5-sonnet-thinking", ""},
		{"_**Agent (model gpt-5.1-codex-max, mode Agent)**_", "assistant", "gpt-5.1-codex-max", ""},
		{"_**Agent (claude-opus-4-5 2026-01-23T17:24:23.746Z)**_", "assistant", "claude-opus-4-5", "2026-01-23 17:24:23"},
		{"_**Agent (gpt-5-codex 2026-02-03 08:00:05Z)**_", "assistant", "gpt-5-codex", "2026-02-03 08:00:05"},
		{"_**Agent (2026-02-03 08:00:30Z)**_", "assistant", "", "2026-02-03 08:00:30"},
	} {
		s, _ := readDoc(t, "<!-- Generated by SpecStory -->\n\n"+c.header+"\n\nSome words.\n")
		m := s.Messages()[0]
		at := ""
		if !m.Time.IsZero() {
			at = m.Time.Format(time.DateTime)
		}
		if string(m.Role) != c.role || m.Model != c.model || at != c.time {
			t.Errorf("%s: %s %q %q, want %s %q %q", c.header, m.Role, m.Model, at, c.role, c.model, c.time)
		}
	}
}

// TestSpecStoryMarkdownText checks what stays text: SpecStory's rules go
// around tools and thinking, one between two texts stays; a <details>
// block that names no tool, or in a prompt, is text without its tags; a
// command with no output is the answer's code.
func TestSpecStoryMarkdownText(t *testing.T) {
	s, _ := readDoc(t, smDoc("", "One.\n\n---\n\nTwo.\n\n---\n\nRead file: a.go\n\n---\n\n<details>\n<summary>Aside</summary>\n\nThree.\n</details>\n\n---\n\n´´´bash\nmake\n´´´"))
	var texts []string
	s.Parts(func(m *transcript.Message, p *transcript.Part) {
		if p.Kind == transcript.TextPart && m.Role == transcript.Assistant {
			texts = append(texts, p.Text)
		}
	})
	want := []string{"One.\n\n---\n\nTwo.", "Aside\n\nThree.\n\n---\n\n```bash\nmake\n```"}
	if !slices.Equal(texts, want) {
		t.Errorf("texts %q\nwant %q", texts, want)
	}
	s, _ = readDoc(t, "<!-- Generated by SpecStory -->\n\n_**User**_\n\nSee:\n\n<details>\n<summary>Tool use: **grep**</summary>\n\nmy paste\n</details>\n")
	if got := s.Messages()[0].Parts[0].Text; got != "See:\n\nTool use: **grep**\n\nmy paste" {
		t.Errorf("prompt %q", got)
	}
}

// TestSpecStoryMarkdownMCPDescription keeps an MCP tool's description,
// which SpecStory repeats at every call, in the input of its first call.
func TestSpecStoryMarkdownMCPDescription(t *testing.T) {
	s, _ := ingesttest.OneSession(t, "cursor-2025.md")
	var inputs []string
	s.Parts(func(_ *transcript.Message, p *transcript.Part) {
		if p.Call != nil && p.Call.Kind == transcript.MCPTool {
			inputs = append(inputs, p.Call.Input)
		}
	})
	want := []string{`{"more":true,"note":"First, check that the fixtures are safe to share.","number":1,"tool_description":"Plan a task one step at a time.\nEach step may revise the one before."}`,
		`{"more":false,"note":"Then add the plugin and run.","number":2}`}
	if !slices.Equal(inputs, want) {
		t.Errorf("inputs\n%s\nwant\n%s", strings.Join(inputs, "\n"), strings.Join(want, "\n"))
	}
}

// TestSpecStoryMarkdownBlockEnds checks where blocks end: a <tool-use>
// element at its closing tag, even inside a fence SpecStory left open (an
// output holding fences of its own closes it early); a <details> block
// at the next message at the latest.
func TestSpecStoryMarkdownBlockEnds(t *testing.T) {
	s, warns := readDoc(t, smDoc("Claude Code", "<tool-use data-tool-type=\"generic\" data-tool-name=\"Task\"><details>\n<summary>Tool use: **Task**</summary>\nLook around\n´´´\nFound:\n´´´go\nx := 1\n´´´\nDone.\n´´´\n</details></tool-use>\n\nAfter the task."))
	ingesttest.WantWarnings(t, warns)
	if got := ingesttest.Describe(s); !slices.Equal(got, []string{"user(text)", "assistant(call result text)"}) {
		t.Errorf("messages %v", got)
	}
	s, warns = readDoc(t, smDoc("", "<details>\n<summary>Searched codebase \"x\" • **0** results</summary>\n\nNo results found\n\n_**User**_\n\nAnd now?"))
	ingesttest.WantWarnings(t, warns, "h.md:13: the <details> block is not closed before the next message")
	if got := ingesttest.Describe(s); !slices.Equal(got, []string{"user(text)", "assistant(call result)", "user(text)"}) {
		t.Errorf("messages %v", got)
	}
}

// TestSpecStoryMarkdownEscapes reads Cursor's tool blocks, which SpecStory
// HTML-escapes, unescaped; other agents' as they are.
func TestSpecStoryMarkdownEscapes(t *testing.T) {
	block := "<tool-use data-tool-type=\"shell\" data-tool-name=\"run_terminal_cmd\"><details>\n<summary>Tool use: **run_terminal_cmd**</summary>\n\n´´´bash\na &amp;&amp; b\n´´´\n\n´´´\n&lt;ok&gt;\n´´´\n</details></tool-use>"
	for agent, want := range map[string]string{"cursor": "a && b|<ok>", "Claude Code": "a &amp;&amp; b|&lt;ok&gt;"} {
		s, _ := readDoc(t, smDoc(agent, block))
		c := s.Messages()[1].Parts[0].Call
		if c == nil || c.Result == nil {
			t.Fatalf("%s: %v", agent, ingesttest.Describe(s))
		}
		if got := c.Args.Command + "|" + c.Result.Output; got != want {
			t.Errorf("%s: %q, want %q", agent, got, want)
		}
	}
}

// TestSpecStoryMarkdownCommands reads the records of Claude Code's slash
// commands, which SpecStory writes as the user's text, without their tags:
// the command as typed, its output, the caveat as injected context.
func TestSpecStoryMarkdownCommands(t *testing.T) {
	s, _ := readDoc(t, "<!-- Generated by SpecStory, Markdown v2.1.0 -->\n\n_**User (2026-01-25 21:27:02Z)**_\n\n<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args>opus</command-args>\n\n"+
		"_**User (2026-01-25 21:27:02Z)**_\n\n<local-command-stdout>Set model to opus</local-command-stdout>\n\n"+
		"_**User (2026-01-25 21:27:02Z)**_\n\n<local-command-caveat>Caveat: generated by local commands.</local-command-caveat>\n")
	ms := s.Messages()
	if got := ingesttest.Describe(s); !slices.Equal(got, []string{"user(text)", "system(result)", "user*(text)"}) {
		t.Fatalf("messages %v", got)
	}
	if ms[0].Parts[0].Text != "/model opus" || ms[1].Parts[0].Result.Output != "Set model to opus" || ms[2].Parts[0].Text != "Caveat: generated by local commands." {
		t.Errorf("parts %q %q %q", ms[0].Parts[0].Text, ms[1].Parts[0].Result.Output, ms[2].Parts[0].Text)
	}
}
