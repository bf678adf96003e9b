package site

import (
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/internal/treetest"
)

// argRow is a row of a call's list of the input's other fields, on its
// page (<dt>, <dd>) or in session.md ("- `name`: `value`").
var (
	argRow   = regexp.MustCompile(`(?s)<dt>(.*?)</dt><dd>(.*?)</dd>`)
	argItem  = regexp.MustCompile("(?m)^- `([^`]+)`: `([^`]+)`$")
	argLists = regexp.MustCompile(`(?s)<dl class="tool-args">.*?</dl>`)
	tags     = regexp.MustCompile(`<[^>]*>`)
)

// Every field of a call's input reaches the page and session.md: what the
// call's view shows (a command, a path, a diff), then the rest listed
// under it, each once; a view that shows the input whole (an MCP tool's)
// lists nothing again.
func TestInputFieldsReachThePage(t *testing.T) {
	cfg, _, err := build(t, treetest.Extract(t, "testdata/args.txtar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{ // by format: the rows listed, "name value", in order
		"claude-code": {`timeout 120000`, `run_in_background true`, `sandbox {"network":false}`,
			`replace_all true`, `edits[0].replace_all true`},
		"codex":      {`workdir /srv/shop/api`, `timeout_ms 90000`, `workdir /srv/shop/web`, `yield_time_ms 2500`, `max_output_tokens 4000`},
		"gemini-cli": {`dir_path web/static`},
	}
	// What the views show themselves, on the page.
	shown := map[string][]string{
		"claude-code": {"npm run build", "Build the shop", "toCents(price)", "Math.round(x)", "from line 10, at most 2 lines",
			`"issue": "SHOP-42"`, `"fields": [`}, // the MCP call's input, whole
		"codex":      {"bash -lc make check", "git status --short"},
		"gemini-cli": {"ls -1", "List the web folder"},
	}
	list := readSessions(t, cfg.Destination)
	if len(list) != len(want) {
		t.Fatalf("%d sessions, want %d", len(list), len(want))
	}
	for _, e := range list {
		page := readFile(t, cfg.Destination, e.URL+"index.html")
		var rows []string
		for _, dl := range argLists.FindAllString(page, -1) {
			for _, m := range argRow.FindAllStringSubmatch(dl, -1) {
				rows = append(rows, html.UnescapeString(m[1]+" "+tags.ReplaceAllString(m[2], "")))
			}
		}
		if !slices.Equal(rows, want[e.Format]) {
			t.Errorf("%s: the page lists\n%q\nwant\n%q", e.Format, rows, want[e.Format])
		}
		text := html.UnescapeString(tags.ReplaceAllString(page, ""))
		for _, s := range shown[e.Format] {
			if !strings.Contains(text, s) {
				t.Errorf("%s: the page does not show %q", e.Format, s)
			}
		}
		if _, mcp, ok := strings.Cut(page, "mcp__tracker"); ok {
			if call, _, _ := strings.Cut(mcp, "</details>"); strings.Contains(call, "tool-args") {
				t.Errorf("the MCP call, its input shown whole, lists its fields again")
			}
		} else if e.Format == "claude-code" {
			t.Error("no MCP call on the page")
		}

		md := readFile(t, cfg.Destination, e.URL+"session.md")
		var items []string
		for _, m := range argItem.FindAllStringSubmatch(md, -1) {
			items = append(items, m[1]+" "+m[2])
		}
		if !slices.Equal(items, want[e.Format]) {
			t.Errorf("%s: session.md lists\n%q\nwant\n%q", e.Format, items, want[e.Format])
		}
		for _, s := range shown[e.Format] {
			if !strings.Contains(md, s) && !strings.HasPrefix(s, "from line") {
				t.Errorf("%s: session.md does not show %q", e.Format, s)
			}
		}
	}
}

// Every view of a tool call shows a field its reader does not name once:
// in the input it shows whole, or listed under what it shows. An input
// field a view uses is not listed again.
func TestEveryViewShowsAnUnknownFieldOnce(t *testing.T) {
	render := toolRenderer(t)
	views := map[string]bool{}
	for _, c := range toolCases {
		call := c.call
		rest, ok := strings.CutPrefix(call.Input, "{")
		if !ok {
			continue // free text: shown whole
		}
		call.Input = `{"zz_unknown":"zz-value-17",` + rest
		got := render(t, &call)
		views[call.View()] = true
		if n, m := strings.Count(got, "zz_unknown"), strings.Count(got, "zz-value-17"); n != 1 || m != 1 {
			t.Errorf("%s (%s view): the unknown field's name shows %d times, its value %d", c.name, call.View(), n, m)
		}
		if strings.Count(got, "<dt>") != len(call.Args.Rest) {
			t.Errorf("%s: %d rows listed, want %d (%q)", c.name, strings.Count(got, "<dt>"), len(call.Args.Rest), call.Args.Rest)
		}
		for _, f := range call.Args.Rest {
			if f.Name != "zz_unknown" {
				t.Errorf("%s (%s view) lists %q, which the view shows", c.name, call.View(), f.Name)
			}
		}
	}
	for _, v := range []string{"shell", "read", "write", "edit", "search", "websearch", "web", "subagent", "todo", "plan", "question", "mcp", "other"} {
		if !views[v] {
			t.Errorf("no case of the %s view", v)
		}
	}
}
