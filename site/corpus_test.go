package site

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCorpusSite builds the shared corpus beside the repository, when it is
// there, and checks that every session has its page and that every tool
// kind is rendered by its own partial somewhere.
func TestCorpusSite(t *testing.T) {
	corpus, _ := filepath.Abs("../../shared/corpus")
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("no shared corpus beside the repository")
	}
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("title: Corpus\n"), 0o644)
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
