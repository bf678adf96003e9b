package site

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/transcriptsite/transcriptsite/internal/treetest"
)

// ccFile is a Claude Code session file: one prompt, a title when title is
// not empty, in cwd when cwd is not empty.
func ccFile(id, cwd, title string, day int) []byte {
	rec := map[string]any{"parentUuid": nil, "sessionId": id, "type": "user", "uuid": "u1",
		"message":   map[string]any{"role": "user", "content": "prompt of " + id},
		"timestamp": fmt.Sprintf("2026-06-%02dT10:00:00Z", day)}
	if cwd != "" {
		rec["cwd"] = cwd
	}
	recs := []any{rec}
	if title != "" {
		recs = append(recs, map[string]any{"type": "custom-title", "customTitle": title, "sessionId": id})
	}
	return jsonl(true, recs...)
}

// gmFile is a Gemini CLI session file, whose project is named by its
// projectHash when the file is not in a chats folder.
func gmFile(id, project string) []byte {
	return jsonl(true,
		map[string]any{"sessionId": id, "projectHash": project, "startTime": "2026-06-01T10:00:00Z", "lastUpdated": "2026-06-01T10:00:00Z"},
		map[string]any{"id": "u1", "timestamp": "2026-06-01T10:00:01Z", "type": "user", "content": []any{map[string]any{"text": "hi"}}})
}

// windowsReserved are the device names Windows reserves in every folder,
// with or without an extension.
var windowsReserved = func() map[string]bool {
	m := map[string]bool{"con": true, "prn": true, "aux": true, "nul": true, "conin$": true, "conout$": true}
	for _, d := range []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³"} {
		m["com"+d], m["lpt"+d] = true, true
	}
	return m
}()

// portableName says what is wrong with a file or folder name that some
// file system would refuse or alias, or "".
func portableName(name string) string {
	base, _, _ := strings.Cut(strings.ToLower(name), ".")
	switch {
	case len(name) > 255:
		return "longer than 255 bytes"
	case !utf8.ValidString(name):
		return "not UTF-8"
	case name == "." || name == "..":
		return "a parent or current folder"
	case strings.ContainsAny(name, `<>:"/\|?*`) || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "a character Windows refuses"
	case strings.HasSuffix(name, ".") || strings.HasSuffix(name, " "):
		return "a trailing dot or space, which Windows drops"
	case windowsReserved[strings.TrimRight(base, " ")]:
		return "a device name Windows reserves"
	}
	return ""
}

func TestPortableName(t *testing.T) {
	for _, bad := range []string{"CON", "nul.txt", "Com1", "lpt9.html", "aux .x", "a.", "a ", "..", "a:b", "a\x00b", strings.Repeat("a", 256), "\xff"} {
		if portableName(bad) == "" {
			t.Errorf("%q passes", bad)
		}
	}
	for _, good := range []string{"index.html", "con-1", "console", "project-con", "2026-06-01-a-b-12345678", strings.Repeat("a", 255)} {
		if why := portableName(good); why != "" {
			t.Errorf("%q: %s", good, why)
		}
	}
}

