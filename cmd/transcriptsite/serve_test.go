package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a buffer the server writes to while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

const serveSession = `{"parentUuid":null,"sessionId":"s-1","cwd":"/w/app","type":"user","message":{"role":"user","content":"first prompt"},"uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}
{"parentUuid":"u1","sessionId":"s-1","type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"first reply"}]},"uuid":"a1","timestamp":"2026-01-01T00:00:01Z"}
`

// TestServe starts serve on a free port, edits a session, a template and a
// stylesheet, breaks and mends a template, and watches the site change over
// HTTP and through reload events.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	write := writeIn(t, dir)
	write("config.yaml", "title: Serve test\n")
	write("content/app/s.jsonl", serveSession)
	t.Setenv("TRANSCRIPTSITE_SASS", "/no/sass") // the stylesheet comes from assets/css: no Dart Sass here
	ctx, base, out, errOut := serving(t, "serve", "-s", dir, "--port", "0", "--cacheDir", t.TempDir())
	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	_, list := get("sessions.json")
	var sessions []struct{ URL string }
	_ = json.Unmarshal([]byte(list), &sessions)
	if len(sessions) != 1 {
		t.Fatalf("sessions.json: %s", list)
	}
	page := sessions[0].URL
	if code, body := get(page); code != 200 || !strings.Contains(body, "first reply") || !strings.Contains(body, "/__transcriptsite/livereload.js") {
		t.Fatalf("session page %d:\n%.300s", code, body)
	}

	events := subscribe(t, ctx, base)
	expect := func(want string) {
		t.Helper()
		select {
		case e := <-events:
			if !strings.Contains(e, want) {
				t.Errorf("event %s, want %s", e, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s event; output:\n%s\n%s", want, out.String(), errOut.String())
		}
	}

	// An agent appends to the session: the page follows.
	f, _ := os.OpenFile(filepath.Join(dir, "content/app/s.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"parentUuid":"a1","sessionId":"s-1","type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"appended live"}]},"uuid":"a2","timestamp":"2026-01-01T00:00:05Z"}` + "\n")
	f.Close()
	expect(`"reload"`)
	if _, body := get(page); !strings.Contains(body, "appended live") {
		t.Error("the appended message is not served")
	}

	// A template changes.
	write("templates/partials/msg-time.html", `<span class="serve-marker">edited</span>`)
	expect(`"reload"`)
	if _, body := get(page); !strings.Contains(body, "serve-marker") {
		t.Error("the template change is not served")
	}

	// A broken template keeps the last good site and reports the error.
	write("templates/session.html", `{{define "main"}}{{.Nope}}`)
	expect(`"error"`)
	if _, body := get(page); !strings.Contains(body, "serve-marker") {
		t.Error("the last good page is not served after a failed build")
	}
	os.Remove(filepath.Join(dir, "templates/session.html"))
	expect(`"reload"`)

	// A stylesheet change is swapped in without reloading the page.
	css, _ := os.ReadFile("../../assets/css/theme.css")
	write("assets/css/theme.css", string(css)+"\n.serve-marker{color:red}\n")
	expect(`"css"`)
	if _, body := get("css/theme.css"); !strings.Contains(body, ".serve-marker{color:red}") {
		t.Error("the stylesheet is not served")
	}

	// Nothing outside the site is served, whatever the spelling.
	for _, p := range []string{"../config.yaml", "%2e%2e/config.yaml", "sessions/..%2f..%2fconfig.yaml", "..%5cconfig.yaml", "content/app/s.jsonl", "%00"} {
		if code, _ := get(p); code != 404 {
			t.Errorf("GET %s: %d, want 404", p, code)
		}
	}
	// Validators and compression.
	req, _ := http.NewRequest("GET", base+page, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	etag := resp.Header.Get("ETag")
	zr, zerr := gzip.NewReader(resp.Body)
	if zerr == nil {
		zr.Close()
	}
	resp.Body.Close()
	if zerr != nil || etag == "" || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("gzip %v, etag %q, type %q", zerr, etag, resp.Header.Get("Content-Type"))
	}
	req.Header.Set("If-None-Match", etag)
	if resp, err := http.DefaultTransport.RoundTrip(req); err != nil || resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %v %v", resp.StatusCode, err)
	}
}

// subscribe reads the server's reload events into a channel.
func subscribe(t *testing.T, ctx context.Context, base string) <-chan string {
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"__transcriptsite/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan string, 16)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, "data: ") {
				ch <- strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	return ch
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}
