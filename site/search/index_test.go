package search

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// tokens returns the words and the compounds Tokenize emits.
func tokens(s string) (words, compounds []string) {
	Tokenize(s, func(b []byte, compound bool) bool {
		if compound {
			compounds = append(compounds, string(b))
		} else {
			words = append(words, string(b))
		}
		return true
	})
	return words, compounds
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
	"see /home/ann/src/app/internal/api/client.go:41 and https://example.com/a/b?x=1.",
	"e.g. v1.2.3-rc.1, a--b, ..hidden/x, trailing.",
	strings.Repeat("dir/", 20) + "main.go",
	"Café/menü.txt 日本/語.md",
	"",
}

func TestTokenize(t *testing.T) {
	for _, c := range []struct {
		in               string
		words, compounds []string
	}{
		{"Fix the Login button!", []string{"fix", "the", "login", "button"}, nil},
		{"src/app/main.go:12:3 undefined: loadCfg", []string{"src", "app", "main", "go", "12", "3", "undefined", "loadcfg"},
			[]string{"src/app/main.go", "app/main.go", "main.go"}},
		{"toolu_01SYNTHBASH error[E0382] HTTP 503", []string{"toolu_01synthbash", "error", "e0382", "http", "503"}, nil},
		{"日本語 ok", []string{"日", "本", "語", "ok"}, nil},
		{"x" + strings.Repeat("y", 70) + " z", []string{"z"}, nil},
		{"Run claude-sonnet-4-5. Done.", []string{"run", "claude", "sonnet", "4", "5", "done"}, []string{"claude-sonnet-4-5"}},
		{"//host/a", []string{"host", "a"}, []string{"host/a"}},
		{strings.Repeat("d/", 40) + "x.go", slices.Concat(slices.Repeat([]string{"d"}, 40), []string{"x", "go"}),
			// the whole path is too long to be a term; its last three parts are not
			func() []string {
				var out []string
				for k := 2; k >= 0; k-- {
					out = append(out, strings.Repeat("d/", k)+"x.go")
				}
				return out
			}()},
	} {
		words, compounds := tokens(c.in)
		if !slices.Equal(words, c.words) || !slices.Equal(compounds, c.compounds) {
			t.Errorf("Tokenize(%q) = %q and compounds %q, want %q and %q", c.in, words, compounds, c.words, c.compounds)
		}
	}
}

// filler is a session of many distinct words, so that the test index has
// several shards.
var filler = func() []Doc {
	docs := make([]Doc, 3000)
	for i := range docs {
		docs[i] = Doc{N: i + 1, Role: RoleTool, Text: fmt.Sprintf("zfill%05d zfill/%05d.txt", i, i)}
	}
	return docs
}()

// testIndex builds a small index in a temporary dir and returns the dir.
func testIndex(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := dirWriter(dir)
	ix := New([]string{"shell", "read", "write", "edit", "search", "web", "task", "mcp", "other"}, write)
	for _, s := range []struct {
		session Session
		docs    []Doc
	}{
		{Session{Title: "Fix the cache", Project: "weather", Agent: "Claude Code", Models: []string{"claude-sonnet-4-5"}, Path: "sessions/weather/a/", Day: 20400}, []Doc{
			{N: 1, Role: RoleUser, Text: "The cache never hit twice in a row"},
			{N: 2, Role: RoleAssistant, Text: "The cache key changes every second.\nRead internal/api/client.go (toolu_01XYZ)", Kinds: 1 << 1},
			{N: 4, Role: RoleAssistant, Text: "Fixed."},
			{N: 6, Role: RoleTool, Text: strings.Repeat("lorem ipsum dolor ", 100) + "flakyretry " + strings.Repeat("sit amet ", 50)},
		}},
		{Session{Title: "Borrow checker", Project: "rustlings", Agent: "Codex CLI", Models: []string{"gpt-5"}, Path: "sessions/rustlings/b/", Day: 20401}, []Doc{
			{N: 1, Role: RoleUser, Text: "error[E0382]: borrow of moved value: `v`"},
			{N: 2, Role: RoleAssistant, Text: "shell\ncargo build\n   Compiling x", Kinds: 1 << 0},
		}},
		{Session{Title: "Filler", Project: "filler", Path: "sessions/filler/c/", Day: 19000}, filler},
	} {
		ix.Append(Prepare(s.session, s.docs))
	}
	if err := ix.Write(); err != nil {
		t.Fatal(err)
	}
	var cases [][3]any
	for _, c := range tokenCases {
		words, compounds := tokens(c)
		cases = append(cases, [3]any{c, nonNil(words), nonNil(compounds)})
	}
	data, _ := json.Marshal(cases)
	_ = write("tokens.json", data)
	return dir
}

