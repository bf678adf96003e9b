package stats

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/transcript"
)

func date(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// activeDays are days with sessions, as statsOf keeps them: each day
// given as "2006-01-02:sessions".
func activeDays(specs ...string) *Stats {
	st := &Stats{}
	for _, s := range specs {
		day, n, _ := strings.Cut(s, ":")
		var sessions int
		fmt.Sscan(n, &sessions)
		d := date(day)
		st.active = append(st.active, Period{UsageRow: UsageRow{Name: day, Sessions: sessions, Usage: usageOf(int64(sessions) * 1000)},
			Start: d, Messages: 2 * sessions, Models: []UsageRow{{Name: "m", Sessions: sessions, Usage: usageOf(int64(sessions) * 1000)}}})
		st.Sessions += sessions
	}
	return st
}

func periods(ps []Period) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%s %d %d", p.Name, p.Sessions, p.Tokens()))
	}
	return out
}

// TestSpanOf: a bar a day up to 90 days, a week up to two years, a month
// beyond.
func TestSpanOf(t *testing.T) {
	first := date("2024-01-01")
	for days, want := range map[int]Span{0: Daily, 90: Daily, 91: Weekly, 730: Weekly, 731: Monthly, 1100: Monthly} {
		if got := SpanOf(first, first.AddDate(0, 0, days)); got != want {
			t.Errorf("%d days: by %s, want by %s", days, got, want)
		}
	}
}

// TestRollup adds days up into weeks from Monday and months, every period
// from the first to the last, those with no session too.
func TestRollup(t *testing.T) {
	// 2025-12-31 is a Wednesday, 2026-01-04 a Sunday, 2026-01-05 a Monday.
	st := activeDays("2025-12-31:1", "2026-01-04:2", "2026-01-05:3", "2026-02-20:4")
	if got, want := periods(st.Periods(Weekly)), []string{
		"2025-12-29 3 3000", "2026-01-05 3 3000", "2026-01-12 0 0", "2026-01-19 0 0", "2026-01-26 0 0",
		"2026-02-02 0 0", "2026-02-09 0 0", "2026-02-16 4 4000",
	}; !slices.Equal(got, want) {
		t.Errorf("weeks %q, want %q", got, want)
	}
	months := st.Periods(Monthly)
	if got, want := periods(months), []string{"2025-12 1 1000", "2026-01 5 5000", "2026-02 4 4000"}; !slices.Equal(got, want) {
		t.Errorf("months %q, want %q", got, want)
	}
	if m := months[1]; m.Messages != 10 || len(m.Models) != 1 || m.Models[0].Sessions != 5 || m.Models[0].Tokens() != 5000 {
		t.Errorf("January: %d messages, models %+v", m.Messages, m.Models)
	}
	if days := st.Days(); len(days) != 52 || days[1].Name != "2026-01-01" || days[1].Sessions != 0 {
		t.Errorf("%d days, the second %+v", len(days), days[1])
	}
	// The days themselves are left as they were.
	if st.active[1].Models[0].Sessions != 2 {
		t.Error("rolling up changed the days")
	}
	if tot := Total(months); tot.Sessions != 10 || tot.Tokens() != 10_000 {
		t.Errorf("total %+v", tot)
	}
}

// TestTimeChartsRollUp: three years of sessions are drawn a bar a month,
// the title says so, the value axis has round steps between 0 and the
// top, and the time axis a label every few months, every other one
// shown on a phone, the year where it changes.
func TestTimeChartsRollUp(t *testing.T) {
	var specs []string
	for d := date("2023-09-18"); d.Before(date("2026-08-04")); d = d.AddDate(0, 0, 9) {
		specs = append(specs, d.Format(time.DateOnly)+":1")
	}
	specs = append(specs, "2026-08-03:7")
	cs := TimeCharts(activeDays(specs...))
	sessions := cs[0]
	if sessions.Title != "Sessions per month" || !strings.Contains(sessions.Desc, "each month (UTC), from 2023-09 to 2026-08") {
		t.Errorf("title %q, desc %q", sessions.Title, sessions.Desc)
	}
	if n := len(sessions.Bars); n != 36 {
		t.Errorf("%d bars, want one a month: 36", n)
	}
	var grid []string
	for _, g := range sessions.Grid {
		grid = append(grid, fmt.Sprintf("%s@%g", g.Text, g.Y))
	}
	// The busiest month, August 2026, has 7 + 1 sessions: a step of 2.
	if want := []string{"0@160", "2@122.5", "4@85", "6@47.5", "8@10"}; !slices.Equal(grid, want) {
		t.Errorf("value axis %q, want %q", grid, want)
	}
	var ticks []string
	for _, k := range sessions.Ticks {
		phone := ""
		if !k.Wide {
			phone = "*"
		}
		ticks = append(ticks, fmt.Sprintf("%s%s@%g:%s", phone, k.Text, k.X, k.Anchor))
	}
	if want := []string{"*Sep 2023@0:start", "Mar@18.06:middle", "*Sep 2024@34.72:middle", "Mar@51.39:middle",
		"*Sep 2025@68.06:middle", "Mar@84.72:middle"}; !slices.Equal(ticks, want) {
		t.Errorf("time axis %q, want %q", ticks, want)
	}
	if tok := cs[1]; tok.Title != "Tokens per month" || tok.Grid[len(tok.Grid)-1].Text != "8k" {
		t.Errorf("tokens chart %q, top %q", tok.Title, tok.Grid[len(tok.Grid)-1].Text)
	}

	// Two months are drawn a bar a day, a season a bar a week.
	if c := TimeCharts(activeDays("2026-01-01:1", "2026-02-28:1"))[0]; c.Title != "Sessions per day" || len(c.Bars) != 2 || len(c.Ticks) != 6 {
		t.Errorf("two months: %q, %d bars, %d labels", c.Title, len(c.Bars), len(c.Ticks))
	}
	if c := TimeCharts(activeDays("2026-01-01:1", "2026-06-30:1"))[0]; c.Title != "Sessions per week" || c.Head[0] != "Week of" {
		t.Errorf("half a year: %q, %q", c.Title, c.Head)
	}
}

