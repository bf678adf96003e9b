package theme

import (
	"bytes"
	"html/template"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/transcriptsite/transcriptsite"
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/site/siteconfig"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// TestToolViewTemplate: the template that picks a view is made from the
// theme's files, so a file name that is no template literal must still
// load, and the kinds' views come first, the commonest compared first.
func TestToolViewTemplate(t *testing.T) {
	site := fstest.MapFS{"templates/partials/tools/we\"ird\\.html": {Data: []byte(`odd`)}}
	tpl, err := Load(siteconfig.Overlay{Upper: site, Lower: transcriptsite.FS})
	if err != nil {
		t.Fatal(err)
	}
	text := toolViewTemplate(tpl["session"])
	shell, read, generic := strings.Index(text, `"partials/tools/shell.html"`), strings.Index(text, `"partials/tools/read.html"`), strings.Index(text, `"partials/tools/generic.html"`)
	if shell < 0 || read < shell || generic < read || !strings.Contains(text, strconv.Quote("partials/tools/we\"ird\\.html")) {
		t.Errorf("views out of order or missing:\n%s", text)
	}
}

// TestHeadsPrintTheFieldOnlyAsShipped: with the default theme a header's
// partial prints the field the site wrote in Go, and output-body.html
// render.OutputBody; a site that overrides one of them or a partial it
// uses gets its own templates.
func TestHeadsPrintTheFieldOnlyAsShipped(t *testing.T) {
	type stamp struct{ ISO, Full, Label string }
	entry := struct {
		Head      template.HTML
		N         int
		Msg       *transcript.Message
		UserShell bool
		Usage     *render.TokenCounts
		Time      *stamp
	}{Head: "HEAD FROM GO", N: 3, Msg: &transcript.Message{Role: transcript.User}, Time: &stamp{Label: "10:00:00"}}
	call := struct {
		Head    template.HTML
		Call    *transcript.ToolCall
		Summary string
	}{Head: "HEAD FROM GO", Call: &transcript.ToolCall{Name: "Bash"}}
	write := func(over map[string]string, name string, data any) string {
		theme := fstest.MapFS{}
		err := fs.WalkDir(transcriptsite.FS, "templates", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := fs.ReadFile(transcriptsite.FS, p)
				theme[p] = &fstest.MapFile{Data: b}
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for p, text := range over {
			theme["templates/"+p] = &fstest.MapFile{Data: []byte(text)}
		}
		ts, err := Load(theme)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := ts["session"].ExecuteTemplate(&b, name, data); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if got := write(nil, "partials/message-head.html", entry); got != "HEAD FROM GO" {
		t.Errorf("default theme, message: %q", got)
	}
	if got := write(nil, "partials/tool-head.html", call); got != "HEAD FROM GO" {
		t.Errorf("default theme, call: %q", got)
	}
	for _, over := range []string{"partials/msg-time.html", "partials/usage.html", "partials/message-head.html"} {
		got := write(map[string]string{over: `{{with .Time}}<b>{{.Label}}</b>{{end}}{{.N}}`}, "partials/message-head.html", entry)
		if strings.Contains(got, "FROM GO") || !strings.Contains(got, "3") {
			t.Errorf("%s overridden: the message's header is %q", over, got)
		}
	}
	if got := write(map[string]string{"partials/tool-head.html": `<b>{{.Call.Name}}</b>`}, "partials/tool-head.html", call); got != "<b>Bash</b>" {
		t.Errorf("tool-head.html overridden: %q", got)
	}
	result := &transcript.ToolResult{Output: "printed"}
	if got, want := write(nil, "partials/output-body.html", result), string(render.OutputBody(result)); got != want {
		t.Errorf("default theme, output: %q, want OutputBody's %q", got, want)
	}
	if got := write(map[string]string{"partials/output-body.html": `<i>{{.Output}}</i>`}, "partials/output.html", result); !strings.Contains(got, "<i>printed</i>") {
		t.Errorf("output-body.html overridden: %q", got)
	}
}
