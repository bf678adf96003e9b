package site

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Chart is a bar chart that the theme draws as inline SVG, with a table of
// its numbers. Its geometry is computed here, so a template only places
// what it is given, and no chart needs a script or a style attribute.
type Chart struct {
	ID            string // unique on its page, for anchors and aria ids
	Title         string
	Desc          string // what the bars measure, for screen readers
	Columns       bool   // bars along a time axis, rather than labelled rows
	Width, Height float64
	Bars          []Bar
	Ticks         []Tick // a column chart's axis labels
	Axis          *Line  // a column chart's baseline
	Head          []string
	Rows          [][]Cell
}

// Bar is one bar: the rectangle, and, in a row chart, where its label and
// value go.
type Bar struct {
	Label, Value string // what it stands for and its value, as shown
	Short        string // the label cut to fit beside the bar
	X, Y, W, H   float64
	TextY        float64 // baseline of a row's label and value
	LabelX       float64 // where a row's label ends
	ValueX       float64 // where a row's value starts
}

// Tick is a label on a column chart's axes.
type Tick struct {
	Text string
	X, Y float64
	End  bool // anchored at its end
}

// Line is a line in a chart.
type Line struct{ X1, Y1, X2, Y2 float64 }

// Cell is a cell of a chart's table; Link is the site path of a session.
type Cell struct{ Text, Link string }

const (
	chartWidth = 720
	rowHeight  = 24
	barHeight  = 16
	labelWidth = 180 // row labels end here
	barStart   = labelWidth + 8
	barMax     = 440
	maxLabel   = 28 // runes of a row label shown beside its bar
	colTop     = 20
	colBase    = 150
	colLeft    = 44
	colRight   = chartWidth - 8
	maxColumn  = 24
)

// datum is one bar's value, and how it is shown.
type datum struct {
	label, value string
	v            float64
}

func round(x float64) float64 { return math.Round(x*10) / 10 }

// rowChart draws one horizontal bar per datum, longest for the largest.
func rowChart(id, title, desc string, data []datum) Chart {
	c := Chart{ID: "chart-" + id, Title: title, Desc: desc, Width: chartWidth, Height: float64(8 + len(data)*rowHeight)}
	top := maxOf(data)
	for i, d := range data {
		y := float64(4 + i*rowHeight)
		w := 0.0
		if top > 0 && d.v > 0 {
			w = max(1, round(d.v/top*barMax))
		}
		c.Bars = append(c.Bars, Bar{Label: d.label, Value: d.value, Short: render.Truncate(maxLabel, d.label),
			X: barStart, Y: y + (rowHeight-barHeight)/2, W: w, H: barHeight, TextY: y + 16, LabelX: labelWidth, ValueX: barStart + w + 6})
	}
	return c
}

// columnChart draws one column per datum along a time axis, labelled
// first and last.
func columnChart(id, title, desc string, data []datum) Chart {
	c := Chart{ID: "chart-" + id, Title: title, Desc: desc, Columns: true, Width: chartWidth, Height: colBase + 28,
		Axis: &Line{colLeft, colBase, colRight, colBase}}
	if len(data) == 0 {
		return c
	}
	top := maxOf(data)
	slot := float64(colRight-colLeft) / float64(len(data))
	w := min(maxColumn, slot)
	if slot > 3 {
		w = min(maxColumn, slot*0.8) // gaps between columns wide enough to see
	}
	for i, d := range data {
		if d.v <= 0 {
			continue
		}
		h := max(1, round(d.v/top*(colBase-colTop)))
		c.Bars = append(c.Bars, Bar{Label: d.label, Value: d.value,
			X: round(colLeft + float64(i)*slot + (slot-w)/2), Y: colBase - h, W: round(w), H: h})
	}
	c.Ticks = []Tick{
		{Text: render.HumanInt(int64(top)), X: colLeft - 6, Y: colTop + 4, End: true},
		{Text: "0", X: colLeft - 6, Y: colBase, End: true},
		{Text: data[0].label, X: colLeft, Y: colBase + 18},
	}
	if len(data) > 1 {
		c.Ticks = append(c.Ticks, Tick{Text: data[len(data)-1].label, X: colRight, Y: colBase + 18, End: true})
	}
	return c
}

