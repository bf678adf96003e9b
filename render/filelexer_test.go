package render

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// globNames makes names that a glob matches: each wildcard given a few
// values, each class its first character.
func globNames(g string) []string {
	names := []string{""}
	for i := 0; i < len(g); i++ {
		var alts []string
		switch g[i] {
		case '*':
			alts = []string{"", "x", "a.b"}
		case '?':
			alts = []string{"q"}
		case '[':
			end := strings.IndexByte(g[i+1:], ']')
			if end < 0 {
				return nil
			}
			class := strings.TrimPrefix(g[i+1:i+1+end], "!")
			alts = []string{class[:1]}
			i += end + 1
		case '\\':
			i++
			alts = []string{g[i : i+1]}
		default:
			alts = []string{g[i : i+1]}
		}
		var next []string
		for _, n := range names {
			for _, a := range alts {
				next = append(next, n+a)
			}
		}
		names = next
	}
	return names
}

func sameLexer(t *testing.T, name string) {
	t.Helper()
	got, want := matchFile(name), lexers.Match(name)
	if got != want {
		t.Errorf("%q: matchFile gives %s, chroma's Match %s", name, lexerName(got), lexerName(want))
	}
}

func lexerName(l chroma.Lexer) string {
	if l == nil {
		return "no lexer"
	}
	return l.Config().Name
}

// matchFile finds what chroma's Match finds for names that every glob of
// every lexer matches, the same with backup and template suffixes, names
// that tie between lexers, and the file names of this repository and of
// the shared corpus.
func TestMatchFileIsChromas(t *testing.T) {
	seen := map[string]bool{}
	var names []string
	check := func(name string) {
		if name != "" && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	for _, l := range lexers.GlobalLexerRegistry.Lexers {
		c := l.Config()
		for _, g := range slices.Concat(c.Filenames, c.AliasFilenames) {
			for _, n := range globNames(g) {
				for _, suffix := range []string{"", "~", ".in", "x"} {
					check(n + suffix)
					check(strings.ToLower(n + suffix))
				}
			}
		}
	}
	for _, n := range []string{"makefile", "Makefile.am", "cargo.lock", "uv.lock", "dockerfile", "go.mod", "x.h", "a.m", "a.pl", "readme", ".bashrc", ".env", "a.min.js", "a", "."} {
		check(n)
	}
	for _, root := range []string{"..", "../../shared/corpus"} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.Name() == ".git" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			check(strings.ToLower(d.Name()))
			return nil
		})
	}
	if len(names) < 3000 {
		t.Fatalf("only %d names to try", len(names))
	}
	var wg sync.WaitGroup
	for k := range runtime.GOMAXPROCS(0) {
		wg.Go(func() { // chroma's Match takes 2 ms a name
			for i := k; i < len(names); i += runtime.GOMAXPROCS(0) {
				sameLexer(t, names[i])
			}
		})
	}
	wg.Wait()
	if _, err := os.Stat("../../shared/corpus"); err != nil {
		t.Logf("the shared corpus's names were not tried: %v", err)
	}
}

func FuzzMatchFile(f *testing.F) {
	for _, n := range []string{"main.go", "Makefile", "x.tar.gz", "a.c.orig", "CMakeLists.txt", "~", "[", "*"} {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if strings.ContainsAny(name, `/\`) || name == "" {
			return
		}
		sameLexer(t, name)
	})
}

// BenchmarkFileLexer finds the lexers of names no build met before, as a
// site with thousands of distinct files does.
func BenchmarkFileLexer(b *testing.B) {
	names := []string{"handler.go", "notes.txt", "Makefile", "data.unknownext", "app.test.tsx", "settings.local.json"}
	b.Run("chroma", func(b *testing.B) {
		for b.Loop() {
			for _, n := range names {
				lexers.Match(n)
			}
		}
	})
	b.Run("matchFile", func(b *testing.B) {
		for b.Loop() {
			for _, n := range names {
				matchFile(n)
			}
		}
	})
}

// Files of one language share one lexer, however many names the build
// meets: a lexer made for each name was kept for each, to the build's end.
func TestFileLexerShared(t *testing.T) {
	a, b := fileLexer("cmd/a.go"), fileLexer("pkg/other_name.go")
	if a == nil || a != b {
		t.Errorf("a.go's lexer %v, other_name.go's %v: want one, the same", a, b)
	}
	if l := lexer("go", lexers.Get); l != a {
		t.Errorf("the lexer named go is %v, not the .go files' %v", l, a)
	}
	if fileLexer("notes.txt") != nil || fileLexer("x.unknown-ext") != nil {
		t.Error("plain text or an unknown file has a lexer")
	}
}
