package site

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/transcriptsite/transcriptsite/internal/treetest"
)

// browser starts headless Chromium (Debian's chromium package), or skips
// the test when it is not installed. The returned func lists the errors the
// page's console has reported, Content-Security-Policy violations among them.
func browser(t *testing.T) (context.Context, func() []string) {
	t.Helper()
	path := os.Getenv("CHROME_PATH")
	if path == "" {
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
			if p, err := exec.LookPath(name); err == nil {
				path = p
				break
			}
		}
	}
	if path == "" {
		skip(t, "no Chromium: install Debian's chromium package to run browser tests")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	// A page that never comes (a 404 has no footer to wait for) fails the
	// test, rather than the whole package's run at its deadline.
	tctx, cancelT := context.WithTimeout(context.Background(), 8*time.Minute)
	actx, cancelA := chromedp.NewExecAllocator(tctx, opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA(); cancelT() })

	var mu sync.Mutex
	var errs []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				errs = append(errs, m.String())
				mu.Unlock()
			}
		}
	}()
	return ctx, func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(errs) }
}

// artifacts is where browser tests save screenshots: $TEST_ARTIFACTS, or
// test-artifacts/ at the repository root.
func artifacts(t *testing.T) string {
	dir := os.Getenv("TEST_ARTIFACTS")
	if dir == "" {
		dir, _ = filepath.Abs(filepath.Join("..", "test-artifacts"))
	}
	_ = os.MkdirAll(dir, 0o755)
	return dir
}

// scheme emulates the reader's preferred colour scheme.
func scheme(name string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: name}},
		})
		return err
	})
}

