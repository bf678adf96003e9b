package stats

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/transcriptsite/transcriptsite/site/siteconfig"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Session is what the figures read of a session: the site makes one of
// each session it lists, so that the figures need nothing of the site.
type Session struct {
	Title    string
	Path     string // site-relative URL path of its page
	Project  string // its project's name
	Agent    string
	Started  time.Time
	Duration time.Duration // from its first record to its last, or zero
	Stats    transcript.Stats
	Usage    transcript.Usage
	Models   []string
	// ModelOrder are the models of its usage, in order, and ByModel its
	// usage by model.
	ModelOrder []string
	ByModel    map[string]transcript.Usage
}

// Stats are the figures of a set of sessions: the whole site's on the
// stats page, one project's on its page, and `transcriptsite stats`'s.
// Of computes every one of them, so none can disagree.
type Stats struct {
	Sessions  int
	Undated   int // sessions with no time, which the timeline leaves out
	Messages  int
	Prompts   int
	ToolCalls int
	Failed    int // tool calls whose result is an error
	Usage     transcript.Usage
	Cost      float64 // estimated, of the tokens of models the site has a price for
	Unpriced  int64   // tokens of models the site has no price for
	Agents    []Count
	Models    []UsageRow // every model the sessions name, most tokens first
	Projects  []UsageRow // most tokens first
	Tools     []ToolRow  // tool kinds that were called, most calls first
	Longest   []*Session // the longest sessions by active time, at most maxLongest
	// active are the days sessions started on, in order: Days fills in
	// the others when a page asks. A project's every day from its first
	// session to its last, held through the build, was a twentieth of
	// what the collector marked at 10,000 sessions.
	active []Period
}

// Days are the figures of each day (UTC), every day from the first a
// session started on to the last.
func (st *Stats) Days() []Period { return Rollup(st.active, Daily) }

// Periods are the figures of each day, week or month from the first
// session's to the last's.
func (st *Stats) Periods(span Span) []Period { return Rollup(st.active, span) }

// Span is how long the periods of a time series or a table are.
type Span int

const (
	Daily Span = iota
	Weekly
	Monthly
)

var spanNames = [...]string{"day", "week", "month"}

func (s Span) String() string { return spanNames[s] }

// ParseSpan reads a span by its name: day, week or month.
func ParseSpan(name string) (Span, error) {
	if i := slices.Index(spanNames[:], name); i >= 0 {
		return Span(i), nil
	}
	return 0, fmt.Errorf("%q is not a span: want day, week or month", name)
}

// SpanOf is the span that keeps a time series from first to last
// readable: a bar a day up to 90 days, a week up to two years, a month
// beyond.
func SpanOf(first, last time.Time) Span {
	switch days := last.Sub(first).Hours() / 24; {
	case days > 2*365:
		return Monthly
	case days > 90:
		return Weekly
	}
	return Daily
}

