package redact_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/internal/synth"
	"github.com/transcriptsite/transcriptsite/redact"
)

func TestZZSynth(t *testing.T) {
	dir := t.TempDir()
	if _, err := synth.Generate(dir, synth.Options{Sessions: 60, Formats: []string{"claude-code", "codex", "gemini-cli"}, Images: true}); err != nil {
		t.Fatal(err)
	}
	res, err := ingest.Load(context.Background(), ingest.Root{FS: os.DirFS(dir)})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := redact.New(redact.Config{})
	n := 0
	for _, s := range res.Sessions {
		r.Session(s)
		for _, f := range listRedactions(s) {
			n++
			if n < 40 {
				fmt.Println(f)
			}
		}
	}
	fmt.Println(len(res.Sessions), "sessions", n, "redactions")
}
