package ingest_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// bigClaude writes a Claude Code session of prompts and replies, each
// naming its number, about size bytes long, into dir, with a line that is
// not JSON at line bad. It returns the file's path and the number of
// prompts.
func bigClaude(t testing.TB, dir string, size int64, bad int) (string, int) {
	t.Helper()
	name := filepath.Join(dir, "projects", "-big", "7a1e0c2e-0d7b-4a52-9c3e-5b6f00c0ffee.jsonl")
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(fh)
	pad := strings.Repeat("lorem ipsum ", 80)
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var written int64
	line, n, parent := 0, 0, "null"
	emit := func(s string) {
		line++
		if line == bad {
			w.WriteString("this line is not JSON\n")
			line++
		}
		k, _ := w.WriteString(s + "\n")
		written += int64(k)
	}
	for ; written < size; n++ {
		at := start.Add(time.Duration(n) * time.Second).Format(time.RFC3339Nano)
		u, a := fmt.Sprintf("u-%d", n), fmt.Sprintf("a-%d", n)
		emit(fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"type":"user","message":{"role":"user","content":"prompt %d %s"},"uuid":%q,"timestamp":%q,"sessionId":"7a1e0c2e-0d7b-4a52-9c3e-5b6f00c0ffee","cwd":"/src/big"}`,
			parent, n, pad, u, at))
		emit(fmt.Sprintf(`{"parentUuid":%q,"isSidechain":false,"type":"assistant","message":{"role":"assistant","model":"claude-x","content":[{"type":"text","text":"reply %d %s"}]},"uuid":%q,"timestamp":%q,"sessionId":"7a1e0c2e-0d7b-4a52-9c3e-5b6f00c0ffee","cwd":"/src/big"}`,
			u, n, pad, a, at))
		parent = fmt.Sprintf("%q", a)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	return name, n
}

// A session bigger than a piece is read a piece at a time into volumes,
// each cached and merged on its own, and nothing is lost between them.
func TestBigSessionReadInVolumes(t *testing.T) {
	content := t.TempDir()
	const bad = 40001 // in the second piece
	_, prompts := bigClaude(t, content, 2*ingest.PieceBytes+ingest.PieceBytes/2, bad)
	store, err := cache.New(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Begin(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	defer store.End()
	load := func() *ingest.Result {
		t.Helper()
		res, err := ingest.LoadCached(context.Background(), ingest.Options{Cache: store, Release: true}, ingest.Root{FS: os.DirFS(content)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, run := range []string{"cold", "warm"} {
		res := load()
		if len(res.Warnings) != 1 || res.Warnings[0].Line != bad || !strings.Contains(res.Warnings[0].Msg, "not a JSON object") {
			t.Errorf("%s: warnings %v, want one naming line %d", run, res.Warnings, bad)
		}
		groups := res.Groups()
		if len(res.Headers) != 3 || len(groups) != 3 {
			t.Fatalf("%s: %d sessions in %d groups, want 3 volumes, each merged alone", run, len(res.Headers), len(groups))
		}
		seen := make([]int, prompts)
		for i, g := range groups {
			if v := g[0].Session.Volume; v != i+1 {
				t.Errorf("%s: group %d holds volume %d", run, i, v)
			}
			ss, err := res.Load(context.Background(), i)
			if err != nil {
				t.Fatal(err)
			}
			ss[0].Parts(func(m *transcript.Message, p *transcript.Part) {
				var n int
				if _, err := fmt.Sscanf(p.Text, "prompt %d", &n); err == nil && m.Role == transcript.User {
					seen[n]++
				}
			})
		}
		for n, c := range seen {
			if c != 1 {
				t.Fatalf("%s: prompt %d shown %d times", run, n, c)
			}
		}
	}
}
