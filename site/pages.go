package site

import (
	"cmp"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Site is everything the templates can list.
type Site struct {
	Config   *Config
	Sessions []*Session // newest first
	Projects []*Project // the one with the newest session first
	Stats    *Stats     // the figures of every session
	byID     map[string][]*Session
	assets   map[string]string // theme asset name → its fingerprinted site path
}

// Session returns the session with the given id, preferring one of the
// given format (ids are only unique within a format), or nil.
func (st *Site) Session(id, format string) *Session {
	ss := st.byID[id]
	for _, s := range ss {
		if s.Format == format {
			return s
		}
	}
	if len(ss) > 0 {
		return ss[0]
	}
	return nil
}

// Project is the sessions of one project.
type Project struct {
	Name     string
	Slug     string
	Path     string     // site-relative URL path, "projects/<slug>/"
	Sessions []*Session // newest first
	Stats    *Stats     // the figures of its sessions
}

// Latest is when the project's newest session started.
func (p *Project) Latest() time.Time { return p.Sessions[0].Started }

// Session is a session as the site shows it.
type Session struct {
	*transcript.Session
	Title      string // the session's title, or its first prompt, or its id
	Path       string // site-relative URL path, "sessions/<project>/<date>-<title>-<id>/"
	Project    *Project
	Stats      transcript.Stats
	Prev, Next *Session // older and newer sessions of the same project
	site       *Site
	summary    transcript.Summary // what lists show, kept when the turns are not
}

// FirstPrompt is the session's first real prompt, cut to a summary's length.
func (s *Session) FirstPrompt() string { return s.summary.FirstPrompt }

// UsageByModel is the session's usage by model, in the order models
// first appear.
func (s *Session) UsageByModel() ([]string, map[string]transcript.Usage) {
	return s.summary.Models, s.summary.Usage
}

const (
	maxTitleSlug   = 48
	maxProjectSlug = 48
)

// newSite groups sessions by project, orders everything and gives every
// page its URL. The result depends only on the sessions, not on the order
// they were read in.
func newSite(cfg *Config, sessions []*transcript.Session) *Site {
	st := &Site{Config: cfg, byID: map[string][]*Session{}}
	for _, s := range sessions {
		sum := s.Summary()
		ss := &Session{Session: s, Title: title(s, sum.FirstPrompt), Stats: sum.Stats, site: st, summary: sum}
		st.Sessions = append(st.Sessions, ss)
		st.byID[s.ID] = append(st.byID[s.ID], ss)
	}
	slices.SortFunc(st.Sessions, func(a, b *Session) int {
		return cmp.Or(b.Started.Compare(a.Started), cmp.Compare(a.Source, b.Source), cmp.Compare(a.ID, b.ID))
	})

	projects := map[string]*Project{}
	for _, s := range st.Sessions {
		name := projectName(s.Session)
		sl := slug(name, maxProjectSlug)
		if sl == "" || deviceName(sl) {
			sl = "project-" + cmp.Or(sl, hash8(name))
		}
		p := projects[sl]
		if p == nil {
			p = &Project{Name: name, Slug: sl, Path: "projects/" + sl + "/"}
			projects[sl] = p
			st.Projects = append(st.Projects, p)
		}
		s.Project = p
		p.Sessions = append(p.Sessions, s)
	}
	for _, p := range st.Projects {
		for i, s := range p.Sessions {
			if i > 0 {
				s.Next = p.Sessions[i-1]
			}
			if i+1 < len(p.Sessions) {
				s.Prev = p.Sessions[i+1]
			}
		}
	}
	assignPaths(st.Sessions)
	st.Stats = statsOf(cfg.Pricing, st.Sessions)
	for _, p := range st.Projects {
		p.Stats = statsOf(cfg.Pricing, p.Sessions)
	}
	return st
}

// assignPaths gives each session its URL. Two sessions never share one:
// when they would, each gets a hash of its id, format and source instead of
// the short id, which keeps every URL stable whatever else is in the site.
// Should that URL be taken too (a session's id can be made to match another's
// hash), a number joins what is hashed until the URL is free.
func assignPaths(ss []*Session) {
	byPath := map[string]int{}
	for _, s := range ss {
		s.Path = sessionPath(s, shortID(s.ID))
		byPath[s.Path]++
	}
	taken := map[string]bool{}
	var shared []*Session
	for _, s := range ss {
		if byPath[s.Path] == 1 {
			taken[s.Path] = true
		} else {
			shared = append(shared, s)
		}
	}
	for _, s := range shared {
		p := sessionPath(s, hash8(s.ID, s.Format, s.Source))
		for n := 1; taken[p]; n++ {
			p = sessionPath(s, hash8(s.ID, s.Format, s.Source, strconv.Itoa(n)))
		}
		s.Path = p
		taken[p] = true
	}
}

func sessionPath(s *Session, id string) string {
	name := id
	if t := slug(s.Title, maxTitleSlug); t != "" {
		name = t + "-" + id
	}
	if !s.Started.IsZero() {
		name = s.Started.UTC().Format("2006-01-02") + "-" + name
	}
	return "sessions/" + s.Project.Slug + "/" + name + "/"
}

// title is what a session is called on the site.
func title(s *transcript.Session, prompt string) string {
	if s.Title != "" {
		return render.Truncate(120, strings.Join(strings.Fields(s.Title), " "))
	}
	for _, line := range strings.Split(render.StripANSI(prompt), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return render.Truncate(80, line)
		}
	}
	return "Session " + s.ID
}

