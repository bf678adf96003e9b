package ingest_test

import (
	"io/fs"
	"os"
	"path"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/internal/synth"
)

// BenchmarkRead reads each format's files of the shared corpus through
// Load, as the build does (walk, detection, reading, merging), and
// reports MB/s of input. claude-synth reads generated Claude Code sessions:
// the corpus's Claude files are mostly small edge cases, these are distinct
// sessions of a realistic size.
func BenchmarkRead(b *testing.B) {
	folders := map[string]string{} // format → its corpus folder
	for dir, format := range corpusFormats() {
		folders[format] = dir
	}
	var formats []string
	for _, r := range ingest.Readers {
		if !slices.Contains(formats, r.Name) {
			formats = append(formats, r.Name) // specstory has two readers, one folder
		}
	}
	for _, format := range formats {
		b.Run(format, func(b *testing.B) {
			dir := folders[format]
			if dir == "" {
				b.Skip("no corpus folder for this format")
			}
			fsys, size := inMemory(b, os.DirFS(corpusDir), dir)
			benchLoad(b, fsys, size)
		})
	}
	b.Run("claude-synth", func(b *testing.B) {
		dir := b.TempDir()
		if _, err := synth.Generate(dir, synth.Options{Sessions: 20, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		fsys, size := inMemory(b, os.DirFS(dir), ".")
		benchLoad(b, fsys, size)
	})
}

// inMemory copies the files under dir into memory, so the benchmark
// measures detection and parsing rather than the disk, and returns them
// with their size. The corpus's notes on its sources are left out: they
// are no input a user would have.
func inMemory(b *testing.B, src fs.FS, dir string) (fstest.MapFS, int64) {
	if _, err := fs.Stat(src, dir); err != nil {
		b.Skip("no shared corpus for this format beside the repository")
	}
	m := fstest.MapFS{}
	var size int64
	err := fs.WalkDir(src, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if base := path.Base(p); base == "SOURCE.txt" || base == "session-data-v1.json" {
			return nil // provenance, and specstory's JSON Schema
		}
		data, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		m[p] = &fstest.MapFile{Data: data, Mode: 0o644}
		size += int64(len(data))
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return m, size
}

func benchLoad(b *testing.B, fsys fs.FS, size int64) {
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		res, err := ingest.Load(b.Context(), ingest.Root{FS: fsys})
		if err != nil {
			b.Fatal(err)
		}
		// Files no reader claims would be measured as almost free.
		if len(res.Sessions) == 0 {
			b.Fatalf("no session read from %d files: %v", res.Files, res.Warnings)
		}
	}
}
