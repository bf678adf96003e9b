package search

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkTokenize tokenizes the real Claude Code sessions of the corpus
// (their JSON as it is: prose, code, paths and escapes).
func BenchmarkTokenize(b *testing.B) {
	files, _ := filepath.Glob("../../../shared/corpus/claude-code/claude-code-log-real/*/*.jsonl")
	var text string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err == nil {
			text += string(data)
		}
	}
	if text == "" {
		b.Skip("no corpus")
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Tokenize(text, func([]byte, bool) bool { return true })
	}
}
