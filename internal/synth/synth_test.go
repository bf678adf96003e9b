package synth

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/ingest"
	_ "github.com/transcriptsite/transcriptsite/ingest/agents"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// readTree returns every file under dir by slash path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func generate(t *testing.T, o Options) (string, Stats) {
	t.Helper()
	dir := t.TempDir()
	st, err := Generate(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return dir, st
}

func TestDeterministic(t *testing.T) {
	o := Options{Sessions: 9, Messages: 30, Seed: 42, Images: true, OutputLines: 50,
		Formats: []string{"claude-code", "codex", "gemini-cli"}}
	dir1, st1 := generate(t, o)
	dir2, st2 := generate(t, o)
	if st1 != st2 {
		t.Errorf("stats differ: %v and %v", st1, st2)
	}
	a, b := readTree(t, dir1), readTree(t, dir2)
	if len(a) != st1.Files || len(a) != 9 {
		t.Fatalf("%d files on disk, stats say %d, want 9", len(a), st1.Files)
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Errorf("%s differs between two runs with the same options", name)
		}
	}

	o.Seed = 43
	dir3, _ := generate(t, o)
	seen := map[string]string{}
	for name, data := range a {
		seen[string(data)] = name
	}
	for name, data := range readTree(t, dir3) {
		if _, ok := a[name]; ok {
			t.Errorf("%s is written with both seeds", name)
		}
		if old, ok := seen[string(data)]; ok {
			t.Errorf("%s with another seed has the bytes of %s", name, old)
		}
	}
}

func TestUnknownFormat(t *testing.T) {
	_, err := Generate(t.TempDir(), Options{Formats: []string{"claude-code", "aider"}})
	if err == nil || !strings.Contains(err.Error(), `"aider"`) || !strings.Contains(err.Error(), "gemini-cli") {
		t.Errorf("err = %v, want one naming the format and the known ones", err)
	}
}

// TestClaudeReadBack reads the Claude Code output with the site's own
// reader: every session, message, tool call and image must come back.
func TestClaudeReadBack(t *testing.T) {
	const sessions, messages = 40, 40
	dir, st := generate(t, Options{Sessions: sessions, Messages: messages, Seed: 7, Images: true, OutputLines: 120})
	res, err := ingest.Load(context.Background(), ingest.Root{FS: os.DirFS(dir)})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Warnings {
		t.Errorf("warning: %s", w)
	}
	if len(res.Sessions) != sessions || st.Sessions != sessions || res.Files != sessions {
		t.Fatalf("read %d sessions from %d files, stats say %d, want %d", len(res.Sessions), res.Files, st.Sessions, sessions)
	}

	var c readBack
	for _, s := range res.Sessions {
		c.session(t, s, messages)
	}
	msgs, calls, images, kinds, events := c.msgs, c.calls, c.images, c.kinds, c.events
	long, ansi, exits, titled, meta, turns := c.long, c.ansi, c.exits, c.titled, c.meta, c.turns
	if msgs != st.Messages {
		t.Errorf("read %d messages, stats say %d", msgs, st.Messages)
	}
	if calls != st.ToolCalls {
		t.Errorf("read %d tool calls, stats say %d", calls, st.ToolCalls)
	}
	if images != st.Images || images == 0 {
		t.Errorf("read %d images, stats say %d", images, st.Images)
	}
	for _, k := range []transcript.ToolKind{transcript.ShellTool, transcript.ReadTool, transcript.WriteTool, transcript.EditTool,
		transcript.SearchTool, transcript.WebTool, transcript.TaskTool, transcript.MCPTool, transcript.OtherTool} {
		if kinds[k] == 0 {
			t.Errorf("no %s tool call in %v", k, kinds)
		}
	}
	for _, k := range []string{transcript.Retry, transcript.Interrupt, transcript.Command, "info"} {
		if events[k] == 0 {
			t.Errorf("no %s event in %v", k, events)
		}
	}
	if long == 0 || ansi == 0 || exits == 0 || titled == 0 || meta == 0 || turns < 2*sessions {
		t.Errorf("outputs over 2,000 lines %d, with ANSI %d, failed with an exit code %d, titled sessions %d, meta user messages %d, turns %d: want some of each, and two turns a session",
			long, ansi, exits, titled, meta, turns)
	}
}

