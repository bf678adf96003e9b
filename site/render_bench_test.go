package site

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/internal/synth"
	"github.com/transcriptsite/transcriptsite/site/theme"
)

// BenchmarkSessionPage renders the page of one generated Claude Code
// session of a few hundred messages, as builder.session does once the site
// model is made: the turns, then the session template. Reading, redaction,
// exports and the search index are left out: the other benchmarks measure
// them. It reports MB/s of the session's input and the page's size;
// ms-first is the first render, before what the renderer keeps from page
// to page (lexers, and any cache of highlighted code) is warm, which is
// what a cold build pays for each distinct session.
func BenchmarkSessionPage(b *testing.B) {
	corpus := b.TempDir()
	gen, err := synth.Generate(corpus, synth.Options{Sessions: 1, Messages: 300, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("title: Bench\ncontentDir: "+corpus+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	// Read as the build reads, redacted, so the page shows what a built
	// one does.
	st, body := loadSiteBodies(b, dir)
	cfg := st.Config
	if len(st.Sessions) != 1 {
		b.Fatalf("%d sessions, want 1", len(st.Sessions))
	}
	tpl, err := theme.Load(cfg.Theme)
	if err != nil {
		b.Fatal(err)
	}
	// The builder has no output and no assets: rendering writes to buf,
	// and asset links fall back to unfingerprinted names.
	bd := &builder{site: st, tpl: tpl}
	s := st.Sessions[0]
	var buf bytes.Buffer
	render := func() {
		buf.Reset()
		pg := &Page{Kind: "session", Title: s.Title, Path: s.Path, Project: s.Project, Session: s, Site: st}
		pg.Turns = TurnViews(pg, body(s))
		if err := bd.renderTo(&buf, "session", pg); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	render()
	first := time.Since(start)
	// A page that lost messages would be measured as faster.
	if n, want := bytes.Count(buf.Bytes(), []byte(` id="m-`)), len(body(s).Messages()); n != want {
		b.Fatalf("page has %d message anchors, want %d", n, want)
	}

	b.SetBytes(gen.Bytes)
	b.ReportAllocs()
	for b.Loop() {
		render()
	}
	b.ReportMetric(float64(first.Microseconds())/1e3, "ms-first")
	b.ReportMetric(float64(len(body(s).Messages())), "messages")
	b.ReportMetric(float64(buf.Len())/1e3, "page-kB")
}
