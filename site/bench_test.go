package site

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/internal/synth"
	"github.com/transcriptsite/transcriptsite/site/search"
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
	cfg := &Config{Search: map[string]bool{}}
	for _, p := range defaultSearch {
		cfg.Search[p] = true
	}
	st := newSite(cfg, res.Sessions)
	var bytes int64
	for _, s := range st.Sessions {
		for _, m := range s.Messages() {
			if d, ok := searchDoc(m, cfg.Search); ok {
				bytes += int64(len(d.Text))
			}
		}
	}
	b.SetBytes(bytes)
	for b.Loop() {
		ix := search.New(toolKindNames(), func(string, []byte) error { return nil })
		for _, s := range st.Sessions {
			ix.Append(searchSession(s, cfg.Search))
		}
		if err := ix.Write(); err != nil {
			b.Fatal(err)
		}
	}
}
