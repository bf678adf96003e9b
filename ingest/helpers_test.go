package ingest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// readTestFile reads one file of testdata/ the way Load does, and finishes
// its sessions. It fails if no reader claims the file.
func readTestFile(t *testing.T, name string) ([]*transcript.Session, []Warning) {
	t.Helper()
	fsys := os.DirFS("testdata")
	f := &File{Rel: name, FS: fsys, Name: name}
	r, ss := ReadFile(context.Background(), fsys, name, f)
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

// seedFuzz adds every file under testdata/dir to a fuzz corpus.
func seedFuzz(f *testing.F, dir string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", dir, "*"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
}

// fuzzRead runs reader r over data as a whole file. Readers must never
// panic, whatever the bytes, and what they read must survive Finish.
func fuzzRead(t *testing.T, r *Reader, name string, data []byte) {
	f := &File{Rel: name}
	h, body, done, err := Sniff(name, bytes.NewReader(data))
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

// wantWarnings checks that the warnings are, in order, ones that start with
// want.
func wantWarnings(t *testing.T, warns []Warning, want ...string) {
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

// oneSession reads a testdata file that must hold exactly one session.
func oneSession(t *testing.T, name string) (*transcript.Session, []Warning) {
	t.Helper()
	ss, warns := readTestFile(t, name)
	if len(ss) != 1 {
		t.Fatalf("%s: got %d sessions, want 1", name, len(ss))
	}
	return ss[0], warns
}

// skips lists what a session skipped as "kind n, kind n", by kind.
func skips(s *transcript.Session) string {
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

// corpusDir is the shared corpus beside the repository (see ingesttest).
const corpusDir = "../../shared/corpus"

// notSession: see ingesttest.NotSession.
func notSession(p string) bool {
	base := path.Base(p)
	return base == "SOURCE.txt" || strings.HasSuffix(base, ".meta.json") || base == "session-data-v1.json"
}

// kinds: see ingesttest.Kinds.
func kinds(m *transcript.Message) string {
	var ks []string
	for _, p := range m.Parts {
		ks = append(ks, string(p.Kind))
	}
	return strings.Join(ks, " ")
}

// readDoc: see ingesttest.ReadDoc.
func readDoc(t *testing.T, r *Reader, name, doc string) ([]*transcript.Session, []Warning) {
	t.Helper()
	f := &File{Rel: name}
	ss, err := r.Read(context.Background(), f, strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return ss, f.Warnings
}

// checkWarnings: see ingesttest.CheckWarnings.
func checkWarnings(t *testing.T, warns []Warning, file string, want []string) {
	t.Helper()
	var got []string
	for _, w := range warns {
		got = append(got, strings.TrimPrefix(w.String(), file))
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// ocDescribe: see ingesttest.Describe.
func ocDescribe(s *transcript.Session) []string {
	var got []string
	for _, m := range s.Messages() {
		got = append(got, string(m.Role)+map[bool]string{true: "*"}[m.Meta]+"("+kinds(m)+")")
	}
	return got
}