// readBack counts what generated sessions read back hold.
type readBack struct {
	msgs, calls, images, long, ansi, exits, titled, turns, meta int
	kinds                                                       map[transcript.ToolKind]int
	events                                                      map[string]int
	ids                                                         map[string]bool
}

// session checks s, which should have about messages messages, and counts
// what it holds.
func (c *readBack) session(t *testing.T, s *transcript.Session, messages int) {
	if c.ids == nil {
		c.kinds, c.events, c.ids = map[transcript.ToolKind]int{}, map[string]int{}, map[string]bool{}
	}
	if s.Format != "claude-code" || s.CWD == "" || s.Branch == "" || len(s.Models) == 0 || s.Started.IsZero() || !s.Ended.After(s.Started) {
		t.Errorf("%s: format %q cwd %q branch %q models %v times %v–%v", s.Source, s.Format, s.CWD, s.Branch, s.Models, s.Started, s.Ended)
	}
	if c.ids[s.ID] {
		t.Errorf("session id %s twice", s.ID)
	}
	c.ids[s.ID] = true
	if s.Title != "" {
		c.titled++
	}
	n := len(s.Messages())
	c.msgs += n
	if n < messages/2 || n > messages*3/2 {
		t.Errorf("%s: %d messages, want %d±50%%", s.Source, n, messages)
	}
	if s.Usage.Output == 0 || s.Usage.CacheRead == 0 {
		t.Errorf("%s: usage %+v", s.Source, s.Usage)
	}
	c.turns += len(s.Turns)
	var last time.Time
	s.Parts(func(m *transcript.Message, p *transcript.Part) {
		if m.Time.Before(last.Add(-time.Second)) {
			t.Errorf("%s: message %s at %v goes back from %v", s.Source, m.ID, m.Time, last)
		}
		last = m.Time
		if m.Meta && m.Role == transcript.User {
			c.meta++
		}
		c.part(t, s, p)
	})
}

func (c *readBack) part(t *testing.T, s *transcript.Session, p *transcript.Part) {
	switch p.Kind {
	case transcript.CallPart:
		c.calls++
		c.kinds[p.Call.Kind]++
		if p.Call.Result == nil {
			t.Errorf("%s: call %s (%s) has no result", s.Source, p.Call.ID, p.Call.Name)
		}
		if !json.Valid([]byte(p.Call.Input)) {
			t.Errorf("%s: call %s input is not JSON", s.Source, p.Call.ID)
		}
	case transcript.ResultPart:
		r := p.Result
		if !r.Paired && r.CallID != "" { // a local command's output has no call
			t.Errorf("%s: result for %s is not paired", s.Source, r.CallID)
		}
		if strings.Count(r.Output, "\n") >= 2000 {
			c.long++
		}
		if strings.Contains(r.Output, "\x1b[") {
			c.ansi++
		}
		if r.ExitCode != nil && *r.ExitCode != 0 {
			c.exits++
		}
		for _, img := range r.Images {
			c.images++
			decodePNG(t, img)
		}
	case transcript.ImagePart:
		c.images++
		decodePNG(t, p.Image)
	case transcript.EventPart:
		c.events[p.Event.Kind]++
	}
}

// TestTinySessions checks the message budget at its edges: every session
// has exactly the messages planned, however few.
func TestTinySessions(t *testing.T) {
	for _, m := range []int{1, 2, 3, 5} {
		dir, st := generate(t, Options{Sessions: 12, Messages: m, Seed: int64(m)})
		res, err := ingest.Load(context.Background(), ingest.Root{FS: os.DirFS(dir)})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Warnings) > 0 || len(res.Sessions) != 12 {
			t.Fatalf("messages %d: %d sessions, warnings %v", m, len(res.Sessions), res.Warnings)
		}
		total := 0
		for _, s := range res.Sessions {
			n := len(s.Messages())
			total += n
			if n < 2 || n > max(2, (3*m+1)/2) || !s.Turns[0].Messages[0].StartsTurn() {
				t.Errorf("messages %d: %s has %d messages, first %+v", m, s.Source, n, s.Turns[0].Messages[0])
			}
		}
		if total != st.Messages {
			t.Errorf("messages %d: read %d, stats say %d", m, total, st.Messages)
		}
	}
}

