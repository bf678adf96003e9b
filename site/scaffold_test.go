package site

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/config"
	"github.com/transcriptsite/transcriptsite/internal/treetest"
)

// TestScaffoldConfig checks the config.yaml that `transcriptsite new site`
// writes: it loads without a warning and shows every key, so a key added
// later is documented there too.
func TestScaffoldConfig(t *testing.T) {
	src, err := os.ReadFile("../cmd/transcriptsite/scaffold/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := treetest.WriteConfig(t, "config.yaml", string(src))
	cfg, warns, err := LoadConfig(Options{Source: dir})
	if err != nil || len(warns) > 0 {
		t.Fatalf("%v %v", err, warns)
	}
	if !cfg.Redact.Enabled || cfg.Destination != filepath.Join(dir, "public") {
		t.Errorf("config %+v", cfg)
	}
	showsEveryKey(t, "the scaffold's config.yaml", src)
}

// TestDemoConfigShowsEveryKey holds the demo config.yaml, the reference of
// every key, to the same rule.
func TestDemoConfigShowsEveryKey(t *testing.T) {
	src, err := os.ReadFile("../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	showsEveryKey(t, "config.yaml", src)
}

// showsEveryKey checks that a config file shows every key of Config,
// commented out or not, at its depth.
func showsEveryKey(t *testing.T, name string, src []byte) {
	t.Helper()
	for _, key := range config.Keys(&Config{}) {
		depth := strings.Count(key, ".")
		last := key[strings.LastIndexByte(key, '.')+1:]
		indent := `(?mi)^#? *`
		if depth > 0 {
			indent = `(?mi)^ *#? *`
		}
		if !regexp.MustCompile(indent + regexp.QuoteMeta(last) + `:`).Match(src) {
			t.Errorf("%s does not show %s", name, key)
		}
	}
}
