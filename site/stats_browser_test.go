package site

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/transcriptsite/transcriptsite/internal/treetest"
)

// spreadSessions writes a site of n Claude Code sessions in four projects,
// one every `every` days from 2023-09-04, with long titles, and serves
// what it builds.
func spreadSessions(t *testing.T, n, every int) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string][]byte{"config.yaml": []byte("title: Many\n")}
	start := time.Date(2023, 9, 4, 9, 0, 0, 0, time.UTC)
	for i := range n {
		at := start.AddDate(0, 0, i*every)
		ts := func(min int) string { return at.Add(time.Duration(min) * time.Minute).Format(time.RFC3339) }
		id := fmt.Sprintf("s%03d", i)
		files[fmt.Sprintf("content/p%d/%s.jsonl", i%4, id)] = fmt.Appendf(nil,
			`{"parentUuid":null,"sessionId":%[1]q,"cwd":"/src/p%[2]d","type":"user","message":{"role":"user","content":"Make part %[3]d of the importer read the older files and write what it cannot read to the log"},"uuid":"u1","timestamp":%[4]q}
{"parentUuid":"u1","sessionId":%[1]q,"type":"assistant","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":%[6]d,"output_tokens":1000}},"uuid":"a1","timestamp":%[5]q}
`, id, i%4, i, ts(0), ts(12), 10000*(1+i%7))
	}
	treetest.WriteTree(t, dir, files)
	cfg, _, err := build(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(cfg.Destination)))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// TestChartsReadOnAPhone: three years of sessions are drawn a bar a
