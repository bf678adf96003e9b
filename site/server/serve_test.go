package server

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/site"
)

// lockedBuffer is a buffer Serve writes to while the test reads it.
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

// session is a Claude Code session file of one prompt and one reply.
func session(id string) string {
	return `{"parentUuid":null,"sessionId":"` + id + `","cwd":"/w/app","type":"user","message":{"role":"user","content":"prompt of ` + id + `"},"uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}
{"parentUuid":"u1","sessionId":"` + id + `","type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"reply"}]},"uuid":"a1","timestamp":"2026-01-01T00:00:01Z"}
`
}

func write(t *testing.T, path, data string) {
	t.Helper()
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// serveDir serves the site in dir until the test ends, and returns what
// Serve prints, a line a build.
func serveDir(t *testing.T, dir string, o Options) *lockedBuffer {
	t.Helper()
	t.Setenv("TRANSCRIPTSITE_SASS", "/no/sass") // the stylesheet comes from assets/css: no Dart Sass here
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	out := new(lockedBuffer)
	o.Out, o.Err = out, out
	if o.Site.Overrides == nil {
		o.Site.Overrides = map[string]any{}
	}
	o.Site.Source, o.Site.Overrides["cacheDir"] = dir, t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, o) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve ended with %v", err)
		}
	})
	for deadline := time.Now().Add(15 * time.Second); !strings.Contains(out.String(), "Serving at"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Serve did not start; it said:\n%s", out.String())
		}
	}
	return out
}

var built = regexp.MustCompile(`(\d+) sessions? from .* \((\d+) pages? rendered\)`)

// builds waits for the n'th build and returns what each build said: the
// sessions it had and the pages it rendered.
func builds(t *testing.T, out *lockedBuffer, n int) [][]string {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got := built.FindAllStringSubmatch(out.String(), -1); len(got) >= n {
			return got
		}
	}
	t.Fatalf("no build %d; Serve said:\n%s", n, out.String())
	return nil
}

// A change to the config builds with the options serve was started with:
// with --ignoreCache, every page is made again, as in the first build;
// without it, the cache serves them.
func TestReloadKeepsIgnoreCache(t *testing.T) {
	for _, ignore := range []bool{true, false} {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "config.yaml"), "title: Reload\n")
		write(t, filepath.Join(dir, "content", "s.jsonl"), session("s-1"))
		out := serveDir(t, dir, Options{Build: site.BuildOptions{IgnoreCache: ignore}})
		write(t, filepath.Join(dir, "config.yaml"), "title: Reload\n# a comment changes no page\n")
		got := builds(t, out, 2)
		want := map[bool]string{true: "1", false: "0"}[ignore]
		if got[0][2] != "1" || got[1][2] != want {
			t.Errorf("ignoreCache %v: pages rendered %s, then %s after the config changed; want 1, then %s", ignore, got[0][2], got[1][2], want)
		}
	}
}

// A content folder that the config names once serve runs is watched: a
// session written into it is served.
func TestReloadWatchesTheFoldersItAdds(t *testing.T) {
	dir, more := t.TempDir(), t.TempDir()
	write(t, filepath.Join(dir, "config.yaml"), "title: Reload\n")
	write(t, filepath.Join(dir, "content", "s.jsonl"), session("s-1"))
	out := serveDir(t, dir, Options{})
	write(t, filepath.Join(dir, "config.yaml"), "title: Reload\ncontentDirs: [content, "+more+"]\n")
	if got := builds(t, out, 2); got[1][1] != "1" {
		t.Fatalf("after the config named a second folder: %s sessions, want 1", got[1][1])
	}
	write(t, filepath.Join(more, "t.jsonl"), session("s-2"))
	if got := builds(t, out, 3); got[2][1] != "2" {
		t.Errorf("after a session was written into the new folder: %s sessions, want 2", got[2][1])
	}
	if strings.Contains(out.String(), "ERROR") {
		t.Errorf("Serve said:\n%s", out.String())
	}
}
