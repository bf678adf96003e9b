package ingest_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/ingest/claude"
	"github.com/transcriptsite/transcriptsite/ingest/ingesttest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		name, head string
		want       string
	}{
		{"claude user", `{"parentUuid":null,"sessionId":"s","type":"user","message":{"content":"hi"}}`, "claude-code"},
		{"claude summary first", `{"type":"summary","summary":"x","leafUuid":"u"}` + "\n", "claude-code"},
		{"claude snapshot first", `{"type":"file-history-snapshot","messageId":"m","snapshot":{}}`, "claude-code"},
		{"claude first line cut by the head", `{"parentUuid":"p","isSidechain":false,"sessionId":"s","type":"assistant","message":{"content":"` + strings.Repeat("x", 100), "claude-code"},
		{"other JSON", `{"hello":"world"}`, ""},
		{"JSON with a type only", `{"type":"user","text":"hi"}`, ""},
		{"markdown", "# Notes\n\nSome text", ""},
		{"binary", "\x00\x01\x02PK", ""},
		{"empty", "", ""},
	} {
		r := ingest.Detect(&ingest.Head{Path: "x", Data: []byte(c.head)})
		got := ""
		if r != nil {
			got = r.Name
		}
		if got != c.want {
			t.Errorf("%s: detected %q, want %q", c.name, got, c.want)
		}
	}
}

func TestHeadRecords(t *testing.T) {
	h := &ingest.Head{Data: []byte(`[{"a":"1","n":2,"o":{"a":"nested"},"l":[1,{"x":2}],"b":true}, {"c":null}]`)}
	rs := h.Records()
	if !h.IsArray() || len(rs) != 2 {
		t.Fatalf("records = %v array=%v", rs, h.IsArray())
	}
	if rs[0]["a"] != "1" || rs[0]["n"] != "2" || rs[0]["o"] != "{" || rs[0]["l"] != "[" || rs[0]["b"] != "true" || rs[1]["c"] != "null" {
		t.Errorf("records = %v", rs)
	}
	if _, ok := rs[0]["x"]; ok {
		t.Error("a nested key leaked to the top level")
	}

	// Lines of JSONL, the last cut off by the head inside a nested value,
	// with bytes that are not UTF-8 and a key written twice.
	h = &ingest.Head{Data: []byte("{\"a\":\"\xff\",\"a\":\"2\"}\n\"str\"\n{\"b\":1.5e3,\"o\":{\"x\":\"cut")}
	rs = h.Records()
	if h.IsArray() || len(rs) != 2 || rs[0]["a"] != "2" || rs[1]["b"] != "1.5e3" || rs[1]["o"] != "{" || len(rs[1]) != 2 {
		t.Errorf("records = %q array=%v", rs, h.IsArray())
	}
}

func TestLinesLongAndTorn(t *testing.T) {
	long := strings.Repeat("y", 3<<20) // longer than the reader's buffer
	in := "a\r\n" + long + "\n\nlast"
	type line struct {
		n    int
		text string
		last bool
	}
	var got []line
	err := ingest.Lines(context.Background(), &ingest.File{}, strings.NewReader(in), func(n int, b []byte, last bool) error {
		got = append(got, line{n, string(b), last})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []line{{1, "a", false}, {2, long, false}, {3, "", false}, {4, "last", true}}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d = {%d %d bytes %v}, want {%d %d bytes %v}", i, got[i].n, len(got[i].text), got[i].last, want[i].n, len(want[i].text), want[i].last)
		}
	}
}

