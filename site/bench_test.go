package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/internal/synth"
	"github.com/transcriptsite/transcriptsite/site/search"
	"github.com/transcriptsite/transcriptsite/site/searchdoc"
)

// BenchmarkBuild builds the shared corpus (the demo content when the corpus
// is not beside the repository) with redaction off and on, in turns, so
// that other work on the machine slows both alike, and reports the time of
// each and what redaction adds, which is to stay under a tenth.
func BenchmarkBuild(b *testing.B) {
	overrides := map[string]any{}
	if corpus, _ := filepath.Abs("../../shared/corpus"); dirExists(corpus) {
		overrides["contentDir"] = corpus
	}
	var cfgs [2]*Config
	for i, on := range []bool{false, true} {
		dir := b.TempDir()
		_ = os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("title: Bench\n"), 0o644)
		_ = os.Mkdir(filepath.Join(dir, "content"), 0o755)
		overrides["redact.enabled"] = on
		cfg, _, err := LoadConfig(Options{Source: dir, Overrides: overrides})
		if err != nil {
			b.Fatal(err)
		}
		cfgs[i] = cfg
	}
	var took [2]time.Duration
	n := 0
	for b.Loop() {
		for k := range 2 {
			i := (n + k) % 2 // off first, then on first, and so on
			start := time.Now()
			if _, err := Build(b.Context(), cfgs[i]); err != nil {
				b.Fatal(err)
			}
			took[i] += time.Since(start)
		}
		n++
	}
	off, on := took[0].Seconds()*1000/float64(n), took[1].Seconds()*1000/float64(n)
	b.ReportMetric(off, "ms-off/op")
	b.ReportMetric(on, "ms-on/op")
	b.ReportMetric(100*(on-off)/off, "%-redaction")
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// BenchmarkSearchIndex indexes generated Claude Code sessions: preparing
// each (tokenizing, on every core in a build), appending it, and writing
// the shards, excerpts and tables to memory. It reports MB/s of indexed
// text.
func BenchmarkSearchIndex(b *testing.B) {
	dir := b.TempDir()
	if _, err := synth.Generate(dir, synth.Options{Sessions: 40, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	res, err := ingest.Load(b.Context(), ingest.Root{FS: os.DirFS(dir)})
	if err != nil {
		b.Fatal(err)
	}
	cfg := &Config{Search: search.DefaultConfig()}
	_ = cfg.Search.Check()
	include := cfg.Search.Includes()
	st, body := testSite(cfg, res.Sessions...)
	var bytes int64
	for _, s := range st.Sessions {
		for _, m := range body(s).Messages() {
			if d, ok := searchdoc.Doc(m, include); ok {
				bytes += int64(len(d.Text))
			}
		}
	}
	b.SetBytes(bytes)
	for b.Loop() {
		ix := search.New(searchdoc.KindNames(), func(string, []byte) error { return nil })
		for _, s := range st.Sessions {
			for _, p := range SearchSession(s, body(s), include) {
				ix.Append(p)
			}
		}
		if err := ix.Write(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRebuild builds a generated site of $TRANSCRIPTSITE_BENCH_SESSIONS
// Claude Code sessions (default 1,000) once, cold, then measures rebuilds
// with the cache: "warm" changes nothing, "one-change" appends a prompt to
// one session each time, which must render that page alone again.
func BenchmarkRebuild(b *testing.B) {
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("TRANSCRIPTSITE_BENCH_SESSIONS")); err == nil && v > 0 {
		n = v
	}
	corpus := b.TempDir()
	if _, err := synth.Generate(corpus, synth.Options{Sessions: n, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	var files []string
	_ = filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return err
	})
	dir := b.TempDir()
	cfg, _, err := LoadConfig(Options{Source: dir, Overrides: map[string]any{
		"contentDir": corpus, "cacheDir": filepath.Join(dir, "cache"), "destination": filepath.Join(dir, "public"),
	}})
	if err != nil {
		b.Fatal(err)
	}
	bd, err := NewBuilder(cfg, BuildOptions{})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if _, err := bd.Build(b.Context()); err != nil {
		b.Fatal(err)
	}
	cold := time.Since(start)
	rebuild := func(b *testing.B, change func(i int)) {
		i := 0
		for b.Loop() {
			want := 0
			if change != nil {
				b.StopTimer()
				change(i)
				b.StartTimer()
				want = 1
			}
			rep, err := bd.Build(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			if rep.Rendered != want {
				b.Fatalf("rebuild rendered %d pages, want %d", rep.Rendered, want)
			}
			i++
		}
		b.ReportMetric(float64(cold.Milliseconds()), "ms-cold")
		b.ReportMetric(100*b.Elapsed().Seconds()/float64(b.N)/cold.Seconds(), "%-of-cold")
	}
	b.Run("warm", func(b *testing.B) { rebuild(b, nil) })
	b.Run("one-change", func(b *testing.B) {
		rebuild(b, func(i int) {
			if err := appendPrompt(files[i%len(files)], i); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// appendPrompt appends a user prompt to a Claude Code session file, after
// its last message.
func appendPrompt(path string, i int) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var last struct {
		UUID      string `json:"uuid"`
		SessionID string `json:"sessionId"`
		Timestamp string `json:"timestamp"`
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	for k := len(lines) - 1; k >= 0 && last.UUID == ""; k-- {
		_ = json.Unmarshal(lines[k], &last)
	}
	rec, err := json.Marshal(map[string]any{
		"type": "user", "parentUuid": last.UUID, "sessionId": last.SessionID, "uuid": fmt.Sprintf("bench-%d", i),
		"timestamp": last.Timestamp, "message": map[string]any{"role": "user", "content": fmt.Sprintf("bench edit %d", i)},
	})
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(append(data, rec...), '\n'), 0o644)
}