// dirWriter writes an index's files under dir.
func dirWriter(dir string) func(string, []byte) error {
	return func(name string, data []byte) error {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	}
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
	if meta.Docs != 6+len(filler) || len(meta.Shards) < 3 || meta.Shards[0] != "" {
		t.Fatalf("meta = %.500s", data)
	}
	var all []string
	for i, start := range meta.Shards {
		var shard struct {
			T []string
			P [][]int
		}
		var group [][][]int
		raw, err := os.ReadFile(filepath.Join(a, "t", strconv.Itoa(i)+".json"))
		if err != nil || json.Unmarshal(raw, &shard) != nil || shard.T[0] < start || (len(all) > 0 && all[len(all)-1] >= start) {
			t.Fatalf("shard %d starting at %q: %v", i, start, err)
		}
		// The positions of shards i-i%PosGroup to the next multiple, or
		// the last shard, are in one file.
		raw, err = os.ReadFile(filepath.Join(a, "q", strconv.Itoa(i/PosGroup)+".json"))
		if err == nil {
			err = json.Unmarshal(raw, &group)
		}
		if want := min(PosGroup, len(meta.Shards)-i/PosGroup*PosGroup); err != nil || len(group) != want {
			t.Fatalf("q/%d.json holds %d shards' positions, want %d: %v", i/PosGroup, len(group), want, err)
		}
		positions := group[i%PosGroup]
		if len(positions) != len(shard.T) || len(shard.P) != len(shard.T) {
			t.Fatalf("shard %d has %d terms, %d postings and %d position lists: %v", i, len(shard.T), len(shard.P), len(positions), err)
		}
		all = append(all, shard.T...)
	}
	if !slices.IsSorted(all) || len(slices.Compact(slices.Clone(all))) != len(all) {
		t.Error("terms are not sorted and unique across shards")
	}
	if len(all) < 3*len(filler) {
		t.Errorf("%d terms, want at least %d", len(all), 3*len(filler))
	}
	for _, want := range []string{"cache", "e0382", "toolu_01xyz", "client", "api/client.go", "zfill/02999.txt"} {
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
	dir := t.TempDir()
	ix := New(nil, dirWriter(dir))
	ix.Append(Prepare(Session{}, []Doc{{Text: "a b"}, {Text: "c"}, {Text: "a a", Role: RoleAssistant}}))
	ix.Append(Prepare(Session{}, []Doc{{Text: "x"}, {Text: "a b", Kinds: 5}}))
	ix.Append(Prepare(Session{}, []Doc{{Text: "b"}}))
	if err := ix.Write(); err != nil {
		t.Fatal(err)
	}
	var shard struct {
		T []string
		P [][]int
	}
	var group [][][]int // the positions of PosGroup shards
	raw, _ := os.ReadFile(filepath.Join(dir, "t/0.json"))
	_ = json.Unmarshal(raw, &shard)
	raw, _ = os.ReadFile(filepath.Join(dir, "q/0.json"))
	_ = json.Unmarshal(raw, &group)
	if len(group) != 1 {
		t.Fatalf("q/0.json holds the positions of %d shards, want 1", len(group))
	}
	positions := group[0]
	for _, c := range []struct {
		term     string
		postings []int // delta of the doc, flags, count
		pos      []int
	}{
		// doc 0 (user, once at 0), doc 2 (assistant, twice, at 0 and 1), doc 4 (user, kinds 5, once at 0)
		{"a", []int{0, 0, 1, 2, 1, 2, 2, 5 << 2, 1}, []int{0, 0, 1, 0}},
		// doc 0 (at 1), doc 4 (at 1), doc 5 (at 0)
		{"b", []int{0, 0, 1, 4, 5 << 2, 1, 1, 0, 1}, []int{1, 1, 0}},
		{"x", []int{3, 0, 1}, []int{0}},
	} {
		i := slices.Index(shard.T, c.term)
		if i < 0 || !slices.Equal(shard.P[i], c.postings) || !slices.Equal(positions[i], c.pos) {
			t.Errorf("%q: postings %v, positions %v; want %v and %v", c.term, shard.P[i], positions[i], c.postings, c.pos)
		}
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
	docs := []Doc{{N: 1, Text: "alpha beta alpha"}, {N: 3, Role: RoleAssistant, Kinds: 2, Text: "beta gamma"},
		{N: 4, Text: strings.Repeat("delta ", 500)}} // an excerpt with a rest
	p := Prepare(Session{Title: "T", Path: "sessions/p/t/"}, docs)
	data, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var q Prepared
	if err := q.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	da, db := t.TempDir(), t.TempDir()
	a, b := New(nil, dirWriter(da)), New(nil, dirWriter(db))
	a.Append(Prepare(Session{Title: "first"}, docs))
	a.Append(p)
	b.Append(Prepare(Session{Title: "first"}, docs))
	b.Append(&q)
	if err := errors.Join(a.Write(), b.Write()); err != nil {
		t.Fatal(err)
	}
	ma, _ := os.ReadFile(filepath.Join(da, "meta.json"))
	mb, _ := os.ReadFile(filepath.Join(db, "meta.json"))
	if !bytes.Equal(ma, mb) {
		t.Error("an index from a decoded prepared session differs")
	}
}

func TestWriteErrorsAreReported(t *testing.T) {
	for _, bad := range []string{"f/", "r/", "t/", "q/", "sessions.", "meta.json"} {
		ix := New(nil, func(name string, _ []byte) error {
			if strings.HasPrefix(name, bad) {
				return fmt.Errorf("disk full writing %s", name)
			}
			return nil
		})
		for i := range 5 {
			ix.Append(Prepare(Session{Path: fmt.Sprint(i)}, []Doc{{Text: "some words"}, {Text: "more words"}, {Text: strings.Repeat("x ", excerptLen)}}))
		}
		if err := ix.Write(); err == nil || !strings.Contains(err.Error(), "disk full writing "+bad) {
			t.Errorf("a failed write of %s*: Write returned %v", bad, err)
		}
	}
}

// The rest of a long excerpt is in a file of rests of about restTarget
// bytes, which the excerpt's row names; a short excerpt has none.
func TestRestsFillFilesOfTheirOwn(t *testing.T) {
	dir := t.TempDir()
	ix := New(nil, dirWriter(dir))
	var docs []Doc
	for i := range 40 {
		docs = append(docs, Doc{N: i, Text: fmt.Sprintf("doc%d ", i) + strings.Repeat("filler words ", 100*(i%3))})
	}
	ix.Append(Prepare(Session{Path: "a/"}, docs[:25]))
	ix.Append(Prepare(Session{Path: "b/"}, docs[25:]))
	if err := ix.Write(); err != nil {
		t.Fatal(err)
	}
	files := map[int]map[string]string{}
	for b := 0; b*BlockDocs < len(docs); b++ {
		var block struct{ R [][]any }
		raw, _ := os.ReadFile(filepath.Join(dir, "f", strconv.Itoa(b)+".json"))
		if err := json.Unmarshal(raw, &block); err != nil {
			t.Fatal(err)
		}
		for i, r := range block.R {
			doc := b*BlockDocs + i
			start, rest := excerpt(docs[doc])
			if rest == "" {
				if len(r) != 4 {
					t.Errorf("doc %d has no rest, its row %.80v names a file", doc, r)
				}
				continue
			}
			if len(r) != 5 || r[2] != start {
				t.Fatalf("doc %d: row %.80v", doc, r)
			}
			k := int(r[4].(float64))
			if files[k] == nil {
				var f map[string]string
				raw, err := os.ReadFile(filepath.Join(dir, "r", strconv.Itoa(k)+".json"))
				if err != nil || json.Unmarshal(raw, &f) != nil {
					t.Fatalf("r/%d.json: %v", k, err)
				}
				files[k] = f
			}
			if got := files[k][strconv.Itoa(doc)]; got != rest {
				t.Errorf("doc %d: r/%d.json holds %.40q…, want %.40q…", doc, k, got, rest)
			}
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "r"))
	if len(entries) != len(files) || len(files) < 3 {
		t.Errorf("%d files of rests, %d named by rows", len(entries), len(files))
	}
	for k, f := range files {
		size := 0
		for _, r := range f {
			size += len(r)
		}
		if size > restTarget+3000 || k < len(files)-1 && size < restTarget {
			t.Errorf("r/%d.json holds %d bytes of rests", k, size)
		}
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

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("word ", excerptLen/2)
	for in, want := range map[string]string{
		"  a\n\tb  c ":                     "a b c",
		"":                                 "",
		strings.Repeat(" ", 5000) + "late": "late",
		long:                               strings.TrimSpace(long[:excerptLen]),
		strings.Repeat("é", excerptLen):    strings.Repeat("é", excerptLen/2),
	} {
		if got, _ := excerpt(Doc{Excerpt: in}); got != want {
			t.Errorf("excerpt(%.20q…) = %.40q… (%d bytes), want %.40q… (%d bytes)", in, got, len(got), want, len(want))
		}
	}
	// The rest of a long excerpt follows its start, cut between words.
	text := strings.Repeat("lorem ipsum ", 200) + "needle " + strings.Repeat("dolor ", 100)
	start, rest := excerpt(Doc{Excerpt: text})
	if len(start) > excerptLen || strings.HasSuffix(start, " ") || !strings.HasPrefix(rest, " ") ||
		start+rest != strings.TrimSpace(text) || !strings.Contains(rest, "needle") {
		t.Errorf("excerpt of %d bytes: start %d bytes %.20q…, rest %d bytes %.20q…", len(text), len(start), start[len(start)-20:], len(rest), rest)
	}
	// Of a text with no excerpt of its own, what the index reads of it.
	huge := strings.Repeat("a ", 3*(HeadBytes+TailBytes)) + "last"
	if start, rest := excerpt(Doc{Text: huge}); len(start)+len(rest) > HeadBytes+TailBytes || !strings.HasSuffix(rest, "last") {
		t.Errorf("excerpt of a huge text: %d + %d bytes, ends %q", len(start), len(rest), rest[max(0, len(rest)-10):])
	}
}

// TestExcerptCopiesRunsAsRunesWould: excerpt copies runs of ASCII whole;
// what it makes is its text's words cut at the cap, on text of every
// kind of space, letters of several bytes, invalid UTF-8, and a cap that
// falls inside a run or a character.
func TestExcerptCopiesRunsAsRunesWould(t *testing.T) {
	// What the excerpt is, said another way: the words of the parts,
	// their characters as Go reads them, joined by a space, and cut before
	// the first word character that would start past maxExcerpt.
	byWords := func(parts []string) string {
		var words []string
		for _, p := range parts {
			words = append(words, strings.Fields(string([]rune(p)))...)
		}
		j := strings.Join(words, " ")
		for o, r := range j {
			if before := strings.TrimSuffix(j[:o], " "); r != ' ' && len(before) >= maxExcerpt {
				return before
			}
		}
		return j
	}
	pieces := []string{"a", "word", " ", "\t\n", "\v\f\r", "\u0085", "\u00a0", "\u2003", "é", "日本", "\xff", "\xe2\x82", strings.Repeat("x", 700), "\U0001F600"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var sb strings.Builder
		for n := rng.IntN(2 * maxExcerpt); sb.Len() < n; {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := sb.String()
		start, rest := excerpt(Doc{Excerpt: text})
		if want := byWords([]string{text}); start+rest != want {
			t.Fatalf("excerpt of %d bytes: %d bytes, want %d", len(text), len(start+rest), len(want))
		}
		start, rest = excerpt(Doc{Text: text})
		if want := byWords(indexed(text)); start+rest != want {
			t.Fatalf("excerpt of a text of %d bytes: %d bytes, want %d", len(text), len(start+rest), len(want))
		}
	}
}

func TestLongDocumentsIndexTheirStartAndEnd(t *testing.T) {
	filler := strings.Repeat("lorem ipsum ", 1000)
	p := Prepare(Session{}, []Doc{{Text: "go test ./... " + filler + "middle " + filler + "FAIL TestParse"}})
	has := map[string]bool{}
	from := uint32(0)
	for _, end := range p.ends {
		has[p.terms[from:end]] = true
		from = end
	}
	for term, want := range map[string]bool{"go": true, "test": true, "fail": true, "testparse": true, "middle": false, "lorem": true} {
		if has[term] != want {
			t.Errorf("term %q indexed: %v, want %v", term, has[term], want)
		}
	}
}

// An index whose terms and lists went through a file in many runs, merged
// back, is the index that held them in memory, to the byte.
func TestSpilledIndexIsTheSame(t *testing.T) {
	held := testIndex(t)
	defer func(m int) { spillMemory = m }(spillMemory)
	spillMemory = 256
	spilled := testIndex(t)
	n := 0
	_ = filepath.Walk(held, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n++
			rel, _ := filepath.Rel(held, p)
			mine, _ := os.ReadFile(p)
			other, err := os.ReadFile(filepath.Join(spilled, rel))
			if err != nil || !bytes.Equal(mine, other) {
				t.Errorf("%s differs when spilled (%v)", rel, err)
			}
		}
		return err
	})
	if n < 10 {
		t.Errorf("only %d files", n)
	}
}

// A session appended in parts, each prepared alone (and one through the
// cache's encoding), makes the index the session prepared whole makes,
// file for file: a session of gigabytes is prepared a part at a time.
func TestPartsMakeTheSameIndex(t *testing.T) {
	var docs []Doc
	for i := range 200 {
		docs = append(docs, Doc{N: i + 1, Role: i % 4, Kinds: uint16(i % 3), Text: fmt.Sprintf("word%d common /src/app/file%d.go and %d more common words", i%17, i%5, i)})
	}
	before := []Doc{{N: 1, Text: "a session before, common"}}
	after := []Doc{{N: 1, Text: "a session after, word3 common"}}
	collect := func(m map[string]string) func(string, []byte) error {
		var mu sync.Mutex
		return func(name string, data []byte) error {
			mu.Lock()
			defer mu.Unlock()
			m[name] = string(data)
			return nil
		}
	}
	s := Session{Title: "big", Path: "sessions/p/big/"}
	whole, parts := map[string]string{}, map[string]string{}
	a, b := New(nil, collect(whole)), New(nil, collect(parts))
	a.Append(Prepare(Session{Title: "before", Path: "b/"}, before))
	a.Append(Prepare(s, docs))
	a.Append(Prepare(Session{Title: "after", Path: "a/"}, after))
	b.Append(Prepare(Session{Title: "before", Path: "b/"}, before))
	for i, cut := range [][2]int{{0, 1}, {1, 70}, {70, 71}, {71, 200}} {
		p := PreparePart(s, docs[cut[0]:cut[1]], i > 0)
		if i == 2 {
			data, _ := p.MarshalBinary()
			p = new(Prepared)
			if err := p.UnmarshalBinary(data); err != nil {
				t.Fatal(err)
			}
		}
		b.Append(p)
	}
	b.Append(Prepare(Session{Title: "after", Path: "a/"}, after))
	if err := errors.Join(a.Write(), b.Write()); err != nil {
		t.Fatal(err)
	}
	if len(whole) != len(parts) || len(whole) < 5 {
		t.Errorf("%d files whole, %d in parts", len(whole), len(parts))
	}
	for name, data := range whole {
		if parts[name] != data {
			t.Errorf("%s differs:\n%.300s\n%.300s", name, data, parts[name])
		}
	}
}

// A block of excerpts names the sessions of its rows once each, with
// their pages and titles as results show them; the eager table has none.
func TestBlocksCarryTitles(t *testing.T) {
	dir := t.TempDir()
	ix := New(nil, dirWriter(dir))
	long := strings.Repeat("Title ", 20)
	ix.Append(Prepare(Session{Title: "First", Path: "a/"}, []Doc{{N: 1, Text: "x"}, {N: 2, Text: "y"}}))
	ix.Append(Prepare(Session{Title: long, Path: "b/"}, make([]Doc, BlockDocs)))
	if err := ix.Write(); err != nil {
		t.Fatal(err)
	}
	var block struct {
		S [][2]string
		R [][4]any
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "f/0.json"))
	if err := json.Unmarshal(raw, &block); err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"a/", "First"}, {"b/", cut(long, titleLen)}}
	if !slices.Equal(block.S, want) || len(block.R) != BlockDocs {
		t.Fatalf("f/0.json = %s", raw)
	}
	if s := block.R[1][3]; s != 0.0 || block.R[2][3] != 1.0 || block.R[1][2] != "y" {
		t.Errorf("rows name their sessions wrong: %s", raw)
	}
	raw, _ = os.ReadFile(filepath.Join(dir, "f/1.json"))
	if err := json.Unmarshal(raw, &block); err != nil || !slices.Equal(block.S, want[1:]) || len(block.R) != 2 {
		t.Errorf("f/1.json = %s: %v", raw, err)
	}
	var meta struct{ Sessions string }
	raw, _ = os.ReadFile(filepath.Join(dir, "meta.json"))
	_ = json.Unmarshal(raw, &meta)
	raw, _ = os.ReadFile(filepath.Join(dir, meta.Sessions))
	if bytes.Contains(raw, []byte("First")) || bytes.Contains(raw, []byte("Title")) {
		t.Errorf("the table of sessions holds titles: %s", raw)
	}
	if !bytes.Contains(raw, []byte(`"models":[]`)) || !bytes.Contains(raw, []byte(`"kinds":[]`)) {
		t.Errorf("a table with no models or kinds lists none as null: %s", raw)
	}
}

// sortTerms sorts in place, as a plain sort would, terms of every first
// byte in any order.
func TestSortTerms(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var terms []term
	for i := range 5000 {
		b := make([]byte, 1+r.IntN(6))
		for j := range b {
			b[j] = byte(r.IntN(256))
		}
		terms = append(terms, term{string(b), int32(i)})
	}
	want := slices.Clone(terms)
	slices.SortStableFunc(want, func(x, y term) int { return strings.Compare(x.t, y.t) })
	got := sortTerms(terms)
	if &got[0] != &terms[0] {
		t.Error("sortTerms made a copy")
	}
	for i := range want {
		if got[i].t != want[i].t {
			t.Fatalf("term %d: %q, want %q", i, got[i].t, want[i].t)
		}
	}
}
