package site

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/internal/treetest"
	"github.com/transcriptsite/transcriptsite/site/stats"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// loadSite reads a site's sessions as a build does, without writing it.
func loadSite(t testing.TB, dir string) *Site {
	st, _ := loadSiteBodies(t, dir)
	return st
}

// loadSiteBodies is loadSite, and how to get the body of each session.
func loadSiteBodies(t testing.TB, dir string) (*Site, func(*Session) *transcript.Session) {
	t.Helper()
	cfg, _, err := LoadConfig(Options{Source: dir})
	if err != nil {
		t.Fatal(err)
	}
	opts, err := readOptions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ingest.LoadCached(context.Background(), opts, cfg.Roots()...)
	if err != nil {
		t.Fatal(err)
	}
	return testSite(cfg, res.Sessions...)
}

// TestStatsHandCounts checks the figures of testdata/stats.txtar, whose
// header tabulates its sessions, against counts made by hand from it.
func TestStatsHandCounts(t *testing.T) {
	st := loadSite(t, treetest.Extract(t, "testdata/stats.txtar"))
	all := st.Stats

	// w1, w2, w3 and a1 have four messages each (prompt, calls, results,
	// reply), a2 one: 17; each has one prompt. Six calls: two in w1, one in
	// w2, one in w3, two in a1; w1's Read and w2's Bash failed.
	check := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	check("sessions, undated", [2]int{all.Sessions, all.Undated}, [2]int{5, 1})
	check("messages, prompts", [2]int{all.Messages, all.Prompts}, [2]int{17, 5})
	check("tool calls, failed", [2]int{all.ToolCalls, all.Failed}, [2]int{6, 2})
	check("error rate", all.ErrorRate(), 2.0/6)

	// Input 1M + 2M + 0.1M + 0.5M; output a tenth of each; w3's cache read.
	check("usage", all.Usage, transcript.Usage{Input: 3_600_000, Output: 360_000, CacheRead: 1_000_000})
	check("tokens", all.Tokens(), int64(4_960_000))
	// $4.50 + $9.00 + $3.75; a1's 550,000 tokens have no price.
	checkCost(t, "cost", all.Cost, 17.25)
	check("unpriced", all.Unpriced, int64(550_000))

	// Two sessions on 1 March, one on 2 and 3 March; a2 has no day.
	check("days", days(all.Days()), []string{"2026-03-01: 2", "2026-03-02: 1", "2026-03-03: 1"})
	// Their tokens by model: w1 and w2 (sonnet) on 1 March, a1 (the
	// mystery model) on 2 March, w3 (opus) on 3 March.
	check("tokens per day", dayTokens(all.Days()), []string{
		"2026-03-01: claude-sonnet-4-5 3300000", "2026-03-02: mystery-model-1 550000", "2026-03-03: claude-opus-4-1 1110000"})
	check("agents", all.Agents, []stats.Count{{Name: "Claude Code", Sessions: 5}})

	// Sonnet: w1 1.1M + w2 2.2M tokens, $4.50 + $9.00; opus: w3's 1.11M,
	// $3.75; the mystery model: a1's 550,000, no price.
	check("models", usage(all.Models), []string{
		"claude-sonnet-4-5: 2 sessions, 3300000 tokens, $13.50, 0 unpriced",
		"claude-opus-4-1: 1 sessions, 1110000 tokens, $3.75, 0 unpriced",
		"mystery-model-1: 1 sessions, 550000 tokens, $0.00, 550000 unpriced",
	})
	check("projects", usage(all.Projects), []string{
		"web: 3 sessions, 4410000 tokens, $17.25, 0 unpriced",
		"api: 2 sessions, 550000 tokens, $0.00, 550000 unpriced",
	})
	// Bash in w1 and w2 (w2's failed); one each of Edit (w3), Read (w1,
	// failed), Grep and WebFetch (a1). Ties go by kind.
	check("tools", all.Tools, []stats.ToolRow{
		{Kind: transcript.ShellTool, Calls: 2, Failed: 1}, {Kind: transcript.EditTool, Calls: 1, Failed: 0}, {Kind: transcript.ReadTool, Calls: 1, Failed: 1},
		{Kind: transcript.SearchTool, Calls: 1, Failed: 0}, {Kind: transcript.WebTool, Calls: 1, Failed: 0},
	})
	// 2 h, 30 min, 5 min, 1 min; a2 has no duration.
	check("longest", ids(st, all.Longest), []string{"w3", "w1", "w2", "a1"})

	// A project's figures are computed the same way from its sessions; its
	// timeline has every day from its first to its last, 2 March with none.
	var web *Project
	for _, p := range st.Projects {
		if p.Name == "web" {
			web = p
		}
	}
	check("web sessions, calls, failed", [3]int{web.Stats.Sessions, web.Stats.ToolCalls, web.Stats.Failed}, [3]int{3, 4, 2})
	check("web days", days(web.Stats.Days()), []string{"2026-03-01: 2", "2026-03-02: 0", "2026-03-03: 1"})
	checkCost(t, "web cost", web.Stats.Cost, 17.25)
	check("web longest", ids(st, web.Stats.Longest), []string{"w3", "w1", "w2"})
}

func checkCost(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func days(ds []stats.Period) []string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%s: %d", d.Start.Format("2006-01-02"), d.Sessions))
	}
	return out
}

func dayTokens(ds []stats.Period) []string {
	var out []string
	for _, d := range ds {
		for _, t := range d.Models {
			out = append(out, fmt.Sprintf("%s: %s %d", d.Name, t.Name, t.Tokens()))
		}
	}
	return out
}

