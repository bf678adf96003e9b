package site

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/internal/treetest"
)

func sources(t *testing.T, dest string) []string {
	t.Helper()
	var out []string
	for _, e := range readSessions(t, dest) {
		out = append(out, e.Source)
	}
	slices.Sort(out)
	return out
}

func TestSelection(t *testing.T) {
	for _, c := range []struct {
		name   string
		config string
		want   []string
	}{
		{"include a project", "publish:\n  include:\n    projects: [alpha]\n", []string{"alpha/one.jsonl", "alpha/two.jsonl"}},
		{"include a glob, exclude a date range", "publish:\n  include:\n    sources: ['beta/**']\n  exclude:\n    from: 2026-04-02\n", []string{"beta/evil.jsonl"}},
		{"from a day on", "publish:\n  include:\n    from: '2026-05-02'\n", []string{"alpha/two.jsonl"}},
		{"up to a day", "publish:\n  include:\n    to: 2026-04-02\n", []string{"beta/copy/dup-b.jsonl", "beta/dup-a.jsonl", "beta/evil.jsonl"}},
		{"hide by id and glob", "hide:\n  - 11111111-aaaa-4000-8000-000000000001\n  - beta/copy/*\n", []string{"alpha/two.jsonl", "beta/dup-a.jsonl", "beta/evil.jsonl"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := treetest.Extract(t, "testdata/site.txtar")
			f, _ := os.OpenFile(filepath.Join(dir, "config.yaml"), os.O_APPEND|os.O_WRONLY, 0)
			_, _ = f.WriteString(c.config)
			_ = f.Close()
			cfg, rep, err := build(t, dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := sources(t, cfg.Destination); !slices.Equal(got, c.want) || rep.Sessions != len(c.want) {
				t.Errorf("sessions %v, want %v", got, c.want)
			}
			// A session left out has no page, and no page, feed or index names it.
			all := treetest.Tree(t, cfg.Destination)
			for source, id := range map[string]string{"alpha/one.jsonl": "11111111", "alpha/two.jsonl": "22222222"} {
				if slices.Contains(c.want, source) {
					continue
				}
				for name, data := range all {
					if strings.Contains(name+string(data), id) {
						t.Errorf("%s names %s, which is left out", name, source)
					}
				}
			}
			pages := 0
			for name := range all {
				if regexp.MustCompile(`^sessions/[^/]+/[^/]+/index\.html$`).MatchString(filepath.ToSlash(name)) {
					pages++
				}
			}
			if pages != len(c.want) {
				t.Errorf("%d session pages, want %d", pages, len(c.want))
			}
			checkLinks(t, cfg.Destination, "")

			// serve shows everything.
			cfg, _, err = LoadConfig(Options{Source: dir, ShowAll: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Build(t.Context(), cfg); err != nil {
				t.Fatal(err)
			}
			if got := sources(t, cfg.Destination); len(got) != 5 {
				t.Errorf("ShowAll: %v", got)
			}
		})
	}
}

func TestSelectionConfigErrors(t *testing.T) {
	for body, want := range map[string]string{
		"publish:\n  include:\n    projet: [a]\n":    `publish.include.projet: unknown (did you mean "publish.include.projects"?); want any of projects, sources, from, to`,
		"publish:\n  exclude:\n    from: May 1st\n":  `publish.exclude.from: want a date such as 2026-01-31, got "May 1st"`,
		"publish:\n  include:\n    sources: ['[']\n": `publish.include.sources: "[" is not a valid glob`,
		"publish:\n  include: alpha\n":               "publish.include: want a map",
		"hide: [a, '[x']\n":                          `hide: "[x" is neither a session id nor a glob`,
		"cname: https://x.example/\n":                `cname: "https://x.example/" is not a domain name`,
	} {
		_, _, err := LoadConfig(Options{Source: treetest.WriteConfig(t, "config.yaml", body)})
		if err == nil || !strings.Contains(err.Error(), "config.yaml: "+want) {
			t.Errorf("%q: err = %v, want %q", body, err, want)
		}
	}
}

// TestPermalinksStay adds sessions to a built site, to a project it has and
// to a new one, and checks that every page it had is still where it was.
func TestPermalinksStay(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	cfg, _, err := build(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := treetest.Tree(t, cfg.Destination)
	urls := readSessions(t, cfg.Destination)
	_ = os.WriteFile(filepath.Join(dir, "content", "alpha", "three.jsonl"), []byte(secretSession("44444444-dddd-4000-8000-000000000004", "A newer alpha session")), 0o644)
	_ = os.MkdirAll(filepath.Join(dir, "content", "gamma"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, "content", "gamma", "old.jsonl"), []byte(strings.ReplaceAll(secretSession("55555555-eeee-4000-8000-000000000005", "An older session"), "2026-05-01", "2025-01-01")), 0o644)
	if _, _, err := build(t, dir, nil); err != nil {
		t.Fatal(err)
	}
	after := treetest.Tree(t, cfg.Destination)
	for name := range before {
		if strings.HasSuffix(name, ".html") && after[name] == nil {
			t.Errorf("%s is gone", name)
		}
	}
	now := map[string]string{}
	for _, e := range readSessions(t, cfg.Destination) {
		now[e.Source] = e.URL
	}
	for _, e := range urls {
		if now[e.Source] != e.URL {
			t.Errorf("%s moved from %s to %s", e.Source, e.URL, now[e.Source])
		}
	}
	if len(now) != len(urls)+2 {
		t.Errorf("%d sessions, want %d", len(now), len(urls)+2)
	}
}

func TestFeed(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	cfg, _, err := build(t, dir, map[string]any{"baseURL": "https://user.github.io/repo/"})
	if err != nil {
		t.Fatal(err)
	}
	var feed struct {
		Title   string `xml:"title"`
		Updated string `xml:"updated"`
		Links   []struct {
			Rel  string `xml:"rel,attr"`
			Href string `xml:"href,attr"`
		} `xml:"link"`
		Entries []struct {
			Title   string `xml:"title"`
			ID      string `xml:"id"`
			Updated string `xml:"updated"`
			Summary string `xml:"summary"`
			Link    struct {
				Href string `xml:"href,attr"`
			} `xml:"link"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal([]byte(readFile(t, cfg.Destination, "index.xml")), &feed); err != nil {
		t.Fatal(err)
	}
	list := readSessions(t, cfg.Destination)
	if feed.Title != "Test <site>" || len(feed.Entries) != len(list) || feed.Links[0].Href != "https://user.github.io/repo/index.xml" {
		t.Fatalf("feed %+v", feed)
	}
	for i, e := range feed.Entries {
		if e.Link.Href != "https://user.github.io/repo/"+list[i].URL || e.ID != e.Link.Href || e.Title != list[i].Title {
			t.Errorf("entry %d: %+v, want the %d-th newest session %+v", i, e, i, list[i])
		}
	}
	if e := feed.Entries[1]; e.Summary != "Explain the <b>parser</b> please" || e.Updated != "2026-05-01T10:00:06Z" {
		t.Errorf("entry %+v", e)
	}
	if feed.Updated != feed.Entries[0].Updated {
		t.Errorf("feed updated %s, newest entry %s", feed.Updated, feed.Entries[0].Updated)
	}
	home := readFile(t, cfg.Destination, "index.html")
	if !strings.Contains(home, `<link rel="alternate" type="application/atom+xml" title="Test &lt;site&gt;" href="/repo/index.xml">`) {
		t.Error("the home page does not link the feed")
	}
}

// TestProjectSiteURLs builds a GitHub Pages project site and follows every
// link: internal ones must stay under /repo/, and every absolute URL of the
// site (canonical, og:url, feed, sitemap) must lead to one of its files.
func TestProjectSiteURLs(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	cfg, _, err := build(t, dir, map[string]any{"baseURL": "https://user.github.io/repo/"})
	if err != nil {
		t.Fatal(err)
	}
	checkLinks(t, cfg.Destination, "/repo/")
	abs := regexp.MustCompile(`https?://user\.github\.io[^"<\s]*`)
	n := 0
	for name, data := range treetest.Tree(t, cfg.Destination) {
		for _, u := range abs.FindAllString(string(data), -1) {
			n++
			rel, ok := strings.CutPrefix(u, "https://user.github.io/repo/")
			if rel == "" || strings.HasSuffix(rel, "/") {
				rel += "index.html"
			}
			if _, err := os.Stat(filepath.Join(cfg.Destination, filepath.FromSlash(rel))); !ok || err != nil {
				t.Errorf("%s: %s is not a file of the site", name, u)
			}
		}
	}
	page := readFile(t, cfg.Destination, readSessions(t, cfg.Destination)[0].URL+"index.html")
	for _, want := range []string{
		`<meta property="og:url" content="https://user.github.io/repo/sessions/`, `<link rel="canonical" href="https://user.github.io/repo/sessions/`,
		`<meta property="og:site_name" content="Test &lt;site&gt;">`, `<meta name="twitter:card" content="summary">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the newest session's page lacks %s", want)
		}
	}
	if n < 20 {
		t.Errorf("only %d absolute URLs", n)
	}
	// A path base URL makes no canonical link: a preview needs a host.
	cfg, _, _ = build(t, dir, map[string]any{"baseURL": "/repo/"})
	if home := readFile(t, cfg.Destination, "index.html"); strings.Contains(home, "canonical") || strings.Contains(home, "og:url") {
		t.Error("canonical link without an absolute base URL")
	}
}
