package render

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// BenchmarkChroma measures what highlighting costs per byte of code when
// nothing is memoised: chroma's lexers on the repository's own Go,
// JavaScript, shell, SCSS, CSS, Markdown, HTML, JSON and YAML, in MB/s of
// code on one core. A build's
// ceiling from highlighting alone is this rate times the cores, divided by
// the share of its input that is code to highlight (docs/benchmarks.md).
func BenchmarkChroma(b *testing.B) {
	for _, c := range []struct{ lang, glob string }{
		{"go", "*.go"},
		{"javascript", "../assets/js/*.js"},
		{"bash", "../scripts/*.sh"},
		{"scss", "../assets/scss/*.scss"},
		{"css", "../assets/css/*.css"},
		{"markdown", "../docs/*.md"},
		{"html", "../templates/*.html"},
		{"json", "../ingest/*/testdata/*.json"},
		{"yaml", "../*.yaml"},
		{"markdown-chroma", "../docs/*.md"}, // chroma's own lexer, which ours stands in for
	} {
		files, _ := filepath.Glob(c.glob)
		var code []string
		var size int64
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			code = append(code, string(data))
			size += int64(len(data))
		}
		l := lexer(c.lang, lexers.Get)
		if c.lang == "markdown-chroma" {
			l = chroma.Coalesce(lexers.Get("markdown"))
		}
		if l == nil || size == 0 {
			b.Fatalf("%s: no lexer or no code", c.lang)
		}
		b.Run(c.lang, func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				for _, src := range code {
					if _, ok := chromaHTML(l, src); !ok {
						b.Fatal("chroma failed")
					}
				}
			}
		})
		// As files and edits are shown: a row at a time (Rows).
		b.Run(c.lang+"/rows", func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				for _, src := range code {
					if _, ok := highlightRows(l, src); !ok {
						b.Fatal("chroma failed")
					}
				}
			}
		})
	}
}