// month, each chart as wide as the column, with a value axis of several
// labels, and text of at least 12 CSS px on a 390 px phone as on a
// laptop: the drawing is not scaled down to fit. The calendar scrolls in
// its box on the phone, showing its latest weeks first.
func TestChartsReadOnAPhone(t *testing.T) {
	ctx, consoleErrors := browser(t)
	site := spreadSessions(t, 50, 22) // 1,078 days
	type chart struct {
		ID, Title         string
		Left, Right, Font float64 // the drawing's edges, from the figure's; its smallest text in CSS px
		Labels            int     // labels on the value axis
	}
	measure := chromedp.Evaluate[[]chart](`[...document.querySelectorAll("figure.chart")].filter(f => f.querySelector("svg")).map(f => {
		const box = f.getBoundingClientRect();
		const svgs = [...f.querySelectorAll("svg")];
		const texts = svgs.flatMap(s => [...s.querySelectorAll("text")]).filter(t => t.checkVisibility());
		const draw = f.querySelector("svg[role=img]");
		const r = draw.getBoundingClientRect();
		return {
			ID: f.id,
			Title: f.querySelector("figcaption").textContent,
			Left: r.left - box.left, Right: box.right - r.right,
			Font: Math.min(...texts.map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)),
			Labels: f.querySelectorAll(".chart-axis text").length,
		};
	})`)
	for _, width := range []int64{1280, 390} {
		do(t, ctx, chromedp.EmulateViewport(width, 900), media("prefers-color-scheme", "light"), chromedp.Navigate(site+"stats/"), chromedp.WaitReady(chromedp.CSS("footer")))
		charts := run(t, ctx, measure)
		if len(charts) < 4 {
			t.Fatalf("%d px: %d charts", width, len(charts))
		}
		for _, c := range charts {
			if c.Font < 12 {
				t.Errorf("%d px: %s's smallest text is %.1f px", width, c.ID, c.Font)
			}
			if c.ID == "chart-activity" {
				continue // as wide as its weeks
			}
			if c.Right > 1 || c.Left > 60 {
				t.Errorf("%d px: %s spans the column but %.0f px on its left and %.0f on its right", width, c.ID, c.Left, c.Right)
			}
		}
		if c := charts[1]; c.ID != "chart-sessions" || c.Title != "Sessions per month" || c.Labels < 3 {
			t.Errorf("%d px: the second chart is %s, %q, with %d labels on its value axis; want sessions per month, and more than 0 and the top",
				width, c.ID, c.Title, c.Labels)
		}
		_ = os.WriteFile(filepath.Join(artifacts(t), fmt.Sprintf("charts-%d.png", width)), run(t, ctx, chromedp.FullScreenshot(90)), 0o644)
	}
	// On the phone the page is no wider than the screen; the calendar's box
	// scrolls, and shows the last day's square first.
	if w := run(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 390 {
		t.Errorf("the stats page is %d px wide on a 390 px screen", w)
	}
	scroll := run(t, ctx, chromedp.Evaluate[[]float64](`(() => {
		const box = document.querySelector(".heatmap-scroll"), b = box.getBoundingClientRect();
		const days = document.querySelectorAll(".heatmap .day"), last = days[days.length-1].getBoundingClientRect();
		return [box.scrollWidth - box.clientWidth, last.left - b.left, b.right - last.right];
	})()`))
	if scroll[0] <= 0 || scroll[1] < 0 || scroll[2] < 0 {
		t.Errorf("calendar on a phone: %.0f px to scroll, last day %.0f px from the box's left, %.0f from its right", scroll[0], scroll[1], scroll[2])
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// TestIndexDensityInBrowser: the home page shows at least 15 sessions on
// a 1280×900 screen, a line each, and 6 on a 390×844 phone, two lines
// each, where the filters fold behind one line; opened and used, they
// keep the choice in the address.
func TestIndexDensityInBrowser(t *testing.T) {
	ctx, consoleErrors := browser(t)
	site := spreadSessions(t, 60, 3)
	type view struct {
		Shown        int     // sessions wholly on the first screen
		Tallest      float64 // the tallest session's line(s)
		FiltersShown bool
		FiltersTall  float64
	}
	first := chromedp.Evaluate[view](`(() => {
		const items = [...document.querySelectorAll(".session-item")].filter(li => li.checkVisibility());
		const form = document.getElementById("index-filters");
		return {
			Shown: items.filter(li => { const r = li.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }).length,
			Tallest: Math.max(...items.map(li => li.getBoundingClientRect().height)),
			FiltersShown: form.checkVisibility(),
			FiltersTall: form.checkVisibility() ? form.getBoundingClientRect().height : 0,
		};
	})()`)
	for _, c := range []struct {
		width, height int64
		shown         int
		tallest       float64 // px: one line, or two
		filters       bool
	}{{1280, 900, 15, 32, true}, {390, 844, 6, 56, false}} {
		do(t, ctx, chromedp.EmulateViewport(c.width, c.height), chromedp.Navigate(site), chromedp.WaitReady(chromedp.CSS("footer")))
		v := run(t, ctx, first)
		t.Logf("%d×%d: %d sessions on the first screen, the tallest %.0f px; filters %.0f px tall", c.width, c.height, v.Shown, v.Tallest, v.FiltersTall)
		if v.Shown < c.shown || v.Tallest > c.tallest {
			t.Errorf("%d×%d: %d sessions on the first screen, the tallest %.0f px; want at least %d, at most %.0f px",
				c.width, c.height, v.Shown, v.Tallest, c.shown, c.tallest)
		}
		if v.FiltersShown != c.filters || v.FiltersTall > 50 {
			t.Errorf("%d px: filters shown %v, %.0f px tall; want shown %v, in one row", c.width, v.FiltersShown, v.FiltersTall, c.filters)
		}
		_ = os.WriteFile(filepath.Join(artifacts(t), fmt.Sprintf("index-%d.png", c.width)), run(t, ctx, chromedp.CaptureScreenshot()), 0o644)
	}
	// On the phone the filters open from their line, which then says what
	// is set, and the address keeps it.
	if !run(t, ctx, chromedp.Evaluate[bool](`!!document.querySelector("#filters-box summary")`)) {
		t.Fatal("no line to open the filters from")
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("#filters-box summary")), chromedp.WaitVisible(chromedp.CSS("#index-filters")),
		chromedp.Evaluate[chromedp.Void](`{ const f = document.getElementById("index-filters"); f.elements.project.value = "p1"; f.dispatchEvent(new Event("change")); }`))
	if got := run(t, ctx, chromedp.Evaluate[string](`location.search + " " + document.querySelector("#filters-box summary").textContent`)); !strings.HasPrefix(got, "?project=p1 ") ||
		!strings.Contains(got, "project p1") || !strings.Contains(got, "15 of 60 sessions") {
		t.Errorf("after choosing project p1: %q", got)
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
