//go:build unix

package site

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkBuild builds the shared corpus (the demo content when the corpus
// is not beside the repository) with redaction off and on: redaction is to
// cost at most a tenth of the build. Besides the time it reports the CPU
// time per build, which other work on the machine disturbs less.
func BenchmarkBuild(b *testing.B) {
	overrides := map[string]any{}
	if corpus, _ := filepath.Abs("../../shared/corpus"); dirExists(corpus) {
		overrides["contentDir"] = corpus
	}
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("redact=%v", on), func(b *testing.B) {
			dir := b.TempDir()
			_ = os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("title: Bench\n"), 0o644)
			_ = os.Mkdir(filepath.Join(dir, "content"), 0o755)
			overrides["redact.enabled"] = on
			cfg, _, err := LoadConfig(Options{Source: dir, Overrides: overrides})
			if err != nil {
				b.Fatal(err)
			}
			cpu := cpuTime()
			for b.Loop() {
				if _, err := Build(b.Context(), cfg); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// cpuTime is the CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
