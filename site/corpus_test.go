package site

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusSite returns the shared corpus beside the repository, and a site
// dir to build it in; it skips the test when the corpus is not there.
func corpusSite(t *testing.T) (corpus, dir string) {
	t.Helper()
	corpus, _ = filepath.Abs("../../shared/corpus")
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("no shared corpus beside the repository")
	}
	dir = t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("title: Corpus\n"), 0o644)
	return corpus, dir
}

// TestCorpusSite builds the shared corpus beside the repository, when it is
// there, and checks that every session has its page and that every tool
// kind is rendered by its own partial somewhere.
func TestCorpusSite(t *testing.T) {
	corpus, dir := corpusSite(t)
	cfg, rep, err := build(t, dir, map[string]any{"contentDir": corpus})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Notices) > 0 {
		t.Errorf("notices: %q", rep.Notices)
	}
	var pages strings.Builder
	for _, e := range readSessions(t, cfg.Destination) {
		if e.Messages == 0 {
			t.Errorf("%s has no messages", e.Source)
		}
		pages.WriteString(readFile(t, cfg.Destination, e.URL+"index.html"))
	}
	all := pages.String()
	for _, want := range []string{
		`class="tool tool-shell`, `class="tool tool-edit`, `class="tool tool-write`, `class="tool tool-read`,
		`class="tool tool-search`, `class="tool tool-web`, `class="tool tool-task`, `class="tool tool-mcp`,
		`class="tool tool-other`, `class="checklist"`, `class="subagent-link"`, `class="row add"`,
		`class="thinking"`, `class="event event-compaction"`, `class="image"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no session page has %s", want)
		}
	}
	if strings.ContainsAny(all, "\x1b\x00") {
		t.Error("a control byte reached a page")
	}
	checkLinks(t, cfg.Destination, "")
}

// TestReleasedSessionsBuildTheSameSite builds the shared corpus with every
// session held in memory (no cache), then through a cache that holds what
// it parses (cold) or releases it, and from that cache (warm): the sites
// must be the same to the byte, so merging files in groups and reading
// turns back loses nothing.
func TestReleasedSessionsBuildTheSameSite(t *testing.T) {
	corpus, dir := corpusSite(t)
	run := func(cacheDir string) (map[string][]byte, *Report) {
		cfg, _, err := LoadConfig(Options{Source: dir, Overrides: map[string]any{"contentDir": corpus}})
		if err != nil {
			t.Fatal(err)
		}
		cfg.CacheDir = cacheDir
		rep, err := Build(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return tree(t, cfg.Destination), rep
	}
	held, _ := run("")
	builds := map[string]map[string][]byte{}
	for _, hold := range []int64{holdBytes, 0} { // the corpus held whole, then none of it
		name := map[bool]string{true: "held", false: "released"}[hold > 0]
		defer func(h int64) { holdBytes = h }(holdBytes)
		holdBytes = hold
		cache := t.TempDir()
		cold, rep := run(cache)
		if rep.Rendered != rep.Sessions {
			t.Errorf("%s cold build rendered %d of %d sessions", name, rep.Rendered, rep.Sessions)
		}
		warm, rep := run(cache)
		if rep.Rendered != 0 {
			t.Errorf("%s warm build rendered %d sessions", name, rep.Rendered)
		}
		builds[name+" cold"], builds[name+" warm"] = cold, warm
	}
	for name, site := range builds {
		for rel, data := range held {
			if got, ok := site[rel]; !ok {
				t.Errorf("%s build: no %s", name, rel)
			} else if !bytes.Equal(got, data) {
				t.Errorf("%s build: %s differs from the build that held every session", name, rel)
			}
		}
		for rel := range site {
			if _, ok := held[rel]; !ok {
				t.Errorf("%s build: %s is not in the build that held every session", name, rel)
			}
		}
	}
	if len(held) < 100 {
		t.Errorf("only %d files built", len(held))
	}
}
