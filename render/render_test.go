package render

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"

	"github.com/transcriptsite/transcriptsite/transcript"

	"github.com/transcriptsite/transcriptsite/internal/htmlcheck"
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
		{"relative link is text", `[file](docs/readme.md) [top](#m-1)`, []string{`<p>file <a href="#m-1">top</a></p>`}, []string{"readme.md"}},
		{"control bytes dropped", "a\x1b[31mred\x1b[0m \x07bell\x00", []string{"<p>ared bell</p>"}, []string{"\x1b", "\x07", "\x00"}},
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
	// A file type with no lexer is cached as a miss; the next file of
	// that type must find the miss, not panic on it.
	for range 2 {
		if got := string(HighlightFile("\x89PNG", "shots/a.png")); strings.Contains(got, "<span") {
			t.Errorf("file with no lexer highlighted: %s", got)
		}
	}
}

func TestToolHelpers(t *testing.T) {
	for _, c := range []struct {
		kind transcript.ToolKind
		args transcript.Args
		want string
	}{
		{transcript.ShellTool, transcript.Args{Summary: "go test ./...\nand more"}, "go test ./... …"},
		// A patch names the files it touches.
		{transcript.EditTool, transcript.Args{Summary: "*** Begin Patch", Patch: "*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** Add File: b.go\n+z\n*** End Patch"}, "a.go, b.go"},
		{transcript.EditTool, transcript.Args{Summary: "x.go", Patch: "not a patch"}, "x.go"},
		{transcript.OtherTool, transcript.Args{Summary: strings.Repeat("é", 130)}, strings.Repeat("é", 119) + "…"},
		{transcript.OtherTool, transcript.Args{}, ""},
	} {
		if got := ToolSummary(&transcript.ToolCall{Kind: c.kind, Args: c.args}); got != c.want {
			t.Errorf("ToolSummary(%+v) = %q, want %q", c.args, got, c.want)
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

func TestANSI(t *testing.T) {
	for in, want := range map[string]string{
		"plain <b>":                          "plain &lt;b&gt;",
		"\x1b[31merror\x1b[0m: x":            `<span class="ansi-fg1">error</span>: x`,
		"\x1b[1;32mok\x1b[22m still green":   `<span class="ansi-fg2 ansi-bold">ok</span><span class="ansi-fg2"> still green</span>`,
		"\x1b[38;5;196mred256\x1b[m":         `<span class="ansi-fg9">red256</span>`,
		"\x1b[38;2;0;0;255mblue\x1b[39m":     `<span class="ansi-fg12">blue</span>`,
		"\x1b[33mtwo\nlines\x1b[0m":          "<span class=\"ansi-fg3\">two</span>\n<span class=\"ansi-fg3\">lines</span>",
		"10%\r50%\r100%\ndone":               "100%\ndone",
		"\x1b]0;title\x07\x1b[2Kclean\x1b(B": "clean",
		"win\r\nline":                        "win\nline",
		"\x1b[31m<script>\x1b":               `<span class="ansi-fg1">&lt;script&gt;</span>`,
	} {
		if got := string(ANSI(in)); got != want {
			t.Errorf("ANSI(%q) =\n %q, want\n %q", in, got, want)
		}
	}
}

func TestFold(t *testing.T) {
	var lines []string
	for i := 1; i <= 25; i++ {
		lines = append(lines, "line"+strings.Repeat("x", i%3))
	}
	f := Fold(strings.Join(lines, "\n") + "\n")
	if f.Lines != 25 || CountLines(f.Head) != FoldLines || CountLines(f.Rest) != 5 || f.File != "" || f.Head+"\n"+f.Rest != strings.Join(lines, "\n") {
		t.Errorf("fold = %+v", f)
	}
	if f := Fold("one\ntwo"); f.Head != "one\ntwo" || f.Rest != "" {
		t.Errorf("short fold = %+v", f)
	}
	huge := strings.Repeat("row\n", maxHighlightLines+5)
	f = Fold(huge)
	if f.File != OutputFile(huge) || !strings.HasPrefix(f.File, "out/") || CountLines(f.Head)+CountLines(f.Rest) != headLines || f.Lines != maxHighlightLines+5 {
		t.Errorf("huge fold: file %q, %d+%d lines shown of %d", f.File, CountLines(f.Head), CountLines(f.Rest), f.Lines)
	}
}

func TestLineDiff(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	new := "a\nb\nc\nd\nE\nf\ng\nh\ni\nj\nk\n"
	var got []string
	for _, r := range LineDiff(old, new, 10) {
		got = append(got, string(r.Op)+r.Text+":"+strconv.Itoa(r.N))
	}
	gotS := strings.Join(got, " |")
	// One unchanged line past the context is shown: folding it would
	// take as much room.
	if gotS != " a:10 | b:11 | c:12 | d:13 |-e:14 |+E:14 | f:15 | g:16 | h:17 | i:18 | j:19 |+k:20" {
		t.Errorf("diff = %s", gotS)
	}
}

// TestLineDiffFolds checks that a long run of unchanged lines is kept,
// folded: the agent wrote them, and the page shows them on a click.
func TestLineDiffFolds(t *testing.T) {
	var old []string
	for i := range 20 {
		old = append(old, fmt.Sprintf("line %d", i))
	}
	new := slices.Clone(old)
	new[0], new[19] = "first", "last"
	rows := LineDiff(strings.Join(old, "\n"), strings.Join(new, "\n"), 1)
	var ops strings.Builder
	for _, r := range rows {
		ops.WriteByte(r.Op)
	}
	if want := "-+" + "   " + strings.Repeat("=", 12) + "   " + "-+"; ops.String() != want || rows[5].Text != "line 4" || rows[5].N != 5 {
		t.Fatalf("ops = %q, want %q; rows %v", ops.String(), want, rows)
	}
	html := string(Rows(rows, "x.txt"))
	for _, want := range []string{`aria-label="Show 12 unchanged lines"`, `⋯ 12 unchanged lines</label><span class="fold"><span class="row"><span class="ln">5</span>`,
		`line 15</span></span><span class="row"><span class="ln">17</span>`} {
		if !strings.Contains(html, want) {
			t.Errorf("rows lack %q:\n%s", want, html)
		}
	}
}

func TestParsePatch(t *testing.T) {
	patch := "*** Begin Patch\n*** Update File: src/app.py\n@@ def main():\n-    print('hi')\n+    print('hello')\n*** Add File: NEW.md\n+# New\n*** End Patch"
	fds := ParsePatch(patch)
	if len(fds) != 2 || fds[0].Path != "src/app.py" || fds[1].Path != "NEW.md" || len(fds[0].Rows) != 3 || fds[0].Rows[2] != (Row{'+', "    print('hello')", 0}) {
		t.Fatalf("apply_patch = %+v", fds)
	}
	uni := "--- a/x.go\n+++ b/x.go\n@@ -3,2 +3,2 @@\n ctx\n-old\n+new\n"
	fds = ParsePatch(uni)
	if len(fds) != 1 || fds[0].Path != "x.go" || fds[0].Rows[1] != (Row{' ', "ctx", 3}) || fds[0].Rows[2] != (Row{'-', "old", 4}) || fds[0].Rows[3] != (Row{'+', "new", 4}) {
		t.Errorf("unified = %+v", fds)
	}
}

func TestEditsAndRows(t *testing.T) {
	call := func(args transcript.Args, r *transcript.ToolResult) *transcript.ToolCall {
		return &transcript.ToolCall{Name: "Edit", Kind: transcript.EditTool, Args: args, Result: r}
	}
	edit := transcript.Args{Path: "/w/m.go", Edits: []transcript.Edit{{Old: "x := 1", New: "x := 2"}}}
	fds := Edits(call(edit, nil))
	if len(fds) != 1 || fds[0].Path != "/w/m.go" || len(fds[0].Rows) != 2 {
		t.Fatalf("edits = %+v", fds)
	}
	html := string(Rows(fds[0].Rows, fds[0].Path))
	// Old and new text alone do not say where the edit is: no line numbers.
	for _, want := range []string{`<span class="row del"><span class="ln"></span><span class="mk">-</span>`, `<span class="o">:=</span>`, `<span class="row add">`} {
		if !strings.Contains(html, want) {
			t.Errorf("rows lack %q:\n%s", want, html)
		}
	}
	// The patch the agent reported does.
	patched := Edits(call(edit,
		&transcript.ToolResult{Patch: []transcript.Hunk{{OldStart: 40, NewStart: 41, Lines: []string{" a", "-x := 1", "+x := 2", "+y := 3", " b"}},
			{OldStart: 90, NewStart: 92, Lines: []string{"-z"}}}}))
	if got := fmt.Sprint(patched[0].Rows); got != "[{32 a 41} {45 x := 1 41} {43 x := 2 42} {43 y := 3 43} {32 b 44} {64 … 0} {45 z 90}]" {
		t.Errorf("patch rows = %s", got)
	}
	// A patch of the edit's one change numbers its whole text, which a
	// patch keeps only three lines of.
	long := transcript.Args{Path: "/w/l.txt", Edits: []transcript.Edit{{Old: "1\n2\n3\n4\n5\nold", New: "1\n2\n3\n4\n5\nnew"}}}
	whole := Edits(call(long, &transcript.ToolResult{Patch: []transcript.Hunk{{OldStart: 8, NewStart: 8, Lines: []string{" 3", " 4", " 5", "-old", "+new", " after", `\ No newline at end of file`}}}}))
	if got := fmt.Sprint(whole[0].Rows); got != `[{61 1 6} {61 2 7} {32 3 8} {32 4 9} {32 5 10} {45 old 11} {43 new 11} {32 after 12} {64 \ No newline at end of file 0}]` {
		t.Errorf("whole edit rows = %s", got)
	}
	short := transcript.Args{Path: "/w/s.txt", Edits: []transcript.Edit{{Old: "a\nold", New: "a\nnew"}}}
	before := Edits(call(short, &transcript.ToolResult{Patch: []transcript.Hunk{{OldStart: 5, NewStart: 5, Lines: []string{" x", " y", " a", "-old", "+new"}}}}))
	if got := fmt.Sprint(before[0].Rows); got != "[{32 x 5} {32 y 6} {32 a 7} {45 old 8} {43 new 8}]" {
		t.Errorf("edit with the patch's context before it = %s", got)
	}
	// A patch of other changes (a replacement made twice) is shown as it is.
	twice := Edits(call(long, &transcript.ToolResult{Patch: []transcript.Hunk{{OldStart: 8, NewStart: 8, Lines: []string{"-old", "+new"}}, {OldStart: 30, NewStart: 30, Lines: []string{"-old", "+new"}}}}))
	if got := fmt.Sprint(twice[0].Rows); got != "[{45 old 8} {43 new 8} {64 … 0} {45 old 30} {43 new 30}]" {
		t.Errorf("patch of two changes = %s", got)
	}
	// A hunk's heading names the function it lies in, which its lines may not show.
	headed := Edits(call(transcript.Args{Path: "/w/h.go"}, &transcript.ToolResult{Patch: []transcript.Hunk{{OldStart: 7, NewStart: 7, Lines: []string{"-a", "+b"}, Heading: "func f() {"}}}))
	if got := fmt.Sprint(headed[0].Rows); got != "[{64 @@ func f() { 0} {45 a 7} {43 b 7}]" {
		t.Errorf("patch with a heading = %s", got)
	}
	multi := Edits(call(transcript.Args{Path: "a.txt", Edits: []transcript.Edit{{Old: "a", New: "b"}, {Old: "c", New: "d"}}}, nil))
	if len(multi) != 2 || len(multi[0].Rows) != 2 || multi[1].Path != "a.txt" {
		t.Errorf("multiedit = %+v", multi)
	}
	read := func(args transcript.Args, output string) ReadView {
		return Read(&transcript.ToolCall{Kind: transcript.ReadTool, Args: args, Result: &transcript.ToolResult{Output: output}})
	}
	if v := read(transcript.Args{Path: "x.go"}, "     7\tpackage x\n     8→func f() {}"); len(v.Rows) != 2 || v.Rows[0] != (Row{' ', "package x", 7}) || v.Rows[1].N != 8 || v.Path != "x.go" {
		t.Errorf("cat -n rows = %+v", v)
	}
	// What follows the numbered lines is not part of the file.
	if v := read(transcript.Args{Path: "x.go"}, "     1→a\n     2→\n\n<system-reminder>\nBe careful.\n</system-reminder>"); len(v.Rows) != 2 || v.Rows[1] != (Row{' ', "", 2}) ||
		v.Tail != "Be careful." {
		t.Errorf("read with a reminder = %+v", v)
	}
	// A read too long for the page shows its head, numbered as the file
	// is, not the agent's own "   12→" prefixes as text.
	var big strings.Builder
	for i := 1; i <= maxHighlightLines+10; i++ {
		fmt.Fprintf(&big, "%6d→line %d\n", i, i)
	}
	if v := read(transcript.Args{Path: "big.go"}, big.String()); len(v.Rows) != headLines || v.Rows[199] != (Row{' ', "line 200", 200}) ||
		v.Lines != maxHighlightLines+10 || v.File != OutputFile(big.String()) {
		t.Errorf("huge read: %d rows (last %+v) of %d, file %q", len(v.Rows), v.Rows[len(v.Rows)-1], v.Lines, v.File)
	}
	if v := read(transcript.Args{Path: "x.go", Start: 5}, "plain\ntext"); v.Rows[1] != (Row{' ', "text", 6}) {
		t.Errorf("plain rows = %+v", v)
	}
}

// FuzzMarkdown renders arbitrary text: it must not panic, and no input may
// become an element or attribute that runs script or loads from elsewhere.
func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{
		"# t\n\n*a* [l](https://x.org) <b>x</b>\n\n```go\nfunc main() {}\n```",
		"[x](javascript:alert(1)) ![i](data:text/html,x) <img src=x onerror=y>",
		"```\"><script>\n1\n```\n| a | b |\n|---|---|\n| <i> | `c` |\n- [ ] task",
		"<details><summary>x</summary>\n\nhi\n</details>\n\n\x1b[31mred",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := string(Markdown(s))
		if err := htmlcheck.Fragment(out); err != nil {
			t.Fatalf("Markdown(%q): %v\n%s", s, err, out)
		}
	})
}

func TestUnnumbered(t *testing.T) {
	for in, want := range map[string]string{
		"The file a.go has been updated. Here's the result:\n   350→\n   351→func f() {}": "The file a.go has been updated. Here's the result:\n\nfunc f() {}",
		"     7\tvar x = 1\n":  "var x = 1\n",
		"exit 2\n12 files\n3→": "exit 2\n12 files\n",
		"no numbers\tat all":   "no numbers\tat all",
	} {
		if got := Unnumbered(in); got != want {
			t.Errorf("Unnumbered(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHighlightCache(t *testing.T) {
	code := "package main\n\nfunc main() { println(\"cached\") }\n"
	first := Highlight(code, "go")
	k := keyOf("block", lexer("go", lexers.Get).Config().Name, strings.TrimSuffix(code, "\n"))
	if _, ok := highlighted.Get(k); !ok {
		t.Fatal("a highlighted block is not in the cache")
	}
	if again := Highlight(code, "golang"); strings.Replace(string(again), `data-lang="golang"`, `data-lang="go"`, 1) != string(first) {
		t.Errorf("the cached block differs:\n%s\n%s", first, again)
	}
	rows := []Row{{Op: ' ', Text: "x := 1", N: 1}, {Op: '+', Text: "y := 2", N: 2}}
	if a, b := Rows(rows, "a.go"), Rows(rows, "b.go"); a != b || !strings.Contains(string(a), `class="row add"`) {
		t.Errorf("rows from the cache differ or lost their marks:\n%s\n%s", a, b)
	}

	text := "Run `go test` and **read** <this>.\n\n```go\nx := 1\n```"
	if a, b := Markdown(text), Markdown(text); a != b || !strings.Contains(string(a), "&lt;this&gt;") {
		t.Errorf("Markdown from the memo differs or is not escaped:\n%s\n%s", a, b)
	}
	if _, ok := markdowns.Get(keyOf("markdown", "", text)); !ok {
		t.Error("rendered Markdown is not in its memo")
	}

}

// What is being made is made once: those who ask for it meanwhile wait for
// it. (Those who ask after find it in the memo, so a slow scheduler cannot
// fail this; a memo that makes it again for each caller does.)
func TestMemoMakesOnce(t *testing.T) {
	c := newMemo(1 << 20)
	var made atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	ask := func() {
		v, ok := c.do("block", "go", "x := 1", func() (html, bool) {
			if made.Add(1) == 1 {
				close(started)
			}
			<-release
			return html{s: "html"}, true
		})
		if !ok || v.s != "html" {
			t.Errorf("got %v, %v", v, ok)
		}
	}
	var wg sync.WaitGroup
	wg.Go(ask)
	<-started
	for range 7 {
		wg.Go(ask)
	}
	time.Sleep(20 * time.Millisecond) // the others ask meanwhile
	close(release)
	wg.Wait()
	if n := made.Load(); n != 1 {
		t.Errorf("made %d times", n)
	}
}

// TestFileLexerByName checks that a file is highlighted by its own name,
// whichever file with its extension came first.
func TestFileLexerByName(t *testing.T) {
	name := func(l interface{ Config() *chroma.Config }) string {
		if l == nil || reflect.ValueOf(l).IsNil() {
			return ""
		}
		return l.Config().Name
	}
	for _, order := range [][]string{{"a/Cargo.lock", "b/uv.lock"}, {"c/uv.lock", "d/Cargo.lock"}} {
		for _, p := range order {
			want := ""
			if l := lexers.Match(path.Base(strings.ToLower(p))); l != nil && l.Config().Name != "plaintext" {
				want = l.Config().Name
			}
			if got := name(fileLexer(p)); got != want {
				t.Errorf("after %v: lexer of %s = %q, want %q", order, p, got, want)
			}
		}
	}
}

// FuzzCatLine holds the scan of a numbered line to the regular expression
// it replaced.
func FuzzCatLine(f *testing.F) {
	re := regexp.MustCompile(`^ *(\d+)(?:\t|→)(.*)$`)
	for _, s := range []string{"     7\tpackage x", "     8→func f() {}", "12→", " 1 \tx", "→x", "  \t", "99999999999999999999\tbig", "1→a→b", "1\t\tx", "١\tx", "1\u2192\u2192", "1\xe2\x86", "+1\tx", "1\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.Contains(line, "\n") {
			return // lines are split on it before
		}
		n, text, ok := catLine(line)
		m := re.FindStringSubmatch(line)
		if ok != (m != nil) {
			t.Fatalf("catLine(%q) ok = %v, the expression %v", line, ok, m != nil)
		}
		if !ok {
			return
		}
		wantN, _ := strconv.Atoi(m[1])
		if n != wantN || text != m[2] {
			t.Fatalf("catLine(%q) = %d, %q; the expression %d, %q", line, n, text, wantN, m[2])
		}
	})
}

// A memo key is the sha256 of its use, lexer and input, each ended by a
// zero byte but the last, however long the input (it is hashed in pieces),
// and making one allocates nothing.
func TestKeyOf(t *testing.T) {
	for _, n := range []int{0, 1, 4095, 4096, 4097, 10000} {
		input := strings.Repeat("ab\x00c", n)[:n]
		want := sha256.Sum256([]byte("rows\x00Go\x00" + input))
		if got := keyOf("rows", "Go", input); got != memoKey(want) {
			t.Errorf("keyOf of %d bytes: %x, want %x", n, got, want)
		}
	}
	input := strings.Repeat("x", 20000)
	if n := testing.AllocsPerRun(100, func() { keyOf("rows", "Go", input) }); n != 0 {
		t.Errorf("keyOf allocates %v times", n)
	}
}

// TestReadable checks how a page shows a tool's JSON: indented, escapes
// written as the characters they stand for, and a string of several
// lines (a prompt, a message) as lines, not "\n".
func TestReadable(t *testing.T) {
	for in, want := range map[string]Shown{
		`{"to":"alice","content":"Thanks \u2014 done"}`:                     {"{\n  \"to\": \"alice\",\n  \"content\": \"Thanks — done\"\n}", "json"},
		`{"to":"bob","message":"Line one  \nline two\n","n":3,"ok":"true"}`: {"to: bob\nmessage: |\n  Line one\n  line two\nn: 3\nok: \"true\"", "yaml"},
		"*** Begin Patch\n*** End Patch":                                    {"*** Begin Patch\n*** End Patch", "json"},
	} {
		if got := Readable(in); got != want {
			t.Errorf("Readable(%q) = %q, want %q", in, got, want)
		}
	}
	if got := ReadableOutput(`{"a":"b"}`); got != `{"a":"b"}` {
		t.Errorf("an output of one-line JSON is shown as it is, not %q", got)
	}
	if got := ReadableOutput(`{"routing":{"content":"All three\nare in"}}`); got != "routing:\n  content: |-\n    All three\n    are in" {
		t.Errorf("an output of JSON with lines = %q", got)
	}
}

// TestTrimLineEnds: what trimLineEnds drops is what (?m)[ \t]+$ matches,
// on lines that end in spaces, tabs, a carriage return or nothing.
func TestTrimLineEnds(t *testing.T) {
	re := regexp.MustCompile(`(?m)[ \t]+$`)
	for _, s := range []string{"", " ", "a", "a \t", "a \nb\t\n", "\n\n  \n", "a \r\nb", " \t x \t ", "ü  \n日本\t"} {
		if got, want := trimLineEnds(s), re.ReplaceAllString(s, ""); got != want {
			t.Errorf("trimLineEnds(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestTokens: counts as a page writes them, thousands separated, the
// optional ones "" when none, and nothing at all for no usage.
func TestTokens(t *testing.T) {
	if got := Tokens(transcript.Usage{}); got != nil {
		t.Errorf("Tokens of no usage = %+v, want nil", got)
	}
	got := Tokens(transcript.Usage{Input: 1234567, Output: 0, CacheRead: 999, Reasoning: 1000})
	want := TokenCounts{Input: "1,234,567", Output: "0", CacheRead: "999", CacheWrite: "", Reasoning: "1,000",
		Line: "1,234,567 in · 0 out · 999 cache read · 1,000 reasoning"}
	if got == nil || *got != want {
		t.Errorf("Tokens = %+v, want %+v", got, want)
	}
}

// TestNumberedIsLineDiffFrom: numbering a diff made with no line numbers
// gives what diffing again from a start line gives, for texts with
// changes, folds, and no final newline.
func TestNumberedIsLineDiffFrom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	text := func() string {
		var lines []string
		for range rng.IntN(30) {
			lines = append(lines, string(rune('a'+rng.IntN(4)))+strconv.Itoa(rng.IntN(30)))
		}
		s := strings.Join(lines, "\n")
		if rng.IntN(2) == 0 && s != "" {
			s += "\n"
		}
		return s
	}
	folds := 0
	for range 500 {
		// b is a with a few lines changed, so long runs stay the same.
		a := text()
		lines := strings.Split(a, "\n")
		for range rng.IntN(3) {
			lines[rng.IntN(len(lines))] = text()
		}
		b := strings.Join(lines, "\n")
		none := LineDiff(a, b, 0)
		for _, start := range []int{-3, 0, 1, 42} {
			if got, want := numbered(none, start), LineDiff(a, b, start); !slices.Equal(got, want) {
				t.Fatalf("%q → %q from %d:\nnumbered %v\nLineDiff %v", a, b, start, got, want)
			}
		}
		folds += len(slices.DeleteFunc(slices.Clone(none), func(r Row) bool { return r.Op != '=' }))
	}
	if folds == 0 {
		t.Fatal("no diff folded a run of lines: the test leaves '=' untried")
	}
}
