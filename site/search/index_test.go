package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func tokens(s string) []string {
	var out []string
	Tokenize(s, func(t string) bool { out = append(out, t); return true })
	return out
}

// tokenCases are checked here and, through tokens.json, against the
// client's tokenizer.
var tokenCases = []string{
	"Fix the Login button!",
	"src/app/main.go:12:3 undefined: loadCfg",
	"toolu_01SYNTHBASH error[E0382] HTTP 503",
	"Café naïve résumé",
	"日本語のテキスト and 한국어",
	"x" + strings.Repeat("y", 70) + " z",
	"snake_case CamelCase kebab-case 3.14",
	"",
}

func TestTokenize(t *testing.T) {
	for in, want := range map[string][]string{
		"Fix the Login button!":                   {"fix", "the", "login", "button"},
		"src/app/main.go:12:3 undefined: loadCfg": {"src", "app", "main", "go", "12", "3", "undefined", "loadcfg"},
		"toolu_01SYNTHBASH error[E0382] HTTP 503": {"toolu_01synthbash", "error", "e0382", "http", "503"},
		"日本語 ok":                                  {"日", "本", "語", "ok"},
		"x" + strings.Repeat("y", 70) + " z":      {"z"},
	} {
		if got := tokens(in); !slices.Equal(got, want) {
			t.Errorf("Tokenize(%q) = %q, want %q", in, got, want)
		}
	}
}

// testIndex builds a small index in a temporary dir and returns the dir.
func testIndex(t *testing.T) string {
	t.Helper()
	ix := New([]string{"shell", "read", "write", "edit", "search", "web", "task", "mcp", "other"})
	for _, s := range []struct {
		session Session
		docs    []Doc
	}{
		{Session{Title: "Fix the cache", Project: "weather", Agent: "Claude Code", Model: "claude-sonnet-4-5", Path: "sessions/weather/a/", Day: 20400}, []Doc{
			{N: 1, Role: RoleUser, Text: "The cache never hit twice in a row"},
			{N: 2, Role: RoleAssistant, Text: "The cache key changes every second.\nRead internal/api/client.go (toolu_01XYZ)", Kinds: 1 << 1},
			{N: 4, Role: RoleAssistant, Text: "Fixed."},
		}},
		{Session{Title: "Borrow checker", Project: "rustlings", Agent: "Codex CLI", Model: "gpt-5", Path: "sessions/rustlings/b/", Day: 20401}, []Doc{
			{N: 1, Role: RoleUser, Text: "error[E0382]: borrow of moved value: `v`"},
			{N: 2, Role: RoleAssistant, Text: "shell\ncargo build\n   Compiling x", Kinds: 1 << 0},
		}},
	} {
		ix.Append(Prepare(s.session, s.docs))
	}
	dir := t.TempDir()
	write := func(name string, data []byte) error {
		p := filepath.Join(dir, name)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		return os.WriteFile(p, data, 0o644)
	}
	if err := ix.Write(write); err != nil {
		t.Fatal(err)
	}
	var cases [][2]any
	for _, c := range tokenCases {
		cases = append(cases, [2]any{c, nonNil(tokens(c))})
	}
	data, _ := json.Marshal(cases)
	_ = write("tokens.json", data)
	return dir
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func TestWriteIsSortedShardedAndDeterministic(t *testing.T) {
	a, b := testIndex(t), testIndex(t)
	var meta struct {
		Docs   int
		Shards []string
	}
	data, _ := os.ReadFile(filepath.Join(a, "meta.json"))
	if err := json.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Docs != 5 || len(meta.Shards) == 0 || meta.Shards[0] != "" {
		t.Fatalf("meta = %s", data)
	}
	var all []string
	for i, start := range meta.Shards {
		var shard struct {
			T []string
			P [][]int
		}
		raw, err := os.ReadFile(filepath.Join(a, "t", strconv.Itoa(i)+".json"))
		if err != nil || json.Unmarshal(raw, &shard) != nil || shard.T[0] < start || (len(all) > 0 && all[len(all)-1] >= start) {
			t.Fatalf("shard %d starting at %q: %v", i, start, err)
		}
		all = append(all, shard.T...)
	}
	if !slices.IsSorted(all) || len(slices.Compact(slices.Clone(all))) != len(all) {
		t.Error("terms are not sorted and unique across shards")
	}
	for _, want := range []string{"cache", "e0382", "toolu_01xyz", "client"} {
		if !slices.Contains(all, want) {
			t.Errorf("term %q missing", want)
		}
	}
	_ = filepath.Walk(a, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(a, p)
			other, _ := os.ReadFile(filepath.Join(b, rel))
			mine, _ := os.ReadFile(p)
			if !bytes.Equal(mine, other) {
				t.Errorf("%s differs between two builds", rel)
			}
		}
		return err
	})
}

