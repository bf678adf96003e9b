package site

import (
	"os"
	"testing"
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
