package cursor

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/ingest/ingesttest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

func TestCursorTranscript(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "transcript.jsonl")
	ingesttest.WantWarnings(t, warns,
		"transcript.jsonl:5: skipped: unexpected end of JSON input",
		"transcript.jsonl:6: Unknown content part: shown as an unknown event",
		"transcript.jsonl:9: Unknown record: shown as an unknown event",
		"transcript.jsonl:12: incomplete last line skipped",
	)
	for _, c := range []struct{ name, got, want string }{
		{"id", s.ID, "transcript"},
		{"format", s.Format, "cursor"},
		{"agent", s.Agent, "Cursor"},
		{"cwd", s.CWD, "/Users/kim/app"},
		{"os", s.Meta["os version"], "darwin 25.0.0"},
		{"shell", s.Meta["shell"], "zsh"},
		{"first prompt", s.FirstPrompt(), "rename getUser to fetchUser"},
		// The <timestamp> tags, with their zones: the only times Cursor writes.
		{"started", s.Started.Format("2006-01-02 15:04"), "2026-03-03 09:15"},
		{"ended", s.Ended.Format("2006-01-02 15:04"), "2026-08-14 18:53"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	var got []string
	for _, m := range s.Messages() {
		got = append(got, string(m.Role)+map[bool]string{true: "*"}[m.Meta]+"("+ingesttest.Kinds(m)+")")
	}
	want := []string{
		"user*(text)", // <user_info>, kept as context
		"user(text)", "assistant(thinking text call call)",
		"user(text)", "assistant(call event)", "system*(event)",
		"user(text image)", "system*(event)", "system*(event)", "system*(event)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(s.Turns) != 4 {
		t.Fatalf("%d turns, want 4", len(s.Turns))
	}
	for i, want := range []string{"", transcript.Completed, transcript.Failed, transcript.Aborted} {
		if got := s.Turns[i].Status; got != want {
			t.Errorf("turn %d status = %q, want %q", i, got, want)
		}
	}
	ms := s.Messages()
	if !strings.HasPrefix(ms[0].Parts[0].Text, "<user_info>") || strings.Contains(ms[0].Parts[0].Text, "user_query") {
		t.Errorf("context = %q", ms[0].Parts[0].Text)
	}
	// Calls without ids get one from the file, the line and the block.
	var ids []string
	s.Parts(func(_ *transcript.Message, p *transcript.Part) {
		if p.Call != nil {
			ids = append(ids, p.Call.ID+" "+p.Call.Name+" "+string(p.Call.Kind)+" "+p.Call.Input)
		}
	})
	wantIDs := []string{
		`transcript#2.2 Grep search {"pattern":"getUser"}`, `toolu_9 Read read {"path":"a.ts"}`,
		`transcript#6.0 Shell shell {"command":"npm test"}`,
	}
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("calls = %q, want %q", ids, wantIDs)
	}
	for _, c := range []struct {
		m          int
		kind, text string
	}{
		{4, transcript.Unknown, "Unknown content part"},
		{5, transcript.ErrorEvent, "Connection lost"},
		{7, transcript.Unknown, "Unknown record"},
		{8, transcript.Interrupt, "User aborted/interrupted manually."},
		{9, "info", "Turn ended: paused"},
	} {
		p := ms[c.m].Parts[len(ms[c.m].Parts)-1]
		if p.Event == nil || p.Event.Kind != c.kind || p.Text != c.text {
			t.Errorf("message %d = %+v, want event %s %q", c.m, p, c.kind, c.text)
		}
	}
	if raw := ms[7].Parts[0].Event.Raw; raw != `{"type":"checkpoint","id":"c1"}` {
		t.Errorf("unknown record raw = %q", raw)
	}
	if img := ms[6].Parts[1].Image; img == nil || img.MediaType != "image/png" {
		t.Errorf("image = %+v", img)
	}
}

