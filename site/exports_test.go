package site

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/internal/treetest"
	"github.com/transcriptsite/transcriptsite/site/export"
)

func TestSessionExports(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	cfg, _, err := build(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range readSessions(t, cfg.Destination) {
		page := readFile(t, cfg.Destination, e.URL+"index.html")
		for _, f := range []string{"session.md", "session.json"} {
			if !strings.Contains(page, `href="../../../`+e.URL+f+`"`) {
				t.Errorf("%s: the page does not link %s", e.URL, f)
			}
		}
		md := readFile(t, cfg.Destination, e.URL+"session.md")
		if !strings.HasPrefix(md, "---\ntitle: ") || !strings.Contains(md, "\nid: \""+e.ID+"\"\n") {
			t.Errorf("%s: session.md starts %.80q", e.URL, md)
		}
		s, err := export.Decode([]byte(readFile(t, cfg.Destination, e.URL+"session.json")))
		if err != nil || s.ID != e.ID || s.Source != e.Source {
			t.Errorf("%s: session.json: %v, id %q, source %q", e.URL, err, s.ID, s.Source)
		}
		var n int
		for _, tu := range s.Turns {
			n += len(tu.Messages)
		}
		if n != e.Messages {
			t.Errorf("%s: session.json holds %d messages, sessions.json says %d", e.URL, n, e.Messages)
		}
	}

	// The Markdown export of a session read by a reader, as a golden file.
	got := readFile(t, cfg.Destination, one(readSessions(t, cfg.Destination)).URL+"session.md")
	golden := filepath.Join("testdata", "golden", "session.md")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./site -run Exports -update)", err)
	}
	if got != string(want) {
		t.Errorf("session.md differs from %s; if the change is intended, run go test ./site -run Exports -update\n%s", golden, firstDiff(string(want), got))
	}

	// The export command's Markdown is the site's, but for images, which
	// have no files beside it. Its source is the path as given.
	var buf bytes.Buffer
	t.Chdir(filepath.Join(dir, "content"))
	if _, err := Export(context.Background(), cfg, "alpha/one.jsonl", "", "md", &buf); err != nil {
		t.Fatal(err)
	}
	if buf.String() != got {
		t.Errorf("export of one file differs from the site's:\n%s", firstDiff(got, buf.String()))
	}
}

func TestOutputsTurnExportsOff(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	cfg, _, err := build(t, dir, map[string]any{"outputs": map[string]any{"markdown": false}})
	if err != nil {
		t.Fatal(err)
	}
	e := one(readSessions(t, cfg.Destination))
	if _, err := os.Stat(filepath.Join(cfg.Destination, e.URL, "session.md")); err == nil {
		t.Error("session.md written with outputs.markdown false")
	}
	if _, err := os.Stat(filepath.Join(cfg.Destination, e.URL, "session.json")); err != nil {
		t.Error("session.json not written with outputs.json on")
	}
	if page := readFile(t, cfg.Destination, e.URL+"index.html"); strings.Contains(page, "session.md") || !strings.Contains(page, "session.json") {
		t.Error("the page's export links do not follow outputs")
	}
	// By default a site writes the Markdown, not the JSON, which is for
	// programs (transcriptsite export gives it for any file).
	dir = treetest.Extract(t, "testdata/site.txtar")
	treetest.WriteTree(t, dir, map[string][]byte{"config.yaml": []byte("title: Defaults\n")})
	cfg, _, err = build(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	e = one(readSessions(t, cfg.Destination))
	if _, err := os.Stat(filepath.Join(cfg.Destination, e.URL, "session.json")); err == nil {
		t.Error("session.json written by default")
	}
	if page := readFile(t, cfg.Destination, e.URL+"index.html"); !strings.Contains(page, "session.md") || strings.Contains(page, "session.json") {
		t.Error("the page's export links are not the default's")
	}
	if _, _, err := LoadConfig(Options{Source: treetest.WriteConfig(t, "config.yaml", "outputs: false\n")}); err == nil || !strings.Contains(err.Error(), "outputs: want a map") {
		t.Errorf("outputs: false: err = %v", err)
	}
}

func TestExportChoosesASession(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	cfg, _, err := LoadConfig(Options{Source: dir})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "content", "alpha", "two.jsonl")
	ctx := context.Background()
	var buf bytes.Buffer
	if _, err := Export(ctx, cfg, file, "", "json", &buf); err != nil || !strings.Contains(buf.String(), `"id": "22222222-bbbb-4000-8000-000000000002"`) {
		t.Errorf("err %v, export %.200s", err, buf.String())
	}
	for _, c := range []struct{ file, id, format, want string }{
		{file, "", "pdf", `format "pdf": want one of md, json, html`},
		{file, "nope", "md", `holds no session "nope": it holds 22222222-bbbb-4000-8000-000000000002`},
		{filepath.Join(dir, "content", "notes.txt"), "", "md", "no session could be read from it"},
		{filepath.Join(dir, "content"), "", "md", "is a folder: give one session file in it"},
		{filepath.Join(dir, "content", "missing.jsonl"), "", "md", "missing.jsonl: no such file"},
	} {
		if _, err := Export(ctx, cfg, c.file, c.id, c.format, &buf); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q %s: err = %v, want %q", filepath.Base(c.file), c.id, c.format, err, c.want)
		}
	}
}

// TestExportsInMemory builds as serve does, into memory with the cache in
// memory: the exports are those built on disk, made the first time and
// from the cache the second.
func TestExportsInMemory(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	cfg, _, err := build(t, dir, map[string]any{"cacheDir": filepath.Join(t.TempDir(), "cache")})
	if err != nil {
		t.Fatal(err)
	}
	disk := treetest.Tree(t, cfg.Destination)
	b, err := NewBuilder(cfg, BuildOptions{Memory: true, IgnoreCache: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		files, rep, err := b.BuildFiles(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if want := []int{rep.Sessions, 0}[i]; rep.Rendered != want {
			t.Errorf("build %d rendered %d pages, want %d", i+1, rep.Rendered, want)
		}
		n := 0
		for name, data := range files {
			if strings.HasSuffix(name, "/session.md") || strings.HasSuffix(name, "/session.json") {
				n++
				if !bytes.Equal(data, disk[filepath.FromSlash(name)]) {
					t.Errorf("%s differs from the one built on disk", name)
				}
			}
		}
		if n != 2*rep.Sessions {
			t.Errorf("%d exports for %d sessions", n, rep.Sessions)
		}
	}
}
