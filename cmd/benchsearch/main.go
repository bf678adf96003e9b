// Command benchsearch measures what a first search costs a reader on a
// built site: the compressed bytes the browser downloads and the time a
// query takes once its shards are loaded, for transcriptsite's search and,
// given -pagefind, for Pagefind's index of the same site.
//
//	go run ./cmd/benchsearch -site public -pagefind node_modules/@pagefind/linux-x64/bin/pagefind_extended
//
// The site is served from memory with gzip, as GitHub Pages serves it,
// to a browser window of -window pixels: the search page loads the
// excerpts of the results near its viewport (and Pagefind's bench page
// the first five results, as its UI does), so what a first query costs is
// what a reader sees first.
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/transcriptsite/transcriptsite/site"
	"github.com/transcriptsite/transcriptsite/site/server"
)

func main() {
	dir := flag.String("site", "public", "a site built by transcriptsite")
	pagefind := flag.String("pagefind", "", "the pagefind binary, to index the same site and measure it too")
	queries := flag.String("q", "refactor,stream handler error,E0382,internal/api/client.go", "queries, comma-separated")
	chrome := flag.String("chrome", "chromium", "the Chromium binary")
	window := flag.String("window", "1280x800", "the browser window's size, WIDTHxHEIGHT")
	flag.Parse()
	var w, h int
	if _, err := fmt.Sscanf(*window, "%dx%d", &w, &h); err != nil || w <= 0 || h <= 0 {
		fmt.Fprintf(os.Stderr, "benchsearch: -window %q: want WIDTHxHEIGHT, e.g. 1280x800\n", *window)
		os.Exit(2)
	}
	if err := run(*dir, *pagefind, *chrome, w, h, strings.Split(*queries, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "benchsearch:", err)
		os.Exit(1)
	}
}

func run(dir, pagefind, chrome string, width, height int, queries []string) error {
	if pagefind != "" {
		start := time.Now()
		cmd := exec.Command(pagefind, "--site", dir)
		cmd.Stderr = os.Stderr
		if out, err := cmd.Output(); err != nil {
			return fmt.Errorf("pagefind: %v\n%s", err, out)
		}
		rss := 0.0
		if u, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = float64(u.Maxrss) / 1024 // KB on Linux
		}
		fmt.Printf("pagefind index built in %.1f s (%.1f CPU-s, peak RSS %.0f MB), %s\n", time.Since(start).Seconds(),
			(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds(), rss, dirSize(filepath.Join(dir, "pagefind")))
		if err := os.WriteFile(filepath.Join(dir, "pagefind-bench.html"), []byte(pagefindPage), 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("transcriptsite index: %s\n", dirSize(filepath.Join(dir, "search")))

	files := site.Files{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		return err
	}
	srv := server.New("/", "127.0.0.1", false, os.Stderr) // httptest listens there
	srv.Update(files)
	ts := httptest.NewServer(counting(srv))
	defer ts.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(width, height))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()

	fmt.Printf("\nwindow %dx%d\n", width, height)
	fmt.Println("\n| engine | query | matches | results loaded | excerpts shown | requests | search KB (script + index, gzip) | page total KB (gzip) | first results ms | warm query ms |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, q := range queries {
		if err := measure(actx, ts.URL+"/search/?q="+url.QueryEscape(q), "transcriptsite", q, oursDone, oursWarm); err != nil {
			return err
		}
		if pagefind != "" {
			if err := measure(actx, ts.URL+"/pagefind-bench.html?q="+url.QueryEscape(q), "pagefind", q, pagefindDone, pagefindWarm); err != nil {
				return err
			}
		}
	}
	return nil
}

// result is what a page reports: how many results it shows and when (ms
// since navigation), or how long a warm query took.
type result struct {
	Results int     `json:"results"` // sessions (or, for Pagefind, pages) that match
	Loaded  int     `json:"loaded"`  // results whose excerpts were loaded and shown
	Shown   int     `json:"shown"`   // excerpts shown
	FirstMS float64 `json:"first"`
	WarmMS  float64 `json:"warm"`
}

// resource is one download: its URL and the bytes of its body on the wire.
type resource struct {
	Name    string
	Encoded float64
}

// sent records what the server sends, request by request.
var sent recorder

type recorder struct {
	mu   sync.Mutex
	list []resource
}

func (r *recorder) add(res resource) {
	r.mu.Lock()
	r.list = append(r.list, res)
	r.mu.Unlock()
}

// take returns what was sent since the last take.
func (r *recorder) take() []resource {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.list
	r.list = nil
	return out
}

type countingWriter struct {
	http.ResponseWriter
	n int
}

func (w *countingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.n += n
	return n, err
}

func (w *countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// counting serves with h and records the body bytes of every response, as
// compressed as they went out.
func counting(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &countingWriter{ResponseWriter: w}
		h.ServeHTTP(cw, r)
		sent.add(resource{Name: r.URL.RequestURI(), Encoded: float64(cw.n)})
	})
}

