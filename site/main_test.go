package site

import (
	"os"
	"testing"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// TestMain keeps the tests' build caches out of the user's cache dir.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "transcriptsite-test-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testSite is the site of sessions held whole, as a build without a cache
// makes it (those the config selects), and how to get the body of each of
// its sessions.
func testSite(cfg *Config, ss ...*transcript.Session) (*Site, func(*Session) *transcript.Session) {
	hs := make([]*transcript.Header, len(ss))
	bodies := map[*transcript.Header]*transcript.Session{}
	for i, s := range ss {
		hs[i] = s.Header()
		bodies[hs[i]] = s
	}
	return newSite(cfg, selected(cfg, hs)), func(s *Session) *transcript.Session { return bodies[s.header] }
}
