package site

import (
	"strings"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/transcript"
)

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Fix the Login Button!":     "fix-the-login-button",
		"Café crème à la carte":     "cafe-creme-a-la-carte",
		"../../etc/passwd":          "etc-passwd",
		"  --weird___spacing--  ":   "weird-spacing",
		"日本語のタイトル":                  "",
		"CON":                       "con",
		"a\x00b":                    "a-b",
		"ｆｕｌｌｗｉｄｔｈ":                 "fullwidth",
		strings.Repeat("word ", 30): "word-word-word-word-word-word-word-word-word",
	} {
		if got := slug(in, 48); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestShortID(t *testing.T) {
	for in, want := range map[string]string{
		"9b1e6f2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b":         "9b1e6f2a",
		"agent-a0ad4f44468bdf20d":                      "a0ad4f44",
		"rollout-2026-01-02T03-04-05-ABCDEF0123456789": "abcdef01",
	} {
		if got := shortID(in); got != want {
			t.Errorf("shortID(%q) = %q, want %q", in, got, want)
		}
	}
	if a, b := shortID("ses_one"), shortID("ses_two"); a == b || len(a) != 8 {
		t.Errorf("ids without hex runs hash to %q and %q", a, b)
	}
}

func TestSessionPaths(t *testing.T) {
	day := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	mk := func(id, source, title, cwd string, started time.Time) *transcript.Session {
		return &transcript.Session{ID: id, Source: source, Title: title, CWD: cwd, Started: started, Format: "claude-code"}
	}
	st, _ := testSite(&Config{}, []*transcript.Session{
		mk("11112222-aaaa", "a.jsonl", "Same title", "/w/app", day),
		mk("11112222-aaaa", "b.jsonl", "Same title", "/w/app", day),
		mk("/../../x", "c.jsonl", "", `C:\Users\kim\My App\`, time.Time{}),
	}...)
	paths := map[string]bool{}
	for _, s := range st.Sessions {
		if paths[s.Path] {
			t.Errorf("duplicate path %s", s.Path)
		}
		paths[s.Path] = true
		if strings.Contains(s.Path, "..") || !strings.HasPrefix(s.Path, "sessions/") {
			t.Errorf("unsafe path %q", s.Path)
		}
	}
	if got := st.Sessions[2].Path; !strings.HasPrefix(got, "sessions/my-app/session-x-") {
		t.Errorf("undated windows-cwd session path = %q", got)
	}
	if len(st.Projects) != 2 || st.Projects[0].Name != "app" || st.Projects[1].Name != "My App" {
		t.Errorf("projects %+v", st.Projects)
	}
}

func TestDeviceName(t *testing.T) {
	for _, s := range []string{"con", "prn", "aux", "nul", "com0", "com9", "lpt1"} {
		if !deviceName(s) {
			t.Errorf("%s is a device name", s)
		}
	}
	for _, s := range []string{"", "cons", "com", "com10", "lpt-1", "nul-1", "project-con", "comx"} {
		if deviceName(s) {
			t.Errorf("%s is not a device name", s)
		}
	}
}

// Sessions never share a URL, even when one's id is made to match the
// hash another gets to tell it from a third, or when one file holds two
// sessions with the same id; and no project is named after a device.
func TestSessionPathsNeverCollide(t *testing.T) {
	day := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	mk := func(id, source, cwd string) *transcript.Session {
		return &transcript.Session{ID: id, Source: source, Title: "Same", CWD: cwd, Started: day, Format: "claude-code"}
	}
	crafted := hash8("12345678-same", "claude-code", "b.jsonl") + "-0000"
	st, _ := testSite(&Config{}, []*transcript.Session{
		mk("12345678-same", "b.jsonl", "/w/app"),
		mk("12345678-same", "c.jsonl", "/w/app"),
		mk(crafted, "d.jsonl", "/w/app"),
		mk("87654321-twice", "e.jsonl", "/w/app"),
		mk("87654321-twice", "e.jsonl", "/w/app"),
		mk("x", "f.jsonl", "/w/CON"),
		mk("y", "g.jsonl", `C:\w\Com1`),
	}...)
	paths := map[string]bool{}
	for _, s := range st.Sessions {
		if paths[s.Path] {
			t.Errorf("two sessions share %s", s.Path)
		}
		paths[s.Path] = true
	}
	if p := st.Sessions[0].Path; !strings.HasPrefix(p, "sessions/app/2026-05-01-same-") {
		t.Errorf("path %s", p)
	}
	for _, p := range st.Projects {
		if deviceName(p.Slug) || !strings.HasPrefix(p.Path, "projects/"+p.Slug+"/") {
			t.Errorf("project %q at %s", p.Name, p.Path)
		}
	}
	if len(st.Projects) != 3 || st.Projects[1].Slug != "project-con" || st.Projects[2].Slug != "project-com1" {
		t.Errorf("projects %+v %+v %+v", *st.Projects[0], *st.Projects[1], *st.Projects[2])
	}
}
