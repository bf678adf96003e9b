package render

import (
	"strings"
	"testing"
)

func TestMarkdownIsSafe(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string // substrings of the output
		not      []string // must not appear
	}{
		{"inline html is text", `a <script>alert(1)</script> <img src=x onerror=alert(1)>`,
			[]string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(1)&gt;"}, []string{"<script", "<img"}},
		{"html block is text", "<div onclick=\"x()\">\nhi\n</div>",
			[]string{`<pre class="raw-html">&lt;div onclick=&#34;x()&#34;&gt;`}, []string{"<div onclick"}},
		{"script link dropped", `[click](javascript:alert(1)) [d](data:text/html,x) [v](VBScript:x)`,
			[]string{"<p>click d v</p>"}, []string{"javascript:", "data:", "href"}},
		{"external link", `[site](https://example.com/a?b=1&c=2)`,
			[]string{`<a href="https://example.com/a?b=1&amp;c=2" rel="noopener nofollow">site</a>`}, nil},
		{"relative link", `[file](docs/readme.md)`, []string{`<a href="docs/readme.md">file</a>`}, []string{"nofollow"}},
		{"autolink", `see https://example.com/x`, []string{`<a href="https://example.com/x" rel="noopener nofollow">`}, nil},
		{"image becomes link", `![diagram](https://example.com/d.png)`,
			[]string{`<a href="https://example.com/d.png" rel="noopener nofollow"><span class="md-image">image: diagram</span></a>`}, []string{"<img"}},
		{"headings demoted", "# Top\n## Next", []string{"<h3>Top</h3>", "<h4>Next</h4>"}, []string{"<h1>"}},
		{"fenced code highlighted", "```go\nfunc main() {}\n```", []string{`data-lang="go"`, `<span class="kd">func</span>`}, nil},
		{"unknown language plain", "```nosuchlang\n<b>x</b>\n```", []string{`&lt;b&gt;x&lt;/b&gt;`}, []string{"<b>"}},
		{"code fence language escaped", "```\"><script>\nx\n```", nil, []string{"<script>"}},
	} {
		got := string(Markdown(c.in))
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: output lacks %q:\n%s", c.name, w, got)
			}
		}
		for _, n := range c.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: output has %q:\n%s", c.name, n, got)
			}
		}
	}
}

func TestHighlight(t *testing.T) {
	if got := string(Highlight("x := 1", "go")); !strings.Contains(got, `class="chroma"`) || !strings.Contains(got, `<span class="o">:=</span>`) {
		t.Errorf("go not highlighted with classes: %s", got)
	}
	if got := string(HighlightFile("SELECT 1;", "/q/report.SQL")); !strings.Contains(got, `<span class="k">SELECT</span>`) {
		t.Errorf("language not taken from the file name: %s", got)
	}
	big := strings.Repeat("x := 1\n", maxHighlightLines+1)
	if got := string(Highlight(big, "go")); strings.Contains(got, `<span class="o">`) {
		t.Error("code over the line cap was highlighted")
	}
	if got := string(Highlight("<b>", "")); got != `<div class="highlight"><pre class="chroma"><code>&lt;b&gt;</code></pre></div>` {
		t.Errorf("plain = %s", got)
	}
	css, err := ChromaCSS("github", "github-dark")
	if err != nil || !strings.Contains(css, "@media (prefers-color-scheme: dark)") || !strings.Contains(css, ".chroma .kd") {
		t.Errorf("css: %v\n%.300s", err, css)
	}
	if _, err := ChromaCSS("no-such-style", "github-dark"); err == nil {
		t.Error("unknown style accepted")
	}
}

func TestToolHelpers(t *testing.T) {
	for in, want := range map[string]string{
		`{"command":"go test ./...","description":"run"}`: "go test ./...",
		`{"command":["bash","-lc","ls -la"]}`:             "bash -lc ls -la",
		`{"file_path":"/a/b.go","old_string":"x"}`:        "/a/b.go",
		`{"pattern":"TODO"}`:                              "TODO",
		`*** Begin Patch`:                                 "*** Begin Patch",
		`{"other":1}`:                                     "",
	} {
		if got := ToolSummary(in); got != want {
			t.Errorf("ToolSummary(%s) = %q, want %q", in, got, want)
		}
	}
	if got := StripANSI("\x1b[1;31mred\x1b[0m \x1b]0;title\x07ok"); got != "red ok" {
		t.Errorf("StripANSI = %q", got)
	}
	if got := Diff("a\nb\n", "c"); got != "-a\n-b\n+c\n" {
		t.Errorf("Diff = %q", got)
	}
	if HumanInt(int64(1234567)) != "1,234,567" || HumanInt(-1000) != "-1,000" || HumanInt(12) != "12" {
		t.Error("HumanInt")
	}
}
