package site

import (
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestCorpusSearchMarksEveryHitInBrowser searches the real sessions for
// common words: every hit on the first page of results shows its match
// marked, wherever in its message the match is (a match past the start
// of a long message showed the message's start, unmarked), and no
// excerpt shows the "351→" numbers Claude Code puts before the lines it
// reads and quotes.
func TestCorpusSearchMarksEveryHitInBrowser(t *testing.T) {
	ctx, consoleErrors := browser(t)
	_, base := servedCorpus(t)
	type hit struct {
		Label, Text string
		Marks       int
	}
	// Every result of the page filled: those out of view are scrolled to.
	filled := poll(searchShown + ` && (() => {
		const far = document.querySelector(".search-result[data-state=far]");
		if (far) far.scrollIntoView();
		return [...document.querySelectorAll(".search-result")].every(r => r.dataset.state === "shown");
	})()`)
	hits := chromedp.Evaluate[[]hit](`[...document.querySelectorAll(".search-hit-link")].map(a => ({
		Label: a.closest(".search-result").querySelector(".search-result-title").textContent + " " + a.querySelector(".search-hit-role").textContent,
		Text: a.querySelector(".search-hit-text").textContent, Marks: a.querySelectorAll("mark").length}))`)
	numbered := regexp.MustCompile(`\d+→`)
	deep := chromedp.Evaluate[int](`performance.getEntriesByType("resource").filter(e => e.name.includes("/search/r/")).length`)
	for _, q := range []string{"file", "test", "error", "the"} {
		do(t, ctx, chromedp.Navigate(base+"search/?q="+q+"+"), filled)
		got := run(t, ctx, hits)
		if len(got) < 10 {
			t.Errorf("%q: %d hits on the first page", q, len(got))
		}
		for _, h := range got {
			if h.Marks == 0 {
				t.Errorf("%q: hit %s marks no match: %q", q, h.Label, h.Text)
			}
			if numbered.MatchString(h.Text) {
				t.Errorf("%q: hit %s shows a read's line numbers: %q", q, h.Label, h.Text)
			}
		}
		t.Logf("%q: %d hits, %d files of rests of excerpts loaded", q, len(got), run(t, ctx, deep))
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
