package server

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/site"
)

// Only requests for localhost, the bind address and the base URL's host
// are answered: any other Host is a web page's name made to point here
// (DNS rebinding), which must not read the sessions.
func TestHostIsChecked(t *testing.T) {
	s := New("https://sessions.example.org/", "192.168.1.20", true, io.Discard)
	s.Update(site.Files{"index.html": []byte("<html><head></head><body>sessions</body></html>")})
	for host, want := range map[string]int{
		"localhost:1313":            200,
		"LOCALHOST":                 200,
		"127.0.0.1:1313":            200,
		"[::1]:1313":                200,
		"app.localhost:1313":        200,
		"192.168.1.20:1313":         200,
		"sessions.example.org":      200,
		"evil.example:1313":         403,
		"localhost.evil.example":    403,
		"192.168.1.21:1313":         403,
		"":                          403,
		"sessions.example.org.evil": 403,
	} {
		req := httptest.NewRequest("GET", "/", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %q: %d, want %d", host, rec.Code, want)
		}
		if want == 403 && strings.Contains(rec.Body.String(), "sessions") && !strings.Contains(rec.Body.String(), "answers only") {
			t.Errorf("Host %q: the page was sent", host)
		}
	}
}

// A page is compressed once, not on every request: a page of megabytes
// took a hundred times as long to send compressed as plain. Measured in
// what a request allocates, which the compressor's state alone (about a
// megabyte) exceeds.
func TestGzipOnce(t *testing.T) {
	s := New("/", "127.0.0.1", true, io.Discard)
	page := "<html><head></head><body>" + strings.Repeat("<p>a line of a long session page</p>\n", 50000) + "</body></html>"
	s.Update(site.Files{"index.html": []byte(page)})
	get := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "http://localhost/", nil)
		req.Header.Set("Accept-Encoding", "gzip")
		rec := httptest.NewRecorder()
		rec.Body = new(bytes.Buffer)
		s.ServeHTTP(rec, req)
		return rec
	}
	first := get()
	zr, err := gzip.NewReader(first.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(zr)
	if !bytes.Contains(body, []byte("livereload.js")) || !bytes.HasSuffix(body, []byte("</body></html>")) {
		t.Errorf("the compressed page lacks the live-reload script or its end")
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 20
	for range n {
		get()
	}
	runtime.ReadMemStats(&after)
	// The recorder's copy of the compressed page is allocated too.
	if per, limit := (after.TotalAlloc-before.TotalAlloc)/n, uint64(2*first.Body.Len()+64<<10); per > limit {
		t.Errorf("a request allocates %d bytes, more than %d: the page is compressed again", per, limit)
	}
	// A new build with the same page keeps its compressed form.
	s.Update(site.Files{"index.html": []byte(page), "other.html": []byte("x")})
	runtime.ReadMemStats(&before)
	get()
	runtime.ReadMemStats(&after)
	if per := after.TotalAlloc - before.TotalAlloc; per > uint64(2*first.Body.Len()+64<<10) {
		t.Errorf("after a rebuild a request allocates %d bytes: the unchanged page is compressed again", per)
	}
	req := httptest.NewRequest("GET", "http://localhost/", nil)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Header().Get("Content-Encoding") != "" || !strings.Contains(rec.Body.String(), "livereload.js") {
		t.Error("a client without gzip gets no plain page")
	}
}
