package site

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestScaffoldConfig checks the config.yaml that `transcriptsite new site`
// writes: it loads without a warning and shows every key, so a key added
// later is documented there too.
func TestScaffoldConfig(t *testing.T) {
	src, err := os.ReadFile("../cmd/transcriptsite/scaffold/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := writeConfig(t, "config.yaml", string(src))
	cfg, warns, err := LoadConfig(Options{Source: dir})
	if err != nil || len(warns) > 0 {
		t.Fatalf("%v %v", err, warns)
	}
	if !cfg.Redact.Enabled || cfg.Destination != filepath.Join(dir, "public") {
		t.Errorf("config %+v", cfg)
	}
	for key, sub := range keys {
		if !regexp.MustCompile(`(?mi)^#? *` + key + `:`).Match(src) {
			t.Errorf("the scaffold's config.yaml does not show %s", key)
		}
		for _, s := range sub {
			if !regexp.MustCompile(`(?mi)^ *#? *` + s + `:`).Match(src) {
				t.Errorf("the scaffold's config.yaml does not show %s.%s", key, s)
			}
		}
	}
}

// TestDemoConfigShowsEveryKey holds the demo config.yaml, the reference of
// every key, to the same rule.
func TestDemoConfigShowsEveryKey(t *testing.T) {
	src, err := os.ReadFile("../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for key, sub := range keys {
		if !regexp.MustCompile(`(?mi)^#? *` + key + `:`).Match(src) {
			t.Errorf("config.yaml does not document %s", key)
		}
		for _, s := range sub {
			if !regexp.MustCompile(`(?mi)^ *#? *` + s + `:`).Match(src) {
				t.Errorf("config.yaml does not document %s.%s", key, s)
			}
		}
	}
}
