package site

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// Stats are the figures of a set of sessions: the whole site's on the
// stats page, one project's on its page. statsOf computes every one of
// them, so the two pages cannot disagree.
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
	active []Day
}

// Days are the sessions per day (UTC), every day from the first to the
// last.
func (st *Stats) Days() []Day {
	if len(st.active) == 0 {
		return nil
	}
	first, last := st.active[0].Date, st.active[len(st.active)-1].Date
	days := make([]Day, 0, int(last.Sub(first).Hours()/24)+1)
	for _, d := range st.active {
		for next := first.AddDate(0, 0, len(days)); next.Before(d.Date); next = next.AddDate(0, 0, 1) {
			days = append(days, Day{Date: next})
		}
		days = append(days, d)
	}
	return days
}

// Day is how many sessions started on a day, and the tokens they used, by
// model.
type Day struct {
	Date     time.Time
	Sessions int
	Tokens   []ModelTokens // most tokens first
}

// ModelTokens is how many tokens a model used.
type ModelTokens struct {
	Model  string // "" for usage recorded with no model
	Tokens int64
}

// Count is how many sessions have something: an agent.
type Count struct {
	Name     string
	Sessions int
}

// UsageRow is the tokens and estimated cost of one model or project.
type UsageRow struct {
	Name     string // "" for usage recorded with no model
	Sessions int
	Usage    transcript.Usage
	Cost     float64
	Unpriced int64 // tokens whose model has no price
}

// Tokens adds up the row's tokens.
func (r UsageRow) Tokens() int64 { return tokens(r.Usage) }

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

// statsOf computes the figures of ss, which are in the site's order.
func statsOf(pricing Pricing, all []*Session) *Stats {
	// The first volume of a session stands for them all (joinVolumes).
	ss := slices.DeleteFunc(slices.Clone(all), func(s *Session) bool { return s.Volume > 1 })
	st := &Stats{Sessions: len(ss)}
	perDay := map[time.Time]int{}
	dayTokens := map[time.Time]map[string]int64{} // by the day a session started
	agents := map[string]int{}
	models := map[string]*UsageRow{}
	projects := map[string]*UsageRow{}
	tools := map[transcript.ToolKind]*ToolRow{}
	row := func(rows map[string]*UsageRow, name string) *UsageRow {
		r := rows[name]
		if r == nil {
			r = &UsageRow{Name: name}
			rows[name] = r
		}
		return r
	}
	for _, s := range ss {
		st.Messages += s.Stats.Messages
		st.Prompts += s.Stats.Prompts
		st.ToolCalls += s.Stats.ToolCalls
		st.Usage.Add(s.Usage)
		if s.Started.IsZero() {
			st.Undated++
		} else {
			perDay[day0(s.Started)]++
		}
		agents[s.Agent]++
		for k, n := range s.Stats.ByKind {
			t := tools[k]
			if t == nil {
				t = &ToolRow{Kind: k}
				tools[k] = t
			}
			t.Calls += n
			t.Failed += s.Stats.Failed[k]
			st.Failed += s.Stats.Failed[k]
		}

		p := row(projects, s.Project.Name)
		p.Sessions++
		p.Usage.Add(s.Usage)
		seen := map[string]bool{}
		for _, m := range s.Models {
			seen[m] = true
			row(models, m).Sessions++
		}
		order, by := s.UsageByModel()
		for _, m := range order {
			if !s.Started.IsZero() {
				d := day0(s.Started)
				if dayTokens[d] == nil {
					dayTokens[d] = map[string]int64{}
				}
				dayTokens[d][m] += tokens(by[m])
			}
			r := row(models, m)
			if !seen[m] {
				r.Sessions++ // usage under a model the session does not list: ""
			}
			r.Usage.Add(by[m])
			if c, ok := pricing.Cost(m, by[m]); ok {
				r.Cost += c
				p.Cost += c
				st.Cost += c
			} else {
				r.Unpriced += tokens(by[m])
				p.Unpriced += tokens(by[m])
				st.Unpriced += tokens(by[m])
			}
		}
	}

	for _, d := range slices.SortedFunc(maps.Keys(perDay), time.Time.Compare) {
		day := Day{Date: d, Sessions: perDay[d]}
		for m, n := range dayTokens[d] {
			day.Tokens = append(day.Tokens, ModelTokens{m, n})
		}
		slices.SortFunc(day.Tokens, func(a, b ModelTokens) int {
			return cmp.Or(cmp.Compare(b.Tokens, a.Tokens), cmp.Compare(a.Model, b.Model))
		})
		st.active = append(st.active, day)
	}
	for name, n := range agents {
		st.Agents = append(st.Agents, Count{name, n})
	}
	slices.SortFunc(st.Agents, func(a, b Count) int { return cmp.Or(b.Sessions-a.Sessions, cmp.Compare(a.Name, b.Name)) })
	st.Models = usageRows(models)
	st.Projects = usageRows(projects)
	for _, t := range tools {
		st.Tools = append(st.Tools, *t)
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

// day0 is the start of t's day, UTC.
func day0(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func usageRows(rows map[string]*UsageRow) []UsageRow {
	out := make([]UsageRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b UsageRow) int {
		return cmp.Or(cmp.Compare(b.Tokens(), a.Tokens()), b.Sessions-a.Sessions, cmp.Compare(a.Name, b.Name))
	})
	return out
}

// Tokens adds up the tokens the session used, as the stats do.
func (s *Session) Tokens() int64 { return tokens(s.Usage) }