func usage(rs []stats.UsageRow) []string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%s: %d sessions, %d tokens, %s, %d unpriced", r.Name, r.Sessions, r.Tokens(), fmt.Sprintf("$%.2f", r.Cost), r.Unpriced))
	}
	return out
}

// ids are the ids of the sessions of st whose records are ss.
func ids(st *Site, ss []*stats.Session) []string {
	var out []string
	for _, s := range ss {
		for _, t := range st.Sessions {
			if t.Path == s.Path {
				out = append(out, t.ID)
			}
		}
	}
	return out
}

// TestStatsPages checks that the stats page and each project page show
// their own figures, each chart with a title and a table.
func TestStatsPages(t *testing.T) {
	cfg, _, err := build(t, treetest.Extract(t, "testdata/stats.txtar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	figure := regexp.MustCompile(`<figure class="chart[^"]*" id="(chart-[a-z-]+)">`)
	charts := func(page string) []string {
		var out []string
		for _, m := range figure.FindAllStringSubmatch(page, -1) {
			out = append(out, m[1])
		}
		return out
	}
	stats := readFile(t, cfg.Destination, "stats/index.html")
	want := []string{"chart-activity", "chart-sessions", "chart-tokens", "chart-agents", "chart-tokens-model", "chart-cost-model",
		"chart-tokens-project", "chart-cost-project", "chart-tools", "chart-errors", "chart-longest"}
	if got := charts(stats); !reflect.DeepEqual(got, want) {
		t.Errorf("stats page charts %v, want %v", got, want)
	}
	for _, w := range []string{
		`<title>2026-03-01: 2 sessions</title>`,
		`<th scope="row">claude-sonnet-4-5</th><td>3,300,000</td><td>$13.50</td>`,
		`<title>2026-03-01: 3,300,000 tokens</title>`,
		`<th scope="row">2026-03-02</th><td>mystery-model-1</td><td class="num">1</td>`,
		`<th scope="row">web</th><td>4,410,000</td><td>$17.25</td>`,
		`<th scope="row">mystery-model-1</th><td>550,000</td><td>no price</td>`,
		`<th scope="row">read</th><td>1</td><td>1</td><td>100.0%</td>`,
		`<dd>6, 2 failed (33.3%)</dd>`,
	} {
		if !strings.Contains(stats, w) {
			t.Errorf("stats page lacks %s", w)
		}
	}
	// Every chart but the calendar, whose squares name their days, has a
	// table; and the usage tables by month and by day follow the charts
	// over time.
	if n, want := strings.Count(stats, `<table class="figures">`), len(want)-1; n != want {
		t.Errorf("stats page has %d tables for %d charts", n, want)
	}
	if n := strings.Count(stats, `<table class="figures usage-figures">`); n != 2 {
		t.Errorf("stats page has %d usage tables, want 2", n)
	}
	if strings.Count(stats, `aria-labelledby="chart-`) != len(want) {
		t.Error("a chart has no accessible title")
	}

	web := readFile(t, cfg.Destination, "projects/web/index.html")
	if got := charts(web); len(got) != len(want)-2 || strings.Contains(strings.Join(got, " "), "project") {
		t.Errorf("project page charts %v: want all but those by project", got)
	}
	if !strings.Contains(web, `<th scope="row">2026-03-03</th><td>1</td>`) || strings.Contains(web, "mystery-model-1") {
		t.Error("the project page does not show its own figures")
	}
}

// TestListsShowTimeSpent: a session taken up again long after shows the
// time spent on it in the lists, not the days between its first and last
// message.
func TestListsShowTimeSpent(t *testing.T) {
	dir := t.TempDir()
	treetest.WriteTree(t, dir, map[string][]byte{
		"config.yaml": []byte("title: Lists\n"),
		"content/p/s.jsonl": []byte(`{"parentUuid":null,"sessionId":"s1","type":"user","message":{"role":"user","content":"Start"},"uuid":"u1","timestamp":"2024-01-01T10:00:00Z","cwd":"/p"}
{"parentUuid":"u1","sessionId":"s1","type":"assistant","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Started."}]},"uuid":"a1","timestamp":"2024-01-01T10:05:00Z"}
{"parentUuid":"a1","sessionId":"s1","type":"user","message":{"role":"user","content":"Back again"},"uuid":"u2","timestamp":"2026-04-01T10:00:00Z"}
{"parentUuid":"u2","sessionId":"s1","type":"assistant","message":{"id":"m2","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Done."}]},"uuid":"a2","timestamp":"2026-04-01T10:02:00Z"}
`),
	})
	cfg, _, err := build(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range []string{"index.html", "projects/p/index.html"} {
		html := readFile(t, cfg.Destination, page)
		_, list, _ := strings.Cut(html, `<ol class="sessions">`)
		list, _, _ = strings.Cut(list, "</ol>")
		if !strings.Contains(list, `data-duration="420"`) || !strings.Contains(list, ">7 min active</span>") || strings.Contains(list, "days") {
			t.Errorf("%s's list does not show the 7 minutes spent:\n%s", page, list)
		}
	}
	// The session's page says the same time spent, and labels the span
	// from its start to its end as that, not as a duration.
	e := readSessions(t, cfg.Destination)[0]
	html := readFile(t, cfg.Destination, e.URL+"index.html")
	summary, _, _ := strings.Cut(html, "</summary>")
	if !strings.Contains(summary, `<span class="fact">7 min active</span>`) {
		t.Errorf("the session's summary line does not show the 7 minutes spent:\n%s", summary)
	}
	if !strings.Contains(html, "after it started)") || !strings.Contains(html, "<dt>Time spent</dt><dd>7 min active") {
		t.Error("the session's facts do not label the time from start to end and the time spent")
	}
}