func TestParseTime(t *testing.T) {
	want := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, s := range []string{
		"2026-03-01T10:00:00Z", "2026-03-01T10:00:00.000Z", "2026-03-01T11:00:00+01:00",
		"2026-03-01T10:00:00.000000", "2026-03-01 10:00:00", "1772359200", "1772359200000",
	} {
		got, ok := ingest.ParseTime(s)
		if !ok || !got.Equal(want) {
			t.Errorf("parseTime(%q) = %v, %v; want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "yesterday", "0"} {
		if _, ok := ingest.ParseTime(s); ok {
			t.Errorf("parseTime(%q) succeeded", s)
		}
	}
}

func TestLoadNamesWhatItSkips(t *testing.T) {
	claude := `{"parentUuid":null,"sessionId":"s1","type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}` + "\n"
	fsys := fstest.MapFS{
		"p/one.jsonl":        {Data: []byte(claude)},
		"p/deeper/two.jsonl": {Data: []byte(strings.ReplaceAll(claude, "s1", "s2"))},
		"README.md":          {Data: []byte("# not a session")},
		"empty.jsonl":        {Data: nil},
		".git/objects/x":     {Data: []byte(claude)},
		"p/only-meta.jsonl":  {Data: []byte(`{"type":"summary","summary":"x","leafUuid":"u"}` + "\n")},
	}
	res, err := ingest.Load(context.Background(), ingest.Root{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 2 || res.Files != 5 {
		t.Errorf("got %d sessions from %d files, want 2 from 5 (.git skipped)", len(res.Sessions), res.Files)
	}
	var msgs []string
	for _, w := range res.Warnings {
		msgs = append(msgs, w.String())
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{"README.md: not a session file", "empty.jsonl: empty file", "p/only-meta.jsonl: claude-code file holds no messages"} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q:\n%s", want, got)
		}
	}
}

func TestSniffKeepsAllBytes(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), ingest.HeadSize/5)
	h, r, _, err := ingest.Sniff("x", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	all, _ := io.ReadAll(r)
	if h.EOF || len(h.Data) != ingest.HeadSize || !bytes.Equal(all, data) {
		t.Errorf("head %d bytes eof=%v, body %d bytes of %d", len(h.Data), h.EOF, len(all), len(data))
	}
}

func TestSniffDecompressesZstd(t *testing.T) {
	var buf bytes.Buffer
	w, _ := zstd.NewWriter(&buf)
	line := `{"parentUuid":null,"sessionId":"z","type":"user","message":{"content":"hi"}}` + "\n"
	_, _ = w.Write([]byte(line))
	_ = w.Close()
	h, r, done, err := ingest.Sniff("x.jsonl.zst", &buf)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	all, _ := io.ReadAll(r)
	if string(all) != line || ingest.Detect(h) != claude.Reader {
		t.Errorf("decompressed %q, detected %v", all, ingest.Detect(h))
	}
}

// memCache is a Cache in memory, safe for Load's workers.
type memCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (c *memCache) Get(k string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *memCache) Put(k string, v []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string][]byte{}
	}
	c.m[k] = v
}

func (c *memCache) Open(k string) (io.ReadCloser, bool) {
	v, ok := c.Get(k)
	return io.NopCloser(bytes.NewReader(v)), ok
}

func (c *memCache) Write(k string, fn func(io.Writer) error) bool {
	var b bytes.Buffer
	if fn(&b) != nil {
		return false
	}
	c.Put(k, b.Bytes())
	return true
}

// TestContentHashCoversTheWAL checks that a database whose latest writes
// are in its -wal file is not served stale from the cache.
func TestContentHashCoversTheWAL(t *testing.T) {
	fsys := fstest.MapFS{"a.db": {Data: []byte("db")}, "a.db-wal": {Data: []byte("wal 1")}}
	c := &memCache{}
	h1, err := ingest.ContentHash(context.Background(), c, fsys, "a.db", "a.db")
	if err != nil {
		t.Fatal(err)
	}
	fsys["a.db-wal"] = &fstest.MapFile{Data: []byte("wal two"), ModTime: time.Unix(5, 0)}
	h2, _ := ingest.ContentHash(context.Background(), c, fsys, "a.db", "a.db")
	delete(fsys, "a.db-wal")
	h3, _ := ingest.ContentHash(context.Background(), c, fsys, "a.db", "a.db")
	if h1 == h2 || h2 == h3 || h1 == h3 {
		t.Errorf("hashes %s %s %s: a change to the -wal must change the hash", h1, h2, h3)
	}
}