func decodePNG(t *testing.T, img *transcript.Image) {
	t.Helper()
	if img.MediaType != "image/png" {
		t.Errorf("image media type %q", img.MediaType)
	}
	if _, err := png.Decode(bytes.NewReader(img.Data)); err != nil {
		t.Errorf("image does not decode as PNG: %v", err)
	}
}

// TestSize checks that sessions weigh what real ones do: tens to hundreds
// of KB (the real corpus files are 20 KB to 1.2 MB).
func TestSize(t *testing.T) {
	dir, st := generate(t, Options{Sessions: 30, Seed: 3})
	avg := st.Bytes / int64(st.Sessions)
	if avg < 40_000 || avg > 800_000 {
		t.Errorf("average session is %d bytes, want 40 KB to 800 KB", avg)
	}
	for name, data := range readTree(t, dir) {
		if len(data) < 5_000 || len(data) > 8_000_000 {
			t.Errorf("%s is %d bytes", name, len(data))
		}
	}
	var total int64
	for _, data := range readTree(t, dir) {
		total += int64(len(data))
	}
	if total != st.Bytes {
		t.Errorf("%d bytes on disk, stats say %d", total, st.Bytes)
	}
}

// jsonLines decodes every line of a JSONL file into objects.
func jsonLines(t *testing.T, name string, data []byte) []map[string]any {
	t.Helper()
	var recs []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s:%d: %v", name, n, err)
		}
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Errorf("%s does not end with a newline", name)
	}
	return recs
}

var (
	codexName  = regexp.MustCompile(`^codex/sessions/(\d{4})/(\d\d)/(\d\d)/rollout-(\d{4})-(\d\d)-(\d\d)T\d\d-\d\d-\d\d-([0-9a-f-]{36})\.jsonl$`)
	geminiName = regexp.MustCompile(`^gemini/tmp/[^/]+/chats/session-\d{4}-\d\d-\d\dT\d\d-\d\d-([0-9a-f]{8})\.jsonl$`)
)

// TestCodexGemini checks the shapes the Codex and Gemini CLI readers
// detect (formats.md §3.1, §3.2): their round trip is tested once the
// readers land.
func TestCodexGemini(t *testing.T) {
	dir, st := generate(t, Options{Sessions: 12, Messages: 40, Seed: 5, Images: true, Formats: []string{"codex", "gemini-cli"}})
	files := readTree(t, dir)
	if len(files) != 12 || st.Files != 12 {
		t.Fatalf("%d files, stats say %d, want 12", len(files), st.Files)
	}
	var codex, gemini int
	for name, data := range files {
		recs := jsonLines(t, name, data)
		switch {
		case codexName.MatchString(name):
			codex++
			checkCodexFile(t, name, recs)
		case geminiName.MatchString(name):
			gemini++
			checkGeminiFile(t, name, recs)
		default:
			t.Errorf("unexpected file %s", name)
		}
	}
	if codex != 6 || gemini != 6 {
		t.Errorf("%d codex and %d gemini files, want 6 each", codex, gemini)
	}
}

