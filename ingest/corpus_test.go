package ingest_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/transcriptsite/transcriptsite/ingest"
	_ "github.com/transcriptsite/transcriptsite/ingest/agents"
	"github.com/transcriptsite/transcriptsite/ingest/ingesttest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// loadCorpus is what Load gives for the shared corpus, or a skip when
// there is none.
func loadCorpus(t *testing.T) *ingest.Result { return corpus(t).res }

// corpusFormats maps the corpus's folders to the format their session
// files are in: each is named after its format.
func corpusFormats() map[string]string {
	out := map[string]string{}
	for _, r := range ingest.Readers {
		if info, err := os.Stat(filepath.Join(corpusDir, r.Name)); err == nil && info.IsDir() {
			out[r.Name] = r.Name
		}
	}
	return out
}

// pending are formats whose reader has not landed yet.
var pending = map[string]bool{}

// TestCorpus checks that every session file of every format in the shared
// corpus becomes a session of that format with messages.
func TestCorpus(t *testing.T) {
	res := loadCorpus(t)
	bySource := map[string][]*transcript.Session{}
	for _, s := range res.Sessions {
		for _, src := range append([]string{s.Source}, s.Sources...) {
			bySource[src] = append(bySource[src], s)
		}
	}
	warned := map[string]string{}
	for _, w := range res.Warnings {
		if w.Line == 0 {
			warned[w.File] = w.Msg
		}
	}
	for dir, format := range corpusFormats() {
		t.Run(format, func(t *testing.T) {
			if pending[format] {
				t.Skip("reader not written yet")
			}
			_ = fs.WalkDir(os.DirFS(corpusDir), dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || ingesttest.NotSession(p) || pending[p] {
					return err
				}
				ss := bySource[p]
				if len(ss) == 0 {
					t.Errorf("%s: no session (warning: %q)", p, warned[p])
					return nil
				}
				for _, s := range ss {
					if s.Format != format {
						t.Errorf("%s: read as %s, want %s", p, s.Format, format)
					}
					if s.Stats().Messages == 0 {
						t.Errorf("%s: session %s has no messages", p, s.ID)
					}
				}
				return nil
			})
		})
	}
}

// TestCorpusExpectedCounts checks the golden files against the counts
// kvsankar/agent-history asserts for them.
func TestCorpusExpectedCounts(t *testing.T) {
	res := loadCorpus(t)
	data, err := os.ReadFile(corpusDir + "/LICENSES/agent-history-v1-expected_values.json")
	if err != nil {
		t.Fatal(err)
	}
	var expected map[string]struct {
		SessionID    string         `json:"session_id"`
		MessageCount int            `json:"message_count"`
		ToolCalls    map[string]int `json:"tool_calls"`
	}
	if err := json.Unmarshal(data, &expected); err != nil {
		t.Fatal(err)
	}
	for name, want := range expected {
		if want.SessionID == "" {
			continue // the totals
		}
		t.Run(name, func(t *testing.T) {
			if pending[name] {
				t.Skip("reader not written yet")
			}
			var s *transcript.Session
			for _, c := range res.Sessions {
				if c.ID == want.SessionID {
					s = c
				}
			}
			if s == nil {
				t.Fatalf("no session %s", want.SessionID)
			}
			if got := s.Stats().Messages; got != want.MessageCount {
				t.Errorf("messages = %d, want %d", got, want.MessageCount)
			}
			calls := map[string]int{}
			s.Parts(func(_ *transcript.Message, p *transcript.Part) {
				if p.Call != nil {
					calls[p.Call.Name]++
				}
			})
			for tool, n := range want.ToolCalls {
				if calls[tool] != n {
					t.Errorf("%s calls = %d, want %d (all: %v)", tool, calls[tool], n, calls)
				}
			}
			if len(calls) != len(want.ToolCalls) {
				t.Errorf("tool calls %v, want %v", calls, want.ToolCalls)
			}
		})
	}
}
