package render

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// FoldLines is how many lines of output show before "show all".
const FoldLines = 20

// headLines is how much of a huge output the page shows.
const headLines = 200

// Folded is tool output cut for the page: Head shows, Rest is behind a
// "show all" toggle. A huge output (past the highlighting limits) shows only
// its head; the whole text goes to File, beside the page.
type Folded struct {
	Head, Rest string
	Lines      int
	File       string // set for a huge output: its .txt file, relative to the page
}

// Fold cuts output for the page.
func Fold(s string) Folded {
	s = strings.TrimRight(s, "\n")
	f := Folded{Lines: CountLines(s)}
	if IsHuge(s) {
		f.File = OutputFile(s)
		s = cutLines(s, headLines)
	}
	f.Head = cutLines(s, FoldLines)
	f.Rest = strings.TrimPrefix(s[len(f.Head):], "\n")
	return f
}

// cutLines returns the first n lines of s.
func cutLines(s string, n int) string {
	i := 0
	for ; n > 0; n-- {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return s
		}
		i += j + 1
	}
	return s[:i-1]
}

// IsHuge reports whether text is too long to highlight or show whole.
func IsHuge(s string) bool {
	return len(s) > maxHighlightBytes || strings.Count(s, "\n") >= maxHighlightLines
}

// OutputFile names the file a huge output is written to, by its content.
func OutputFile(s string) string {
	sum := sha256.Sum256([]byte(strings.TrimRight(s, "\n")))
	return "out/" + hex.EncodeToString(sum[:10]) + ".txt"
}