func TestHostilePaths(t *testing.T) {
	long := strings.Repeat("x", 10000)
	longUTF8 := strings.Repeat("é日", 2000)
	// A hash collision a session file can force: two sessions that share a
	// URL get a hash of their id, format and source instead of the short
	// id; a third session can take that hash as its id.
	crafted := hash8("12345678-same", "claude-code", "c/1.jsonl") + "-0000"
	type file struct{ name, data string }
	cc := func(name, id, cwd, title string, day int) file {
		return file{name, string(ccFile(id, cwd, title, day))}
	}
	for _, c := range []struct {
		name     string
		files    []file
		sessions int // the sessions the files hold
	}{
		{"traversal in ids", []file{
			cc("a/1.jsonl", "../../../../etc/passwd", "", "", 1),
			cc("a/2.jsonl", "/etc/passwd", "", "", 1),
			cc("a/3.jsonl", "..", "", "", 1),
			cc("a/4.jsonl", ".", "", "", 1),
			cc("a/5.jsonl", `C:\Windows\System32\..\..`, "", "", 1),
			cc("a/6.jsonl", `\\server\share\x`, "", "", 1),
		}, 6},
		{"traversal in titles, folders and projects", []file{
			cc("a/1.jsonl", "t1", "", "../../../../tmp/escape", 1),
			cc("a/2.jsonl", "t2", "/w/../../..", "/etc/passwd", 1),
			cc("a/3.jsonl", "t3", "..", "..", 1),
			cc("a/4.jsonl", "t4", `C:\..\..\`, `..\..\x`, 1),
			cc("a/5.jsonl", "t5", "/", "/", 1),
			{"g/1.jsonl", string(gmFile("g1", "../../../../tmp/escape"))},
			{"g/2.jsonl", string(gmFile("g2", "/"))},
			{"g/3.jsonl", string(gmFile("g3", ".."))},
		}, 8},
		{"NUL bytes", []file{
			cc("a/1.jsonl", "a\x00b", "/w/a\x00b", "t\x00t", 1),
			cc("a/2.jsonl", "\x00", "\x00", "\x00", 1),
			{"g/1.jsonl", string(gmFile("g\x00", "p\x00../x"))},
		}, 3},
		{"very long names", []file{
			cc("a/1.jsonl", long, "/w/"+long, long, 1),
			cc("a/2.jsonl", long+"y", "/w/"+long, long, 1),
			cc("a/3.jsonl", longUTF8, "/w/"+longUTF8, longUTF8, 1),
			cc("a/"+strings.Repeat("n", 240)+".jsonl", "n1", "", "", 1),
			{"g/1.jsonl", string(gmFile("g1", long))},
		}, 5},
		{"names Windows reserves", []file{
			cc("a/1.jsonl", "CON", "/w/CON", "CON", 1),
			cc("a/2.jsonl", "NUL", "/w/nul", "NUL", 1),
			cc("a/3.jsonl", "COM1", "/w/COM1", "com1", 1),
			cc("a/4.jsonl", "aux.txt", "/w/aux.txt", "aux.txt", 1),
			cc("a/5.jsonl", "LPT9", "/w/lpt9.", "PRN", 1),
			cc("a/6.jsonl", "x6", "/w/COM²", "", 1),
			cc("CON/1.jsonl", "x7", "", "", 1),
			{"g/1.jsonl", string(gmFile("g1", "prn"))},
		}, 8},
		{"trailing dots and spaces", []file{
			cc("a/1.jsonl", "id. ", "/w/app.", "title. ", 1),
			cc("a/2.jsonl", "id..", "/w/app ", "  ", 1),
			cc("a/3.jsonl", "...", "/w/...", "...", 1),
			cc("trailing. /1.jsonl", "x4", "", "", 1),
		}, 4},
		{"look-alike unicode", []file{
			cc("a/1.jsonl", "\u2024\u2024\u2215etc", "/w/a\uff0fb", "\uff0e\uff0e\uff0f\uff0e\uff0e\uff0fetc", 1),
			cc("a/2.jsonl", "\u202egnp.exe", "/w/\u202egnp.exe", "\u202eevil\u202c", 1),
			cc("a/3.jsonl", "\u2024\u2024", "/w/a\u2024\u2024", "a\u2024\u2024b", 1),
			cc("\uff0e\uff0e/1.jsonl", "x4", "", "", 1),
			{"g/1.jsonl", string(gmFile("g1", "\uff0e\uff0e\uff0f\uff0e\uff0e"))},
		}, 5},
		{"names that differ only in case", []file{
			cc("a/1.jsonl", "ABCDEF01-0000", "/w/App", "Fix Bug", 1),
			cc("a/2.jsonl", "abcdef01-0000", "/w/app", "fix bug", 1),
			cc("a/3.jsonl", "Session-One", "/w/APP", "FIX BUG", 1),
			cc("a/4.jsonl", "session-one", "/w/aPp", "Fix bug", 1),
			cc("Dir/1.jsonl", "d1", "", "", 1),
			cc("dir/1.jsonl", "d2", "", "", 1),
		}, 6},
		{"same id in different files", []file{
			cc("a/1.jsonl", "12345678-dup", "/w/app", "Same", 1),
			cc("b/1.jsonl", "12345678-dup", "/w/app", "Same", 1),
			cc("c/1.jsonl", "12345678-dup", "/w/app", "Same", 1),
			{"g/1.jsonl", string(gmFile("12345678-dup", "app"))},
		}, 4},
		{"an id that takes another session's hash", []file{
			cc("b/1.jsonl", "12345678-same", "/w/app", "Same", 1),
			cc("c/1.jsonl", "12345678-same", "/w/app", "Same", 1),
			cc("d/1.jsonl", crafted, "/w/app", "Same", 1),
		}, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := t.TempDir()
			files := map[string][]byte{"config.yaml": []byte("title: Paths\n")}
			for _, f := range c.files {
				files[filepath.Join("content", filepath.FromSlash(f.name))] = []byte(f.data)
			}
			treetest.WriteTree(t, src, files)
			parent := t.TempDir()
			dest := filepath.Join(parent, "public")
			_, rep, err := build(t, src, map[string]any{"destination": dest})
			if err != nil {
				t.Fatal(err)
			}
			checkSitePaths(t, dest, c.sessions)
			if rep.Sessions != c.sessions {
				t.Errorf("%d sessions, want %d", rep.Sessions, c.sessions)
			}
			// Nothing beside the site, nothing added to the sources.
			if entries, _ := os.ReadDir(parent); len(entries) != 1 {
				t.Errorf("beside the site: %v", entries)
			}
			n := 0
			_ = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					n++
				}
				return err
			})
			if n != len(files) {
				t.Errorf("the site's folder holds %d files, not the %d it had", n, len(files))
			}
		})
	}
}

// checkSitePaths checks a built site: every session has its own page, and every
// file of the site is inside it under a name every file system takes, and
// no two names differ only in case.
func checkSitePaths(t *testing.T, dest string, sessions int) {
	t.Helper()
	list := readSessions(t, dest)
	if len(list) != sessions {
		t.Errorf("sessions.json lists %d sessions, want %d", len(list), sessions)
	}
	urls := map[string]string{}
	for _, e := range list {
		key := strings.ToLower(e.URL)
		if other, ok := urls[key]; ok {
			t.Errorf("sessions %q and %q share the page %s", truncateBytes(e.ID, 40), truncateBytes(other, 40), e.URL)
		}
		urls[key] = e.ID
		if !strings.HasPrefix(e.URL, "sessions/") || !fs.ValidPath(strings.TrimSuffix(e.URL, "/")) {
			t.Errorf("session %q: URL %q", truncateBytes(e.ID, 40), e.URL)
			continue
		}
		page, err := os.ReadFile(filepath.Join(dest, filepath.FromSlash(e.URL), "index.html"))
		if err != nil {
			t.Errorf("session %q has no page: %v", truncateBytes(e.ID, 40), err)
		} else if !strings.Contains(string(page), "prompt of ") && e.Format == "claude-code" {
			t.Errorf("the page of session %q is not its own", truncateBytes(e.ID, 40))
		}
	}
	seen := map[string]string{}
	err := filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			t.Errorf("symlink %s", p)
		}
		rel, err := filepath.Rel(dest, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			t.Errorf("%s is outside the site", p)
		}
		if rel == "." {
			return nil
		}
		if why := portableName(d.Name()); why != "" {
			t.Errorf("%s: %s", truncateBytes(rel, 300), why)
		}
		key := strings.ToLower(filepath.ToSlash(rel))
		if other, ok := seen[key]; ok {
			t.Errorf("%s and %s differ only in case", rel, other)
		}
		seen[key] = rel
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The session pages the site links are the ones it lists.
	var pages []string
	for p := range seen {
		if strings.HasPrefix(p, "sessions/") && strings.HasSuffix(p, "/index.html") {
			pages = append(pages, p)
		}
	}
	if len(pages) != len(list) {
		slices.Sort(pages)
		t.Errorf("%d session pages for %d sessions: %q", len(pages), len(list), pages)
	}
}
