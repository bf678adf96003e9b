package render

import (
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// matchFile returns the lexer chroma's lexers.Match returns for the file
// name, in a hundredth of the time. chroma tries every glob of every lexer
// with filepath.Match, again with each of a dozen backup suffixes: 2 ms a
// name, which made it a tenth of a build's CPU where sessions touch
// thousands of distinct files. A glob can match a name, or the name less
// a suffix, only if the name contains each run of the glob's literal
// text: a substring test of the longest rules out nearly every lexer, and
// chroma's own Match then runs over those left, in the registry's order,
// so that what it finds and how it breaks ties are unchanged.
func matchFile(name string) chroma.Lexer {
	ix := fileGlobs()
	var maybe chroma.Lexers
	for i, l := range ix.lexers {
		for _, lit := range ix.lits[i] {
			if strings.Contains(name, lit) {
				maybe = append(maybe, l)
				break
			}
		}
	}
	if len(maybe) == 0 {
		return nil
	}
	return (&chroma.LexerRegistry{Lexers: maybe}).Match(name)
}

// globLiterals are the registry's lexers and, for each, the longest run
// of literal text of each of its file name globs (those it matches first
// and its aliases).
type globLiterals struct {
	lexers chroma.Lexers
	lits   [][]string
}

var fileGlobs = sync.OnceValue(func() *globLiterals {
	ix := &globLiterals{lexers: lexers.GlobalLexerRegistry.Lexers}
	ix.lits = make([][]string, len(ix.lexers))
	for i, l := range ix.lexers {
		c := l.Config()
		for _, globs := range [][]string{c.Filenames, c.AliasFilenames} {
			for _, g := range globs {
				ix.lits[i] = append(ix.lits[i], longestLiteral(g))
			}
		}
	}
	return ix
})

// longestLiteral is the longest text of the glob g between its
// wildcards, up to its first class or escape, whose ends are not looked
// for: they are rare in chroma's globs.
func longestLiteral(g string) string {
	if end := strings.IndexAny(g, `[\`); end >= 0 {
		g = g[:end]
	}
	best := ""
	for run := range strings.FieldsFuncSeq(g, func(r rune) bool { return r == '*' || r == '?' }) {
		if len(run) > len(best) {
			best = run
		}
	}
	return best
}
