package site

import (
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/internal/treetest"
)

// A program that builds a site without choosing its outputs (importing
// site/outputs) is told so, rather than given a site of nothing.
func TestBuildWithoutOutputsFails(t *testing.T) {
	defer func(table []func() Output) { outputs = table }(outputs)
	Use()
	_, _, err := build(t, treetest.Extract(t, "testdata/site.txtar"), nil)
	if err == nil || !strings.Contains(err.Error(), "imports site/outputs") {
		t.Errorf("a build without outputs: %v", err)
	}
}