// TestGridStep: the value axis goes up in steps of 1, 2 or 5 times a
// power of ten, with at most four lines above 0.
func TestGridStep(t *testing.T) {
	for top, want := range map[float64]string{1: "1×1", 3: "1×3", 4: "1×4", 5: "2×3", 12: "5×3", 20: "5×4", 21: "10×3", 6_878_882: "2e+06×4"} {
		step, n := gridStep(top)
		if got := fmt.Sprintf("%g×%d", step, n); got != want {
			t.Errorf("top %g: %s, want %s", top, got, want)
		}
	}
	for v, want := range map[float64]string{0: "0", 500: "500", 1500: "1.5k", 2e6: "2M", 2.5e9: "2.5B"} {
		if got := compact(v); got != want {
			t.Errorf("compact(%g) = %q, want %q", v, got, want)
		}
	}
}

// TestHeatmap draws the last 53 weeks: a column a week from Monday, a
// row a weekday, busier days darker, each day's square titled.
func TestHeatmap(t *testing.T) {
	// 2026-04-29 is a Wednesday; 2024-06-03, more than a year before, is
	// left out.
	h := HeatmapOf(activeDays("2024-06-03:9", "2025-05-01:1", "2026-04-27:1", "2026-04-28:2", "2026-04-29:8"))
	if h.GridW != 53*pitch-(pitch-cell) || h.Width < h.GridW+heatLeft || len(h.Columns) != 52 || len(h.Rows) != 6 {
		t.Errorf("grid %g px wide in %g: want 53 weeks", h.GridW, h.Width)
	}
	var days []string
	for _, d := range h.Days {
		days = append(days, fmt.Sprintf("%g,%g l%d %s", (d.X-h.Left)/pitch, (d.Y-h.Top)/pitch, d.Level, d.Title))
	}
	// 2025-05-01, a Thursday, falls in the first week (from 2025-04-28);
	// the last week's Monday, Tuesday and Wednesday are in column 52.
	if want := []string{
		"0,3 l1 2025-05-01: 1 session, 2 messages",
		"52,0 l1 2026-04-27: 1 session, 2 messages",
		"52,1 l3 2026-04-28: 2 sessions, 4 messages",
		"52,2 l4 2026-04-29: 8 sessions, 16 messages",
	}; !slices.Equal(days, want) {
		t.Errorf("days %q, want %q", days, want)
	}
	if !strings.Contains(h.Desc, "from 2025-04-28 to 2026-04-29") || !strings.Contains(h.Desc, "12 sessions on 4 days; the busiest day, 2026-04-29, had 8") {
		t.Errorf("desc %q", h.Desc)
	}
	var months []string
	for _, m := range h.Months {
		months = append(months, m.Text)
	}
	// April 2025 has only its last days in the first column: no room for
	// its name before May's. The year shows with January; February's name
	// would run into January's.
	if want := []string{"May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", "Jan 2026", "Mar", "Apr"}; !slices.Equal(months, want) {
		t.Errorf("months %q, want %q", months, want)
	}
	if HeatmapOf(&Stats{}) != nil {
		t.Error("a heatmap of no dated session")
	}
}

// usageOf is n tokens of input.
func usageOf(n int64) transcript.Usage { return transcript.Usage{Input: n} }
