package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
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

// served is a site dir that serve is serving for the test.
type served struct {
	dir, base   string // base is the site's address
	out, errOut *lockedBuffer
	ctx         context.Context // done when the test ends
	write       func(rel, data string)
}

// serveSite writes a site dir with one session and serves it on a free
// port until the test ends.
func serveSite(t *testing.T, title string) *served {
	s := &served{dir: t.TempDir()}
	s.write = writeIn(t, s.dir)
	s.write("config.yaml", "title: "+title+"\n")
	s.write("content/app/s.jsonl", serveSession)
	t.Setenv("TRANSCRIPTSITE_SASS", "/no/sass") // the stylesheet comes from assets/css: no Dart Sass here
	s.ctx, s.base, s.out, s.errOut = serving(t, "serve", "-s", s.dir, "--port", "0", "--cacheDir", t.TempDir())
	return s
}

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

// serve rebuilds for the site's content, theme and config, and for
// nothing else in the site folder: its own log written there rebuilt the
// site without end, and every folder under it was watched.
func TestServeWatchesOnlyTheSite(t *testing.T) {
	s := serveSite(t, "Watch test")
	dir, out, write := s.dir, s.out, s.write
	write("backup/old/notes.txt", "a folder of the user's")
	builds := func() int { return strings.Count(out.String(), " rendered)") }

	// A log beside the config, written line by line as serve's output
	// would be, and a folder of the user's: no rebuild.
	log, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	for i := range 10 {
		fmt.Fprintf(log, "line %d\n", i)
		write("backup/old/notes.txt", fmt.Sprint("edit ", i))
		write(fmt.Sprintf("backup/new-%d/x.txt", i), "x")
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // past the debounce
	if n := builds(); n != 1 {
		t.Errorf("%d builds after writes outside the content, theme and config, want 1:\n%s", n, out.String())
	}

	// The content, a theme folder made after the start, and the config do.
	for i, rel := range []string{"content/app/s2.jsonl", "templates/partials/msg-time.html", "config.yaml"} {
		data := strings.ReplaceAll(serveSession, "s-1", "s-2")
		if rel == "config.yaml" {
			data = "title: Watched\n"
		} else if strings.HasSuffix(rel, ".html") {
			data = `<span class="w"></span>`
		}
		write(rel, data)
		waitFor(t, "a rebuild after "+rel, func() bool { return builds() == i+2 })
	}
}

// TestServeBusyPort checks that a port another program holds is an error
// that says how to pick another.
func TestServeBusyPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	root := newRoot()
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	root.SetArgs([]string{"serve", "--port", strconv.Itoa(port), "-s", t.TempDir()})
	err = root.Execute()
	if want := fmt.Sprintf("port %d is in use (another serve?): pick another with --port N, or --port 0 for a free one", port); err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}
