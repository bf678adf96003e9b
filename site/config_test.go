package site

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeConfig(t *testing.T, name, body string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Mkdir(filepath.Join(dir, "content"), 0o755)
	return dir
}

func TestConfigLayers(t *testing.T) {
	dir := writeConfig(t, "config.yaml", "title: From file\nbaseURL: https://file.example/\nlanguageCode: de\nhighlight:\n  style: monokai\n")
	t.Setenv("TRANSCRIPTSITE_BASEURL", "https://env.example/docs")
	t.Setenv("TRANSCRIPTSITE_TITLE", "From env")
	cfg, warns, err := LoadConfig(Options{Source: dir, Overrides: map[string]any{"title": "From flag"}})
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	if cfg.Title != "From flag" || cfg.BaseURL != "https://env.example/docs/" || cfg.LanguageCode != "de" ||
		cfg.Highlight.Style != "monokai" || cfg.Highlight.DarkStyle != "github-dark" {
		t.Errorf("config = %+v", cfg)
	}
	if cfg.Destination != filepath.Join(dir, "public") || cfg.ContentDir != filepath.Join(dir, "content") {
		t.Errorf("paths %s %s", cfg.Destination, cfg.ContentDir)
	}
}

func TestConfigFormats(t *testing.T) {
	for name, body := range map[string]string{
		"config.toml": "title = \"T\"\n[params]\nfooter = \"f\"\n",
		"config.json": `{"title": "T", "params": {"footer": "f"}}`,
	} {
		cfg, _, err := LoadConfig(Options{Source: writeConfig(t, name, body)})
		if err != nil || cfg.Title != "T" || cfg.Params["footer"] != "f" {
			t.Errorf("%s: %v %+v", name, err, cfg)
		}
	}
}

func TestConfigUnknownKeyWarns(t *testing.T) {
	dir := writeConfig(t, "config.yaml", "title: T\ntitel: typo\nhighlight:\n  stlye: x\n")
	_, warns, err := LoadConfig(Options{Source: dir})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(warns, "\n")
	if len(warns) != 2 || !strings.Contains(got, `unknown key "titel"`) || !strings.Contains(got, `unknown key "highlight.stlye"`) {
		t.Errorf("warnings: %v", warns)
	}
}

func TestConfigBadValueNamesTheKey(t *testing.T) {
	for body, want := range map[string]string{
		"title: [a, b]\n":               "title: want a single value",
		"baseURL: ftp://example.com/\n": "baseURL:",
		"baseURL: relative/path\n":      "baseURL:",
		"baseURL: https://x.io/?a=1\n":  "must not have a query",
		"params: 3\n":                   "params: want a map",
		"highlight:\n  style: [1]\n":    "highlight.style: want a single value",
		"contentDir: does-not-exist\n":  "contentDir:",
		"destination: {a: 1}\n":         "destination: want a single value",
	} {
		_, _, err := LoadConfig(Options{Source: writeConfig(t, "config.yaml", body)})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "config.yaml") {
			t.Errorf("%q: err = %v, want it to name the file and %q", body, err, want)
		}
	}
}

func TestConfigWithoutFileUsesTheDemo(t *testing.T) {
	dir := t.TempDir()
	cfg, warns, err := LoadConfig(Options{Source: dir})
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	if cfg.File != "" || cfg.ContentDir != "(embedded demo)" || !strings.Contains(cfg.Title, "demo") {
		t.Errorf("config = %+v", cfg)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 0 {
		t.Errorf("loading the demo config wrote files: %v", entries)
	}
	// A content dir given on the command line replaces the demo content.
	content := t.TempDir()
	cfg, _, err = LoadConfig(Options{Source: dir, Overrides: map[string]any{"contentDir": content}})
	if err != nil || cfg.ContentDir != content {
		t.Errorf("contentDir override: %v %s", err, cfg.ContentDir)
	}
}
