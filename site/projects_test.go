package site

import (
	"slices"
	"testing"

	"github.com/transcriptsite/transcriptsite/internal/treetest"
)

// TestGeminiProjectsNamedByFolder: a Gemini CLI session that knows its
// project only by the hash of its folder is listed under the folder's
// name when another session shows it: one of the same hash whose reader
// found it, or any session that ran in the folder; the config's project
// filters use that name. With no such session, the short hash stays.
func TestGeminiProjectsNamedByFolder(t *testing.T) {
	dir := treetest.Extract(t, "testdata/geminiprojects.txtar")
	st := loadSite(t, dir)
	got := map[string][]string{}
	for _, p := range st.Projects {
		for _, s := range p.Sessions {
			got[p.Name] = append(got[p.Name], s.ID[:min(4, len(s.ID))])
		}
	}
	for name, want := range map[string][]string{"shop": {"bbbb", "aaaa"}, "blog": {"c1", "cccc"}, "bb212dd2": {"dddd"}} {
		if !slices.Equal(got[name], want) {
			t.Errorf("project %s: sessions %q, want %q (all: %q)", name, got[name], want, got)
		}
	}
	if len(got) != 3 {
		t.Errorf("projects %q, want shop, blog and bb212dd2", got)
	}

	treetest.WriteTree(t, dir, map[string][]byte{"config.yaml": []byte("title: Shop\npublish:\n  include:\n    projects: [shop]\n")})
	var ids []string
	for _, s := range loadSite(t, dir).Sessions {
		ids = append(ids, s.ID[:min(4, len(s.ID))])
	}
	if !slices.Equal(ids, []string{"bbbb", "aaaa"}) {
		t.Errorf("publish.include.projects [shop] shows %q", ids)
	}
}