// run runs an action that returns a value, failing the test on error.
func run[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// poll is chromedp.Poll run in the page the tab shows now. chromedp learns
// of a new page's script context from an event it may handle after the
// load event that ends Navigate, so a poll just after a navigation can be
// sent to the page before, which is gone: that poll is sent again.
func poll(expr string, opts ...chromedp.PollOption) chromedp.Action[chromedp.Void] {
	p := chromedp.Poll[chromedp.Void](expr, opts...)
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		for {
			v, err := p(ctx, t)
			var e *cdproto.Error
			if !errors.As(err, &e) || !strings.HasPrefix(e.Message, "Cannot find context with specified id") && !strings.HasPrefix(e.Message, "Execution context was destroyed") {
				return v, err
			}
			select {
			case <-ctx.Done():
				return v, err
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
}

// searchShown is true once the search page shows what the query in its
// box finds: each search writes its query to the address and keeps the
// list busy until its status is shown. Typed, a query's first letters may
// be searched for on their own before it.
const searchShown = `document.getElementById("search-status").textContent !== "" &&
	new URLSearchParams(location.search).get("q") === document.getElementById("search-query").value &&
	!document.getElementById("search-results").hasAttribute("aria-busy")`

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func TestSessionPageInBrowser(t *testing.T) {
	ctx, consoleErrors := browser(t)
	dir := t.TempDir()
	var output strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&output, "step %d\n", i)
	}
	out, _ := json.Marshal(output.String())
	_ = os.MkdirAll(filepath.Join(dir, "content"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("title: Browser test\n"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "content", "s.jsonl"), []byte(`{"parentUuid":null,"sessionId":"b1","type":"user","message":{"role":"user","content":"Count to thirty"},"uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}
{"parentUuid":"u1","sessionId":"b1","type":"assistant","message":{"id":"m","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Here:\n\n`+"```go\\nfmt.Println(1)\\n```"+`"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"seq 30"}}]},"uuid":"a1","timestamp":"2026-01-01T00:00:01Z"}
{"parentUuid":"a1","sessionId":"b1","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":`+string(out)+`}]},"uuid":"u2","timestamp":"2026-01-01T00:00:02Z"}
{"parentUuid":"u2","sessionId":"b1","type":"user","message":{"role":"user","content":"And again"},"uuid":"u3","timestamp":"2026-01-01T00:01:00Z"}
`), 0o644)
	cfg, _, err := build(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(cfg.Destination)))
	defer srv.Close()
	list := readSessions(t, cfg.Destination)
	page := srv.URL + "/" + list[0].URL
	shots := artifacts(t)

	bgJS := chromedp.Evaluate[string](`getComputedStyle(document.body).backgroundColor`)
	restJS := chromedp.Evaluate[bool](`document.querySelector("details.more pre").checkVisibility()`)
	check := func(what, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %q, want %q", what, got, want)
		}
	}
	screenshot := func(name string) {
		_ = os.WriteFile(filepath.Join(shots, name), run(t, ctx, chromedp.FullScreenshot(100)), 0o644)
	}

	do(t, ctx, scheme("light"), chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS(".theme-toggle")))
	check("light background", run(t, ctx, bgJS), "rgb(255, 255, 255)")
	screenshot("session-light.png")
	do(t, ctx, scheme("dark"))
	check("dark background", run(t, ctx, bgJS), "rgb(13, 17, 23)")
	screenshot("session-dark.png")

	// The toggle overrides the system scheme and persists across pages.
	do(t, ctx, chromedp.Click(chromedp.CSS(".theme-toggle")))
	check("theme after toggle", run(t, ctx, chromedp.Evaluate[string](`document.documentElement.dataset.theme`)), "light")
	check("background after toggle", run(t, ctx, bgJS), "rgb(255, 255, 255)")
	do(t, ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(".theme-toggle")))
	check("background after reload", run(t, ctx, bgJS), "rgb(255, 255, 255)")

	// Long output shows 20 lines, the rest behind "show all".
	summary := run(t, ctx, chromedp.Text(chromedp.CSS("details.more > summary")))
	check("fold summary", strings.TrimSpace(summary), "Show all 30 lines")
	if run(t, ctx, restJS) {
		t.Error("folded lines are visible before opening")
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("details.more > summary")))
	if !run(t, ctx, restJS) {
		t.Error("folded lines are hidden after opening")
	}
	screenshot("session-unfolded.png")

	// j jumps to the next prompt.
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`), chromedp.KeyEvent("j"), chromedp.KeyEvent("j"))
	check("hash after j j", run(t, ctx, chromedp.Evaluate[string](`location.hash`)), "#m-4")
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors (CSP violations among them): %v", errs)
	}
	t.Logf("screenshots in %s", shots)
}

func TestSearchInBrowser(t *testing.T) {
	ctx, consoleErrors := browser(t)
	dir := treetest.Extract(t, "testdata/site.txtar")
	cfg, _, err := build(t, dir, map[string]any{"baseURL": "/sub/path/"})
	if err != nil {
		t.Fatal(err)
	}
	// Serve the site under its base path, as GitHub Pages serves a project site.
	mux := http.NewServeMux()
	mux.Handle("/sub/path/", http.StripPrefix("/sub/path/", http.FileServer(http.Dir(cfg.Destination))))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// From the box on a session page: type, press Enter, land on the search page.
	list := readSessions(t, cfg.Destination)
	do(t, ctx, chromedp.Navigate(srv.URL+"/sub/path/"+list[0].URL), chromedp.KeyEvent("/"))
	if id := run(t, ctx, chromedp.Evaluate[string](`document.activeElement.id`)); id != "search-input" {
		t.Errorf("/ focused %q", id)
	}
	do(t, ctx,
		chromedp.Evaluate[chromedp.Void](`document.getElementById("search-input").value = ""`),
		chromedp.SendKeys(chromedp.CSS("#search-input"), "ls -la\r"),
		chromedp.WaitVisible(chromedp.CSS(".search-hit-link")),
	)
	if got := run(t, ctx, chromedp.Evaluate[string](`location.pathname + location.search`)); got != "/sub/path/search/?q=ls+-la" {
		t.Errorf("search page at %q", got)
	}
	titles := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".search-result-title")].map(e => e.textContent)`))
	if len(titles) != 1 || titles[0] != "Parser <script>alert(1)</script> walkthrough" {
		t.Errorf("results %q", titles)
	}
	marks := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".search-hit mark")].map(e => e.textContent)`))
	if !slices.Contains(marks, "ls") || !slices.Contains(marks, "la") {
		t.Errorf("highlighted %q", marks)
	}
	_ = os.WriteFile(filepath.Join(artifacts(t), "search.png"), run(t, ctx, chromedp.FullScreenshot(100)), 0o644)

	// Following a result lands on its message.
	do(t, ctx, chromedp.Click(chromedp.CSS(".search-hit-link")), chromedp.WaitVisible(chromedp.CSS(".msg:target")))
	if got := run(t, ctx, chromedp.Evaluate[string](`location.pathname + location.hash`)); got != "/sub/path/"+one(list).URL+"#m-2" {
		t.Errorf("landed on %q", got)
	}

	// Filters narrow, and a query with markup stays text.
	do(t, ctx,
		chromedp.Navigate(srv.URL+"/sub/path/search/?q=alpha&role=0"),
		chromedp.WaitVisible(chromedp.CSS("#search-status")),
		poll(`document.getElementById("search-status").textContent.includes("match")`),
	)
	if got := run(t, ctx, chromedp.Text(chromedp.CSS("#search-status"))); !strings.HasPrefix(got, "1 matching message in 1 session ") {
		t.Errorf("role filter: %q", got)
	}
	do(t, ctx,
		chromedp.Navigate(srv.URL+`/sub/path/search/?q=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E`),
		poll(`document.getElementById("search-query").value !== ""`),
	)
	if got := run(t, ctx, chromedp.Evaluate[string](`document.getElementById("search-query").value`)); got != "<img src=x onerror=alert(1)>" {
		t.Errorf("query box shows %q", got)
	}
	if n := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("main img").length`)); n != 0 {
		t.Error("the query's markup became an element")
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// one returns the entry of the session with the hostile-free title used above.
func one(list []SessionEntry) SessionEntry {
	for _, e := range list {
		if e.ID == "11111111-aaaa-4000-8000-000000000001" {
			return e
		}
	}
	return SessionEntry{}
}

// TestStatsAndIndexInBrowser draws the charts of the stats page and uses
// the index's filters and sort orders in Chromium, under the site's CSP.
func TestStatsAndIndexInBrowser(t *testing.T) {
	ctx, consoleErrors := browser(t)
	cfg, _, err := build(t, treetest.Extract(t, "testdata/stats.txtar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(cfg.Destination)))
	defer srv.Close()

	do(t, ctx, scheme("light"), chromedp.Navigate(srv.URL+"/stats/"), chromedp.WaitVisible(chromedp.CSS("#chart-sessions svg")))
	type chart struct {
		ID, Title string
		Bars      []float64 // widths of the bars, as drawn
		Fill      string
	}
	charts := run(t, ctx, chromedp.Evaluate[[]chart](`[...document.querySelectorAll("figure.chart:not(.heatmap)")].map(f => {
		const svg = f.querySelector("svg.chart-svg");
		const rects = svg ? [...svg.querySelectorAll("rect:not(.track)")] : [];
		return {
			ID: f.id,
			Title: svg ? document.getElementById(svg.getAttribute("aria-labelledby").split(" ")[0]).textContent : "",
			Bars: rects.map(r => Math.round(r.getBoundingClientRect().width * 10) / 10),
			Fill: rects.length ? getComputedStyle(rects[0]).fill : "",
		};
	})`))
	if len(charts) != 10 {
		t.Fatalf("%d charts drawn, want 10: %+v", len(charts), charts)
	}
	byID := map[string]chart{}
	for _, c := range charts {
		byID[c.ID] = c
		if c.Title == "" || len(c.Bars) == 0 || slices.Contains(c.Bars, 0) {
			t.Errorf("%s: title %q, bars %v: every chart needs a title and visible bars", c.ID, c.Title, c.Bars)
		}
		if c.Fill != "rgb(9, 105, 218)" {
			t.Errorf("%s: bars filled %q, not with the stylesheet's accent", c.ID, c.Fill)
		}
	}
	// Three days with sessions; of the tool kinds, only shell (one call
	// of two failed) and read (one of one) have an error rate to draw.
	if n := len(byID["chart-sessions"].Bars); n != 3 {
		t.Errorf("sessions per day: %d bars", n)
	}
	// The longest bar spans the column (1280 px less the margins).
	if b := byID["chart-errors"].Bars; len(b) != 2 || b[1] < 1100 || math.Abs(b[0]/b[1]-0.5) > 0.01 {
		t.Errorf("error rate bars %v, want 50%% and 100%% of the column", b)
	}
	// Bars are as long as their values: sonnet's 3,300,000 tokens, opus's
	// 1,110,000, the mystery model's 550,000.
	if b := byID["chart-tokens-model"].Bars; len(b) != 3 || math.Abs(b[1]/b[0]-1.11/3.3) > 0.01 || math.Abs(b[2]/b[0]-0.55/3.3) > 0.01 {
		t.Errorf("tokens by model bars %v", b)
	}
	// The table of a chart's numbers opens.
	do(t, ctx, chromedp.Click(chromedp.CSS("#chart-errors summary")))
	rows := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#chart-errors tbody tr")].filter(r => r.checkVisibility()).map(r => r.textContent)`))
	if !slices.Equal(rows, []string{"shell2150.0%", "edit100.0%", "read11100.0%", "search100.0%", "web100.0%"}) {
		t.Errorf("error rate table rows %q", rows)
	}
	_ = os.WriteFile(filepath.Join(artifacts(t), "stats.png"), run(t, ctx, chromedp.FullScreenshot(100)), 0o644)

	// The index: filters narrow, sorts order, and the address keeps both.
	visible := chromedp.Evaluate[[]string](`[...document.querySelectorAll(".session-item")].filter(li => li.checkVisibility()).map(li => li.querySelector(".session-title").textContent)`)
	set := func(js string) chromedp.Action[chromedp.Void] {
		return chromedp.Evaluate[chromedp.Void](`{ const f = document.getElementById("index-filters"); ` + js + `; f.dispatchEvent(new Event("change")); }`)
	}
	check := func(what string, want ...string) {
		t.Helper()
		if got := run(t, ctx, visible); !slices.Equal(got, want) {
			t.Errorf("%s: sessions shown %q, want %q", what, got, want)
		}
	}
	do(t, ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#index-filters")))
	check("no filter", "Rename the handler", "Run the tests", "Fix the build", "Find the docs", "A prompt with no time")
	do(t, ctx, set(`f.elements.project.value = "api"`))
	check("project api", "Find the docs", "A prompt with no time")
	if got := run(t, ctx, chromedp.Text(chromedp.CSS("#index-status"))); got != "2 of 5 sessions" {
		t.Errorf("status %q", got)
	}
	do(t, ctx, set(`f.elements.project.value = ""; f.elements.model.value = "claude-sonnet-4-5"`))
	check("model", "Run the tests", "Fix the build")
	do(t, ctx, set(`f.elements.model.value = ""; f.elements.from.value = "2026-03-02"`))
	check("from 2 March", "Rename the handler", "Find the docs")
	do(t, ctx, set(`f.elements.from.value = ""; f.elements.sort.value = "longest"; f.elements.group.checked = false`))
	check("longest first, not grouped", "Rename the handler", "Fix the build", "Run the tests", "Find the docs", "A prompt with no time")
	if got := run(t, ctx, chromedp.Evaluate[string](`location.search`)); got != "?sort=longest&group=0" {
		t.Errorf("address %q", got)
	}
	do(t, ctx, set(`f.elements.group.checked = true; f.elements.sort.value = "oldest"`))
	check("oldest first, by project", "Fix the build", "Run the tests", "Rename the handler", "Find the docs", "A prompt with no time")
	// A linked view opens as it was.
	do(t, ctx, chromedp.Navigate(srv.URL+"/?agent=Claude+Code&to=2026-03-01"), chromedp.WaitVisible(chromedp.CSS("#index-filters")))
	check("from the address", "Run the tests", "Fix the build")
	_ = os.WriteFile(filepath.Join(artifacts(t), "index-filtered.png"), run(t, ctx, chromedp.FullScreenshot(100)), 0o644)

	// Without scripts the index lists every session and hides the form it
	// could not use.
	noScript := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	})
	do(t, ctx, noScript, chromedp.Navigate(srv.URL+"/?project=api"), chromedp.WaitVisible(chromedp.CSS(".session-item")))
	check("without scripts", "Rename the handler", "Run the tests", "Fix the build", "Find the docs", "A prompt with no time")
	if run(t, ctx, chromedp.Evaluate[bool](`document.getElementById("index-filters").checkVisibility()`)) {
		t.Error("the filters show without the script that runs them")
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors (CSP violations among them): %v", errs)
	}
}
