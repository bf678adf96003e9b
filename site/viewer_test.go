package site

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	transcriptsite "github.com/transcriptsite/transcriptsite"
	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/internal/treetest"
	"github.com/transcriptsite/transcriptsite/site/stats"
)

// A user's own sessions, read with no config file, are not titled or
// described as the embedded demo; the demo content still is.
func TestOwnArchiveIsNotTheDemo(t *testing.T) {
	dir := t.TempDir() // no config file
	content := filepath.Join(treetest.Extract(t, "testdata/viewer.txtar"), "content")
	cfg, _, err := LoadConfig(Options{Source: dir, Overrides: map[string]any{"contentDir": content, "destination": filepath.Join(dir, "public")}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Title != "Agent sessions" || len(cfg.Params) != 0 {
		t.Errorf("own archive: title %q, params %v", cfg.Title, cfg.Params)
	}
	if _, err := Build(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	home := readFile(t, cfg.Destination, "index.html")
	if strings.Contains(strings.ToLower(home), "demo") || !strings.Contains(home, "<title>Agent sessions</title>") {
		t.Errorf("the home page of one's own archive mentions the demo or lacks the neutral title")
	}

	demo, _, err := LoadConfig(Options{Source: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(transcriptsite.DemoConfig), demo.Title) || demo.Params["footer"] == nil {
		t.Errorf("demo: title %q, params %v", demo.Title, demo.Params)
	}
}

// viewerSite builds testdata/viewer.txtar and serves it.
func viewerSite(t *testing.T) (string, []SessionEntry) {
	t.Helper()
	cfg, _, err := build(t, treetest.Extract(t, "testdata/viewer.txtar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(cfg.Destination)))
	t.Cleanup(srv.Close)
	return srv.URL + "/", readSessions(t, cfg.Destination)
}

// media emulates media features: the colour scheme, hover.
func media(kv ...string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		var fs []*emulation.MediaFeature
		for i := 0; i < len(kv); i += 2 {
			fs = append(fs, &emulation.MediaFeature{Name: kv[i], Value: kv[i+1]})
		}
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: fs})
		return err
	})
}

// TestViewerInBrowser checks what a reader sees first: no page scrolls
// sideways on a phone, the session page opens on its title and its
// prompts, not on injected context or rows that only point elsewhere,
// diffs keep their colours in both themes, and a phone shows the
// copy-link buttons.
func TestViewerInBrowser(t *testing.T) {
	ctx, consoleErrors := browser(t)
	site, list := viewerSite(t)
	long := list[0]
	if long.Project != "a-project-whose-name-is-sixty-four-characters-long-for-the-phone" {
		t.Fatalf("first session %+v", long)
	}
	sessionPage := site + long.URL

	checkPhoneWidths(t, ctx, site, []string{"", "projects/a-project-whose-name-is-sixty-four-characters/", "projects/9126edde/", // a Gemini project named by a hash
		long.URL, list[1].URL, "search/?q=tarfile", "stats/"})
	// The title comes before the outline of prompts.
	do(t, ctx, chromedp.Navigate(sessionPage), chromedp.WaitReady(chromedp.CSS("footer")))
	if !run(t, ctx, chromedp.Evaluate[bool](`document.querySelector("h1").getBoundingClientRect().bottom <= document.querySelector(".outline").getBoundingClientRect().top`)) {
		t.Error("on a phone the prompt outline comes before the session's title")
	}
	_ = os.WriteFile(filepath.Join(artifacts(t), "viewer-390.png"), run(t, ctx, chromedp.FullScreenshot(90)), 0o644)
	checkCopyButtons(t, ctx)

	do(t, ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(sessionPage), chromedp.WaitReady(chromedp.CSS("footer")))
	checkSessionOpening(t, ctx, sessionPage)
	checkShownOnce(t, ctx)
	checkDiffRows(t, ctx)
	_ = os.WriteFile(filepath.Join(artifacts(t), "viewer-dark.png"), run(t, ctx, chromedp.FullScreenshot(90)), 0o644)
	// Copy-link buttons show on a screen with no hover (as headless
	// Chromium's is).
	if run(t, ctx, chromedp.Evaluate[bool](`matchMedia("(hover: none)").matches`)) {
		if o := run(t, ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("#m-4 .copy-link")).opacity`)); o != "1" {
			t.Errorf("on a touch screen the copy-link button is hidden (opacity %s)", o)
		}
	}

	// Plurals: one session is "1 session".
	do(t, ctx, chromedp.Navigate(site), chromedp.WaitReady(chromedp.CSS("footer")))
	counts := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".project h2 .count")].map(e => e.textContent)`))
	if strings.Join(counts, ",") != "1 session,1 session,1 session" {
		t.Errorf("project counts %q", counts)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// checkCopyButtons checks, every block open, that no Copy button of a
// block of code covers a file's path or its first row: at 390 px the
// button of an Edit's diff sat on the end of the path above it, and then
// on its first row.
func checkCopyButtons(t *testing.T, ctx context.Context) {
	t.Helper()
	covered := run(t, ctx, chromedp.Evaluate[[]string](`(() => {
		document.querySelectorAll("details").forEach(d => d.open = true);
		const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
		const out = [];
		for (const b of document.querySelectorAll(".copy-code")) {
			const box = b.getBoundingClientRect();
			for (const f of b.parentNode.querySelectorAll(".tool-file code")) {
				if ([...f.getClientRects()].some(r => hit(r, box))) out.push(f.textContent);
			}
			const first = b.parentNode.querySelector(".row, pre code");
			if (first && [...first.getClientRects()].some(r => hit(r, box))) out.push("first row: " + first.textContent.slice(0, 40));
		}
		return out; })()`))
	if len(covered) > 0 {
		t.Errorf("Copy buttons cover %q", covered)
	}
	if n := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll(".tool-edit .copy-code").length`)); n == 0 {
		t.Error("no Edit on the page has a Copy button to check")
	}
}

// checkPhoneWidths checks that at 390 px no page of the site at base is
// wider than the screen.
func checkPhoneWidths(t *testing.T, ctx context.Context, base string, pages []string) {
	t.Helper()
	do(t, ctx, chromedp.EmulateViewport(390, 800), media("prefers-color-scheme", "light"))
	for _, p := range pages {
		do(t, ctx, chromedp.Navigate(base+p), chromedp.WaitReady(chromedp.CSS("footer")))
		if p == "search/?q=tarfile" {
			do(t, ctx, chromedp.WaitVisible(chromedp.CSS(".search-hit-link")))
		}
		if w := run(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 390 {
			t.Errorf("/%s is %d px wide on a 390 px screen", p, w)
		}
	}
}

// checkSessionOpening checks what the session page shows first.
func checkSessionOpening(t *testing.T, ctx context.Context, sessionPage string) {
	t.Helper()
	// The three injected messages before the first prompt are one closed
	// block; the prompt is the first message on show.
	type group struct {
		Summary string
		Open    bool
		Msgs    []string
	}
	groups := run(t, ctx, chromedp.Evaluate[[]group](`[...document.querySelectorAll("details.context-group")].map(d => ({
		Summary: d.querySelector("summary").textContent, Open: d.open, Msgs: [...d.querySelectorAll(".msg")].map(m => m.id)}))`))
	if len(groups) != 1 || groups[0].Open || groups[0].Summary != "Context injected by the agent: 3 messages" || len(groups[0].Msgs) != 3 {
		t.Errorf("context blocks %+v, want one closed block of three", groups)
	}
	if first := run(t, ctx, chromedp.Evaluate[string](`[...document.querySelectorAll(".msg")].find(m => m.checkVisibility()).id`)); first != "m-4" {
		t.Errorf("first message on show is %s, want the prompt m-4", first)
	}
	// No row only says where results are shown; the anchor of the message
	// that held them leads to the call, opened.
	if n := run(t, ctx, chromedp.Evaluate[int](`[...document.querySelectorAll(".msg")].filter(m => /Tool results, shown/.test(m.textContent)).length`)); n != 0 {
		t.Errorf("%d rows only point to tool calls", n)
	}
	do(t, ctx, chromedp.Navigate(sessionPage+"#m-8"), chromedp.Sleep(200*time.Millisecond))
	type target struct {
		Tool      string
		Open, Vis bool
	}
	got := run(t, ctx, chromedp.Evaluate[target](`(() => { const a = document.querySelector(":target"), d = a && a.nextElementSibling;
		return d ? {Tool: d.querySelector(".tool-name").textContent, Open: d.open, Vis: d.getBoundingClientRect().top < innerHeight && d.getBoundingClientRect().bottom > 0} : {}; })()`))
	if got != (target{"Edit", true, true}) {
		t.Errorf("#m-8 leads to %+v, want the Edit call that shows its result, open and in view", got)
	}
}

// checkShownOnce checks the session page shows each command and path
// once, open or closed, and headings no smaller than the text.
func checkShownOnce(t *testing.T, ctx context.Context) {
	t.Helper()
	// Each command and path is shown once, open or closed.
	count := func(sel, text string) int {
		return run(t, ctx, chromedp.Evaluate[int](`document.querySelector(`+jsString(sel)+`).innerText.split(`+jsString(text)+`).length - 1`))
	}
	const cmd, file = "-run TestTarfileHandlingOfVeryLongNames", "very_long_file_name_that_goes_on.go"
	if n, m := count(".tool-shell", cmd), count(".tool-edit", file); n != 1 || m != 1 {
		t.Errorf("the open shell call shows its command %d times, the edit its path %d times", n, m)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(".tool-shell > summary")))
	if n := count(".tool-shell", cmd); n != 1 {
		t.Errorf("the closed shell call shows its command %d times", n)
	}
	// Headings in a message are no smaller than its text.
	sizes := run(t, ctx, chromedp.Evaluate[[]float64](`["p", "h3", "h4", "h5", "h6"].map(h => { const e = document.querySelector("#m-5 .text " + h) || document.createElement("x"); return parseFloat(getComputedStyle(e).fontSize) || 0; })`))
	for i, h := range []string{"h3", "h4", "h5", "h6"} {
		if s := sizes[i+1]; s != 0 && s < sizes[0] {
			t.Errorf("%s of a message is %.1f px, its text %.1f px", h, s, sizes[0])
		}
	}
	if sizes[1] == 0 || sizes[2] == 0 {
		t.Errorf("the message's ### and #### are not h3 and h4 (sizes %v)", sizes)
	}

}

// checkDiffRows checks that added and removed lines stand out from the
// page in both themes, and carry a marker.
func checkDiffRows(t *testing.T, ctx context.Context) {
	t.Helper()
	for _, theme := range []string{"light", "dark"} {
		do(t, ctx, media("prefers-color-scheme", theme), chromedp.Sleep(50*time.Millisecond))
		type row struct {
			Mark     string
			Contrast float64
		}
		rows := run(t, ctx, chromedp.Evaluate[[]row](contrastJS+`; [...document.querySelectorAll(".rows .add, .rows .del")].map(r => ({
			Mark: r.querySelector(".mk").textContent, Contrast: contrast(getComputedStyle(r).backgroundColor, getComputedStyle(document.body).backgroundColor)}))`))
		if len(rows) != 2 {
			t.Fatalf("%s: diff rows %+v", theme, rows)
		}
		for i, r := range rows {
			if want := []string{"-", "+"}[i]; r.Mark != want || r.Contrast < 1.3 {
				t.Errorf("%s: diff row %d has marker %q and contrast %.2f with the page, want %q and 1.3 or more", theme, i, r.Mark, r.Contrast, want)
			}
		}
		// Code keeps its colours: tokens are not all the colour of the text.
		colours := run(t, ctx, chromedp.Evaluate[[]string](`[...new Set([...document.querySelectorAll(".chroma span:not(.row):not(.ln):not(.mk)")].map(s => getComputedStyle(s).color))]`))
		if len(colours) < 3 {
			t.Errorf("%s: highlighted code shows %d colours (%v), want its tokens coloured", theme, len(colours), colours)
		}
	}
}

// contrastJS defines contrast(a, b): the WCAG contrast ratio of two CSS
// rgb() colours.
const contrastJS = `function lum(c) { const v = c.match(/[\d.]+/g).slice(0, 3).map(x => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; });
	return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; }
function contrast(a, b) { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); }`

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

// axeSource is axe-core's script: $TRANSCRIPTSITE_AXE, or the copy .ci/run
// installs, or one in node_modules at the repository's root.
func axeSource(t *testing.T) string {
	t.Helper()
	paths := []string{os.Getenv("TRANSCRIPTSITE_AXE"),
		filepath.Join("..", ".ci", "tools", "node_modules", "axe-core", "axe.min.js"),
		filepath.Join("..", "node_modules", "axe-core", "axe.min.js")}
	for _, p := range paths {
		if p == "" {
			continue
		}
		if b, err := os.ReadFile(p); err == nil {
			return string(b)
		}
	}
	skip(t, "no axe-core: npm install --prefix .ci/tools axe-core (or set TRANSCRIPTSITE_AXE to axe.min.js)")
	return ""
}

// TestAccessibilityInBrowser runs axe-core on every kind of page in both
// themes: no serious or critical violation.
func TestAccessibilityInBrowser(t *testing.T) {
	axe := axeSource(t)
	ctx, _ := browser(t)
	site, list := viewerSite(t)
	pages := []string{"", "projects/a-project-whose-name-is-sixty-four-characters/", list[0].URL, "search/?q=tarfile", "stats/"}
	for _, theme := range []string{"light", "dark"} {
		do(t, ctx, media("prefers-color-scheme", theme))
		for _, p := range pages {
			do(t, ctx, chromedp.Navigate(site+p), chromedp.WaitReady(chromedp.CSS("footer")))
			if strings.HasPrefix(p, "search/") {
				do(t, ctx, chromedp.WaitVisible(chromedp.CSS(".search-hit-link")))
			}
			checkAxe(t, ctx, axe, p+", "+theme+" theme")
		}
	}
}

// checkAxe runs axe-core on the page open in ctx: no serious or critical
// violation.
func checkAxe(t *testing.T, ctx context.Context, axe, page string) {
	t.Helper()
	type violation struct {
		ID, Impact, Help string
		Nodes            []string
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](axe))
	vs := run(t, ctx, chromedp.Evaluate[[]violation](`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
		.filter(v => v.impact === "serious" || v.impact === "critical")
		.map(v => ({ID: v.id, Impact: v.impact, Help: v.help, Nodes: v.nodes.slice(0, 10).map(n => n.target.join(" ") + ": " + n.failureSummary)})))`, chromedp.EvalAwaitPromise))
	for _, v := range vs {
		t.Errorf("/%s: %s %s (%s): %q", page, v.Impact, v.ID, v.Help, v.Nodes)
	}
}

// The parts of a long session, read in pieces as a file of gigabytes is
// (here pieces of 2 KB), are pages a phone reads without sideways scroll,
// that pass axe in both themes and link each other in order.
func TestVolumePagesInBrowser(t *testing.T) {
	axe := axeSource(t)
	ctx, _ := browser(t)
	defer func(n int64) { ingest.PieceBytes = n }(ingest.PieceBytes)
	ingest.PieceBytes = 2 << 10
	cfg, _, err := build(t, treetest.Extract(t, "testdata/viewer.txtar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(cfg.Destination)))
	t.Cleanup(srv.Close)
	byVolume := map[int]string{}
	for _, e := range readSessions(t, cfg.Destination) {
		if e.Volume > 0 && e.ID == "44444444-dddd-4000-8000-000000000004" {
			byVolume[e.Volume] = e.URL
		}
	}
	var parts []string
	for k := 1; byVolume[k] != ""; k++ {
		parts = append(parts, byVolume[k])
	}
	if len(parts) < 2 || len(parts) != len(byVolume) {
		t.Fatalf("the long Claude session is in parts %v, want 1, 2… and at least 2", byVolume)
	}
	checkPhoneWidths(t, ctx, srv.URL+"/", parts)
	for _, theme := range []string{"light", "dark"} {
		do(t, ctx, chromedp.EmulateViewport(1280, 900), media("prefers-color-scheme", theme))
		for k, p := range parts {
			do(t, ctx, chromedp.Navigate(srv.URL+"/"+p), chromedp.WaitReady(chromedp.CSS("footer")))
			checkAxe(t, ctx, axe, p+", "+theme+" theme")
			current := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.volumes [aria-current="page"]')].map(a => a.textContent)`))
			if want := strconv.Itoa(k + 1); len(current) != 2 || current[0] != want || current[1] != want {
				t.Errorf("/%s: the parts' navs mark %q as this part, want %s twice", p, current, want)
			}
		}
	}
}

