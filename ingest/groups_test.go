package ingest

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// TestReleasedGroupsLoadBack reads the shared corpus with every session
// held, and again releasing each to a cache: the summaries must be what
// the held sessions give, and each group must load back exactly the held
// sessions, cold and warm.
func TestReleasedGroupsLoadBack(t *testing.T) {
	held := loadCorpus(t)
	type key struct{ source, id string }
	want := map[key]*transcript.Session{}
	for _, s := range held.Sessions {
		want[key{s.Source, s.ID}] = s
	}
	c := &memCache{}
	for _, run := range []string{"cold", "warm", "lost"} {
		res, err := LoadCached(context.Background(), Options{Cache: c, Release: true}, Root{FS: os.DirFS(corpusDir)})
		if err != nil {
			t.Fatal(err)
		}
		if run == "lost" { // the cache loses every parsed file: they are read again
			for _, rd := range res.reads {
				c.Put(rd.key, nil)
			}
		}
		if len(res.Sessions) != len(held.Sessions) || len(res.Warnings) != len(held.Warnings) {
			t.Fatalf("%s: %d sessions, %d warnings; held: %d, %d", run, len(res.Sessions), len(res.Warnings), len(held.Sessions), len(held.Warnings))
		}
		n := 0
		for i, group := range res.Groups() {
			full, err := res.Load(context.Background(), i)
			if err != nil {
				t.Fatal(err)
			}
			for j, s := range group {
				n++
				w := want[key{s.Source, s.ID}]
				switch {
				case w == nil:
					t.Errorf("%s: %s %s was not read when sessions were held", run, s.Source, s.ID)
				case s.Turns != nil || s.Kept == nil:
					t.Errorf("%s: %s was not released", run, s.Source)
				case !reflect.DeepEqual(*s.Kept, w.Summary()):
					t.Errorf("%s: %s: summary %+v, held %+v", run, s.Source, *s.Kept, w.Summary())
				case !reflect.DeepEqual(full[j], w):
					t.Errorf("%s: %s %s loads back different from when it was held", run, s.Source, s.ID)
				}
			}
		}
		if n != len(held.Sessions) {
			t.Errorf("%s: groups hold %d sessions of %d", run, n, len(held.Sessions))
		}
	}
}

// gob sends a pointer to zero as nothing: exit code 0 must survive the
// cache all the same, on a result part and on a call's result.
func TestCacheKeepsExitCodeZero(t *testing.T) {
	zero, one := 0, 1
	m := &transcript.Message{Role: transcript.Assistant, Parts: []*transcript.Part{
		{Kind: transcript.CallPart, Call: &transcript.ToolCall{ID: "a", Result: &transcript.ToolResult{ExitCode: &zero}}},
		{Kind: transcript.ResultPart, Result: &transcript.ToolResult{ExitCode: &zero}},
		{Kind: transcript.ResultPart, Result: &transcript.ToolResult{ExitCode: &one}},
		{Kind: transcript.ResultPart, Result: &transcript.ToolResult{}},
	}}
	s := &transcript.Session{ID: "s"}
	s.Append(m)
	var buf bytes.Buffer
	if err := (&parsed{Reader: 1, Sessions: []*transcript.Session{s}}).encode(&buf); err != nil {
		t.Fatal(err)
	}
	var p parsed
	if err := p.decode(&buf); err != nil {
		t.Fatal(err)
	}
	got := p.Sessions[0].Turns[0].Messages[0].Parts
	code := func(r *transcript.ToolResult) any {
		if r.ExitCode == nil {
			return nil
		}
		return *r.ExitCode
	}
	if a, b, c, d := code(got[0].Call.Result), code(got[1].Result), code(got[2].Result), code(got[3].Result); a != 0 || b != 0 || c != 1 || d != nil {
		t.Errorf("exit codes after the cache: %v %v %v %v, want 0 0 1 nil", a, b, c, d)
	}
}
