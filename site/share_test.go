package site

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/transcriptsite/transcriptsite/internal/treetest"
)

// sharedSession writes a Claude Code session of n messages, the first with
// a picture, and returns its file.
func sharedSession(t *testing.T, dir string, n int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	for i := range img.Pix {
		img.Pix[i] = 200
	}
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	var pic bytes.Buffer
	if err := png.Encode(&pic, img); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	prev := "null"
	for i := 1; i <= n; i++ {
		uuid := fmt.Sprintf(`"u%d"`, i)
		text, _ := json.Marshal(fmt.Sprintf("Message %d: %s", i, strings.Repeat("words to fill the page ", 30)))
		content := string(text)
		role := "user"
		if i%2 == 0 {
			role = "assistant"
			content = `[{"type":"text","text":` + content + `}]`
		} else if i == 1 {
			content = `[{"type":"text","text":` + content + `},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` +
				base64.StdEncoding.EncodeToString(pic.Bytes()) + `"}}]`
		}
		fmt.Fprintf(&b, `{"parentUuid":%s,"sessionId":"sh-1","type":"%s","message":{"id":"m%d","role":"%s","model":"claude-sonnet-4-5","content":%s},"uuid":%s,"timestamp":"2026-01-01T00:%02d:00Z"}`+"\n",
			prev, role, i, role, content, uuid, i)
		prev = uuid
	}
	file := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// shareConfig is the config of a new site dir, which it returns too.
func shareConfig(t *testing.T, config string) (*Config, string) {
	t.Helper()
	dir := t.TempDir()
	treetest.WriteTree(t, dir, map[string][]byte{"config.yaml": []byte(config), "content/.keep": nil})
	cfg, _, err := LoadConfig(Options{Source: dir})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, dir
}

func TestShareWritesPageAndMarkdown(t *testing.T) {
	cfg, dir := shareConfig(t, "title: Shares\nredact:\n  literals: [Project Nightingale]\n")
	file := filepath.Join(dir, "s.jsonl")
	_ = os.WriteFile(file, []byte(`{"parentUuid":null,"sessionId":"s-1","type":"user","message":{"role":"user","content":"Ship Project Nightingale"},"uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}
{"parentUuid":"u1","sessionId":"s-1","type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"text","text":"Shipped Project Nightingale."}]},"uuid":"a1","timestamp":"2026-01-01T00:00:01Z"}
`), 0o644)
	out := t.TempDir()
	sh, _, err := Share(context.Background(), cfg, file, "", out)
	if err != nil {
		t.Fatal(err)
	}
	if sh.ID != "s-1" || sh.Messages != 2 || sh.Redacted["literal"] != 2 || sh.Title != "Ship [REDACTED:literal]" ||
		sh.Page != sh.Path+"index.html" || sh.Markdown != sh.Path+"session.md" || !strings.HasPrefix(sh.Path, "sessions/") {
		t.Errorf("shared %+v", sh)
	}
	files := treetest.Tree(t, out)
	if len(files) != 2 {
		t.Errorf("wrote %d files, want the page and the Markdown", len(files))
	}
	page, md := string(files[filepath.FromSlash(sh.Page)]), string(files[filepath.FromSlash(sh.Markdown)])
	if !strings.Contains(page, "<script>"+fragmentScript+"</script>") || !strings.Contains(html.UnescapeString(page), "script-src "+hashSource(fragmentScript)) {
		t.Error("the page has not the fragment's script, allowed by its hash")
	}
	if !strings.Contains(md, "\n# Ship [REDACTED:literal]\n") {
		t.Errorf("Markdown: %.100q", md)
	}
	for name, data := range files {
		if bytes.Contains(data, []byte("Nightingale")) {
			t.Errorf("%s holds the secret", name)
		}
		// The file's folder on this machine is not shared.
		if bytes.Contains(data, []byte(dir)) || !bytes.Contains(data, []byte("s.jsonl")) {
			t.Errorf("%s names the file's folder, or not the file", name)
		}
	}
	// The export stays without a script.
	var export bytes.Buffer
	if _, err := Export(context.Background(), cfg, file, "", "html", &export); err != nil || strings.Contains(export.String(), "<script") {
		t.Errorf("export: %v, a script: %t", err, strings.Contains(export.String(), "<script"))
	}
}

// TestSharedPageInBrowser opens a shared page in Chromium as a reader of
// the link does: served on its own under a path of another site, and
// written into a page by a preview service the way gistpreview does it
// (fetched from the gist API and document.write'n, the document never
// closed). In both, #m-12 lands on message 12, dark mode applies, the
// picture shows, and the page's policy lets nothing else run.
func TestSharedPageInBrowser(t *testing.T) {
	ctx, consoleErrors := browser(t)
	cfg, dir := shareConfig(t, "title: Shares\n")
	out := t.TempDir()
	sh, _, err := Share(context.Background(), cfg, sharedSession(t, dir, 20), "", out)
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(sh.Page)))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/elsewhere/deep/shared.html", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	})
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/gists/abc123", func(w http.ResponseWriter, _ *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"files": map[string]any{"shared.html": map[string]any{"content": string(page)}}})
	})
	mux.HandleFunc("/preview/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!DOCTYPE html><html><head><title>Preview</title></head><body><p>Loading…</p>
<script>
var q = location.search.slice(1).split("/");
fetch("/gists/" + q[0]).then(function (r) { return r.json(); }).then(function (g) {
  document.write(g.files[q[1]].content);
});
</script></body></html>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	landed := `(function () {
		var m = document.getElementById("m-12"), t = document.querySelector(":target");
		return m !== null && t === m && Math.abs(m.getBoundingClientRect().top - parseFloat(getComputedStyle(m).scrollMarginTop)) < 2;
	})()`
	bg := chromedp.Evaluate[string](`getComputedStyle(document.body).backgroundColor`)
	// The picture loads when it comes into view (loading="lazy").
	pic := `window.scrollY === 0 && [...document.querySelectorAll("main img")].some(function (i) {
		return i.complete && i.naturalWidth === 40 && i.src.startsWith("data:image/png;base64,");
	})`
	for _, u := range []string{"/elsewhere/deep/shared.html", "/preview/?abc123/shared.html"} {
		for _, c := range []struct{ scheme, bg string }{{"dark", "rgb(13, 17, 23)"}, {"light", "rgb(255, 255, 255)"}} {
			do(t, ctx, scheme(c.scheme), chromedp.Navigate(srv.URL+u+"#m-12"), poll(landed, chromedp.WithPollingTimeout(10e9)))
			if got := run(t, ctx, bg); got != c.bg {
				t.Errorf("%s, %s: background %s, want %s", u, c.scheme, got, c.bg)
			}
			if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`), poll(pic, chromedp.WithPollingTimeout(5e9))); err != nil {
				t.Errorf("%s: the picture does not show: %v", u, err)
			}
			if strings.HasPrefix(u, "/preview/") {
				do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById("m-12").scrollIntoView()`))
				_ = os.WriteFile(filepath.Join(artifacts(t), "shared-"+c.scheme+".png"), run(t, ctx, chromedp.FullScreenshot(100)), 0o644)
			}
		}
		// A link to a message on the page goes there.
		do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0); location.hash = "#m-3"`),
			poll(`document.querySelector(":target") === document.getElementById("m-3")`, chromedp.WithPollingTimeout(5e9)))
	}
	for _, e := range consoleErrors() {
		// The browser asks for /favicon.ico, which the page's policy
		// (images in data: URLs alone) refuses when it comes after it.
		if !strings.Contains(e, "/favicon.ico") {
			t.Errorf("console error (CSP violations among them): %s", e)
		}
	}
}
