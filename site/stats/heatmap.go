package stats

import (
	"fmt"
	"slices"
	"time"

	"github.com/transcriptsite/transcriptsite/render"
)

// Heatmap is a calendar of the sessions of the last twelve months, as
// GitHub draws one: a column a week from Monday, a row a weekday, each
// day a square as dark as the day was busy. Its sizes are CSS pixels:
// it keeps them on a phone, where its box scrolls. The days with no
// session are one square parted by lines, not a square each.
type Heatmap struct {
	ID, Title, Desc string
	Width, Height   float64
	Left, Top       float64   // where the grid of days starts
	GridW, GridH    float64   // the grid, drawn as one square of an empty day's colour
	Right, Bottom   float64   // where the grid ends
	Columns, Rows   []float64 // where the lines in the page's colour that part its squares run
	Days            []HeatDay
	Months          []Tick // a label over the first week of each month
	Weekdays        []Tick
	Legend          []HeatDay
	Less, More      Tick
}

// HeatDay is the square of a day with sessions, or of the legend.
type HeatDay struct {
	X, Y  float64
	Level int // 1 to 4: the quarter of the busy days it falls in
	Title string
}

const (
	cell      = 12 // a day's square
	pitch     = 15 // from one square to the next
	heatLeft  = 34 // room for the weekdays' names
	heatTop   = 20 // room for the months' names
	heatWeeks = 53
)

// HeatmapOf draws the days of st's last twelve months, or of all of them
// when there are fewer; nil when no session has a date.
func HeatmapOf(st *Stats) *Heatmap {
	days := st.Days()
	if len(days) == 0 {
		return nil
	}
	end := Weekly.Start(days[len(days)-1].Start)
	start := Weekly.Start(days[0].Start)
	if first := end.AddDate(0, 0, -7*(heatWeeks-1)); first.After(start) {
		start = first
	}
	days = slices.DeleteFunc(days, func(p Period) bool { return p.Start.Before(start) })
	weeks := int(end.Sub(start).Hours()/24/7) + 1
	h := &Heatmap{ID: "chart-activity", Title: "Activity", Left: heatLeft, Top: heatTop,
		GridW: float64(weeks*pitch - (pitch - cell)), GridH: 7*pitch - (pitch - cell)}
	h.Right, h.Bottom = h.Left+h.GridW, h.Top+h.GridH
	for c := 1; c < weeks; c++ {
		h.Columns = append(h.Columns, h.Left+float64(c*pitch)-(pitch-cell)/2.0)
	}
	for r := 1; r < 7; r++ {
		h.Rows = append(h.Rows, h.Top+float64(r*pitch)-(pitch-cell)/2.0)
	}
	h.Width = max(h.Left+h.GridW, 230)
	h.Height = h.Top + h.GridH + 27
	levels := quartiles(days)
	busiest, total, active := days[0], 0, 0
	for _, d := range days {
		if d.Sessions == 0 {
			continue
		}
		total += d.Sessions
		active++
		if d.Sessions > busiest.Sessions {
			busiest = d
		}
		col, row := int(d.Start.Sub(start).Hours()/24/7), (int(d.Start.Weekday())+6)%7
		h.Days = append(h.Days, HeatDay{X: h.Left + float64(col*pitch), Y: h.Top + float64(row*pitch), Level: levels(d.Sessions),
			Title: fmt.Sprintf("%s: %s, %s", d.Name, render.Plural(d.Sessions, "session"), render.Plural(d.Messages, "message"))})
	}
	h.Months = monthTicks(start, weeks)
	for i, name := range []string{"Mon", "Wed", "Fri"} {
		h.Weekdays = append(h.Weekdays, Tick{Text: name, X: h.Left - 6, Y: h.Top + float64(i*2*pitch) + cell - 2, Anchor: "end"})
	}
	legendY := h.Top + h.GridH + 11
	x := h.Width - 5*pitch - 34
	h.Less = Tick{Text: "Less", X: x - 6, Y: legendY + cell - 2, Anchor: "end"}
	for l := range 5 {
		h.Legend = append(h.Legend, HeatDay{X: x + float64(l*pitch), Y: legendY, Level: l})
	}
	h.More = Tick{Text: "More", X: x + 5*pitch + 3, Y: legendY + cell - 2, Anchor: "start"}
	h.Desc = fmt.Sprintf("Sessions per day (UTC) from %s to %s, a column a week from Monday: %s on %s; the busiest day, %s, had %d. "+
		"Each day's square names its figures, and the table of usage by day lists them.",
		start.Format(time.DateOnly), days[len(days)-1].Name, render.Plural(total, "session"), render.Plural(active, "day"), busiest.Name, busiest.Sessions)
	return h
}

// quartiles returns the level of a day's count of sessions: 1 to 4, the
// quarter of the busy days' counts it falls in.
func quartiles(days []Period) func(int) int {
	var counts []int
	for _, d := range days {
		if d.Sessions > 0 {
			counts = append(counts, d.Sessions)
		}
	}
	slices.Sort(counts)
	return func(n int) int {
		level := 1
		for q := 1; q < 4; q++ {
			if n > counts[(len(counts)-1)*q/4] {
				level = q + 1
			}
		}
		return level
	}
}

// monthTicks names each month over the first week that starts in it, the
// year with January, or with the first when no January shows; a name that
// would run into the next, or past the calendar's end, is left out.
func monthTicks(start time.Time, weeks int) []Tick {
	var out []Tick
	free := 0 // the first column a name may start at
	january := false
	for c := range weeks {
		january = january || start.AddDate(0, 0, 7*c).Month() == time.January
	}
	for c := range weeks {
		ws := start.AddDate(0, 0, 7*c)
		if c > 0 && ws.Month() == ws.AddDate(0, 0, -7).Month() || c < free {
			continue
		}
		layout := "Jan"
		if ws.Month() == time.January || len(out) == 0 && !january {
			layout = "Jan 2006"
		}
		text := ws.Format(layout)
		cols := (len(text)*charWidth + pitch - 1) / pitch
		next := ws.AddDate(0, 1, 0)
		if c+cols > weeks || c == 0 && int(time.Date(next.Year(), next.Month(), 1, 0, 0, 0, 0, time.UTC).Sub(ws).Hours()/24/7) < cols {
			continue // no room before the calendar's end, or before the next month's name
		}
		out = append(out, Tick{Text: text, X: heatLeft + float64(c*pitch), Y: heatTop - 7, Anchor: "start"})
		free = c + cols
	}
	return out
}
