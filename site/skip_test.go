package site

import (
	"os"
	"testing"
)

// skip skips a test that needs a tool this machine lacks, but fails it in
// CI (TRANSCRIPTSITE_CI set), where .ci/run installs every tool.
func skip(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("TRANSCRIPTSITE_CI") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}
