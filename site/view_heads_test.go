package site

import (
	"bytes"
	"cmp"
	"html/template"
	"io/fs"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite"
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// The markup the theme wrote with template logic before Entry and
// PartView carried it worked out: the fields must write the same, for
// every combination of what decides it.
const (
	eventClassBefore   = `msg row role-{{.Msg.Role}} is-event{{with .Msg.Branch}} is-branch{{end}}`
	messageClassBefore = `msg role-{{.Msg.Role}}{{if .Prompt}} is-prompt{{end}}{{if .UserShell}} user-shell{{else if .Msg.Meta}} is-meta{{end}}{{if .Msg.Sidechain}} is-sidechain{{end}}{{with .Msg.Branch}} is-branch{{end}}`
	timeBefore         = `{{with .Time}}{{if $.NewDay}}{{.Date}} {{end}}{{.Clock}}{{end}}`
	toolHeadBefore     = `{{$c := .Call}}{{$k := $c.Kind}}{{$err := and $c.Result $c.Result.IsError}}` +
		`tool tool-{{$k}}{{if $err}} is-error{{end}}|{{if or $err (eq $k "shell" "edit" "write" "task")}}open{{end}}|{{toolSummary $c}}`
	toolHeadNow = `{{.ToolClass}}|{{if .Open}}open{{end}}|{{.Summary}}`
)

func execute(t *testing.T, text string, data any) string {
	t.Helper()
	tpl := template.Must(template.New("").Funcs(template.FuncMap{"toolSummary": render.ToolSummary}).Parse(text))
	var b bytes.Buffer
	if err := tpl.Execute(&b, data); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestEntryClassIsWhatTheTemplateWrote: Entry.Class for events and
// messages of every role and kind, and Stamp.Label on a new day and not.
func TestEntryClassIsWhatTheTemplateWrote(t *testing.T) {
	n := 0
	for _, role := range []transcript.Role{transcript.User, transcript.Assistant, "a<b"} {
		for bits := range 1 << 6 {
			on := func(i int) bool { return bits&(1<<i) != 0 }
			m := &transcript.Message{Role: role, Meta: on(0), Sidechain: on(1)}
			if on(2) {
				m.Branch = "b1"
			}
			e := Entry{Msg: m, IsEvent: on(3), Prompt: on(4), UserShell: on(5)}
			e.Class = e.class()
			before := messageClassBefore
			if e.IsEvent {
				before = eventClassBefore
			}
			if got, want := execute(t, `{{.Class}}`, e), execute(t, before, e); got != want {
				t.Errorf("%s message %06b: class %q, the template wrote %q", role, bits, got, want)
			}
			n++
		}
	}
	for _, newDay := range []bool{false, true} {
		p := &Page{Session: &Session{}}
		s := &transcript.Session{ID: "t"}
		at := time.Date(2026, 11, 28, 23, 59, 1, 0, time.UTC)
		s.Append(&transcript.Message{Role: transcript.User, Time: at, Parts: []*transcript.Part{{Kind: transcript.TextPart, Text: "a"}}})
		if newDay {
			at = at.Add(time.Minute)
		}
		s.Append(&transcript.Message{Role: transcript.Assistant, Time: at, Parts: []*transcript.Part{{Kind: transcript.TextPart, Text: "b"}}})
		s.Started = s.Turns[0].Messages[0].Time
		s.Finish()
		e := TurnViews(p, s)[0].Entries[1]
		if got, want := execute(t, `{{.Time.Label}}`, e), execute(t, timeBefore, e); got != want || e.NewDay != newDay {
			t.Errorf("new day %v: label %q, the template wrote %q (NewDay %v)", newDay, got, want, e.NewDay)
		}
	}
	if n == 0 {
		t.Fatal("no messages tried")
	}
}

// TestPartViewToolHeadIsWhatTheTemplateWrote: a call's classes, whether it
// starts open, and its summary, for every kind with no result, a result
// and a failed one.
func TestPartViewToolHeadIsWhatTheTemplateWrote(t *testing.T) {
	kinds := []transcript.ToolKind{transcript.ShellTool, transcript.ReadTool, transcript.WriteTool, transcript.EditTool,
		transcript.SearchTool, transcript.WebTool, transcript.TaskTool, transcript.MCPTool, transcript.OtherTool, "x\"y"}
	results := []*transcript.ToolResult{nil, {Output: "ok"}, {Output: "no", IsError: true}}
	for _, k := range kinds {
		for _, r := range results {
			c := &transcript.ToolCall{Name: "T", Kind: k, Result: r, Args: transcript.Args{Summary: "line one\nline two"}}
			v := partView(&transcript.Part{Kind: transcript.CallPart, Call: c}, &Page{})
			if got, want := execute(t, toolHeadNow, v), execute(t, toolHeadBefore, v); got != want {
				t.Errorf("%s call, result %+v: %q, the template wrote %q", k, r, got, want)
			}
		}
	}
}

// shippedHead executes the default theme's partial name, with the
// partials it uses, as the site does where a theme overrides one of them.
func shippedHead(t *testing.T, data any, name string, uses ...string) string {
	t.Helper()
	tpl := template.New("")
	for _, n := range append(uses, name) {
		b, err := fs.ReadFile(transcriptsite.FS, "templates/"+n)
		if err != nil {
			t.Fatal(err)
		}
		template.Must(tpl.New(n).Parse(string(b)))
	}
	var b bytes.Buffer
	if err := tpl.ExecuteTemplate(&b, name, data); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// awkward are strings with every byte html/template escapes, in text and
// in attributes, and bytes that are not UTF-8.
var awkward = []string{"", "plain", `<b a="1" b='2'>&amp; x+y</b>`, "nul\x00byte", "bad \xff\xfe utf-8 \xe2<", "déjà vu · ✓"}

// TestMessageHeadIsWhatTheTemplateWrote: Entry.Head is what the shipped
// message-head.html writes, for every badge on and off, with and without
// a time, and strings the template escapes.
func TestMessageHeadIsWhatTheTemplateWrote(t *testing.T) {
	n := 0
	for _, s := range awkward {
		for bits := range 1 << 5 {
			on := func(i int) bool { return bits&(1<<i) != 0 }
			m := &transcript.Message{Role: transcript.Role(cmp.Or(s, "user"))}
			e := Entry{Msg: m, N: 7 + bits, UserShell: on(0)}
			if on(1) {
				m.Model = s
			}
			if on(2) {
				e.Usage = &render.TokenCounts{Line: s + " · 5 in"}
			}
			if on(3) {
				m.Branch = "b1"
			}
			if on(4) {
				e.Time = &Stamp{ISO: "2026-11-29T10:00:00Z", Full: s, Label: s + "10:00:00"}
			}
			if got, want := string(e.head()), shippedHead(t, e, "partials/message-head.html", "partials/msg-time.html", "partials/usage.html"); got != want {
				t.Errorf("message %05b with %q:\n%s\nthe template wrote\n%s", bits, s, got, want)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no messages tried")
	}
}

// TestToolHeadIsWhatTheTemplateWrote: PartView.Head is what the shipped
// tool-head.html writes, with and without an id and a summary, with no result, a result, and failed ones with and
// without an exit code (0 included: the template showed any it was given).
func TestToolHeadIsWhatTheTemplateWrote(t *testing.T) {
	zero, two := 0, 2
	results := []*transcript.ToolResult{nil, {Output: "ok"}, {IsError: true}, {IsError: true, ExitCode: &zero}, {IsError: true, ExitCode: &two}, {ExitCode: &two}}
	for _, s := range awkward {
		for _, r := range results {
			for _, id := range []string{"", s + "toolu_1"} {
				c := &transcript.ToolCall{ID: id, Name: cmp.Or(s, "Bash"), Kind: transcript.ShellTool, Result: r, Args: transcript.Args{Summary: s}}
				v := partView(&transcript.Part{Kind: transcript.CallPart, Call: c}, &Page{})
				if got, want := string(v.Head), shippedHead(t, v, "partials/tool-head.html"); got != want {
					t.Errorf("call %q, id %q, result %+v:\n%s\nthe template wrote\n%s", s, id, r, got, want)
				}
			}
		}
	}
}
