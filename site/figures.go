package site

import (
	"slices"
	"time"

	"github.com/transcriptsite/transcriptsite/site/siteconfig"
	"github.com/transcriptsite/transcriptsite/site/stats"
)

// statsOf computes the figures of ss, which are in the site's order.
func statsOf(pricing siteconfig.Pricing, all []*Session) *stats.Stats {
	var ss []*stats.Session
	for _, s := range all {
		// The first volume of a session stands for them all (joinVolumes).
		if s.Volume <= 1 {
			ss = append(ss, s.record())
		}
	}
	return stats.Of(pricing, ss)
}

// record is what the figures read of s.
func (s *Session) record() *stats.Session {
	return &stats.Session{Title: s.Title, Path: s.Path, Project: s.Project.Name, Agent: s.Agent, Started: s.Started,
		Duration: s.Duration(), Stats: s.Stats, Usage: s.Usage, Models: s.Models, ModelOrder: s.models, ByModel: s.byModel}
}

// StatsBetween computes the figures of the sessions that started from
// the day from to the day to (UTC), either open when zero.
func (st *Site) StatsBetween(from, to time.Time) *stats.Stats {
	if from.IsZero() && to.IsZero() {
		return st.Stats
	}
	in := slices.DeleteFunc(slices.Clone(st.Sessions), func(s *Session) bool {
		d := stats.Daily.Start(s.Started)
		return s.Started.IsZero() || !from.IsZero() && d.Before(stats.Daily.Start(from)) || !to.IsZero() && d.After(stats.Daily.Start(to))
	})
	return statsOf(st.Config.Pricing, in)
}

// Tokens adds up the tokens the session used, as the stats do.
func (s *Session) Tokens() int64 { return stats.Tokens(s.Usage) }

// Stats are the figures the page shows: its project's, or the site's.
func (p *Page) Stats() *stats.Stats {
	if p.Project != nil {
		return p.Project.Stats
	}
	return p.Site.Stats
}

// TimeCharts draws the page's sessions and tokens over time.
func (p *Page) TimeCharts() []stats.Chart { return stats.TimeCharts(p.Stats()) }

// Charts draws the page's other figures.
func (p *Page) Charts() []stats.Chart { return stats.Charts(p.Stats()) }

// Heatmap draws the calendar of the page's sessions.
func (p *Page) Heatmap() *stats.Heatmap { return stats.HeatmapOf(p.Stats()) }

// UsageTables are the page's usage reports: by month, then by day.
func (p *Page) UsageTables() []*stats.UsageTable { return stats.Tables(p.Stats()) }
