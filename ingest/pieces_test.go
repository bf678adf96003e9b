package ingest_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// bigSession writes a session of prompts and replies, each naming its
// number, about size bytes long, into dir, in the format of lines, with a
// line that is not JSON at line bad. It returns the file's path and the
// number of prompts. lines gives the records of prompt n, after the one
// before whose id is parent (empty for the first); first is the file's
// first line, if any.
func bigSession(t testing.TB, name string, size int64, bad int, first string, lines func(n int, at, parent string) []string) int {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(fh)
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var written int64
	line, n, parent := 0, 0, ""
	emit := func(s string) {
		line++
		if line == bad {
			w.WriteString("this line is not JSON\n")
			line++
		}
		k, _ := w.WriteString(s + "\n")
		written += int64(k)
	}
	if first != "" {
		emit(first)
	}
	for ; written < size; n++ {
		for _, l := range lines(n, start.Add(time.Duration(n)*time.Second).Format(time.RFC3339Nano), parent) {
			emit(l)
		}
		parent = fmt.Sprintf("a-%d", n)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	return n
}

var pad = strings.Repeat("lorem ipsum ", 80)

// bigClaude writes a big Claude Code session into dir (bigSession).
func bigClaude(t testing.TB, dir string, size int64, bad int) (string, int) {
	name := filepath.Join(dir, "projects", "-big", "7a1e0c2e-0d7b-4a52-9c3e-5b6f00c0ffee.jsonl")
	return name, bigSession(t, name, size, bad, "", func(n int, at, parent string) []string {
		p := "null"
		if parent != "" {
			p = strconv.Quote(parent)
		}
		const rec = `"timestamp":%q,"sessionId":"7a1e0c2e-0d7b-4a52-9c3e-5b6f00c0ffee","cwd":"/src/big"}`
		return []string{
			fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"type":"user","message":{"role":"user","content":"prompt %d %s"},"uuid":"u-%d",`+rec, p, n, pad, n, at),
			fmt.Sprintf(`{"parentUuid":"u-%d","isSidechain":false,"type":"assistant","message":{"role":"assistant","model":"claude-x","content":[{"type":"text","text":"reply %d %s"}]},"uuid":"a-%d",`+rec, n, n, pad, n, at),
		}
	})
}

// bigCodex writes a big Codex rollout into dir (bigSession): its
// session_meta, on its first line, names the session.
func bigCodex(t testing.TB, dir string, size int64, bad int) (string, int) {
	name := filepath.Join(dir, "sessions", "2026", "03", "01", "rollout-2026-03-01T09-00-00-0199bbbb-0000-7000-8000-00000000b16.jsonl")
	meta := `{"timestamp":"2026-03-01T09:00:00Z","type":"session_meta","payload":{"id":"0199bbbb-0000-7000-8000-00000000b16","timestamp":"2026-03-01T09:00:00Z","cwd":"/src/big","cli_version":"0.120.0","instructions":"Be brief."}}`
	return name, bigSession(t, name, size, bad, meta, func(n int, at, _ string) []string {
		return []string{
			fmt.Sprintf(`{"timestamp":%q,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"prompt %d %s"}]}}`, at, n, pad),
			fmt.Sprintf(`{"timestamp":%q,"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"reply %d %s"}]}}`, at, n, pad),
		}
	})
}

// A session bigger than a piece is read a piece at a time into volumes,
// each cached and merged on its own, and nothing is lost between them.
func TestBigSessionReadInVolumes(t *testing.T) {
	for _, c := range []struct {
		format, id string
		write      func(testing.TB, string, int64, int) (string, int)
	}{
		{"claude-code", "7a1e0c2e-0d7b-4a52-9c3e-5b6f00c0ffee", bigClaude},
		{"codex", "0199bbbb-0000-7000-8000-00000000b16", bigCodex},
	} {
		t.Run(c.format, func(t *testing.T) { checkVolumes(t, c.format, c.id, c.write) })
	}
}

func checkVolumes(t *testing.T, format, id string, write func(testing.TB, string, int64, int) (string, int)) {
	content := t.TempDir()
	const bad = 40001 // in the second piece
	_, prompts := write(t, content, 2*ingest.PieceBytes+ingest.PieceBytes/2, bad)
	store, err := cache.New(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Begin(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	defer store.End()
	for _, run := range []string{"cold", "warm"} {
		res, err := ingest.LoadCached(context.Background(), ingest.Options{Cache: store, Release: true}, ingest.Root{FS: os.DirFS(content)})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Warnings) != 1 || res.Warnings[0].Line != bad || !strings.Contains(res.Warnings[0].Msg, "not a JSON object") {
			t.Errorf("%s: warnings %v, want one naming line %d", run, res.Warnings, bad)
		}
		groups := res.Groups()
		if len(res.Headers) != 3 || len(groups) != 3 {
			t.Fatalf("%s: %d sessions in %d groups, want 3 volumes, each merged alone", run, len(res.Headers), len(groups))
		}
		seen := make([]int, prompts)
		for i, g := range groups {
			if s := g[0].Session; s.Volume != i+1 || s.ID != id || s.Format != format || s.CWD != "/src/big" {
				t.Errorf("%s: group %d holds volume %d of %s (%s, in %s)", run, i, s.Volume, s.ID, s.Format, s.CWD)
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
