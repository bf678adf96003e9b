package site

import (
	"os"
	"path/filepath"
	"testing"
	"time"
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