// A session with no time has no "started" in sessions.json, rather than
// year 1.
func TestSessionsJSONOmitsUnknownTimes(t *testing.T) {
	cfg, _, err := build(t, treetest.Extract(t, "testdata/stats.txtar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	data := readFile(t, cfg.Destination, "sessions.json")
	if strings.Contains(data, "0001-01-01") {
		t.Error("sessions.json holds the zero time")
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(data), &list); err != nil {
		t.Fatal(err)
	}
	undated := 0
	for _, e := range list {
		if _, ok := e["started"]; !ok {
			undated++
		}
	}
	if undated != 1 {
		t.Errorf("%d sessions without a start, want the one with no time", undated)
	}
}

// TestSearchResultsInBrowser: results show why they matched, every
// matching message of a session can be seen, model names are found and
// filtered on, and a search's address gives what was typed.
func TestSearchResultsInBrowser(t *testing.T) {
	ctx, consoleErrors := browser(t)
	site, _ := viewerSite(t)
	status := chromedp.Evaluate[string](`document.getElementById("search-status").textContent`)
	ready := poll(searchShown)
	type hit struct {
		Label, Text string
		Marks       []string
	}
	hits := chromedp.Evaluate[[]hit](`[...document.querySelectorAll(".search-hit-link")].map(a => ({
		Label: a.querySelector(".search-hit-role").textContent, Text: a.querySelector(".search-hit-text").textContent,
		Marks: [...a.querySelectorAll("mark")].map(m => m.textContent)}))`)

	do(t, ctx, chromedp.Navigate(site+"search/?q=tarfile+"), ready, poll(`document.querySelectorAll(".search-hit-link").length >= 3`))
	if got := run(t, ctx, status); !strings.HasPrefix(got, "5 matching messages in 1 session ") {
		t.Errorf("status %q", got)
	}
	for _, h := range run(t, ctx, hits) {
		if len(h.Marks) == 0 || strings.ToLower(h.Marks[0]) != "tarfile" {
			t.Errorf("hit %s does not mark the match: %q", h.Label, h.Text)
		}
		for _, syntax := range []string{"**", "###", "toolu_", "`"} {
			if strings.Contains(h.Text, syntax) {
				t.Errorf("hit %s shows %q: %q", h.Label, syntax, h.Text)
			}
		}
	}
	// The fourth and fifth matches are one click away.
	if got := run(t, ctx, chromedp.Evaluate[string](`document.querySelector(".search-more-hits").textContent`)); got != "2 more in this session" {
		t.Errorf("more button %q", got)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(".search-more-hits")), poll(`document.querySelectorAll(".search-hit-link").length === 5`))
	labels := []string{}
	for _, h := range run(t, ctx, hits) {
		labels = append(labels, h.Label)
	}
	slices.Sort(labels)
	if strings.Join(labels, ",") != "#4 user,#5 assistant,#7 assistant,#9 assistant,session" {
		t.Errorf("hits %q", labels)
	}

	// A model's name finds the sessions that used it; the model filter
	// narrows.
	do(t, ctx, chromedp.Navigate(site+"search/?q=gemini-2.5-pro+"), ready)
	if got := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".search-result-title")].map(e => e.textContent)`)); !slices.Equal(got, []string{"Say hello"}) {
		t.Errorf("a search for the model finds %q", got)
	}
	for model, want := range map[string]string{"claude-sonnet-4-5": "5 matching messages", "gemini-2.5-pro": "No messages match."} {
		do(t, ctx, chromedp.Navigate(site+"search/?q=tarfile+&model="+model), ready)
		if got := run(t, ctx, status); !strings.HasPrefix(got, want) {
			t.Errorf("model %s: %q", model, got)
		}
		if got := run(t, ctx, chromedp.Evaluate[string](`document.querySelector("select[name=model]").value`)); got != model {
			t.Errorf("the model filter shows %q, want %q", got, model)
		}
	}

	// What is typed and the address it leaves find the same.
	do(t, ctx, chromedp.Navigate(site+"search/"), chromedp.WaitVisible(chromedp.CSS("#search-query")),
		chromedp.SendKeys(chromedp.CSS("#search-query"), "tarfil"), ready)
	typed := run(t, ctx, status)
	url := run(t, ctx, chromedp.Evaluate[string](`location.href`))
	do(t, ctx, chromedp.Navigate(url), ready)
	if linked := run(t, ctx, status); !strings.HasPrefix(typed, "5 matching") || strings.Fields(linked)[0] != strings.Fields(typed)[0] {
		t.Errorf("typed: %q; the same address loaded: %q", typed, linked)
	}
	_ = os.WriteFile(filepath.Join(artifacts(t), "search-results.png"), run(t, ctx, chromedp.FullScreenshot(90)), 0o644)
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// TestHTMLExportInBrowser opens a session exported as one HTML file from
// disk: it loads nothing from anywhere, breaks none of its own policy,
// shows its image, and looks as the session's page on the site does.
func TestHTMLExportInBrowser(t *testing.T) {
	ctx, consoleErrors := browser(t)
	dir := treetest.Extract(t, "testdata/viewer.txtar")
	site, list := viewerSite(t)
	cfg, _, err := LoadConfig(Options{Source: dir})
	if err != nil {
		t.Fatal(err)
	}
	var page strings.Builder
	if _, err := Export(t.Context(), cfg, filepath.Join(dir, "content", "cc", "long.jsonl"), "", "html", &page); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "s.html")
	if err := os.WriteFile(file, []byte(page.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	type look struct {
		Body, Prompt, Diff, Title string
		Resources                 int
		Image                     int
	}
	looks := chromedp.Evaluate[look](`(() => { const bg = s => getComputedStyle(document.querySelector(s)).backgroundColor;
		const img = document.querySelector("img.image");
		return {Body: bg("body"), Prompt: bg("#m-4"), Diff: bg(".rows .add"), Title: getComputedStyle(document.querySelector("h1")).fontSize,
			Resources: performance.getEntriesByType("resource").length, Image: img ? img.naturalWidth : -1}; })()`)
	// The pages' images load lazily: each is scrolled to and waited for,
	// wherever it is on the page.
	imageShown := poll(`(document.querySelector("img.image").scrollIntoView(), document.querySelector("img.image").complete)`,
		chromedp.WithPollingTimeout(5*time.Second))
	for _, theme := range []string{"light", "dark"} {
		do(t, ctx, media("prefers-color-scheme", theme), chromedp.Navigate(site+list[0].URL), chromedp.WaitReady(chromedp.CSS("footer")), imageShown, chromedp.Sleep(100*time.Millisecond))
		want := run(t, ctx, looks)
		do(t, ctx, chromedp.Navigate("file://"+file), chromedp.WaitReady(chromedp.CSS("footer")), imageShown, chromedp.Sleep(100*time.Millisecond))
		got := run(t, ctx, looks)
		want.Resources = 0 // the export loads nothing: its image is in the file
		if got != want || got.Image != 4 {
			t.Errorf("%s: the export looks %+v, the site's page %+v", theme, got, want)
		}
	}
	if n := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("script, link[rel=stylesheet], a[href^='../'], a[href$='index.html']").length`)); n != 0 {
		t.Errorf("the export has %d scripts, stylesheet links or links into a site", n)
	}
	_ = os.WriteFile(filepath.Join(artifacts(t), "export-dark.png"), run(t, ctx, chromedp.FullScreenshot(90)), 0o644)
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors (CSP violations among them): %v", errs)
	}
}