// measure opens page in a fresh tab with no cache, waits for the page's
// first results (with their excerpts), sums what the tab downloaded, then
// times the same query again with the page's index already loaded.
func measure(actx context.Context, page, engine, q string, done, warm string) error {
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	defer cancelT()
	sent.take()
	if err := chromedp.Do(ctx, chromedp.Navigate(page)); err != nil {
		return err
	}
	first, err := chromedp.Run(ctx, chromedp.Evaluate[result](done, chromedp.EvalAwaitPromise))
	if err != nil {
		return fmt.Errorf("%s %q: %w", engine, q, err)
	}
	// The server counts what it sent: a page's resource timing misses what
	// a web worker fetches, and Pagefind searches in one.
	entries := sent.take()
	again, err := chromedp.Run(ctx, chromedp.Evaluate[result](warm, chromedp.EvalAwaitPromise))
	if err != nil {
		return fmt.Errorf("%s %q warm: %w", engine, q, err)
	}
	total, search := 0.0, 0.0
	var names []string
	for _, e := range entries {
		total += e.Encoded
		path := strings.SplitN(e.Name, "?", 2)[0]
		if strings.HasPrefix(path, "/search/") && path != "/search/" || strings.HasPrefix(path, "/js/search") || strings.HasPrefix(path, "/pagefind/") {
			search += e.Encoded
		}
		names = append(names, fmt.Sprintf("%s %.1f", e.Name, e.Encoded/1024))
	}
	sort.Strings(names)
	fmt.Fprintf(os.Stderr, "%s %q:\n  %s\n", engine, q, strings.Join(names, "\n  "))
	fmt.Printf("| %s | `%s` | %d | %d | %d | %d | %.1f | %.1f | %.0f | %.2f |\n", engine, q, first.Results, first.Loaded, first.Shown, len(entries), search/1024, total/1024, first.FirstMS, again.WarmMS)
	return nil
}

// oursDone waits for the search page's own first results and the
// excerpts of those near the viewport: every result is either shown or
// waiting to be scrolled to (data-state "far"), and stays so a few frames
// later (a result that the others, filled, brought near is loaded then),
// so the bytes counted are all that the page asked for. oursWarm times
// the query again on an index already loaded.
const oursDone = `(async () => {
  const status = document.getElementById("search-status");
  const ready = () => /matching messages?|No messages match|failed/.test(status.textContent) &&
    [...document.querySelectorAll(".search-result")].every((r) => r.dataset.state === "shown" || r.dataset.state === "far");
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  let first;
  for (;;) {
    while (!ready()) await new Promise((r) => setTimeout(r, 10));
    first = performance.now();
    await frame();
    await frame();
    await new Promise((r) => setTimeout(r, 50));
    if (ready()) break;
  }
  const m = /in (\d+) sessions?/.exec(status.textContent);
  return { results: m ? Number(m[1]) : 0, loaded: document.querySelectorAll(".search-result[data-state=shown]").length,
    shown: document.querySelectorAll(".search-hit-link").length, first };
})()`

const oursWarm = `(async () => {
  const page = document.getElementById("search");
  const base = new URL(".", new URL(page.dataset.meta, location.href)).href;
  const q = new URLSearchParams(location.search).get("q");
  const s = new transcriptsiteSearch.Searcher(base, (u) => fetch(u).then((r) => r.json()));
  await s.search(q, {}, 10);
  const t = performance.now();
  for (let i = 0; i < 20; i++) await s.search(q, {}, 10);
  return { warm: (performance.now() - t) / 20 };
})()`

// pagefindDone waits for the bench page's query, which loads the data of
// the first five results as Pagefind's UI does; pagefindWarm times the
// query again.
const pagefindDone = `(async () => {
  while (!window.benchDone) await new Promise((r) => setTimeout(r, 10));
  return window.benchDone;
})()`

const pagefindWarm = `(async () => {
  const pagefind = await import("/pagefind/pagefind.js");
  const q = new URLSearchParams(location.search).get("q");
  const t = performance.now();
  for (let i = 0; i < 20; i++) await pagefind.search(q);
  return { warm: (performance.now() - t) / 20 };
})()`

const pagefindPage = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>pagefind bench</title></head><body>
<script type="module">
const q = new URLSearchParams(location.search).get("q");
const pagefind = await import("/pagefind/pagefind.js");
await pagefind.init();
const res = await pagefind.search(q);
await Promise.all(res.results.slice(0, 5).map((r) => r.data()));
window.benchDone = { results: res.results.length, loaded: Math.min(5, res.results.length), shown: Math.min(5, res.results.length), first: performance.now() };
</script></body></html>
`

func dirSize(dir string) string {
	var n, files int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
				files++
			}
		}
		return nil
	})
	return fmt.Sprintf("%.1f MB in %d files", float64(n)/1e6, files)
}