// checkCodexFile checks a generated rollout's records: its envelope, its
// dates, and a record of every kind the generator writes.
func checkCodexFile(t *testing.T, name string, recs []map[string]any) {
	first := recs[0]
	m := codexName.FindStringSubmatch(name)
	payload, _ := first["payload"].(map[string]any)
	if first["type"] != "session_meta" || payload["id"] != m[7] || first["timestamp"] == nil || payload["cwd"] == nil {
		t.Errorf("%s: first line %v", name, first)
	}
	if m[1] != m[4] || m[2] != m[5] || m[3] != m[6] {
		t.Errorf("%s: folder date differs from file name date", name)
	}
	types := map[string]int{}
	for i, r := range recs {
		p, ok := r["payload"].(map[string]any)
		ts, _ := r["timestamp"].(string)
		if len(r) != 3 || !ok || r["type"] == nil {
			t.Errorf("%s:%d: not a {timestamp,type,payload} envelope: %v", name, i+1, keys(r))
		}
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			t.Errorf("%s:%d: timestamp %q", name, i+1, ts)
		}
		types[r["type"].(string)+"/"+str(p["type"])]++
	}
	for _, k := range []string{"turn_context/", "event_msg/task_started", "event_msg/user_message", "response_item/message",
		"response_item/function_call", "response_item/function_call_output", "event_msg/token_count", "event_msg/task_complete"} {
		if types[k] == 0 {
			t.Errorf("%s: no %s record in %v", name, k, types)
		}
	}
}

// checkGeminiFile checks a generated Gemini CLI log's records: its first
// line, then messages and $set records.
func checkGeminiFile(t *testing.T, name string, recs []map[string]any) {
	first := recs[0]
	id := geminiName.FindStringSubmatch(name)[1]
	sid, _ := first["sessionId"].(string)
	if !strings.HasPrefix(sid, id) || first["projectHash"] == nil || first["startTime"] == nil || first["lastUpdated"] == nil || first["kind"] != "main" {
		t.Errorf("%s: first line %v", name, first)
	}
	types := map[string]int{}
	for i, r := range recs[1:] {
		switch {
		case r["$set"] != nil:
			types["$set"]++
		case r["id"] != nil && r["timestamp"] != nil:
			typ := str(r["type"])
			types[typ]++
			if typ != "user" && typ != "gemini" && typ != "info" && typ != "error" && typ != "warning" {
				t.Errorf("%s:%d: message type %q", name, i+2, typ)
			}
		default:
			t.Errorf("%s:%d: neither a message nor a $set: %v", name, i+2, keys(r))
		}
	}
	if types["user"] == 0 || types["gemini"] == 0 || types["$set"] == 0 {
		t.Errorf("%s: records %v", name, types)
	}
}

func str(v any) string { s, _ := v.(string); return s }

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func BenchmarkGenerate(b *testing.B) {
	var bytes int64
	dir := b.TempDir()
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		st, err := Generate(path.Join(dir, itoa(i)), Options{Sessions: 50, Seed: int64(i)})
		if err != nil {
			b.Fatal(err)
		}
		bytes += st.Bytes
	}
	b.ReportMetric(float64(bytes)/1e6/time.Since(start).Seconds(), "MB/s")
}

// TestCodexGeminiReadBack reads generated Codex and Gemini CLI sessions
// with their readers: every file becomes one session of its format, with
// no warning, its tool calls paired.
func TestCodexGeminiReadBack(t *testing.T) {
	dir, st := generate(t, Options{Sessions: 12, Messages: 40, Seed: 9, Images: true, Formats: []string{"codex", "gemini-cli"}})
	res, err := ingest.Load(context.Background(), ingest.Root{FS: os.DirFS(dir)})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Warnings {
		t.Errorf("warning: %s", w)
	}
	formats := map[string]int{}
	calls, unpaired := 0, 0
	for _, s := range res.Sessions {
		formats[s.Format]++
		if s.Stats().Messages == 0 {
			t.Errorf("%s: no messages", s.Source)
		}
		s.Parts(func(_ *transcript.Message, p *transcript.Part) {
			if p.Call != nil {
				calls++
				if p.Call.Result == nil && p.Call.Name != "web_search_call" && p.Call.Kind != transcript.SearchTool {
					unpaired++
				}
			}
		})
	}
	if formats["codex"] != 6 || formats["gemini-cli"] != 6 || len(res.Sessions) != st.Sessions {
		t.Errorf("sessions by format %v, want 6 codex and 6 gemini-cli", formats)
	}
	if calls == 0 || unpaired > calls/20 {
		t.Errorf("%d of %d tool calls have no result", unpaired, calls)
	}
}
