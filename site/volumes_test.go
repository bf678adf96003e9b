package site

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	transcriptsite "github.com/transcriptsite/transcriptsite"
	"github.com/transcriptsite/transcriptsite/site/siteconfig"
	"github.com/transcriptsite/transcriptsite/site/theme"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// volume is volume v of a session read in volumes, of two turns.
func volume(v int) *transcript.Session {
	at := time.Date(2026, 3, 1, v, 0, 0, 0, time.UTC)
	s := &transcript.Session{ID: "big-1", Format: "claude-code", Source: "p/big-1.jsonl", CWD: "/src/big", Volume: v,
		Started: at, Ended: at.Add(time.Minute), Usage: transcript.Usage{Input: 10}}
	for i := range 2 {
		s.Turns = append(s.Turns, transcript.Turn{Messages: []*transcript.Message{
			{Role: transcript.User, Parts: []*transcript.Part{{Kind: transcript.TextPart, Text: fmt.Sprintf("prompt %d.%d", v, i)}}},
			{Role: transcript.Assistant, Model: "m", Parts: []*transcript.Part{{Kind: transcript.TextPart, Text: "reply"}}},
		}})
	}
	return s
}

// The volumes of a session are one session in lists and stats, and pages
// of their own that link each other, numbered on from one another.
func TestVolumesAreOneSession(t *testing.T) {
	other := &transcript.Session{ID: "small-1", Format: "claude-code", Source: "p/small-1.jsonl", CWD: "/src/big",
		Started: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), Turns: volume(1).Turns}
	third := volume(3)
	third.CWD = "/src/elsewhere" // a volume read without what told the first its folder
	st, body := testSite(&Config{}, third, volume(1), other, volume(2))
	if st.Stats.Sessions != 2 || st.Stats.Messages != 16 || st.Stats.Usage.Input != 30 {
		t.Errorf("stats: %d sessions, %d messages, %d input tokens; want 2, 16 and 30", st.Stats.Sessions, st.Stats.Messages, st.Stats.Usage.Input)
	}
	if p := st.Projects[0]; len(st.Projects) != 1 || len(p.Sessions) != 2 {
		t.Fatalf("projects %v: want one listing two sessions", st.Projects)
	}
	head := st.Session("big-1", "claude-code")
	if head.Volume != 1 || len(head.Volumes) != 3 || head.Stats.Messages != 12 || head.Duration() != volume(3).Ended.Sub(volume(1).Started) || !head.Ended.Equal(volume(3).Ended) {
		t.Fatalf("first volume: volume %d of %d, %d messages, ended %v", head.Volume, len(head.Volumes), head.Stats.Messages, head.Ended)
	}
	if head.Volumes[2].Project != head.Project {
		t.Errorf("the third volume is of project %s, the first of %s", head.Volumes[2].Project.Name, head.Project.Name)
	}
	second := head.Volumes[1]
	if second.Path != head.Path+"2/" || second.Title != head.Title+" (part 2 of 3)" || second.Stats.Messages != 4 {
		t.Errorf("second volume: %q %q, %d messages", second.Path, second.Title, second.Stats.Messages)
	}

	tpl, err := theme.Load(siteconfig.Overlay{Upper: os.DirFS(t.TempDir()), Lower: transcriptsite.FS})
	if err != nil {
		t.Fatal(err)
	}
	pg := &Page{Kind: "session", Title: second.Title, Path: second.Path, Project: second.Project, Session: second, Site: st}
	pg.Turns = TurnViews(pg, body(second))
	var buf bytes.Buffer
	if err := tpl["session"].ExecuteTemplate(&buf, "baseof.html", pg); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	anchors := regexp.MustCompile(`id="m-(\d+)"`).FindAllStringSubmatch(page, -1)
	if len(anchors) != 4 || anchors[0][1] != "5" || anchors[3][1] != "8" {
		t.Errorf("anchors %v: want m-5 to m-8, after the 4 messages of the first volume", anchors)
	}
	// Two navs, each a landmark of its own name.
	if strings.Count(page, `aria-label="Parts of this session"`) != 1 || strings.Count(page, `aria-label="Parts of this session, again"`) != 1 {
		t.Error("the parts' navs are not one above and one below the messages, each named apart")
	}
	for _, want := range []string{`class="volumes"`, "Part 2 of 3", head.Path + `index.html" rel="prev">1</a>`,
		head.Path + `3/index.html" rel="next">3</a>`, `2/index.html" aria-current="page">2</a>`} {
		if strings.Count(page, want) != 2 {
			t.Errorf("the page has %d of %q, want 2: above and below the messages", strings.Count(page, want), want)
		}
	}
}
