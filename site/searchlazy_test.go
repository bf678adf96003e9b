package site

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/transcriptsite/transcriptsite/internal/treetest"
)

// manySessions is a site of n sessions that all match "zebra", each long
// enough to fill an excerpt block of its own, started a day apart: a
// search lists them latest first.
func manySessions(t *testing.T, n int) string {
	t.Helper()
	files := map[string][]byte{"config.yaml": []byte("title: Many\n")}
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("22222222-bbbb-4000-8000-%012d", i)
		var b strings.Builder
		parent := "null"
		for m := range 20 {
			uuid := fmt.Sprintf("u%d-%d", i, m)
			ts := fmt.Sprintf("2026-03-%02dT10:%02d:00Z", i, m)
			text := fmt.Sprintf("Step %d of the work on session %d, nothing to see here.", m, i)
			if m == 0 {
				text = fmt.Sprintf("The zebra crossing of session %d needs a fix.", i)
			}
			role := "user"
			if m%2 == 1 {
				role = "assistant"
			}
			fmt.Fprintf(&b, `{"parentUuid":%s,"sessionId":"%s","cwd":"/src/zoo","type":"%s","message":{"role":"%s","content":%q},"uuid":"%s","timestamp":"%s"}`+"\n",
				parent, id, role, role, text, uuid, ts)
			parent = `"` + uuid + `"`
		}
		fmt.Fprintf(&b, `{"type":"custom-title","customTitle":"Session %02d","sessionId":"%s"}`+"\n", i, id)
		files[fmt.Sprintf("content/zoo/s%02d.jsonl", i)] = []byte(b.String())
	}
	dir := t.TempDir()
	treetest.WriteTree(t, dir, files)
	return dir
}

// TestSearchLoadsResultsNearTheViewInBrowser: a query downloads the
// excerpts (and titles) of the results in view and near it, the rest as
// they are scrolled to, and what is shown is what loading all gave.
func TestSearchLoadsResultsNearTheViewInBrowser(t *testing.T) {
	ctx, consoleErrors := browser(t)
	cfg, _, err := build(t, manySessions(t, 25), nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(cfg.Destination)))
	defer srv.Close()

	// Settled: every result is shown or waiting, and still so a few frames
	// later (the results filled can bring another near, which loads then).
	settled := chromedp.Evaluate[chromedp.Void](`(async () => {
		const ready = () => /match/.test(document.getElementById("search-status").textContent) &&
			[...document.querySelectorAll(".search-result")].every(r => r.dataset.state === "shown" || r.dataset.state === "far");
		const frame = () => new Promise(r => requestAnimationFrame(() => r()));
		for (;;) {
			while (!ready()) await new Promise(r => setTimeout(r, 10));
			await frame();
			await frame();
			await new Promise(r => setTimeout(r, 50));
			if (ready()) return;
		}
	})()`, chromedp.EvalAwaitPromise)
	states := chromedp.Evaluate[[]string](`[...document.querySelectorAll(".search-result")].map(r => r.dataset.state)`)
	blocks := chromedp.Evaluate[int](`performance.getEntriesByType("resource").filter(e => e.name.includes("/search/f/")).length`)
	titles := chromedp.Evaluate[[]string](`[...document.querySelectorAll(".search-result-title")].map(e => e.textContent)`)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1000, 700), chromedp.Navigate(srv.URL+"/search/?q=zebra+"), settled); err != nil {
		t.Fatalf("%v: status %q, results %q", err, run(t, ctx, chromedp.Text(chromedp.CSS("#search-status"))), run(t, ctx, states))
	}

	got := run(t, ctx, states)
	t.Logf("results: %q", got)
	shown := slices.Index(got, "far")
	if len(got) != 10 || shown < 1 || slices.ContainsFunc(got[shown:], func(s string) bool { return s != "far" }) {
		t.Fatalf("results are %q: want the first shown and the rest, out of view, waiting", got)
	}
	if n := run(t, ctx, blocks); n != shown {
		t.Errorf("%d excerpt blocks loaded for %d results shown", n, shown)
	}
	if status := run(t, ctx, chromedp.Text(chromedp.CSS("#search-status"))); !strings.HasPrefix(status, "25 matching messages in 25 sessions") {
		t.Errorf("status %q", status)
	}
	if busy := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll(".search-result[aria-busy=true]").length`)); busy != 10-shown {
		t.Errorf("%d results busy, want the %d waiting", busy, 10-shown)
	}

	// Scrolled to, the others are shown: titles in order, each with its
	// link and excerpt.
	do(t, ctx, poll(`(() => {
		const far = document.querySelector(".search-result[data-state=far]");
		if (far) far.scrollIntoView();
		return !far && [...document.querySelectorAll(".search-result")].every(r => r.dataset.state === "shown");
	})()`), chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, document.body.scrollHeight)`))
	var want []string
	for i := 25; i > 15; i-- {
		want = append(want, fmt.Sprintf("Session %02d", i))
	}
	if got := run(t, ctx, titles); !slices.Equal(got, want) {
		t.Errorf("titles %q, want %q", got, want)
	}
	links := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".search-result")].map(r =>
		r.querySelector(".search-result-title a").getAttribute("href") + " " + r.querySelector(".search-hit-link mark").textContent)`))
	for _, l := range links {
		if !strings.Contains(l, "/sessions/zoo/") || !strings.HasSuffix(l, " zebra") {
			t.Errorf("result %q: want its page and its excerpt's mark", l)
		}
	}

	// Ten more: the ten loaded, now above the view, are shown at once
	// from the blocks loaded, so the page keeps its place.
	do(t, ctx, chromedp.Click(chromedp.CSS(".search-more")),
		poll(`document.querySelectorAll(".search-result").length === 20`), settled)
	got = run(t, ctx, states)
	if slices.ContainsFunc(got[:10], func(s string) bool { return s != "shown" }) {
		t.Errorf("after More results: %q, want the first ten shown", got)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// A query typed while the search index is still loading is kept, and
// searched for once the index is there: on a slow connection a reader
// types at once, and the address the page loaded with holds no query.
func TestSearchTypedBeforeTheIndexLoadsInBrowser(t *testing.T) {
	ctx, _ := browser(t)
	cfg, _, err := build(t, treetest.Extract(t, "testdata/viewer.txtar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	files := http.FileServer(http.Dir(cfg.Destination))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/search/meta.json") {
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	do(t, ctx, chromedp.Navigate(srv.URL+"/search/"), chromedp.WaitVisible(chromedp.CSS("#search-query")),
		chromedp.SendKeys(chromedp.CSS("#search-query"), "tarfil"))
	close(release) // the index loads within the pause the box waits for after a key
	if err := chromedp.Do(ctx, poll(searchShown, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Errorf("no status: %v", err)
	}
	if got := run(t, ctx, chromedp.Evaluate[string](`document.getElementById("search-query").value`)); got != "tarfil" {
		t.Errorf("the search box holds %q", got)
	}
	if got := run(t, ctx, chromedp.Evaluate[string](`document.getElementById("search-status").textContent`)); !strings.HasPrefix(got, "5 matching messages") {
		t.Errorf("status %q", got)
	}
}
