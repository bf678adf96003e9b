// Package ingesttest holds what the tests of every reader use: reading a
// file of testdata/ as Load does, checking warnings, seeding and running
// fuzz targets, and the shared corpus.
package ingesttest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// ReadFile reads one file of testdata/ the way Load does, and finishes
// its sessions. It fails if no reader claims the file.
func ReadFile(t testing.TB, name string) ([]*transcript.Session, []ingest.Warning) {
	t.Helper()
	fsys := os.DirFS("testdata")
	f := &ingest.File{Rel: name, FS: fsys, Name: name}
	r, ss := ingest.ReadFile(context.Background(), fsys, name, f)
	if r == nil {
		t.Fatalf("%s: no reader: %v", name, f.Warnings)
	}
	if r.Merge != nil {
		ss = r.Merge(ss)
	}
	for _, s := range ss {
		s.Finish()
	}
	return ss, f.Warnings
}

// OneSession reads a testdata file that must hold exactly one session.
func OneSession(t testing.TB, name string) (*transcript.Session, []ingest.Warning) {
	t.Helper()
	ss, warns := ReadFile(t, name)
	if len(ss) != 1 {
		t.Fatalf("%s: got %d sessions, want 1", name, len(ss))
	}
	return ss[0], warns
}

// SeedFuzz adds every file of testdata/ to a fuzz corpus.
func SeedFuzz(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

// FuzzRead runs reader r over data as a whole file. Readers must never
// panic, whatever the bytes, and what they read must survive Finish.
func FuzzRead(t *testing.T, r *ingest.Reader, name string, data []byte) {
	f := &ingest.File{Rel: name}
	h, body, done, err := ingest.Sniff(name, bytes.NewReader(data))
	if err != nil {
		return
	}
	defer done()
	_ = r.Detect(h)
	ss, _ := r.Read(context.Background(), f, body)
	if r.Merge != nil {
		ss = r.Merge(ss)
	}
	for _, s := range ss {
		s.Finish()
		_ = s.Stats()
	}
}

// WantWarnings checks that the warnings are, in order, ones that start
// with want.
func WantWarnings(t testing.TB, warns []ingest.Warning, want ...string) {
	t.Helper()
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	if len(got) != len(want) {
		t.Fatalf("warnings:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("warning %d = %q, want prefix %q", i, got[i], want[i])
		}
	}
}

// Skips lists what a session skipped as "kind n, kind n", by kind.
func Skips(s *transcript.Session) string {
	var out []string
	for _, k := range s.Skipped {
		if k.Reason == "" {
			out = append(out, k.Kind+" (no reason)")
		}
		out = append(out, fmt.Sprintf("%s %d", k.Kind, k.Count))
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// Kinds lists the kinds of a message's parts.
func Kinds(m *transcript.Message) string {
	var ks []string
	for _, p := range m.Parts {
		ks = append(ks, string(p.Kind))
	}
	return strings.Join(ks, " ")
}

// CorpusDir is the shared corpus of real and synthetic sessions beside
// the repository. A user's clone does not have it: tests that read it
// skip (see Corpus).
func CorpusDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "corpus")
}

// Corpus returns CorpusDir, or skips the test when there is none.
func Corpus(t testing.TB) string {
	t.Helper()
	dir := CorpusDir()
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no shared corpus beside the repository")
	}
	return dir
}

// NotSession reports whether a corpus file holds no session of its own.
func NotSession(p string) bool {
	base := path.Base(p)
	return base == "SOURCE.txt" || strings.HasSuffix(base, ".meta.json") || base == "session-data-v1.json"
}

// ReadDoc reads doc, as the file name, with reader r alone.
func ReadDoc(t testing.TB, r *ingest.Reader, name, doc string) ([]*transcript.Session, []ingest.Warning) {
	t.Helper()
	f := &ingest.File{Rel: name}
	ss, err := r.Read(context.Background(), f, strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return ss, f.Warnings
}

// CheckWarnings compares warnings with want, each written without the
// file name.
func CheckWarnings(t testing.TB, warns []ingest.Warning, file string, want []string) {
	t.Helper()
	var got []string
	for _, w := range warns {
		got = append(got, strings.TrimPrefix(w.String(), file))
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Describe lists a session's messages as role(part kinds), a * marking
// injected context: "user(text)", "assistant(thinking call)".
func Describe(s *transcript.Session) []string {
	var got []string
	for _, m := range s.Messages() {
		got = append(got, string(m.Role)+map[bool]string{true: "*"}[m.Meta]+"("+Kinds(m)+")")
	}
	return got
}

// ByID returns the sessions by their ids.
func ByID(ss []*transcript.Session) map[string]*transcript.Session {
	byID := make(map[string]*transcript.Session, len(ss))
	for _, s := range ss {
		byID[s.ID] = s
	}
	return byID
}