// projectName is the last element of the session's working directory, or,
// without one, the folder its file is in.
func projectName(s *transcript.Session) string {
	if s.Project != "" {
		return s.Project
	}
	if cwd := strings.TrimRight(strings.ReplaceAll(s.CWD, `\`, "/"), "/"); cwd != "" {
		return path.Base(cwd)
	}
	if dir := path.Dir(s.Source); dir != "." {
		return path.Base(dir)
	}
	return "sessions"
}

// Page is what a template renders.
type Page struct {
	Site    *Site
	Kind    string // "home", "project", "session", "search", "stats", "404"
	Title   string
	Path    string // this page's site-relative URL path
	Project *Project
	Session *Session
	Turns   []TurnView // the session's turns, numbered, on a session page
	// Inline is set on a page that stands alone, outside any site: it
	// holds its styles, links to no other page and runs no script.
	Inline  *Inline
	aliases map[*transcript.ToolResult]int // see PartView.Alias
}

// Parent is the session that started this page's session, if the site has it.
func (p *Page) Parent() *Session {
	if p.Session == nil || p.Session.ParentID == "" {
		return nil
	}
	return p.Site.Session(p.Session.ParentID, p.Session.Format)
}

// Children are the sessions this page's session started that the site has.
func (p *Page) Children() []*Session {
	if p.Session == nil {
		return nil
	}
	var out []*Session
	for _, id := range p.Session.ChildIDs {
		if c := p.Site.Session(id, p.Session.Format); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// ModelCost is what a session's use of one model cost, estimated.
type ModelCost struct {
	Model string
	Usage transcript.Usage
	Cost  float64
	Known bool // the site has a price for the model
}

// Costs estimates the cost of the page's session per model.
func (p *Page) Costs() (costs []ModelCost) {
	if p.Session == nil {
		return nil
	}
	order, by := p.Session.UsageByModel()
	for _, m := range order {
		c := ModelCost{Model: m, Usage: by[m]}
		c.Cost, c.Known = p.Site.Config.Pricing.Cost(m, by[m])
		costs = append(costs, c)
	}
	return costs
}

// TotalCost is the estimated cost of the models the site has prices for.
func (p *Page) TotalCost() float64 {
	var t float64
	for _, c := range p.Costs() {
		t += c.Cost
	}
	return t
}

// SessionURL links to the session with the given id from this page, or
// returns "" when the site does not have it.
func (p *Page) SessionURL(id string) string {
	if p.Session == nil || id == "" {
		return ""
	}
	if s := p.Site.Session(id, p.Session.Format); s != nil {
		return p.URL(s.Path)
	}
	return ""
}

// URL returns the link from this page to the site-relative path target.
// With a base URL the link is absolute from the host (so it works on any
// page, 404 included); without one it is relative to this page and names
// index.html, so the site also works opened from disk.
func (p *Page) URL(target string) string {
	base := p.Site.Config.BaseURL
	if base != "" {
		if i := strings.Index(base, "://"); i >= 0 {
			base = base[i+3:]
			base = base[strings.IndexByte(base, '/'):]
		}
		return base + target
	}
	up := strings.Repeat("../", strings.Count(p.Path, "/"))
	if target == "" || strings.HasSuffix(target, "/") {
		target += "index.html"
	}
	return up + target
}

// Permalink is the page's absolute URL, or its path from the site root
// when the site has no absolute base URL.
func (p *Page) Permalink() string { return permalink(p.Site.Config.BaseURL, p.Path) }

func permalink(base, target string) string {
	if base == "" {
		return target
	}
	return base + target
}

// TurnView is a turn with its messages numbered for anchors.
type TurnView struct {
	N       int
	Status  string
	Prompt  string // the first line of the turn's prompt, for the outline
	Anchor  int    // the number of the turn's first message
	Entries []Entry
}

// Blocks are the turn's entries as the page shows them: consecutive
// injected context is one collapsed block, so that a session does not open
// on a stack of cards no one wrote.
func (t TurnView) Blocks() []Block {
	var out []Block
	for _, e := range t.Entries {
		ctx := e.Msg.Meta && !e.IsEvent()
		if ctx && len(out) > 0 && out[len(out)-1].Context {
			out[len(out)-1].Entries = append(out[len(out)-1].Entries, e)
			continue
		}
		out = append(out, Block{Context: ctx, Entries: []Entry{e}})
	}
	return out
}

// Block is one message, or a run of injected context.
type Block struct {
	Context bool
	Entries []Entry
}

// PartView is a part as a template sees it, with the page it is on.
type PartView struct {
	*transcript.Part
	Page *Page
}

// Alias is the number of the message that held this call's result, when
// that message is shown only here: its anchor leads to the call.
func (p PartView) Alias() int {
	if p.Call == nil || p.Call.Result == nil {
		return 0
	}
	return p.Page.aliases[p.Call.Result]
}

// Entry is one message on a session page.
type Entry struct {
	Page *Page
	N    int // the message's number in the session, from 1: its anchor is m-N
	Msg  *transcript.Message
	// Parts are the parts shown in the message: tool results shown with
	// their calls are left out.
	Parts []PartView
	// ResultsOf lists the messages whose calls show this message's results.
	ResultsOf []int
	// NewDay is set on a message from a later day than the one before it.
	NewDay bool
}

// IsEvent reports whether the message only records events (a compaction,
// an API error), which are shown as markers rather than as messages.
func (e Entry) IsEvent() bool {
	for _, p := range e.Parts {
		if p.Part.Kind != transcript.EventPart {
			return false
		}
	}
	return len(e.Parts) > 0
}

// turnViews numbers the messages of p's session and works out where each
// tool result is shown. A message that holds nothing but results shown
// with their calls gets no entry: its number is an alias of the first call.
func turnViews(p *Page) []TurnView {
	s := p.Session.Session
	callMsg := map[*transcript.ToolResult]int{} // result → number of its call's message
	n := 0
	for _, t := range s.Turns {
		for _, m := range t.Messages {
			n++
			for _, p := range m.Parts {
				if p.Call != nil && p.Call.Result != nil {
					callMsg[p.Call.Result] = n
				}
			}
		}
	}
	p.aliases = map[*transcript.ToolResult]int{}
	var out []TurnView
	n = 0
	day := s.Started.UTC().Format(time.DateOnly)
	for i, t := range s.Turns {
		tv := TurnView{N: i + 1, Status: t.Status, Anchor: n + 1}
		if len(t.Messages) > 0 && t.Messages[0].StartsTurn() {
			tv.Prompt = promptLine(t.Messages[0])
		}
		for _, m := range t.Messages {
			n++
			e := Entry{Page: p, N: n, Msg: m}
			var shown []*transcript.ToolResult // results whose calls show them
			for _, part := range m.Parts {
				if part.Result != nil && part.Result.Paired {
					if c := callMsg[part.Result]; c != 0 && c != n {
						shown = append(shown, part.Result)
						if !slices.Contains(e.ResultsOf, c) {
							e.ResultsOf = append(e.ResultsOf, c)
						}
					}
					continue
				}
				e.Parts = append(e.Parts, PartView{part, p})
			}
			if len(e.Parts) == 0 && len(shown) > 0 {
				p.aliases[shown[0]] = n
				continue
			}
			if d := m.Time.UTC().Format(time.DateOnly); !m.Time.IsZero() && d != day {
				e.NewDay, day = true, d
			}
			tv.Entries = append(tv.Entries, e)
		}
		out = append(out, tv)
	}
	return out
}

// promptLine is the first non-empty line of a prompt's text.
func promptLine(m *transcript.Message) string {
	for _, p := range m.Parts {
		if p.Kind != transcript.TextPart {
			continue
		}
		for _, l := range strings.Split(render.StripANSI(p.Text), "\n") {
			if l = strings.TrimSpace(strings.ReplaceAll(l, "`", "")); l != "" {
				return render.Truncate(90, l)
			}
		}
	}
	return "(image)"
}
