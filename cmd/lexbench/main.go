// Command lexbench measures chroma on the code a build highlights in the
// sessions of a folder: the rows of every read, write and edit (as the
// page's file views join them), grouped by the lexer the file's name
// chooses, and prints a Markdown table of MB/s per language.
//
//	go run ./cmd/lexbench -dir ../shared/corpus/claude-code/claude-code-log-real
//
// Each language's code is lexed -runs times in one goroutine (chroma's
// lexer only, drained as the page drains it: no HTML is written), and the
// fastest run is kept. It reads the sessions with the build's own reader,
// with no cache and no redaction.
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"

	"github.com/transcriptsite/transcriptsite/ingest"
	_ "github.com/transcriptsite/transcriptsite/ingest/agents" // the agents whose sessions it reads
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/transcript"
)

func main() {
	dir := flag.String("dir", "../shared/corpus/claude-code/claude-code-log-real", "the folder of sessions")
	runs := flag.Int("runs", 3, "how many times each language's code is lexed")
	profile := flag.String("profile", "", "write a CPU profile to this file; the build's lexer runs carry the label lexer=build (go tool pprof -tagfocus lexer=build)")
	flag.Parse()
	if *profile != "" {
		startProfile(*profile)
		defer pprof.StopCPUProfile()
	}
	code, err := collect(*dir)
	exitOn(err)
	printTable(code, *runs)
}

// exitOn ends the program when err is not nil.
func exitOn(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "lexbench:", err)
		os.Exit(1)
	}
}

// startProfile starts a CPU profile into the file at path.
func startProfile(path string) {
	f, err := os.Create(path)
	exitOn(err)
	exitOn(pprof.StartCPUProfile(f))
}

// printTable measures the code of each lexer and prints a row of each,
// the most code first, and one of them all.
func printTable(code map[string][]string, runs int) {
	fmt.Println("| lexer | views | MB | chroma s | chroma MB/s | build's lexer s | build's MB/s |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|")
	var tb, tc, tq float64
	for _, name := range byBytes(code) {
		views := code[name]
		bytes, c, q := measure(name, views, runs)
		tb, tc, tq = tb+bytes, tc+c, tq+q
		fmt.Printf("| %s | %d | %.3f | %.3f | %.2f | %.3f | %.2f |\n", name, len(views), bytes/1e6, c, bytes/1e6/c, q, bytes/1e6/q)
	}
	fmt.Printf("| all | | %.3f | %.3f | %.2f | %.3f | %.2f |\n", tb/1e6, tc, tb/1e6/tc, tq, tb/1e6/tq)
}

// collect reads every session file under dir and returns the text of its
// file views, by the name of the lexer each file's name chooses.
func collect(dir string) (map[string][]string, error) {
	code := map[string][]string{}
	root := ingest.Root{Name: filepath.Base(dir), FS: os.DirFS(dir)}
	err := fs.WalkDir(root.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !sessionFile(p, d) {
			return err
		}
		ss, _ := ingest.LoadFile(context.Background(), ingest.Options{}, root, p)
		for _, s := range ss {
			addSession(code, s)
		}
		return nil
	})
	return code, err
}

// sessionFile says whether the walk's entry p is a file of sessions.
func sessionFile(p string, d fs.DirEntry) bool {
	return !d.IsDir() && strings.HasSuffix(p, ".jsonl")
}

// addSession adds the file views of every call of s.
func addSession(code map[string][]string, s *transcript.Session) {
	for _, m := range s.Messages() {
		for _, part := range m.Parts {
			if part.Call != nil {
				addViews(code, part.Call)
			}
		}
	}
}

// fileView is the rows of a file a page shows.
type fileView struct {
	path string
	rows []render.Row
}

// viewsOf are the file views a call of each kind shows.
var viewsOf = map[transcript.ToolKind]func(*transcript.ToolCall) []fileView{
	transcript.ReadTool:  readViews,
	transcript.WriteTool: writeViews,
	transcript.EditTool:  editViews,
}

func readViews(c *transcript.ToolCall) []fileView {
	if v := render.Read(c); len(v.Rows) > 0 {
		return []fileView{{v.Path, v.Rows}}
	}
	return nil
}

func writeViews(c *transcript.ToolCall) []fileView {
	return []fileView{{c.Args.Path, render.Numbered(c.Args.Content, 1)}}
}

func editViews(c *transcript.ToolCall) []fileView {
	var vs []fileView
	for _, fd := range render.Edits(c) {
		vs = append(vs, fileView{fd.Path, fd.Rows})
	}
	return vs
}

// addViews adds the file views of a call as the page shows them.
func addViews(code map[string][]string, c *transcript.ToolCall) {
	views, ok := viewsOf[c.Kind]
	if !ok {
		return
	}
	for _, v := range views(c) {
		add(code, v.path, v.rows)
	}
}

// add joins rows as render.Rows does before it lexes them.
func add(code map[string][]string, p string, rows []render.Row) {
	name := lexerName(p)
	text := joinRows(rows)
	if len(text) > 256<<10 || len(rows) > 2000 { // render's limits: shown plain
		name = "(too big: plain)"
	}
	fileOf[name] = path.Base(p)
	code[name] = append(code[name], text)
}

// lexerName is the name of the lexer the build chooses for a file named p.
func lexerName(p string) string {
	if l := render.FileLexer(p); l != nil {
		return l.Config().Name
	}
	return "(none: plain)"
}

// joinRows is the text of rows, a line each, without hunk headers.
func joinRows(rows []render.Row) string {
	var b strings.Builder
	for _, r := range rows {
		if r.Op != '@' {
			b.WriteString(r.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// byBytes is the names of code, the most code first.
func byBytes(code map[string][]string) []string {
	size := func(n string) (t int) {
		for _, s := range code[n] {
			t += len(s)
		}
		return t
	}
	names := make([]string, 0, len(code))
	for n := range code {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return size(b) - size(a) })
	return names
}

// measure lexes views runs times with chroma's lexer of that name and
// with the build's, and returns their bytes and each one's fastest run's
// seconds.
func measure(name string, views []string, runs int) (bytes, chromaSecs, buildSecs float64) {
	for _, v := range views {
		bytes += float64(len(v))
	}
	if strings.HasPrefix(name, "(") {
		return bytes, 0, 0
	}
	build := render.FileLexer(fileOf[name])
	c := fastest(chroma.Coalesce(lexers.Get(name)), views, runs)
	pprof.Do(context.Background(), pprof.Labels("lexer", "build"), func(context.Context) {
		buildSecs = fastest(build, views, runs)
	})
	return bytes, c, buildSecs
}

// fileOf is a file name of each lexer's code, to ask the build for its lexer.
var fileOf = map[string]string{}

func fastest(l chroma.Lexer, views []string, runs int) float64 {
	best := time.Duration(1<<63 - 1)
	for range runs {
		t0 := time.Now()
		for _, v := range views {
			drain(l, v)
		}
		best = min(best, time.Since(t0))
	}
	return best.Seconds()
}

// drain lexes v with l and reads every token, as the page does.
func drain(l chroma.Lexer, v string) {
	it, err := l.Tokenise(nil, v)
	if err != nil {
		return
	}
	for t := it(); t != chroma.EOF; t = it() {
	}
}