// TestSessionViewInBrowser: a session page shows each message's tokens,
// shows prompts only or hides tool calls and thinking, opens and closes
// every block, keeps the choice in its address, and leads back to the top.
func TestSessionViewInBrowser(t *testing.T) {
	ctx, consoleErrors := browser(t)
	site, list := viewerSite(t)
	page := site + list[0].URL
	shown := chromedp.Evaluate[[]string](`[...document.querySelectorAll(".msg")].filter(m => m.checkVisibility()).map(m => m.id)`)
	do(t, ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("#view-controls")))
	if got := run(t, ctx, chromedp.Evaluate[string](`document.querySelector("#m-5 .msg-head .usage").textContent`)); got != "1,200 in · 345 out · 5,000 cache read" {
		t.Errorf("tokens of #5: %q", got)
	}
	all := run(t, ctx, shown)

	set := func(js string) {
		t.Helper()
		do(t, ctx, chromedp.Evaluate[chromedp.Void](`{ const f = document.getElementById("view-controls"); `+js+`; f.dispatchEvent(new Event("change")); }`))
	}
	// Each message's tokens show on demand, and the address keeps it.
	usage := chromedp.Evaluate[bool](`document.querySelector("#m-5 .msg-head .usage").checkVisibility()`)
	if run(t, ctx, usage) {
		t.Error("a message's tokens show before they are asked for")
	}
	set(`f.elements.tokens.checked = true`)
	if !run(t, ctx, usage) || run(t, ctx, chromedp.Evaluate[string](`location.search`)) != "?tokens=1" {
		t.Error("the Tokens box does not show a message's tokens, or the address does not keep it")
	}
	set(`f.elements.tokens.checked = false`)
	// Back to top floats over nothing: at the end of the session, and at
	// the foot of the outline, beside the messages.
	type place struct {
		Position           string
		Right, SessionLeft float64
	}
	if got := run(t, ctx, chromedp.Evaluate[place](`({Position: getComputedStyle(document.querySelector(".to-top")).position,
		Right: document.querySelector(".outline-top").getBoundingClientRect().right, SessionLeft: document.getElementById("session").getBoundingClientRect().left})`)); got.Position != "static" || got.Right == 0 || got.Right > got.SessionLeft {
		t.Errorf("Back to top: %+v, want the session's at its end (static) and the outline's beside the messages", got)
	}
	set(`f.elements.only.checked = true`)
	if got := run(t, ctx, shown); strings.Join(got, ",") != "m-4,m-10" {
		t.Errorf("prompts only: %q", got)
	}
	set(`f.elements.only.checked = false; f.elements.tools.checked = false; f.elements.thinking.checked = false`)
	// #6 and #8 were only tool calls; #9's thinking goes, its text stays.
	if got := run(t, ctx, shown); slices.Contains(got, "m-6") || !slices.Contains(got, "m-9") || !slices.Contains(got, "m-5") {
		t.Errorf("without tools and thinking: %q (all: %q)", got, all)
	}
	if n := run(t, ctx, chromedp.Evaluate[int](`[...document.querySelectorAll(".tool, .thinking")].filter(e => e.checkVisibility()).length`)); n != 0 {
		t.Errorf("%d tool calls or thinking blocks still shown", n)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`#view-controls button[value=all]`)))
	want := "?tools=0&thinking=0&open=all"
	if got := run(t, ctx, chromedp.Evaluate[string](`location.search`)); got != want {
		t.Errorf("address %q, want %q", got, want)
	}
	// The address brings the same view back.
	do(t, ctx, chromedp.Navigate(page+want), chromedp.WaitVisible(chromedp.CSS("#view-controls")))
	openAll := chromedp.Evaluate[bool](`[...document.querySelectorAll("#session details")].every(d => d.open)`)
	if !run(t, ctx, openAll) || run(t, ctx, chromedp.Evaluate[bool](`document.querySelector("#view-controls [name=tools]").checked`)) {
		t.Error("the linked view does not open every block and hide the tools")
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`#view-controls button[value=none]`)))
	if run(t, ctx, chromedp.Evaluate[bool](`[...document.querySelectorAll("#session details")].some(d => d.open)`)) {
		t.Error("collapse all leaves a block open")
	}
	// Back to top, from the bottom of the page.
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, document.body.scrollHeight)`), chromedp.Click(chromedp.CSS(".to-top a")), chromedp.Sleep(100*time.Millisecond))
	if y := run(t, ctx, chromedp.Evaluate[float64](`document.querySelector("h1").getBoundingClientRect().top`)); y < 0 {
		t.Errorf("after back to top the title is %.0f px above the screen", -y)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// TestStatsOfTimeAndCost: the longest sessions are those with the most
// time spent, not the longest from first record to last; costs are
// ordered by cost; token counts that name no model are priced as the
// model at work then.
func TestStatsOfTimeAndCost(t *testing.T) {
	cfg, _, err := build(t, treetest.Extract(t, "testdata/viewer.txtar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var longest, cost *stats.Chart
	st := newSiteFromDir(t, cfg)
	for _, c := range stats.Charts(st.Stats) {
		switch c.ID {
		case "chart-longest":
			longest = &c
		case "chart-cost-model":
			cost = &c
		}
	}
	var rows []string
	for _, r := range longest.Rows {
		rows = append(rows, r[0].Text+": "+r[3].Text+" of "+r[4].Text)
	}
	// Codex: a minute; Gemini: 30 s; Claude Code: 8 s, a pause of two
	// hours, 5 s.
	if want := []string{"Why is the cart total wrong?: 1 min of 1 min", "Say hello: 30 s of 1 min", "Fix the tarfile handling in /home/someone/src/a-project-whose-name-is-sixty-fou…: 13 s of 2 h 0 min"}; !slices.Equal(rows, want) {
		t.Errorf("longest sessions %q, want %q", rows, want)
	}
	rows = nil
	for _, r := range cost.Rows {
		rows = append(rows, r[0].Text+" "+r[2].Text)
	}
	// o3's 5,000 tokens cost more than claude-sonnet-4-5's 9,360.
	if want := []string{"o3 $0.03", "claude-sonnet-4-5 $0.02", "gemini-2.5-pro $0.00", "gpt-5-mini $0.00"}; !slices.Equal(rows, want) {
		t.Errorf("cost rows %q, want %q", rows, want)
	}
	if page := readFile(t, cfg.Destination, "stats/index.html"); regexp.MustCompile(`unknown model|with no price|>no price<`).MatchString(page) {
		t.Errorf("the stats page has usage it cannot price: %q", regexp.MustCompile(`.{0,80}(unknown model|with no price|>no price<).{0,80}`).FindString(page))
	}
}

// newSiteFromDir reads the site's content as a build does.
func newSiteFromDir(t *testing.T, cfg *Config) *Site {
	t.Helper()
	res, err := ingest.Load(t.Context(), cfg.Roots()...)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := testSite(cfg, res.Sessions...)
	return st
}