func maxOf(data []datum) float64 {
	top := 0.0
	for _, d := range data {
		top = max(top, d.v)
	}
	return top
}

func cells(texts ...string) []Cell {
	out := make([]Cell, len(texts))
	for i, t := range texts {
		out[i] = Cell{Text: t}
	}
	return out
}

func dollars(f float64) string { return fmt.Sprintf("$%.2f", f) }

func percent(r float64) string { return fmt.Sprintf("%.1f%%", r*100) }

// modelName is how a model is named in a chart.
func modelName(m string) string {
	if m == "" {
		return "unknown model"
	}
	return m
}

// costText is the estimated cost of a row, and what it leaves out.
func costText(r UsageRow) string {
	switch {
	case r.Unpriced > 0 && r.Cost == 0:
		return "no price"
	case r.Unpriced > 0:
		return dollars(r.Cost) + " + " + render.HumanInt(r.Unpriced) + " tokens with no price"
	}
	return dollars(r.Cost)
}

// charts draws the figures of st; those by project only when there are
// several.
func charts(st *Stats) []Chart {
	var out []Chart

	var days []datum
	var dayRows [][]Cell
	everyDay := st.Days()
	for _, d := range everyDay {
		date := d.Date.Format(time.DateOnly)
		days = append(days, datum{date, render.Plural(d.Sessions, "session"), float64(d.Sessions)})
		if d.Sessions > 0 {
			dayRows = append(dayRows, cells(date, render.HumanInt(d.Sessions)))
		}
	}
	desc := "How many sessions started on each day (UTC)"
	if len(everyDay) > 0 {
		desc += fmt.Sprintf(", from %s to %s", days[0].label, days[len(days)-1].label)
	}
	if st.Undated > 0 {
		desc += fmt.Sprintf("; %s without a date are not shown", render.Plural(st.Undated, "session"))
	}
	c := columnChart("days", "Sessions per day", desc+".", days)
	c.Head, c.Rows = []string{"Day", "Sessions"}, dayRows
	out = append(out, c)

	// Tokens per day, the table by model.
	var dayTok []datum
	var tokRows [][]Cell
	for _, d := range everyDay {
		date := d.Date.Format(time.DateOnly)
		var sum int64
		for _, t := range d.Tokens {
			sum += t.Tokens
			tokRows = append(tokRows, cells(date, modelName(t.Model), render.HumanInt(t.Tokens)))
		}
		dayTok = append(dayTok, datum{date, render.HumanInt(sum) + " tokens", float64(sum)})
	}
	if len(tokRows) > 0 {
		c = columnChart("day-tokens", "Tokens per day", "Tokens the sessions that started on each day (UTC) used; "+
			"the table gives them by model.", dayTok)
		c.Head, c.Rows = []string{"Day", "Model", "Tokens"}, tokRows
		out = append(out, c)
	}

	var data []datum
	var rows [][]Cell
	for _, a := range st.Agents {
		data = append(data, datum{a.Name, render.HumanInt(a.Sessions), float64(a.Sessions)})
		rows = append(rows, cells(a.Name, render.HumanInt(a.Sessions)))
	}
	c = rowChart("agents", "Sessions by agent", "How many sessions each agent ran.", data)
	c.Head, c.Rows = []string{"Agent", "Sessions"}, rows
	out = append(out, c)

	usage := func(kind, heading string, rs []UsageRow, name func(string) string) {
		var tok, cost []datum
		var tokRows, costRows [][]Cell
		for _, r := range rs {
			n := name(r.Name)
			tok = append(tok, datum{n, render.HumanInt(r.Tokens()), float64(r.Tokens())})
			u := r.Usage
			tokRows = append(tokRows, cells(n, render.HumanInt(r.Sessions), render.HumanInt(u.Input), render.HumanInt(u.Output),
				render.HumanInt(u.CacheRead), render.HumanInt(u.CacheWrite), render.HumanInt(u.Reasoning), render.HumanInt(r.Tokens())))
		}
		// The costs, the dearest first.
		byCost := slices.Clone(rs)
		slices.SortStableFunc(byCost, func(a, b UsageRow) int {
			return cmp.Or(cmp.Compare(b.Cost, a.Cost), cmp.Compare(b.Unpriced, a.Unpriced))
		})
		for _, r := range byCost {
			n := name(r.Name)
			if r.Cost > 0 {
				cost = append(cost, datum{n, dollars(r.Cost), r.Cost})
			}
			costRows = append(costRows, cells(n, render.HumanInt(r.Tokens()), costText(r)))
		}
		c := rowChart("tokens-"+kind, "Tokens by "+kind, "Tokens each "+kind+" used: input, output and cache reads "+
			"and writes (reasoning tokens, which most agents count within output, are in the table).", tok)
		c.Head = []string{heading, "Sessions", "Input", "Output", "Cache read", "Cache write", "Reasoning", "Total"}
		c.Rows = tokRows
		out = append(out, c)
		c = rowChart("cost-"+kind, "Estimated cost by "+kind, "The estimated cost in US dollars of the tokens of each "+kind+
			", at the prices of the site's pricing table; tokens of models it has no price for are not counted.", cost)
		c.Head, c.Rows = []string{heading, "Tokens", "Estimated cost"}, costRows
		out = append(out, c)
	}
	usage("model", "Model", st.Models, modelName)
	if len(st.Projects) > 1 {
		usage("project", "Project", st.Projects, func(n string) string { return n })
	}

	var calls, rates []datum
	var callRows, rateRows [][]Cell
	for _, t := range st.Tools {
		k := string(t.Kind)
		calls = append(calls, datum{k, render.HumanInt(t.Calls), float64(t.Calls)})
		callRows = append(callRows, cells(k, render.HumanInt(t.Calls)))
		rates = append(rates, datum{k, percent(t.ErrorRate()), t.ErrorRate()})
		rateRows = append(rateRows, cells(k, render.HumanInt(t.Calls), render.HumanInt(t.Failed), percent(t.ErrorRate())))
	}
	c = rowChart("tools", "Tool calls by kind", "How many tool calls of each kind the agents made.", calls)
	c.Head, c.Rows = []string{"Kind", "Calls"}, callRows
	out = append(out, c)
	c = rowChart("errors", "Error rate by tool kind", "The share of the tool calls of each kind whose result was an error.", rates)
	c.Head, c.Rows = []string{"Kind", "Calls", "Failed", "Error rate"}, rateRows
	out = append(out, c)

	data, rows = nil, nil
	for _, s := range st.Longest {
		d := render.Duration(s.Stats.Active)
		data = append(data, datum{s.Title, d, s.Stats.Active.Seconds()})
		rows = append(rows, []Cell{{Text: s.Title, Link: s.Path}, {Text: s.Project.Name},
			{Text: s.Started.UTC().Format("2006-01-02 15:04")}, {Text: d}, {Text: render.Duration(s.Duration())}, {Text: render.HumanInt(s.Stats.Messages)}})
	}
	c = rowChart("longest", "Longest sessions", fmt.Sprintf("The sessions with the most time spent on them: the time between messages, "+
		"leaving out pauses longer than %d minutes.", int(transcript.ActiveGap.Minutes())), data)
	c.Head, c.Rows = []string{"Session", "Project", "Started (UTC)", "Active", "First to last", "Messages"}, rows
	return append(out, c)
}

// Stats are the figures the page shows: its project's, or the site's.
func (p *Page) Stats() *Stats {
	if p.Project != nil {
		return p.Project.Stats
	}
	return p.Site.Stats
}

// Charts draws the page's figures.
func (p *Page) Charts() []Chart { return charts(p.Stats()) }
