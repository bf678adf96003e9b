package site

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/internal/treetest"
	"github.com/transcriptsite/transcriptsite/redact/redacttest"
)

// secretSession is a Claude Code session with text in every place a secret
// can be: title, working directory, prompt, thinking, reply, tool input,
// tool output and an unknown record.
func secretSession(id, text string) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return fmt.Sprintf(`{"type":"custom-title","customTitle":%[2]s,"sessionId":"%[1]s"}
{"parentUuid":null,"sessionId":"%[1]s","cwd":%[3]s,"type":"user","message":{"role":"user","content":%[2]s},"uuid":"u1","timestamp":"2026-05-01T10:00:00Z"}
{"parentUuid":"u1","sessionId":"%[1]s","cwd":%[3]s,"type":"assistant","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":%[2]s},{"type":"text","text":%[2]s},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":%[2]s}}]},"uuid":"a1","timestamp":"2026-05-01T10:00:05Z"}
{"parentUuid":"a1","sessionId":"%[1]s","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":%[2]s}]},"uuid":"u2","timestamp":"2026-05-01T10:00:06Z"}
{"type":"zz-record-from-the-future","sessionId":"%[1]s","payload":%[2]s,"uuid":"z1","timestamp":"2026-05-01T10:00:07Z"}
`, id, q(text), q("/home/zq7user/src/"+text))
}

// TestBuildLeaksNoSecret builds a site from sessions that hold a secret of
// every rule, a site pattern, a literal and a home directory, and looks for
// each in every file the build wrote, and in every file name.
func TestBuildLeaksNoSecret(t *testing.T) {
	samples, _ := redacttest.Samples()
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(`title: Secrets
baseURL: https://user.github.io/repo/
outputs: {json: true}
redact:
  paths: true
  literals: [Project Nightingale]
  patterns:
    - kind: ticket
      regex: 'ACME-\d{6}'
`), 0o644)
	_ = os.MkdirAll(filepath.Join(dir, "content"), 0o755)
	secrets := []string{"Project Nightingale", "ACME-271828", "zq7user"}
	for i, s := range samples {
		text := s.Text
		if i == 0 {
			text += " for Project Nightingale (ACME-271828)"
		}
		_ = os.WriteFile(filepath.Join(dir, "content", fmt.Sprintf("s%03d.jsonl", i)),
			[]byte(secretSession(fmt.Sprintf("%08x-0000-4000-8000-000000000000", i), text)), 0o644)
		secrets = append(secrets, s.Secret)
	}
	cfg, rep, err := build(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != len(samples) || Sum(rep.Redacted) < 6*len(samples) || !strings.Contains(rep.String(), " secrets redacted)") {
		t.Errorf("report: %s, %v", rep, rep.Redacted)
	}

	// What to look for: each secret, and each long run of letters and
	// digits in it, in any case, as the search index keeps words.
	needles := redacttest.Needles(secrets...)
	files := treetest.Tree(t, cfg.Destination)
	if n := exportsIn(files); n != 2*len(samples) {
		t.Errorf("%d exports for %d sessions: the exports are not checked", n, len(samples))
	}
	for _, want := range []string{"index.html", "index.xml", "sessions.json", "sitemap.xml", "search/meta.json"} {
		if files[want] == nil {
			t.Errorf("no %s", want)
		}
	}
	for name, data := range files {
		text := strings.ToLower(name + "\n" + string(data))
		for _, n := range needles {
			if strings.Contains(text, n) {
				t.Errorf("%s holds %q", name, n)
			}
		}
	}
	for _, e := range readSessions(t, cfg.Destination) {
		if Sum(e.Redacted) < 6 || !strings.Contains(e.Title, "[REDACTED:") {
			t.Errorf("%s: redacted %v, title %q", e.ID, e.Redacted, e.Title)
		}
	}
}

// TestRedactionOff keeps every string as it was, and says so nowhere.
func TestRedactionOff(t *testing.T) {
	samples, _ := redacttest.Samples()
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("title: T\nredact:\n  enabled: false\n"), 0o644)
	_ = os.MkdirAll(filepath.Join(dir, "content"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, "content", "s.jsonl"), []byte(secretSession("aaaaaaaa-0000-4000-8000-000000000000", samples[0].Text)), 0o644)
	cfg, rep, err := build(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	list := readSessions(t, cfg.Destination)
	if len(rep.Redacted) != 0 || len(list) != 1 || len(list[0].Redacted) != 0 || !strings.Contains(string(treetest.Tree(t, cfg.Destination)["sessions.json"]), samples[0].Secret) {
		t.Errorf("with redaction off: report %v, sessions %+v", rep.Redacted, list)
	}
}

func TestRedactConfig(t *testing.T) {
	for body, want := range map[string]string{
		"redact:\n  patterns:\n    - kind: x\n      regex: '('\n": "redact.patterns[0] (x): error parsing regexp",
		"redact:\n  patterns:\n    - 'abc'\n":                     `redact.patterns[0]: want a map with any of kind, regex, got "abc"`,
		"redact:\n  enabled: maybe\n":                             "redact.enabled: want true or false",
		"redact:\n  literals: {a: b}\n":                           "redact.literals: want a list of strings",
	} {
		_, _, err := LoadConfig(Options{Source: treetest.WriteConfig(t, "config.yaml", body)})
		if err == nil || !strings.Contains(err.Error(), "config.yaml: "+want) {
			t.Errorf("%q: err = %v, want %q", body, err, want)
		}
	}
	cfg, _, err := LoadConfig(Options{Source: treetest.WriteConfig(t, "config.yaml", "redact:\n  literals: 'one: two'\n")})
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Redact.Enabled || len(cfg.Redact.Literals) != 1 || cfg.Redact.Literals[0] != "one: two" {
		t.Errorf("a single literal: %v %+v", err, cfg.Redact)
	}
}
