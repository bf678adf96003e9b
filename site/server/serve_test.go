package server

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/site"
)

// said is what Serve says, line by line, as it says it.
type said struct {
	lines chan string
	all   []string
}

func newSaid() (*said, io.WriteCloser) {
	pr, pw := io.Pipe()
	s := &said{lines: make(chan string, 100)}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	return s, pw
}

// next waits for the next line that ok accepts, and returns its
// submatches.
func (s *said) next(t *testing.T, what string, ok *regexp.Regexp) []string {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case l, open := <-s.lines:
			if !open {
				t.Fatalf("no %s; Serve said:\n%s", what, strings.Join(s.all, "\n"))
			}
			s.all = append(s.all, l)
			if m := ok.FindStringSubmatch(l); m != nil {
				return m
			}
		case <-timeout:
			t.Fatalf("no %s; Serve said:\n%s", what, strings.Join(s.all, "\n"))
		}
	}
}

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
// Serve says, from its first build on.
func serveDir(t *testing.T, dir string, o Options) *said {
	t.Helper()
	t.Setenv("TRANSCRIPTSITE_SASS", "/no/sass") // the stylesheet comes from assets/css: no Dart Sass here
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	out, w := newSaid()
	o.Out, o.Err = w, w
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
		w.Close()
	})
	return out
}

// A build says how many sessions it had and how many pages it rendered.
var built = regexp.MustCompile(`(\d+) sessions? from .* \((\d+) pages? rendered\)`)

// build waits for the next build and returns its sessions and pages
// rendered.
func (s *said) build(t *testing.T) (sessions, rendered string) {
	t.Helper()
	m := s.next(t, "build", built)
	return m[1], m[2]
}

// serving waits for the first build, and for Serve to watch its sources.
func (s *said) serving(t *testing.T) (sessions, rendered string) {
	t.Helper()
	sessions, rendered = s.build(t)
	s.next(t, "server", regexp.MustCompile(`^Serving at`))
	return sessions, rendered
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
		_, first := out.serving(t)
		write(t, filepath.Join(dir, "config.yaml"), "title: Reload\n# a comment changes no page\n")
		_, then := out.build(t)
		want := map[bool]string{true: "1", false: "0"}[ignore]
		if first != "1" || then != want {
			t.Errorf("ignoreCache %v: pages rendered %s, then %s after the config changed; want 1, then %s", ignore, first, then, want)
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
	out.serving(t)
	write(t, filepath.Join(dir, "config.yaml"), "title: Reload\ncontentDirs: [content, "+more+"]\n")
	if n, _ := out.build(t); n != "1" {
		t.Fatalf("after the config named a second folder: %s sessions, want 1", n)
	}
	write(t, filepath.Join(more, "t.jsonl"), session("s-2"))
	if n, _ := out.build(t); n != "2" {
		t.Errorf("after a session was written into the new folder: %s sessions, want 2", n)
	}
}
