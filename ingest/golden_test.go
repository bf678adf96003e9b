package ingest_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// TestGolden compares the sessions each corpus file gives with
// testdata/golden/<file>.json: their structure, and a digest of each text,
// never the text itself (the corpus is others' work, under their licenses).
// A reader change shows as a diff of these files; go test -update
// rewrites them.
func TestGolden(t *testing.T) {
	l := corpus(t)
	bySource := map[string][]*transcript.Session{}
	for _, s := range l.res.Sessions {
		bySource[s.Source] = append(bySource[s.Source], s)
	}
	want := map[string]bool{}
	_ = filepath.WalkDir("testdata/golden", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel("testdata/golden", p)
			want[strings.TrimSuffix(filepath.ToSlash(rel), ".json")] = true
		}
		return nil
	})
	for src, ss := range bySource {
		slices.SortFunc(ss, func(a, b *transcript.Session) int { return strings.Compare(a.ID, b.ID) })
		var docs []goldenSession
		for _, s := range ss {
			docs = append(docs, golden(s))
		}
		got, err := json.MarshalIndent(docs, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		file := filepath.Join("testdata/golden", filepath.FromSlash(src)+".json")
		delete(want, src)
		if *update {
			_ = os.MkdirAll(filepath.Dir(file), 0o755)
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s: no golden file (go test ./ingest -run TestGolden -update writes it)", src)
			continue
		}
		if !bytes.Equal(old, got) {
			t.Errorf("%s: sessions differ from %s (go test ./ingest -run TestGolden -update rewrites it):\n%s", src, file, firstDiff(old, got))
		}
	}
	for src := range want {
		if *update {
			_ = os.Remove(filepath.Join("testdata/golden", filepath.FromSlash(src)+".json"))
		} else {
			t.Errorf("%s: golden file for a file that gives no session now", src)
		}
	}
}

// firstDiff shows the first lines where a and b differ.
func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, x, y)
		}
	}
	return ""
}

// goldenSession is a session as its golden file holds it: ids, names,
// kinds, counts and times as they are; text as its length and a digest.
type goldenSession struct {
	ID, Format, Agent, Version string
	Sources                    []string          `json:",omitempty"`
	Title, Project, CWD        string            `json:",omitempty"`
	Branch                     string            `json:",omitempty"`
	Models                     []string          `json:",omitempty"`
	Started, Ended             string            `json:",omitempty"`
	Usage                      *transcript.Usage `json:",omitempty"`
	Parent                     string            `json:",omitempty"`
	Children                   []string          `json:",omitempty"`
	Meta                       map[string]string `json:",omitempty"`
	Skipped                    []string          `json:",omitempty"`
	Warnings                   int               `json:",omitempty"`
	Turns                      [][]string        // each message on a line: its role, flags and parts
}

func golden(s *transcript.Session) goldenSession {
	g := goldenSession{ID: s.ID, Format: s.Format, Agent: s.Agent, Version: s.AgentVersion, Sources: s.Sources,
		Title: digest(s.Title), Project: digest(s.Project), CWD: digest(s.CWD), Branch: digest(s.Branch),
		Models: s.Models, Started: stamp(s.Started), Ended: stamp(s.Ended), Parent: s.ParentID, Children: s.ChildIDs,
		Warnings: len(s.Warnings)}
	if !s.Usage.IsZero() {
		g.Usage = &s.Usage
	}
	for k, v := range s.Meta {
		if g.Meta == nil {
			g.Meta = map[string]string{}
		}
		g.Meta[k] = digest(v)
	}
	for _, k := range s.Skipped {
		g.Skipped = append(g.Skipped, fmt.Sprintf("%s ×%d: %s", k.Kind, k.Count, k.Reason))
	}
	for _, t := range s.Turns {
		var turn []string
		if t.Status != "" {
			turn = append(turn, "status "+t.Status)
		}
		for _, m := range t.Messages {
			turn = append(turn, goldenMessage(m))
		}
		g.Turns = append(g.Turns, turn)
	}
	return g
}

// goldenMessage describes a message on one line:
// "assistant claude-x 10:00:01 [meta] {in 5 out 7}: text 42#1a2b3c4d | call Bash shell …".
func goldenMessage(m *transcript.Message) string {
	var b strings.Builder
	b.WriteString(string(m.Role))
	for _, f := range []string{m.Model, m.ID, stamp(m.Time)} {
		if f != "" {
			b.WriteString(" " + f)
		}
	}
	if m.Meta {
		b.WriteString(" meta")
	}
	if m.Sidechain {
		b.WriteString(" sidechain")
	}
	if m.Branch != "" {
		b.WriteString(" branch=" + m.Branch)
	}
	if !m.Usage.IsZero() {
		fmt.Fprintf(&b, " %+v", m.Usage)
	}
	b.WriteString(":")
	for i, p := range m.Parts {
		if i > 0 {
			b.WriteString(" |")
		}
		b.WriteString(" " + goldenPart(p))
	}
	return b.String()
}

func goldenPart(p *transcript.Part) string {
	out := string(p.Kind)
	add := func(s string) {
		if s != "" {
			out += " " + s
		}
	}
	add(digest(p.Text))
	add(p.Lang)
	add(digest(p.Name))
	if c := p.Call; c != nil {
		add(c.Name + " " + string(c.Kind) + " " + c.ID + " in " + digest(c.Input))
		if c.Subagent != "" {
			add("→ " + c.Subagent)
		}
	}
	if r := p.Result; r != nil {
		add("for " + r.CallID + " out " + digest(r.Output))
		if r.IsError {
			add("error")
		}
		if r.ExitCode != nil {
			add(fmt.Sprintf("exit %d", *r.ExitCode))
		}
		if r.Paired {
			add("paired")
		}
		for _, h := range r.Patch {
			add(fmt.Sprintf("hunk %s -%d +%d %d lines %s", digest(h.Path), h.OldStart, h.NewStart, len(h.Lines), digest(strings.Join(h.Lines, "\n"))))
		}
		for _, img := range r.Images {
			add(goldenImage(img))
		}
	}
	if p.Image != nil {
		add(goldenImage(p.Image))
	}
	if e := p.Event; e != nil {
		add(e.Kind)
		if e.Raw != "" {
			add("raw " + digest(e.Raw))
		}
		if e.Session != "" {
			add("→ " + e.Session)
		}
	}
	return out
}

func goldenImage(img *transcript.Image) string {
	if img.URL != "" {
		return "image " + digest(img.URL)
	}
	return fmt.Sprintf("image %s %d bytes", img.MediaType, max(img.Size, len(img.Data)))
}

// digest is text's length and the start of its SHA-256: a change shows,
// the text does not.
func digest(s string) string {
	if s == "" {
		return ""
	}
	h := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%d#%x", len(s), h[:4])
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
