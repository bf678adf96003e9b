package siteconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/internal/treetest"
)

func TestConfigLayers(t *testing.T) {
	dir := treetest.WriteConfig(t, "config.yaml", "title: From file\nbaseURL: https://file.example/\nlanguageCode: de\nhighlight:\n  style: monokai\n")
	t.Setenv("TRANSCRIPTSITE_BASEURL", "https://env.example/docs")
	t.Setenv("TRANSCRIPTSITE_TITLE", "From env")
	cfg, warns, err := Load(Options{Source: dir, Overrides: map[string]any{"title": "From flag"}})
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	if cfg.Title != "From flag" || cfg.BaseURL != "https://env.example/docs/" || cfg.LanguageCode != "de" ||
		cfg.Highlight.Style != "monokai" || cfg.Highlight.DarkStyle != "github-dark" {
		t.Errorf("config = %+v", cfg)
	}
	if cfg.Destination != filepath.Join(dir, "public") || len(cfg.Mounts) != 1 || cfg.Mounts[0] != (Mount{Dir: filepath.Join(dir, "content")}) {
		t.Errorf("paths %s %v", cfg.Destination, cfg.Mounts)
	}
}

func TestConfigFormats(t *testing.T) {
	for name, body := range map[string]string{
		"config.toml": "title = \"T\"\n[params]\nfooter = \"f\"\n",
		"config.json": `{"title": "T", "params": {"footer": "f"}}`,
	} {
		cfg, _, err := Load(Options{Source: treetest.WriteConfig(t, name, body)})
		if err != nil || cfg.Title != "T" || cfg.Params["footer"] != "f" {
			t.Errorf("%s: %v %+v", name, err, cfg)
		}
	}
}

func TestConfigUnknownKeyWarns(t *testing.T) {
	dir := treetest.WriteConfig(t, "config.yaml", "title: T\ntitel: typo\nhighlight:\n  stlye: x\n")
	_, warns, err := Load(Options{Source: dir})
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
		_, _, err := Load(Options{Source: treetest.WriteConfig(t, "config.yaml", body)})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "config.yaml") {
			t.Errorf("%q: err = %v, want it to name the file and %q", body, err, want)
		}
	}
}

func TestConfigWithoutFileUsesTheDemo(t *testing.T) {
	dir := t.TempDir()
	cfg, warns, err := Load(Options{Source: dir})
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	if cfg.File != "" || len(cfg.Mounts) != 1 || cfg.Mounts[0] != (Mount{}) || !strings.Contains(cfg.Title, "demo") {
		t.Errorf("config = %+v", cfg)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 0 {
		t.Errorf("loading the demo config wrote files: %v", entries)
	}
	// A content dir given on the command line replaces the demo content.
	content := t.TempDir()
	cfg, _, err = Load(Options{Source: dir, Overrides: map[string]any{"contentDir": content}})
	if err != nil || len(cfg.Mounts) != 1 || cfg.Mounts[0].Dir != content {
		t.Errorf("contentDir override: %v %v", err, cfg.Mounts)
	}
}

func TestConfigContentDirsAndAgents(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a/logs", "b/logs", "home/.claude/projects/p", "home/.codex/sessions"} {
		_ = os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	_ = os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("contentDirs: [a/logs, b/logs]\nagents: true\nagentDirs:\n  codex: [~/elsewhere]\n"), 0o644)
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	_ = os.MkdirAll(filepath.Join(dir, "home/elsewhere"), 0o755)
	cfg, _, err := Load(Options{Source: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []Mount{
		{"logs", filepath.Join(dir, "a/logs")},
		{"logs-2", filepath.Join(dir, "b/logs")},
		{"claude", filepath.Join(dir, "home/.claude/projects")},
		{"codex", filepath.Join(dir, "home/elsewhere")},
	}
	if len(cfg.Mounts) != len(want) {
		t.Fatalf("mounts %v, want %v", cfg.Mounts, want)
	}
	for i := range want {
		if cfg.Mounts[i] != want[i] {
			t.Errorf("mount %d = %v, want %v", i, cfg.Mounts[i], want[i])
		}
	}
	if got := cfg.DiskPath("logs-2/x/s.jsonl"); got != filepath.Join(dir, "b/logs/x/s.jsonl") {
		t.Errorf("DiskPath = %s", got)
	}
	// The single form on the command line replaces the list.
	cfg, _, err = Load(Options{Source: dir, Overrides: map[string]any{"contentDir": filepath.Join(dir, "a/logs"), "agents": false}})
	if err != nil || len(cfg.Mounts) != 1 || cfg.Mounts[0].Name != "" {
		t.Errorf("contentDir flag: %v %v", err, cfg.Mounts)
	}
	for body, want := range map[string]string{
		"agents: perhaps\n":                        "agents: want true or false",
		"contentDirs: [1, 2]\n":                    "contentDirs: want a list of strings",
		"agents: true\nagentDirs: {nosuch: [x]}\n": `agentDirs: "nosuch" is not a format`,
	} {
		_, _, err := Load(Options{Source: treetest.WriteConfig(t, "config.yaml", body)})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", body, err, want)
		}
	}
}

// search.include names parts of a message the index knows, and no other.
func TestSearchIncludeUnknownPart(t *testing.T) {
	if _, _, err := Load(Options{Source: treetest.WriteConfig(t, "config.yaml", "search:\n  include: [everything]\n")}); err == nil ||
		!strings.Contains(err.Error(), `search.include: "everything" is not one of`) {
		t.Errorf("an unknown search.include part: %v", err)
	}
}