func TestCursorSubagents(t *testing.T) {
	res, err := ingest.Load(context.Background(), ingest.Root{FS: os.DirFS("testdata/projects")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 || len(res.Sessions) != 2 {
		t.Fatalf("%d sessions, warnings %v", len(res.Sessions), res.Warnings)
	}
	byID := map[string]*transcript.Session{}
	for _, s := range res.Sessions {
		byID[s.ID] = s
		if s.Project != "home-kim-app" {
			t.Errorf("%s: project %q", s.ID, s.Project)
		}
	}
	p, sub := byID["p1"], byID["s1"]
	if p == nil || sub == nil || sub.ParentID != "p1" || !slices.Equal(p.ChildIDs, []string{"s1"}) {
		t.Fatalf("parent %+v, subagent %+v", p, sub)
	}
	if p.Turns[0].Status != transcript.Completed || sub.FirstPrompt() != "List the packages" {
		t.Errorf("parent status %q, subagent prompt %q", p.Turns[0].Status, sub.FirstPrompt())
	}
}

func TestCursorText(t *testing.T) {
	s, warns := ingesttest.OneSession(t, "legacy.txt")
	ingesttest.WantWarnings(t, warns)
	var got []string
	for _, m := range s.Messages() {
		got = append(got, string(m.Role)+"("+ingesttest.Kinds(m)+")")
	}
	want := []string{"user(text)", "assistant(thinking text call call)", "tool(result)", "tool(result)", "tool(result)", "assistant(thinking text)"}
	if !slices.Equal(got, want) {
		t.Fatalf("messages = %q, want %q", got, want)
	}
	ms := s.Messages()
	if s.FirstPrompt() != "fix lint" || ms[1].Parts[0].Text != "Two files to check." || ms[1].Parts[1].Text != "I'll grep twice." {
		t.Errorf("prompt %q, assistant %q %q", s.FirstPrompt(), ms[1].Parts[0].Text, ms[1].Parts[1].Text)
	}
	// Results pair with calls of the same name, in order.
	c1, c2 := ms[1].Parts[2].Call, ms[1].Parts[3].Call
	if c1.ID != "legacy#9" || c1.Input != `{"pattern":"foo","path":"src"}` || c1.Result == nil || c1.Result.Output != "src/a.ts" {
		t.Errorf("first call = %+v result %+v", c1, c1.Result)
	}
	if c2.Input != `{"pattern":"bar","multi":"first line\nsecond: line"}` || c2.Result == nil || c2.Result.Output != "    indented match in src/b.ts" {
		t.Errorf("second call = %+v result %+v", c2, c2.Result)
	}
	if r := ms[4].Parts[0].Result; r.CallID != "" || r.Paired || r.ExitCode == nil || *r.ExitCode != 1 {
		t.Errorf("result without a call = %+v", r)
	}
	// A bare [Thinking] marker: the paragraph below it.
	if p := ms[5].Parts; p[0].Text != "The lint passes now.\nSummarize." || p[1].Text != "Done." {
		t.Errorf("last reply = %q, %q", p[0].Text, p[1].Text)
	}
}

func TestCursorTime(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Tuesday, Mar 3, 2026, 10:15 AM (UTC+1)", "2026-03-03T09:15:00Z"},
		{"Friday, Aug 14, 2026, 1:23 PM (UTC-5)", "2026-08-14T18:23:00Z"},
		{"Monday, Jul 6, 2026, 7:54 PM (UTC+5:30)", "2026-07-06T14:24:00Z"},
		{"Monday, Jul 6, 2026, 7:54 PM (UTC)", "2026-07-06T19:54:00Z"},
		{"2026-07-06T19:54:00Z", "2026-07-06T19:54:00Z"},
		{"x", "0001-01-01T00:00:00Z"},
	} {
		got, _ := tagTime(c.in)
		if s := got.Format("2006-01-02T15:04:05Z07:00"); s != c.want {
			t.Errorf("tagTime(%q) = %s, want %s", c.in, s, c.want)
		}
	}
}

// storeID is the id of a blob: the sha256 of its data.
func storeID(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// node builds a protobuf index node: field 1 refs the children, in order,
// field 2 a metadata subtree; tail is appended raw, as older stores do.
func node(children []string, meta string, tail []byte) []byte {
	var b []byte
	for _, c := range children {
		raw, _ := hex.DecodeString(c)
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendBytes(b, raw)
	}
	if meta != "" {
		raw, _ := hex.DecodeString(meta)
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, raw)
	}
	return append(b, tail...)
}

// writeStore writes a cursor-agent store.db at path with modernc's driver.
// With wal, the blobs stay in the -wal file, as while cursor-agent runs;
// keep is then called before the database is closed.
func writeStore(t testing.TB, path string, wal bool, keep func()) {
	t.Helper()
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
	msgs := []string{
		`{"role":"system","content":"You are a coding agent."}`,
		`{"role":"user","content":[{"type":"text","text":"<user_info>\nOS Version: linux 6.8.0\nWorkspace Path: /home/dev/webapp\n</user_info>"}]}`,
		`{"role":"user","content":[{"type":"text","text":"<user_query>\nwhy does the build fail?\n</user_query>"},{"type":"image","image":"` + png + `","mimeType":"image/png"}]}`,
		`{"id":"1","role":"assistant","content":[{"type":"reasoning","text":"Build it.","providerOptions":{"cursor":{"modelName":"claude-4.5-sonnet"}}},{"type":"text","text":"Building."},` +
			`{"type":"tool-call","toolCallId":"T1","toolName":"Shell","args":{"command":"npm run build"}},{"type":"tool-call","toolCallId":"T2","toolName":"Read","input":{"path":"a.ts"}}]}`,
		`{"role":"tool","id":"T1","content":[{"type":"tool-result","toolCallId":"T1","toolName":"Shell","result":[{"type":"text","text":"Exit code: 2"},{"type":"text","text":"TS2305"}]},` +
			`{"type":"tool-result","toolCallId":"T2","toolName":"Read","output":{"type":"error-text","value":"no such file"}}]}`,
		`{"id":"1","role":"assistant","content":[{"type":"text","text":"Fix the import."}]}`,
	}
	ids := make([]string, len(msgs))
	blobs := map[string][]byte{}
	for i, m := range msgs {
		ids[i] = storeID([]byte(m))
		blobs[ids[i]] = []byte(m)
	}
	metaBlob := []byte("\n\x04name")
	inner := node(ids[3:5], "", nil)
	hybrid := node(ids[5:6], "", []byte(`{"role":"user","content":"<user_query>\nand now?\n</user_query>"}`))
	orphan := []byte(`{"id":"1","role":"assistant","content":"An answer the user rewound."}`)
	missing := storeID([]byte("gone"))
	for _, b := range [][]byte{metaBlob, inner, hybrid, orphan} {
		blobs[storeID(b)] = b
	}
	root := node([]string{ids[0], ids[1], ids[2], storeID(inner), storeID(hybrid), missing}, storeID(metaBlob), nil)
	blobs[storeID(root)] = root
	meta := hex.EncodeToString([]byte(`{"agentId":"agent-1","latestRootBlobId":"` + storeID(root) +
		`","name":"Build failure","mode":"auto-run","createdAt":1772529300000,"lastUsedModel":"claude-4.5-sonnet"}`))

	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	stmts := []string{`CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)`, `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)`}
	if wal {
		stmts = append([]string{`PRAGMA journal_mode=WAL`, `PRAGMA wal_autocheckpoint=0`}, append(stmts, `PRAGMA wal_checkpoint(TRUNCATE)`)...)
	}
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	ordered := slices.Sorted(func(yield func(string) bool) {
		for id := range blobs {
			if !yield(id) {
				return
			}
		}
	})
	ordered = slices.DeleteFunc(ordered, func(id string) bool { return id == storeID(orphan) })
	ordered = append(ordered, storeID(orphan)) // stored last, as a later edit would be
	for _, id := range ordered {
		if _, err := db.Exec(`INSERT INTO blobs VALUES (?, ?)`, id, blobs[id]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO meta VALUES ('0', ?)`, meta); err != nil {
		t.Fatal(err)
	}
	if keep != nil {
		keep()
	}
}

func TestCursorStore(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "chats", "0123456789abcdef0123456789abcdef", "agent-1", "store.db")
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		t.Fatal(err)
	}
	writeStore(t, db, false, nil)
	before, _ := os.ReadFile(db)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the reader copies the database

	res, err := ingest.Load(context.Background(), ingest.Root{FS: os.DirFS(dir)})
	if err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the copy was left behind: %v", left)
	}
	ingesttest.WantWarnings(t, res.Warnings, "chats/0123456789abcdef0123456789abcdef/agent-1/store.db: 1 blobs the conversation refers to are missing")
	if len(res.Sessions) != 1 {
		t.Fatalf("%d sessions", len(res.Sessions))
	}
	s := res.Sessions[0]
	for _, c := range []struct{ name, got, want string }{
		{"format", s.Format, "cursor"},
		{"id", s.ID, "agent-1"},
		{"title", s.Title, "Build failure"},
		{"cwd", s.CWD, "/home/dev/webapp"},
		{"project", s.Project, ""}, // named by the cwd, not its md5
		{"mode", s.Meta["mode"], "auto-run"},
		{"models", strings.Join(s.Models, ","), "claude-4.5-sonnet"},
		{"started", s.Started.Format("2006-01-02 15:04"), "2026-03-03 09:15"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	var got []string
	for _, m := range s.Messages() {
		got = append(got, string(m.Role)+map[bool]string{true: "*"}[m.Meta]+"("+ingesttest.Kinds(m)+")"+map[bool]string{true: " branch"}[m.Branch != ""])
	}
	want := []string{
		"system*(text)", "user*(text)", "user(text image)",
		"assistant(thinking text call call)", "tool(result result)", "assistant(text)",
		"user(text)",             // the JSON after a hybrid node's refs
		"assistant(text) branch", // not under the latest root
	}
	if !slices.Equal(got, want) {
		t.Fatalf("messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	ms := s.Messages()
	if ms[5].ID == ms[3].ID || ms[5].Model != "claude-4.5-sonnet" || len(ms[3].ID) != 64 {
		t.Errorf("assistant ids %q %q, model %q", ms[3].ID, ms[5].ID, ms[5].Model)
	}
	c1, c2 := ms[3].Parts[2].Call, ms[3].Parts[3].Call
	if r := c1.Result; r == nil || r.Output != "Exit code: 2\nTS2305" || r.ExitCode == nil || *r.ExitCode != 2 || r.IsError {
		t.Errorf("shell result = %+v", r)
	}
	if r := c2.Result; c2.Input != `{"path":"a.ts"}` || r == nil || r.Output != "no such file" || !r.IsError {
		t.Errorf("read call %+v, result %+v", c2, r)
	}
	if ms[6].Parts[0].Text != "and now?" {
		t.Errorf("hybrid message = %q", ms[6].Parts[0].Text)
	}
	if after, _ := os.ReadFile(db); !slices.Equal(before, after) {
		t.Error("the source database changed")
	}
}

// TestCursorStoreWAL reads a store whose messages are still in its -wal
// file, as while cursor-agent runs; without the -wal there is nothing.
func TestCursorStoreWAL(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "store.db")
	fsys := fstest.MapFS{}
	writeStore(t, db, true, func() {
		for _, name := range []string{"store.db", "store.db-wal"} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			fsys["c/a/"+name] = &fstest.MapFile{Data: data}
		}
	})
	if len(fsys["c/a/store.db-wal"].Data) == 0 {
		t.Fatal("the test store has an empty -wal")
	}
	res, err := ingest.Load(context.Background(), ingest.Root{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	// The -wal is read with its database, not as a file of its own.
	if len(res.Sessions) != 1 || res.Files != 1 || res.Sessions[0].Stats().Messages != 8 {
		t.Fatalf("%d sessions from %d files, warnings %v", len(res.Sessions), res.Files, res.Warnings)
	}
	delete(fsys, "c/a/store.db-wal")
	res, err = ingest.Load(context.Background(), ingest.Root{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	ingesttest.WantWarnings(t, res.Warnings, "c/a/store.db: cursor file holds no messages")
}

// execDB creates a database at path with the statements.
func execDB(t *testing.T, path string, stmts ...string) []byte {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(q, err)
		}
	}
	db.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestCursorStoreWithoutRoot shows the messages of a store whose meta is
// gone in the order they were stored.
func TestCursorStoreWithoutRoot(t *testing.T) {
	data := execDB(t, filepath.Join(t.TempDir(), "store.db"),
		`CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)`, `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)`,
		`INSERT INTO blobs VALUES ('b', '{"role":"user","content":"<user_query>hi</user_query>"}')`,
		`INSERT INTO blobs VALUES ('a', '{"role":"assistant","content":"hello"}')`,
		`INSERT INTO blobs VALUES ('c', x'0a20')`)
	res, err := ingest.Load(context.Background(), ingest.Root{FS: fstest.MapFS{"x/store.db": {Data: data}}})
	if err != nil {
		t.Fatal(err)
	}
	ingesttest.WantWarnings(t, res.Warnings, "x/store.db: meta names no root blob")
	if len(res.Sessions) != 1 {
		t.Fatalf("%d sessions", len(res.Sessions))
	}
	var got []string
	for _, m := range res.Sessions[0].Messages() {
		got = append(got, m.ID+" "+string(m.Role)+" "+m.Branch)
	}
	if want := []string{"b user ", "a assistant "}; !slices.Equal(got, want) {
		t.Errorf("messages = %q, want %q", got, want)
	}
}

func TestCursorDetect(t *testing.T) {
	dir := t.TempDir()
	otherDB := execDB(t, filepath.Join(dir, "other.db"),
		`CREATE TABLE session (id TEXT PRIMARY KEY)`, `CREATE TABLE message (id TEXT, data TEXT)`, `CREATE TABLE part (id TEXT, data TEXT)`)
	store := filepath.Join(dir, "store.db")
	writeStore(t, store, false, nil)
	storeDB, _ := os.ReadFile(store)

	for _, c := range []struct {
		name, head string
		want       bool
	}{
		{"transcript", `{"role":"user","message":{"content":[]}}`, true},
		{"turn markers only", `{"type":"turn_ended","status":"success"}`, true},
		{"later unknown record", `{"role":"user","message":{"content":"x"}}` + "\n" + `{"type":"checkpoint","id":"c"}`, true},
		{"claude record", `{"type":"user","role":"user","message":{"content":"x"},"uuid":"u"}`, false},
		{"pi entry after", `{"role":"user","message":{"content":"x"}}` + "\n" + `{"type":"message","id":"a","parentId":null,"timestamp":"t"}`, false},
		{"text", "user:\n<user_query>\nhi\n</user_query>\n", true},
		{"text without a query", "user:\nhi\n\nassistant:\nhello\n", true},
		{"prose", "user: someone\nsaid hi", false},
		{"store", string(storeDB), true},
		{"another database", string(otherDB), false},
	} {
		h := &ingest.Head{Path: "x", Data: []byte(c.head)}
		if len(h.Data) > ingest.HeadSize {
			h.Data = h.Data[:ingest.HeadSize]
		}
		if got := detect(h) > 0; got != c.want {
			t.Errorf("%s: detected %v, want %v", c.name, got, c.want)
		}
	}
}

func FuzzCursor(f *testing.F) {
	ingesttest.SeedFuzz(f)
	store := filepath.Join(f.TempDir(), "store.db")
	writeStore(f, store, false, nil)
	if b, err := os.ReadFile(store); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ingesttest.FuzzRead(t, Reader, "t/agent-transcripts/x/x.jsonl", data)
	})
}

func TestCursorLocations(t *testing.T) {
	want := []ingest.Location{{Name: "cursor", Dir: "/home/u/.cursor/projects"}, {Name: "cursor-chats", Dir: "/home/u/.cursor/chats"}}
	if locs := Reader.Locations("/home/u", func(string) string { return "" }); !slices.Equal(locs, want) {
		t.Errorf("locations %v, want %v", locs, want)
	}
}

// A message's JSON after a node's fields is found where the fields end,
// whatever the fields before it hold: here a fixed64 whose bytes look
// like the start of an object.
func TestStoreTrailingMessageAfterOtherFields(t *testing.T) {
	node := protowire.AppendTag(nil, 2, protowire.Fixed64Type)
	node = append(node, `{"aaaaaa`...)
	msg := `{"role":"user","content":"hi"}`
	node = append(node, msg...)
	st := &blobStore{blobs: map[string][]byte{"root": node}, onPath: map[string]bool{}, shown: map[string]bool{}}
	st.walk("root", 0)
	if len(st.msgs) != 1 || string(st.msgs[0].data) != msg {
		t.Errorf("messages %q, want the one after the fields", st.msgs)
	}
}
