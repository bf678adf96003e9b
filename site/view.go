package site

import (
	"html/template"
	"slices"
	"strings"
	"time"

	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/site/stats"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// The view: what a template sees, all of it in this file.
//
// Every page template executes with a *Page as its dot: the page's Kind
// ("home", "project", "session", "search", "stats", "404"), Title and Path,
// the Site, and on a project's page its Project, on a session's its
// Session and Turns. The Page's methods give what is computed for the page:
// URL (a link from it to a path of the site), Permalink, Canonical and
// Description (meta.go), Parent and Children (the sessions that started
// or were started by its session), Costs and TotalCost, SessionURL, and
// Exports (exports.go).
//
//   - Site: the Config, every Session newest first, every Project, and
//     the site's Stats (stats.go).
//   - Project: its Name, Slug, Path, Sessions and Stats.
//   - Session: what the site makes of a session (Title, Path, Project,
//     Stats, Prev and Next), and what was read of it but its turns, as
//     fields of its own; no field hides another.
//   - Turns: []TurnView, each turn's entries (Entry: a message, numbered
//     for its anchor, with its parts as PartView) and, through Blocks,
//     runs of injected context.
//
// A session's turns are on its page only: lists, feeds and the stats know
// a session by its header (transcript.Header), never its body.

// Site is everything the templates can list.
type Site struct {
	Config   *Config
	Sessions []*Session   // newest first
	Projects []*Project   // the one with the newest session first
	Stats    *stats.Stats // the figures of every session
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
	Path     string       // site-relative URL path, "projects/<slug>/"
	Sessions []*Session   // newest first
	Stats    *stats.Stats // the figures of its sessions
}

// Latest is when the project's newest session started.
func (p *Project) Latest() time.Time { return p.Sessions[0].Started }

// Session is a session as the templates see it: what the site makes of
// it (its title, its page, its project, the sessions before and after it),
// and what was read of it but its turns, which a session's page has as
// Page.Turns. The fields read are copied from the session's header
// (transcript.Header), rather than embedded, so that none hides one of
// the site's (the session's own Title and Project are not the site's).
type Session struct {
	Title      string // the session's title, or its first prompt, or its id
	Path       string // site-relative URL path, "sessions/<project>/<date>-<title>-<id>/"
	Project    *Project
	Stats      transcript.Stats
	Prev, Next *Session // older and newer sessions of the same project
	// Volume is its number among Volumes, every volume of a session read
	// in volumes (transcript.Session.Volume), or 0. The first stands for
	// the session in lists and stats, with the figures of them all.
	Volume  int
	Volumes []*Session

	ID           string
	Format       string // the reader's name, e.g. "claude-code"
	Agent        string // e.g. "Claude Code"
	AgentVersion string
	Source       string   // the file it was read from, a slash path in the content dir
	Sources      []string // the other files it was read from (resumed parts, runs)
	CWD          string
	Branch       string
	Models       []string
	Started      time.Time
	Ended        time.Time
	Usage        transcript.Usage
	ParentID     string   // the session that started this one
	ChildIDs     []string // the sessions this one started
	Meta         map[string]string
	Skipped      []transcript.Skip // records left out, by kind
	Warnings     []string          // problems met while reading it
	Redacted     map[string]int    // secrets replaced, by kind

	site    *Site
	header  *transcript.Header
	models  []string                    // the models of its usage, in order
	byModel map[string]transcript.Usage // its usage by model
	first   int                         // the messages of the volumes before it
}

// newSession is the session whose header is h, as the site st shows it.
func newSession(st *Site, h *transcript.Header) *Session {
	s := h.Session
	return &Session{Title: title(s, h.Summary.FirstPrompt), Stats: h.Summary.Stats,
		ID: s.ID, Format: s.Format, Agent: s.Agent, AgentVersion: s.AgentVersion, Source: s.Source, Sources: s.Sources,
		CWD: s.CWD, Branch: s.Branch, Models: s.Models, Started: s.Started, Ended: s.Ended, Usage: s.Usage,
		ParentID: s.ParentID, ChildIDs: s.ChildIDs, Meta: s.Meta, Skipped: s.Skipped, Warnings: s.Warnings, Redacted: s.Redacted,
		Volume: s.Volume, site: st, header: h, models: h.Summary.Models, byModel: h.Summary.Usage}
}

// FullTitle is the title the session was read with when the site's is
// cut short of it, or "".
func (s *Session) FullTitle() string {
	full := strings.Join(strings.Fields(s.header.Session.Title), " ")
	if full == s.Title {
		return ""
	}
	return full
}

// FirstPrompt is the session's first real prompt, cut to a summary's length.
func (s *Session) FirstPrompt() string { return s.header.Summary.FirstPrompt }

// UsageByModel is the session's usage by model, in the order models
// first appear.
func (s *Session) UsageByModel() ([]string, map[string]transcript.Usage) {
	return s.models, s.byModel
}

// Duration is the time from the session's first record to its last, or
// zero when one is unknown.
func (s *Session) Duration() time.Duration {
	// Its own times: the first volume's are of every volume (joinVolumes).
	return (&transcript.Session{Started: s.Started, Ended: s.Ended}).Duration()
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

// Priced reports whether every model of the session has a price, so
// that TotalCost is the whole cost.
func (p *Page) Priced() bool {
	for _, c := range p.Costs() {
		if !c.Known {
			return false
		}
	}
	return true
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
	if p.Site.Config.BaseURL != "" {
		return BasePath(p.Site.Config.BaseURL) + target
	}
	up := strings.Repeat("../", strings.Count(p.Path, "/"))
	if target == "" || strings.HasSuffix(target, "/") {
		target += "index.html"
	}
	return up + target
}

// Permalink is the page's absolute URL, or its path from the site root
// when the site has no absolute base URL.
func (p *Page) Permalink() string { return Permalink(p.Site.Config.BaseURL, p.Path) }

func Permalink(base, target string) string {
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
		ctx := e.Msg.Meta && !e.IsEvent && !e.UserShell // the user's own command is theirs
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

// PartView is a part as a template sees it, with the page it is on. It
// holds the part's fields rather than embedding the part: a template finds
// a promoted field by reflect's breadth-first search through the embedded
// structs, at every use, which was a tenth of a session page's rendering.
type PartView struct {
	Kind             transcript.PartKind
	Text, Lang, Name string
	Call             *transcript.ToolCall
	Result           *transcript.ToolResult
	Image            *transcript.Image
	Event            *transcript.Event
	Page             *Page
	// Of a call, what its header shows, worked out once (see Entry): its
	// CSS classes (tool, tool-KIND, is-error), its one line summary
	// (render.ToolSummary), and whether it starts open: on an error, or
	// for the kinds whose input or output is the point of them.
	ToolClass, Summary string
	Open               bool
	// Head is a call's header as the default theme shows it (heads.go).
	Head template.HTML
}

// partView is p as a template on page sees it.
func partView(p *transcript.Part, page *Page) PartView {
	v := PartView{Kind: p.Kind, Text: p.Text, Lang: p.Lang, Name: p.Name,
		Call: p.Call, Result: p.Result, Image: p.Image, Event: p.Event, Page: page}
	if c := p.Call; c != nil {
		failed := c.Result != nil && c.Result.IsError
		v.ToolClass = "tool tool-" + string(c.Kind)
		if failed {
			v.ToolClass += " is-error"
		}
		v.Summary = render.ToolSummary(c)
		v.Open = failed || openKinds[c.Kind]
		v.Head = toolHead(c, v.Summary)
	}
	return v
}

// openKinds are the kinds of tool call shown open: what a command ran and
// printed, and what an edit, a write or a subagent did, is why they are
// read; a read or search is a step on the way.
var openKinds = map[transcript.ToolKind]bool{
	transcript.ShellTool: true, transcript.EditTool: true, transcript.WriteTool: true, transcript.TaskTool: true,
}

// Images returns the pictures the part holds: its own, then its result's.
func (p PartView) Images() []*transcript.Image {
	return (&transcript.Part{Image: p.Image, Result: p.Result}).Images()
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
	// What the page asks of every message is worked out here once: a
	// template calls a method or function by reflection at five to ten
	// times the cost of reading a field, and a session page asks it of
	// thousands of messages.
	//
	// IsEvent is set on a message that only records events (a compaction,
	// an API error), which are shown as markers rather than as messages.
	IsEvent bool
	// Prompt is set on the message that starts a turn (Msg.StartsTurn),
	// UserShell on a command the user ran in the agent's shell
	// (Msg.UserShell).
	Prompt, UserShell bool
	// Usage is the tokens the message used; nil when it records none.
	Usage *render.TokenCounts
	// Time is when the message was written, as the page shows it; nil
	// when the session does not say.
	Time *Stamp
	// Class is the message's CSS classes: its role and what kind of
	// message it is (is-event, is-prompt, user-shell, is-meta,
	// is-sidechain, is-branch).
	Class string
	// Head is the message's header as the default theme shows it
	// (heads.go); set on the messages of Page.Turns.
	Head template.HTML
}

// Stamp is a time as a page shows it: for a datetime attribute, a title,
// and the date and clock time written out.
type Stamp struct {
	ISO, Full, Date, Clock string
	// Label is what the page writes: the clock time, after the date on a
	// message from a later day than the one before it (Entry.NewDay).
	Label string
}

// stampOf is t as a page shows it, in UTC; nil for the zero time.
func stampOf(t time.Time) *Stamp {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	clock := t.Format(time.TimeOnly)
	return &Stamp{ISO: t.Format(time.RFC3339), Full: t.Format("2006-01-02 15:04 UTC"),
		Date: t.Format(time.DateOnly), Clock: clock, Label: clock}
}

// isEvent reports whether parts only record events.
func isEvent(parts []PartView) bool {
	for _, p := range parts {
		if p.Kind != transcript.EventPart {
			return false
		}
	}
	return len(parts) > 0
}

// turnViews numbers the messages of p's session, whose body is s, and works out where each
// tool result is shown. A message that holds nothing but results shown
// with their calls gets no entry: its number is an alias of the first call.
func TurnViews(p *Page, s *transcript.Session) []TurnView {
	callMsg := callMessages(p.Session.first, s)
	p.aliases = map[*transcript.ToolResult]int{}
	var out []TurnView
	n := p.Session.first // numbers go on from volume to volume: each anchor is the session's
	day := s.Started.UTC().Format(time.DateOnly)
	for i, t := range s.Turns {
		tv := TurnView{N: i + 1, Status: t.Status, Anchor: n + 1}
		if len(t.Messages) > 0 && t.Messages[0].StartsTurn() {
			tv.Prompt = promptLine(t.Messages[0])
		}
		for _, m := range t.Messages {
			n++
			e, ok := entry(p, n, m, callMsg)
			if !ok {
				continue
			}
			if d := m.Time.UTC().Format(time.DateOnly); !m.Time.IsZero() && d != day {
				e.NewDay, day = true, d
				e.Time.Label = e.Time.Date + " " + e.Time.Clock
			}
			e.Head = e.head()
			tv.Entries = append(tv.Entries, e)
		}
		out = append(out, tv)
	}
	return out
}

// callMessages numbers the messages of s from first on, and gives each
// tool result the number of its call's message.
func callMessages(first int, s *transcript.Session) map[*transcript.ToolResult]int {
	callMsg := map[*transcript.ToolResult]int{}
	n := first
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
	return callMsg
}

// entry is the message m, number n, on page p: its parts but the results
// shown with their calls (callMsg numbers their messages). A message of
// nothing but those has none (false): its number is an alias of the
// first's call.
func entry(p *Page, n int, m *transcript.Message, callMsg map[*transcript.ToolResult]int) (Entry, bool) {
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
		e.Parts = append(e.Parts, partView(part, p))
	}
	if len(e.Parts) == 0 && len(shown) > 0 {
		p.aliases[shown[0]] = n
		return e, false
	}
	e.IsEvent, e.Prompt, e.UserShell, e.Time = isEvent(e.Parts), m.StartsTurn(), m.UserShell(), stampOf(m.Time)
	e.Usage = render.Tokens(m.Usage)
	e.Class = e.class()
	return e, true
}

// class is the message's CSS classes, Entry.Class.
func (e *Entry) class() string {
	m := e.Msg
	var b strings.Builder
	b.WriteString("msg ")
	if e.IsEvent {
		b.WriteString("row ")
	}
	b.WriteString("role-")
	b.WriteString(string(m.Role))
	if e.IsEvent {
		b.WriteString(" is-event")
	} else {
		if e.Prompt {
			b.WriteString(" is-prompt")
		}
		if e.UserShell {
			b.WriteString(" user-shell")
		} else if m.Meta {
			b.WriteString(" is-meta")
		}
		if m.Sidechain {
			b.WriteString(" is-sidechain")
		}
	}
	if m.Branch != "" {
		b.WriteString(" is-branch")
	}
	return b.String()
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