// Start is the start of the period of t: its day, the Monday of its week
// (ISO 8601), or the first of its month, UTC.
func (s Span) Start(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	switch s {
	case Weekly:
		back := (int(t.UTC().Weekday()) + 6) % 7
		return time.Date(y, m, d-back, 0, 0, 0, 0, time.UTC)
	case Monthly:
		return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// next is the start of the period after the one that starts at t.
func (s Span) next(t time.Time) time.Time {
	switch s {
	case Weekly:
		return t.AddDate(0, 0, 7)
	case Monthly:
		return t.AddDate(0, 1, 0)
	}
	return t.AddDate(0, 0, 1)
}

// Label names the period that starts at t, as usage reports do: its
// day, the day its week starts, or its month.
func (s Span) Label(t time.Time) string {
	if s == Monthly {
		return t.Format("2006-01")
	}
	return t.Format(time.DateOnly)
}

// Period is the figures of the sessions that started in a day, a week or
// a month (UTC). Its UsageRow holds its totals, named by its Label; the
// tokens and costs are counted on the day a session started, as the
// cost of a session is one figure.
type Period struct {
	UsageRow
	Start    time.Time
	Span     Span
	Messages int
	Models   []UsageRow // the usage by model, most tokens first
}

// add adds the figures of p, a period within q's, to q.
func (q *Period) add(p Period) {
	q.Sessions += p.Sessions
	q.Messages += p.Messages
	q.addUsage(p.UsageRow)
	for _, m := range p.Models {
		i := slices.IndexFunc(q.Models, func(r UsageRow) bool { return r.Name == m.Name })
		if i < 0 {
			q.Models = append(q.Models, UsageRow{Name: m.Name})
			i = len(q.Models) - 1
		}
		q.Models[i].Sessions += m.Sessions
		q.Models[i].addUsage(m)
	}
}

// Rollup adds up days, in order, into periods of span: every period from
// the first day's to the last's, those with no session too.
func Rollup(days []Period, span Span) []Period {
	var out []Period
	for _, d := range days {
		start := span.Start(d.Start)
		for len(out) == 0 || out[len(out)-1].Start.Before(start) {
			next := start
			if len(out) > 0 {
				next = span.next(out[len(out)-1].Start)
			}
			out = append(out, Period{UsageRow: UsageRow{Name: span.Label(next)}, Start: next, Span: span})
		}
		out[len(out)-1].add(d)
	}
	for i := range out {
		sortUsage(out[i].Models)
	}
	return out
}

// Total adds up periods into one row: what a usage report's last row
// says.
func Total(ps []Period) UsageRow {
	t := UsageRow{Name: "Total"}
	for _, p := range ps {
		t.Sessions += p.Sessions
		t.addUsage(p.UsageRow)
	}
	return t
}

// Active are the periods with sessions in them.
func Active(ps []Period) []Period {
	return slices.DeleteFunc(slices.Clone(ps), func(p Period) bool { return p.Sessions == 0 })
}

// Count is how many sessions have something: an agent.
type Count struct {
	Name     string
	Sessions int
}

// UsageRow is the tokens and estimated cost of one model, project or
// period.
type UsageRow struct {
	Name     string // "" for usage recorded with no model
	Sessions int
	Usage    transcript.Usage
	Cost     float64
	Unpriced int64 // tokens whose model has no price
}

// Tokens adds up the row's tokens.
func (r UsageRow) Tokens() int64 { return tokens(r.Usage) }

func (r *UsageRow) addUsage(o UsageRow) {
	r.Usage.Add(o.Usage)
	r.Cost += o.Cost
	r.Unpriced += o.Unpriced
}

// ToolRow is how often tools of one kind were called, and failed.
type ToolRow struct {
	Kind   transcript.ToolKind
	Calls  int
	Failed int
}

// ErrorRate is the share of the calls that failed, from 0 to 1.
func (r ToolRow) ErrorRate() float64 { return rate(r.Failed, r.Calls) }

// ErrorRate is the share of all tool calls that failed, from 0 to 1.
func (st *Stats) ErrorRate() float64 { return rate(st.Failed, st.ToolCalls) }

// Tokens adds up every token the sessions used.
func (st *Stats) Tokens() int64 { return tokens(st.Usage) }

func rate(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// tokens is what a usage counts. Reasoning tokens are left out: they are
// part of output, and tables show them apart.
func tokens(u transcript.Usage) int64 { return u.Input + u.Output + u.CacheRead + u.CacheWrite }

const maxLongest = 10

// tally adds up sessions into their stats.
type tally struct {
	pricing  siteconfig.Pricing
	st       *Stats
	days     map[time.Time]*Period
	agents   map[string]int
	models   map[string]*UsageRow
	projects map[string]*UsageRow
	tools    map[transcript.ToolKind]*ToolRow
}

// Of computes the figures of ss, which are in the site's order, one
// record a session (the site leaves out the volumes after a first).
func Of(pricing siteconfig.Pricing, ss []*Session) *Stats {
	t := &tally{pricing: pricing, st: &Stats{Sessions: len(ss)}, days: map[time.Time]*Period{}, agents: map[string]int{},
		models: map[string]*UsageRow{}, projects: map[string]*UsageRow{}, tools: map[transcript.ToolKind]*ToolRow{}}
	for _, s := range ss {
		t.add(s)
	}
	return t.finish(ss)
}

// row is the row of name in rows, made when it is not there yet.
func row(rows map[string]*UsageRow, name string) *UsageRow {
	r := rows[name]
	if r == nil {
		r = &UsageRow{Name: name}
		rows[name] = r
	}
	return r
}

func (t *tally) add(s *Session) {
	st := t.st
	st.Messages += s.Stats.Messages
	st.Prompts += s.Stats.Prompts
	st.ToolCalls += s.Stats.ToolCalls
	st.Usage.Add(s.Usage)
	t.agents[s.Agent]++
	for k, n := range s.Stats.ByKind {
		r := t.tools[k]
		if r == nil {
			r = &ToolRow{Kind: k}
			t.tools[k] = r
		}
		r.Calls += n
		r.Failed += s.Stats.Failed[k]
		st.Failed += s.Stats.Failed[k]
	}
	p := row(t.projects, s.Project)
	p.Sessions++
	p.Usage.Add(s.Usage)
	var day *Period
	if s.Started.IsZero() {
		st.Undated++
	} else {
		day = t.day(s)
	}
	t.addModels(s, p, day)
}

// day is the period of the day s started on, with s counted in it.
func (t *tally) day(s *Session) *Period {
	d := Daily.Start(s.Started)
	p := t.days[d]
	if p == nil {
		p = &Period{UsageRow: UsageRow{Name: Daily.Label(d)}, Start: d}
		t.days[d] = p
	}
	p.Sessions++
	p.Messages += s.Stats.Messages
	p.Usage.Add(s.Usage)
	return p
}

// addModels adds the usage of s by model to the rows of its models, its
// project p and its day (nil when it has none), with its cost.
func (t *tally) addModels(s *Session, p *UsageRow, day *Period) {
	seen := map[string]bool{}
	for _, m := range s.Models {
		seen[m] = true
		row(t.models, m).Sessions++
	}
	by := s.ByModel
	for _, m := range s.ModelOrder {
		r := row(t.models, m)
		if !seen[m] {
			r.Sessions++ // usage under a model the session does not list: ""
		}
		u := UsageRow{Name: m, Sessions: 1, Usage: by[m]}
		if c, ok := t.pricing.Cost(m, by[m]); ok {
			u.Cost = c
		} else {
			u.Unpriced = tokens(by[m])
		}
		r.addUsage(u)
		p.Cost += u.Cost
		p.Unpriced += u.Unpriced
		t.st.Cost += u.Cost
		t.st.Unpriced += u.Unpriced
		if day != nil {
			day.Cost += u.Cost
			day.Unpriced += u.Unpriced
			day.Models = append(day.Models, u) // merged in finish
		}
	}
}

func (t *tally) finish(ss []*Session) *Stats {
	st := t.st
	for _, d := range slices.SortedFunc(maps.Values(t.days), func(a, b *Period) int { return a.Start.Compare(b.Start) }) {
		models := d.Models
		d.Models = nil
		d.add(Period{Models: models}) // one row a model
		sortUsage(d.Models)
		st.active = append(st.active, *d)
	}
	for name, n := range t.agents {
		st.Agents = append(st.Agents, Count{name, n})
	}
	slices.SortFunc(st.Agents, func(a, b Count) int { return cmp.Or(b.Sessions-a.Sessions, cmp.Compare(a.Name, b.Name)) })
	st.Models = usageRows(t.models)
	st.Projects = usageRows(t.projects)
	for _, r := range t.tools {
		st.Tools = append(st.Tools, *r)
	}
	slices.SortFunc(st.Tools, func(a, b ToolRow) int { return cmp.Or(b.Calls-a.Calls, cmp.Compare(a.Kind, b.Kind)) })

	// By the time spent on them, not from first record to last: a session
	// taken up again a year later did not last a year.
	for _, s := range ss {
		if s.Stats.Active > 0 {
			st.Longest = append(st.Longest, s)
		}
	}
	// Stable: of two as long, the newer comes first, as in the site's order.
	slices.SortStableFunc(st.Longest, func(a, b *Session) int { return cmp.Compare(b.Stats.Active, a.Stats.Active) })
	st.Longest = st.Longest[:min(len(st.Longest), maxLongest)]
	return st
}

func usageRows(rows map[string]*UsageRow) []UsageRow {
	out := make([]UsageRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	sortUsage(out)
	return out
}

// sortUsage puts the rows with the most tokens first.
func sortUsage(rs []UsageRow) {
	slices.SortFunc(rs, func(a, b UsageRow) int {
		return cmp.Or(cmp.Compare(b.Tokens(), a.Tokens()), b.Sessions-a.Sessions, cmp.Compare(a.Name, b.Name))
	})
}

// Tokens adds up the tokens of u, as the figures do.
func Tokens(u transcript.Usage) int64 { return tokens(u) }
