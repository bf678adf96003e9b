package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServeOpensAndNavigates runs serve as Hugo's server runs with
// --openBrowser and --navigateToChanged: the browser ($BROWSER) is given
// the site's address, and a change to a session's file takes open pages
// to that session's page.
func TestServeOpensAndNavigates(t *testing.T) {
	dir := t.TempDir()
	write := writeIn(t, dir)
	write("config.yaml", "title: Navigate test\n")
	write("content/app/s.jsonl", serveSession)
	write("content/app/other.jsonl", strings.ReplaceAll(serveSession, "s-1", "s-2"))
	opened := filepath.Join(dir, "opened")
	write("browser.sh", "#!/bin/sh\necho \"$1\" > "+opened+"\n")
	_ = os.Chmod(filepath.Join(dir, "browser.sh"), 0o755)
	t.Setenv("BROWSER", filepath.Join(dir, "browser.sh"))
	t.Setenv("TRANSCRIPTSITE_SASS", "/no/sass")
	ctx, base, out, errOut := serving(t, "server", "-s", dir, "--port", "0", "--cacheDir", t.TempDir(), "-O", "-N")
	waitFor(t, "the browser", func() bool {
		b, _ := os.ReadFile(opened)
		return strings.TrimSpace(string(b)) == base
	})

	events := subscribe(t, ctx, base)
	f, _ := os.OpenFile(filepath.Join(dir, "content/app/other.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"parentUuid":"a1","sessionId":"s-2","type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"more"}]},"uuid":"a2","timestamp":"2026-01-01T00:00:05Z"}` + "\n")
	f.Close()
	resp, err := http.Get(base + "sessions.json")
	if err != nil {
		t.Fatal(err)
	}
	var list []struct{ ID, URL string }
	_ = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	want := ""
	for _, e := range list {
		if e.ID == "s-2" {
			want = `{"type":"navigate","path":"/` + e.URL + `"}`
		}
	}
	select {
	case e := <-events:
		if e != want || want == "" {
			t.Errorf("event %s, want %s", e, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no event; output:\n%s\n%s", out.String(), errOut.String())
	}
}

// writeIn returns a func that writes a file under dir.
func writeIn(t *testing.T, dir string) func(rel, data string) {
	return func(rel, data string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// serving runs the command line args (serve, with a free port) until the
// test ends, and returns once it serves: its context, its address and its
// output.
func serving(t *testing.T, args ...string) (ctx context.Context, base string, out, errOut *lockedBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, errOut = new(lockedBuffer), new(lockedBuffer)
	root := newRoot()
	root.SetOut(out)
	root.SetErr(errOut)
	root.SetArgs(args)
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve ended with %v", err)
		}
	})
	waitFor(t, "the server", func() bool {
		m := regexp.MustCompile(`Serving at (\S+)`).FindStringSubmatch(out.String())
		if m != nil {
			base = m[1]
		}
		return m != nil
	})
	return ctx, base, out, errOut
}