// A problem on many lines is one warning that names the first and counts
// them; warnings come in line order.
func TestNotesOnManyLines(t *testing.T) {
	line := func(uuid, parent, text string) string {
		return `{"parentUuid":` + parent + `,"sessionId":"s","type":"user","message":{"role":"user","content":"` + text +
			`"},"uuid":"` + uuid + `","timestamp":"2026-01-01T00:00:00Z"}` + "\n"
	}
	data := line("u1", "null", "ok") + line("u2", `"u1"`, "bad \xff") + "garbage\n" + line("u3", `"u2"`, "bad \xfe too") +
		`{"type":"hologram","sessionId":"s"}` + "\n"
	res, err := ingest.Load(context.Background(), ingest.Root{FS: fstest.MapFS{"s.jsonl": {Data: []byte(data)}}})
	if err != nil {
		t.Fatal(err)
	}
	ingesttest.WantWarnings(t, res.Warnings,
		"s.jsonl:2: invalid UTF-8: the bad bytes show as U+FFFD (2 lines, the first here)",
		"s.jsonl:3: skipped: not a JSON object",
		`s.jsonl:5: Unknown record type "hologram": shown as an unknown event`)
	if len(res.Sessions) != 1 || len(res.Sessions[0].Warnings) != 3 {
		t.Errorf("sessions %d", len(res.Sessions))
	}
}

// TestArgsAfterTransform checks that a call's Args are read from its input
// as the build's transform (redaction) leaves it, and that every call of
// a loaded session has them.
func TestArgsAfterTransform(t *testing.T) {
	opts := ingest.Options{Transform: func(s *transcript.Session) {
		s.Parts(func(_ *transcript.Message, p *transcript.Part) {
			if p.Call != nil && p.Call.Kind == transcript.ShellTool {
				p.Call.Input = `{"command":"[REDACTED]"}`
			}
		})
	}}
	res, err := ingest.LoadCached(context.Background(), opts, ingest.Root{FS: os.DirFS("claude/testdata")})
	if err != nil {
		t.Fatal(err)
	}
	shells := 0
	for _, s := range res.Sessions {
		s.Parts(func(_ *transcript.Message, p *transcript.Part) {
			if c := p.Call; c != nil && c.Kind == transcript.ShellTool {
				shells++
				if c.Args.Command != "[REDACTED]" || c.Args.Summary != "[REDACTED]" {
					t.Errorf("%s: args %+v", s.Source, c.Args)
				}
			}
		})
	}
	if shells == 0 {
		t.Error("no shell call in claude/testdata")
	}
}

// opensFS counts the opens of each file of a MapFS.
type opensFS struct {
	fstest.MapFS
	mu    sync.Mutex
	opens map[string]int
}

func (f *opensFS) Open(name string) (fs.File, error) {
	f.mu.Lock()
	f.opens[name]++
	f.mu.Unlock()
	return f.MapFS.Open(name)
}

// TestHashAheadWhileTheHeapFills checks that while the first file to be
// parsed holds the Parsing hook (the build fills the heap there), the
// other worker hashes the files no worker has taken, once each, and the
// load still reads them all.
func TestHashAheadWhileTheHeapFills(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	line := `{"parentUuid":null,"sessionId":"s%d","type":"user","message":{"role":"user","content":"%s"},"uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}` + "\n"
	fsys := &opensFS{MapFS: fstest.MapFS{}, opens: map[string]int{}}
	const n = 7
	for i := range n {
		// Sizes that differ, so that the order is the largest first.
		fsys.MapFS[fmt.Sprintf("s%d.jsonl", i)] = &fstest.MapFile{Data: fmt.Appendf(nil, line, i, strings.Repeat("x", 100*(n-i)))}
	}
	c := &memCache{}
	hashed := func() int {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.m)
	}
	seen := 0
	opts := ingest.Options{Cache: c, Parsing: func(int64) {
		// Only content hashes are in the cache until a file is parsed.
		for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(time.Millisecond) {
			if seen = hashed(); seen == n {
				break
			}
		}
	}}
	res, err := ingest.LoadCached(context.Background(), opts, ingest.Root{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	if seen != n {
		t.Errorf("%d of %d files hashed while the hook held the parse, in 10 s", seen, n)
	}
	if len(res.Sessions) != n {
		t.Errorf("got %d sessions, want %d", len(res.Sessions), n)
	}
	// Each file is opened as often as the largest, which no one hashed
	// ahead: no file is hashed twice.
	want := fsys.opens["s0.jsonl"]
	for i := range n {
		if name := fmt.Sprintf("s%d.jsonl", i); fsys.opens[name] != want {
			t.Errorf("%s opened %d times, s0.jsonl %d", name, fsys.opens[name], want)
		}
	}
}