func TestPostingsSpliceAcrossSessions(t *testing.T) {
	ix := New(nil)
	ix.Append(Prepare(Session{}, []Doc{{Text: "a b"}, {Text: "c"}, {Text: "a a", Role: RoleAssistant}}))
	ix.Append(Prepare(Session{}, []Doc{{Text: "x"}, {Text: "a", Kinds: 5}}))
	// doc 0 (user, pos 0), doc 2 (assistant, pos 0 and 1), doc 4 (user, kinds 5, pos 0)
	want := []int{0, 0, 1, 0, 2, 1, 2, 0, 1, 2, 5 << 2, 1, 0}
	if got := ix.terms["a"].ints(); !slices.Equal(got, want) {
		t.Errorf("postings of a = %v, want %v", got, want)
	}
}

// TestClient runs the client's tests (search.test.js) in Node against an
// index written here: the query code is tested on real index files.
func TestClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("TRANSCRIPTSITE_CI") != "" {
			t.Fatal("no node in CI")
		}
		t.Skip("no node: the client's tests need Node.js")
	}
	cmd := exec.Command(node, "--test", "testdata/search.test.js")
	cmd.Env = append(os.Environ(), "SEARCH_INDEX="+testIndex(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	src, _ := os.ReadFile("testdata/search.test.js")
	want := fmt.Sprintf("# pass %d", strings.Count(string(src), "\ntest("))
	if !strings.Contains(string(out), "# fail 0") || !strings.Contains(string(out), want) {
		t.Errorf("node output, want %q:\n%s", want, out)
	}
}

func TestPreparedRoundTrip(t *testing.T) {
	docs := []Doc{{N: 1, Text: "alpha beta alpha"}, {N: 3, Role: RoleAssistant, Kinds: 2, Text: "beta gamma"}}
	p := Prepare(Session{Title: "T", Path: "sessions/p/t/"}, docs)
	data, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var q Prepared
	if err := q.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	write := func(dir string, ix *Index) {
		_ = ix.Write(func(name string, data []byte) error {
			p := filepath.Join(dir, name)
			_ = os.MkdirAll(filepath.Dir(p), 0o755)
			return os.WriteFile(p, data, 0o644)
		})
	}
	a, b := New(nil), New(nil)
	a.Append(Prepare(Session{Title: "first"}, docs))
	a.Append(p)
	b.Append(Prepare(Session{Title: "first"}, docs))
	b.Append(&q)
	da, db := t.TempDir(), t.TempDir()
	write(da, a)
	write(db, b)
	ma, _ := os.ReadFile(filepath.Join(da, "meta.json"))
	mb, _ := os.ReadFile(filepath.Join(db, "meta.json"))
	if !bytes.Equal(ma, mb) {
		t.Error("an index from a decoded prepared session differs")
	}
}

func TestShortestAfter(t *testing.T) {
	for _, c := range []struct{ prev, first, want string }{
		{"apple", "banana", "b"}, {"apple", "apricot", "apr"}, {"ab", "abc", "abc"}, {"日本", "日本語", "日本語"}, {"a", "é", "é"},
	} {
		if got := shortestAfter(c.prev, c.first, false); got != c.want {
			t.Errorf("shortestAfter(%q, %q) = %q, want %q", c.prev, c.first, got, c.want)
		}
	}
}
