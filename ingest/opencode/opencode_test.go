package opencode

import (
	"bytes"
	"context"
	"database/sql"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/ingest/ingesttest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// describe lists a session's messages as role, a * for meta, and the
// kinds of their parts.

func TestOpencodeExport(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "export.json")
	ingesttest.WantWarnings(t, warns, `export.json:425: Unknown part type "hologram": shown as an unknown event`)
	for _, c := range []struct{ name, got, want string }{
		{"id", s.ID, "ses_0a1b2c3d4e5fAbCdEfGhIjKlMn"},
		{"format", s.Format, "opencode"},
		{"agent", s.Agent, "opencode"},
		{"version", s.AgentVersion, "1.3.0"},
		{"title", s.Title, "Fix the failing test"},
		{"cwd", s.CWD, "/home/ana/app"},
		{"models", strings.Join(s.Models, ","), "claude-sonnet-4-5,gpt-5"},
		{"started", s.Started.Format("15:04:05"), "10:00:00"},
		{"ended", s.Ended.Format("15:04:05"), "10:05:00"},
		{"cost", s.Meta["cost (USD)"], "0.06"},
		{"changes", s.Meta["changes"], "1 files, +3 −1"},
		{"share", s.Meta["share url"], "https://opncd.ai/s/abc"},
		{"providers", s.Meta["providers"], "anthropic, openai"},
		{"children", strings.Join(s.ChildIDs, ","), "ses_0a1b2c3d4e5fChild0000000000"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	want := []string{
		"user(text text image event)", "user*(text)", // the prompt; the file opencode read for it
		"assistant(thinking call result call result call result call result call result call text)", "system*(event)", // the files it changed
		"user*(event)", "assistant*(text)", // a compaction and its summary
		"user(text)", "assistant(event event event)",
		"system*(text)", // the todo list
	}
	if got := ingesttest.Describe(s); !slices.Equal(got, want) {
		t.Errorf("messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(s.Turns) != 2 || s.Turns[0].Status != "" || s.Turns[1].Status != transcript.Aborted {
		t.Errorf("%d turns, statuses %q %q; want 2, \"\" and aborted", len(s.Turns), s.Turns[0].Status, s.Turns[1].Status)
	}
	ms := s.Messages()
	// Two steps, two responses: their step-finish counts, not the message's
	// last. opencode counts reasoning apart from output; Output holds both.
	if u := ms[2].Usage; u != (transcript.Usage{Input: 400, Output: 65, CacheRead: 1400, CacheWrite: 50, Reasoning: 5}) {
		t.Errorf("assistant usage = %+v", u)
	}
	if u := ms[5].Usage; u != (transcript.Usage{Input: 50, Output: 10}) {
		t.Errorf("summary usage (from the message, without steps) = %+v", u)
	}
	if p := ms[0].Parts[1]; p.Text != "(file file:///home/ana/app/src/app.ts, text/plain)" && p.Text != "(file app.ts, text/plain)" {
		t.Errorf("file part = %q", p.Text)
	}
	if img := ms[0].Parts[2].Image; img == nil || img.MediaType != "image/png" || len(img.Data) == 0 {
		t.Errorf("image = %+v", img)
	}

	checkCalls(t, s, ms)
}

func checkCalls(t *testing.T, s *transcript.Session, ms []*transcript.Message) {
	calls := map[string]*transcript.ToolCall{}
	s.Parts(func(_ *transcript.Message, p *transcript.Part) {
		if p.Call != nil {
			calls[p.Call.ID] = p.Call
		}
	})
	for _, c := range []struct {
		id, output string
		isErr      bool
		exit       int // -1: none
		images     int
		kind       transcript.ToolKind
	}{
		{"call_bash", "1 failing", true, 1, 0, transcript.ShellTool},
		{"call_read", "File not found: /home/ana/app/src/missing.ts", true, -1, 0, transcript.ReadTool},
		{"call_shot", "Captured", false, -1, 1, transcript.OtherTool},
		{"call_edit", "@@ -1 +1 @@\n-a\n+b\n", false, -1, 0, transcript.EditTool}, // the diff, as the output is empty
		{"call_task", "task_id: ses_0a1b2c3d4e5fChild0000000000 (for resuming to continue this task if needed)\n\n<task_result>\nTwo callers.\n</task_result>", false, -1, 0, transcript.TaskTool},
	} {
		call := calls[c.id]
		if call == nil || call.Result == nil {
			t.Errorf("%s: no call with a paired result: %+v", c.id, call)
			continue
		}
		r := call.Result
		if r.Output != c.output || r.IsError != c.isErr || len(r.Images) != c.images || call.Kind != c.kind {
			t.Errorf("%s: kind %s, result %q err=%v images=%d", c.id, call.Kind, r.Output, r.IsError, len(r.Images))
		}
		if (c.exit < 0) != (r.ExitCode == nil) || r.ExitCode != nil && *r.ExitCode != c.exit {
			t.Errorf("%s: exit code %v, want %d", c.id, r.ExitCode, c.exit)
		}
	}
	if c := calls["call_task"]; c.Subagent != "ses_0a1b2c3d4e5fChild0000000000" {
		t.Errorf("task subagent = %q", c.Subagent)
	}
	if c := calls["call_run"]; c == nil || c.Result != nil || c.Input != `{"command":"npm run watch"}` {
		t.Errorf("running call = %+v, want one without a result", c)
	}
	last := ms[7].Parts
	for i, want := range []string{"Retry 1 after APIError: Overloaded", `Unknown part type "hologram"`, "MessageAbortedError: The operation was aborted."} {
		if last[i].Text != want {
			t.Errorf("event %d = %q, want %q", i, last[i].Text, want)
		}
	}
	if raw := last[1].Event.Raw; !strings.Contains(raw, `"beam": "on"`) {
		t.Errorf("unknown part raw = %q, want the part", raw)
	}
	if got := ms[8].Parts[0].Text; got != "**Todos**\n\n- [x] Fix the test\n- [ ] ~~Refactor~~ *(cancelled)*\n- [ ] Release" {
		t.Errorf("todos = %q", got)
	}
}

// TestOpencodeStorage reads the legacy tree: a session is joined from the
// files of its messages and their parts, with ids from the paths.
func TestOpencodeStorage(t *testing.T) {
	res, err := ingest.Load(context.Background(), ingest.Root{FS: os.DirFS("testdata")})
	if err != nil {
		t.Fatal(err)
	}
	// project, todo, permission and share files are consumed
	ingesttest.WantWarnings(t, res.Warnings, `export.json:425: Unknown part type "hologram": shown as an unknown event`)
	byID := ingesttest.ByID(res.Sessions)
	if len(res.Sessions) != 3 || len(byID) != 3 {
		t.Fatalf("got %d sessions (%v), want the export's and 2 of the tree", len(res.Sessions), byID)
	}
	parent, child := byID["ses_0b000000001aParentSession"], byID["ses_0b000000002aChildSession0"]
	if parent == nil || child == nil {
		t.Fatalf("sessions %v: want the ids of the paths", byID)
	}
	for _, c := range []struct{ name, got, want string }{
		{"format", parent.Format, "opencode"},
		{"title", parent.Title, "Parent"},
		{"cwd", parent.CWD, "/home/ana/tool"}, // from the project's worktree
		{"source", parent.Source, "storage/session/e3f1a2/ses_0b000000001aParentSession.json"},
		{"share", parent.Meta["share url"], "https://opncd.ai/s/parent"},
		{"skipped", ingesttest.Skips(parent), "message without parts 1"},
		{"children", strings.Join(parent.ChildIDs, ","), "ses_0b000000002aChildSession0"},
		{"child's parent", child.ParentID, "ses_0b000000001aParentSession"},
		{"child's cwd", child.CWD, "/home/ana/tool"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	want := []string{"user(text)", "system*(text)", "assistant(call result text)", "assistant(text)", "system*(text)"}
	if got := ingesttest.Describe(parent); !slices.Equal(got, want) {
		t.Errorf("messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	ms := parent.Messages()
	if c := ms[2].Parts[0].Call; c == nil || c.Subagent != child.ID || c.Result == nil {
		t.Errorf("task call = %+v, want the child as its subagent, with its result", c)
	}
	if u := parent.Usage; u != (transcript.Usage{Input: 11, Output: 7}) {
		t.Errorf("usage = %+v", u)
	}
	if len(parent.Sources) != 11 || !slices.Contains(parent.Sources, "storage/project/e3f1a2.json") ||
		!slices.Contains(parent.Sources, "storage/part/msg_a9/prt_a9b.json") || slices.Contains(parent.Sources, "storage/permission/e3f1a2.json") {
		t.Errorf("sources = %v", parent.Sources)
	}
	if w := parent.Warnings; len(w) != 1 || !strings.HasPrefix(w[0], "storage/session/e3f1a2/ses_0b000000001aParentSession.json: message msg_a9: its own record is missing") {
		t.Errorf("warnings = %q", w)
	}
	if got := ingesttest.Describe(child); !slices.Equal(got, []string{"user(text)"}) {
		t.Errorf("child messages = %v", got)
	}
}

// schemaSQL is the part of opencode's schema the reader uses.
const schemaSQL = `
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL, directory text NOT NULL,
	title text NOT NULL, version text NOT NULL, share_url text, summary_additions integer, summary_deletions integer, summary_files integer,
	revert text, time_created integer NOT NULL, time_updated integer NOT NULL, time_archived integer);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE todo (session_id text NOT NULL, content text NOT NULL, status text NOT NULL, priority text NOT NULL, position integer NOT NULL,
	time_created integer NOT NULL, time_updated integer NOT NULL, PRIMARY KEY (session_id, position));
INSERT INTO project VALUES ('p1', '/home/ana/db', 'git', 1767261600000, 1767261600000);
INSERT INTO session VALUES ('ses_db1', 'p1', NULL, 'bold-fox', '', 'Rename a flag', '1.3.0', NULL, 2, 1, 1,
	'{"messageID":"msg_d3"}', 1767261600000, 1767261700000, NULL);
INSERT INTO session VALUES ('ses_db2', 'p1', 'ses_db1', 'calm-owl', '/home/ana/db', 'Check usages (@general subagent)', '1.3.0', NULL, NULL, NULL, NULL,
	NULL, 1767261610000, 1767261620000, NULL);
INSERT INTO message VALUES ('msg_d1', 'ses_db1', 1767261600000, 1767261600000, '{"role":"user","time":{"created":1767261600000}}');
INSERT INTO message VALUES ('msg_d2', 'ses_db1', 1767261601000, 1767261601000,
	'{"role":"assistant","time":{"created":1767261601000},"modelID":"kimi-k2","providerID":"moonshot","cost":0.5,"tokens":{"input":7,"output":3,"reasoning":0,"cache":{"read":0,"write":0}}}');
INSERT INTO message VALUES ('msg_d3', 'ses_db1', 1767261650000, 1767261650000, '{"role":"user","time":{"created":1767261650000}}');
INSERT INTO part VALUES ('prt_d1', 'msg_d1', 'ses_db1', 1, 1, '{"type":"text","text":"Rename --dry to --dry-run"}');
INSERT INTO part VALUES ('prt_d2b', 'msg_d2', 'ses_db1', 1, 1, '{"type":"text","text":"Renamed."}');
INSERT INTO part VALUES ('prt_d2a', 'msg_d2', 'ses_db1', 1, 1,
	'{"type":"tool","callID":"c1","tool":"task","state":{"status":"completed","input":{"description":"Check usages"},"output":"done","title":"","metadata":{"sessionId":"ses_db2"},"time":{"start":1,"end":2}}}');
INSERT INTO part VALUES ('prt_d3', 'msg_d3', 'ses_db1', 1, 1, '{"type":"text","text":"Thanks"}');
INSERT INTO message VALUES ('msg_e1', 'ses_db2', 1767261610000, 1767261610000, '{"role":"user","time":{"created":1767261610000}}');
INSERT INTO part VALUES ('prt_e1', 'msg_e1', 'ses_db2', 1, 1, '{"type":"text","text":"Check usages of --dry"}');
INSERT INTO todo VALUES ('ses_db1', 'Update docs', 'pending', 'low', 0, 1, 1);
`

// writeDB writes an opencode database at path with the sessions above
// and returns it open, as opencode keeps it. With wal, the rows are written
// to its -wal file and not checkpointed.
func writeDB(t testing.TB, path string, wal bool) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	setup := "PRAGMA journal_mode=DELETE;"
	if wal {
		setup = "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;"
	}
	if _, err := db.Exec(setup + schemaSQL); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestOpencodeDB(t *testing.T) {
	for _, wal := range []bool{false, true} {
		name := map[bool]string{false: "rollback journal", true: "wal"}[wal]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			db := writeDB(t, filepath.Join(dir, "opencode.db"), wal)
			defer db.Close() // open while read, as when opencode runs
			before := snapshotDir(t, dir)

			res, err := ingest.Load(context.Background(), ingest.Root{FS: os.DirFS(dir)})
			if err != nil {
				t.Fatal(err)
			}
			if after := snapshotDir(t, dir); !maps.Equal(before, after) {
				t.Errorf("the database's folder changed while read:\n%v\n%v", before, after)
			}
			ingesttest.WantWarnings(t, res.Warnings) // the -wal and -shm files are the database's
			if len(res.Sessions) != 2 {
				t.Fatalf("got %d sessions, want 2", len(res.Sessions))
			}
			s, child := res.Sessions[0], res.Sessions[1]
			for _, c := range []struct{ name, got, want string }{
				{"id", s.ID, "ses_db1"},
				{"source", s.Source, "opencode.db"},
				{"cwd", s.CWD, "/home/ana/db"}, // the project's worktree
				{"changes", s.Meta["changes"], "1 files, +2 −1"},
				{"cost", s.Meta["cost (USD)"], "0.5"},
				{"children", strings.Join(s.ChildIDs, ","), "ses_db2"},
				{"child's parent", child.ParentID, "ses_db1"},
				{"started", s.Started.Format("15:04:05"), "10:00:00"},
			} {
				if c.got != c.want {
					t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
				}
			}
			want := []string{"user(text)", "assistant(call result text)", "user(text)", "system*(text)"}
			if got := ingesttest.Describe(s); !slices.Equal(got, want) {
				t.Errorf("messages %v, want %v", got, want)
			}
			// A pending /undo reverted the last prompt; the todo list is not a message.
			for i, m := range s.Messages() {
				if want := map[bool]string{true: "msg_d2"}[i == 2]; m.Branch != want {
					t.Errorf("message %d branch = %q, want %q", i, m.Branch, want)
				}
			}
		})
	}
}

// snapshotDir maps the names of a folder's files to their content.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		m[e.Name()] = string(b)
	}
	return m
}

func TestOpencodeDetect(t *testing.T) {
	dir := t.TempDir()
	writeDB(t, filepath.Join(dir, "x.db"), false).Close()
	opencodeDB, _ := os.ReadFile(filepath.Join(dir, "x.db"))
	store := filepath.Join(dir, "store.db")
	db, err := sql.Open("sqlite", store)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB); CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	cursorDB, _ := os.ReadFile(store)
	for _, c := range []struct {
		name, path, head string
		want             bool
	}{
		{"database", "any.db", string(opencodeDB), true},
		{"database named opencode, schema past the head", "opencode-beta.db", string(ingest.SQLiteMagic) + strings.Repeat("\x00", 200), true},
		{"cursor store", "store.db", string(cursorDB), false},
		{"export", "x.json", `{"info":{"id":"ses_1","title":"t"},"messages":[]}`, true},
		{"session", "s.json", `{"id":"ses_1","projectID":"p","title":"t","time":{"created":1}}`, true},
		{"message", "m.json", `{"id":"msg_1","sessionID":"ses_1","role":"user","time":{"created":1}}`, true},
		{"part", "p.json", `{"id":"prt_1","sessionID":"ses_1","messageID":"msg_1","type":"text","text":"hi"}`, true},
		{"project in a tree", "storage/project/abc.json", `{"id":"abc","worktree":"/w","time":{}}`, true},
		{"project elsewhere", "abc.json", `{"id":"abc","worktree":"/w","time":{}}`, false},
		{"empty todo list in a tree", "storage/todo/ses_1.json", `[]`, true},
		{"empty list elsewhere", "ses_1.json", `[]`, false},
		{"todo list", "storage/todo/ses_1.json", `[{"id":"1","content":"c","status":"pending","priority":"low"}]`, true},
		{"other list in a todo folder", "storage/todo/ses_1.json", `[{"name":"x"}]`, false},
		{"an id alone", "x.json", `{"id":"ses_1"}`, false},
	} {
		h := &ingest.Head{Path: c.path, Data: []byte(c.head), EOF: true}
		if got := detect(h) > 0; got != c.want {
			t.Errorf("%s: detected %v, want %v", c.name, got, c.want)
		}
		if r := ingest.Detect(h); c.want && r != Reader {
			t.Errorf("%s: read by %v, want opencode", c.name, r)
		}
	}
}

func TestOpencodeLocation(t *testing.T) {
	env := map[string]string{}
	find := func() string {
		for _, l := range ingest.AgentLocations("/home/ana", func(k string) string { return env[k] }) {
			if l.Format == "opencode" {
				return l.Dir
			}
		}
		return ""
	}
	if got := find(); got != filepath.Join("/home/ana", ".local", "share", "opencode") {
		t.Errorf("dir = %q", got)
	}
	env["XDG_DATA_HOME"] = "/data"
	if got := find(); got != filepath.Join("/data", "opencode") {
		t.Errorf("dir with XDG_DATA_HOME = %q", got)
	}
}

func FuzzOpencode(f *testing.F) {
	ingesttest.SeedFuzz(f)
	for _, p := range []string{"storage/part/msg_a2/prt_a2a.json", "storage/message/ses_0b000000001aParentSession/msg_a2.json",
		"storage/session/e3f1a2/ses_0b000000001aParentSession.json", "storage/todo/ses_0b000000001aParentSession.json"} {
		if b, err := os.ReadFile(filepath.Join("testdata", p)); err == nil {
			f.Add(b)
		}
	}
	dir := f.TempDir()
	writeDB(f, filepath.Join(dir, "opencode.db"), false).Close()
	if b, err := os.ReadFile(filepath.Join(dir, "opencode.db")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.HasPrefix(data, ingest.SQLiteMagic) && len(data) > 1<<20 {
			return // a database is copied to disk: keep the fuzzer's files small
		}
		ingesttest.FuzzRead(t, Reader, "export.json", data)
		ingesttest.FuzzRead(t, Reader, "storage/part/msg_1/prt_1.json", data)
		ingesttest.FuzzRead(t, Reader, "storage/todo/ses_1.json", data)
	})
}

// TestLoadSkipsBareGit checks that a content dir's bare git repositories,
// such as opencode's snapshots beside its sessions, are not read.
func TestLoadSkipsBareGit(t *testing.T) {
	fsys := fstest.MapFS{
		"snapshot/e3f1a2/HEAD":            {Data: []byte("ref: refs/heads/main\n")},
		"snapshot/e3f1a2/config":          {Data: []byte("[core]\n")},
		"snapshot/e3f1a2/objects/ab/cdef": {Data: []byte("x\x9c")},
		"notes/HEAD":                      {Data: []byte("a file named HEAD, not a repository\n")},
		"export.json":                     {Data: []byte(`{"info":{"id":"ses_1","title":"t"},"messages":[]}`)},
	}
	res, err := ingest.Load(context.Background(), ingest.Root{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 2 || len(res.Sessions) != 1 {
		t.Errorf("read %d files into %d sessions, want 2 files (the export and notes/HEAD) and 1 session", res.Files, len(res.Sessions))
	}
}
