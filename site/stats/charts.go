package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Chart is a bar chart that the theme draws as inline SVG, with a table of
// its numbers. Its geometry is computed here, so a template only places
// what it is given, and no chart needs a script or a style attribute.
//
// A chart is as wide as the page's column: horizontal positions are
// percentages of its width, vertical ones CSS pixels, and there is no
// viewBox, so its text keeps the stylesheet's size on a phone rather
// than shrinking with the drawing.
type Chart struct {
	ID      string // unique on its page, for anchors and aria ids
	Title   string
	Desc    string // what the bars measure, for screen readers
	Columns bool   // bars along a time axis, rather than labelled rows
	Height  float64
	Gutter  float64 // width of a column chart's value axis, px
	Bars    []Bar
	Grid    []Tick // a column chart's value axis: a line and a label each
	Ticks   []Tick // a column chart's time axis labels
	Head    []string
	Rows    [][]Cell
}

// Bar is one bar: the rectangle, and, in a row chart, where its label and
// value go.
type Bar struct {
	Label, Value string  // what it stands for and its value, as shown
	Short        string  // the label cut to fit above the bar
	X, W         float64 // percent of the chart's width
	Y, H         float64 // px
	TextY        float64 // baseline of a row's label and value
}

// Tick is a label on a chart's axis, and on the value axis the line it
// labels.
type Tick struct {
	Text   string
	X      float64 // on the time axis, percent of the width
	Y      float64 // px: the label's baseline, or the grid line's height
	Anchor string  // start, middle or end
	Wide   bool    // shown on a wide screen only, where there is room
}

// Cell is a cell of a chart's table; Link is the site path of a session.
type Cell struct{ Text, Link string }

const (
	rowHeight  = 40 // a row chart's row: the label and value, the bar under them
	rowText    = 15 // baseline of a row's text
	rowBar     = 21 // top of a row's bar
	barHeight  = 12
	maxLabel   = 36 // runes of a row label shown above its bar
	colTop     = 10 // the top grid line
	colBase    = 160
	colHeight  = colBase + 28
	colGap     = 0.2 // of a column's slot, between it and the next
	colMax     = 6   // percent: the widest column, when there are few
	charWidth  = 8   // px a digit takes at the charts' font size, and some
	maxGrid    = 4   // lines on the value axis, at most, besides 0
	wideTicks  = 8   // time axis labels on a wide screen, at most
	phoneTicks = 3   // and on a phone
)

// datum is one bar's value, and how it is shown.
type datum struct {
	label, value string
	v            float64
}

func round(x float64) float64 { return math.Round(x*100) / 100 }

// rowChart draws one horizontal bar per datum, the longest for the
// largest, each under its label and value.
func rowChart(id, title, desc string, data []datum) Chart {
	c := Chart{ID: "chart-" + id, Title: title, Desc: desc, Height: float64(4 + len(data)*rowHeight)}
	top := maxOf(data)
	for i, d := range data {
		y := float64(i * rowHeight)
		w := 0.0
		if top > 0 && d.v > 0 {
			w = max(0.3, round(d.v/top*100))
		}
		c.Bars = append(c.Bars, Bar{Label: d.label, Value: d.value, Short: render.Truncate(maxLabel, d.label),
			W: w, Y: y + rowBar, H: barHeight, TextY: y + rowText})
	}
	return c
}

// columnChart draws one column per datum along a time axis whose labels
// ticks gives, over a value axis of round numbers.
func columnChart(id, title, desc string, data []datum, ticks []Tick) Chart {
	c := Chart{ID: "chart-" + id, Title: title, Desc: desc, Columns: true, Height: colHeight}
	if len(data) == 0 {
		return c
	}
	step, lines := gridStep(maxOf(data))
	top := step * float64(lines)
	longest := 1
	for i := range lines + 1 {
		v := step * float64(i)
		y := round(colBase - v/top*(colBase-colTop))
		text := compact(v)
		longest = max(longest, len(text))
		c.Grid = append(c.Grid, Tick{Text: text, Y: y})
	}
	c.Gutter = float64(10 + charWidth*longest)
	slot := 100 / float64(len(data))
	w := min(colMax, slot*(1-colGap))
	for i, d := range data {
		if d.v <= 0 {
			continue
		}
		h := max(1, round(d.v/top*(colBase-colTop)))
		c.Bars = append(c.Bars, Bar{Label: d.label, Value: d.value, X: round(float64(i)*slot + (slot-w)/2), W: round(w), Y: colBase - h, H: h})
	}
	c.Ticks = ticks
	return c
}

// gridStep is the step between the lines of a value axis that reaches
// top: 1, 2 or 5 times a power of ten, so that at most maxGrid lines
// besides 0 cover it, and how many lines that is.
func gridStep(top float64) (float64, int) {
	if top <= 0 {
		return 1, 1
	}
	for p := 1.0; ; p *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if s := m * p; math.Ceil(top/s) <= maxGrid {
				return s, int(math.Ceil(top / s))
			}
		}
	}
}

// compact writes a round number of an axis short: 500, 1.5k, 20M.
func compact(v float64) string {
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e9, "B"}, {1e6, "M"}, {1e3, "k"}} {
		if v >= u.div {
			return strconv.FormatFloat(v/u.div, 'f', -1, 64) + u.suffix
		}
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// timeTicks labels the periods of a time axis: every k-th, so that a
// wide screen shows at most wideTicks labels and a phone, every other
// one of them, at most phoneTicks. A label names the period; the year
// is added where it changes from the label before on the phone.
func timeTicks(ps []Period) []Tick {
	n := len(ps)
	if n == 0 {
		return nil
	}
	k := 1
	for n > k*wideTicks || (n+2*k-1)/(2*k) > phoneTicks {
		k++
	}
	slot := 100 / float64(n)
	var out []Tick
	lastYear := 0
	for i := 0; i < n; i += k {
		p := ps[i]
		phone := i%(2*k) == 0
		t := Tick{Text: tickText(p, phone && p.Start.Year() != lastYear), X: round((float64(i) + 0.5) * slot), Y: colBase + 20, Anchor: "middle", Wide: !phone}
		if phone {
			lastYear = p.Start.Year()
		}
		// The first and last labels start and end at the chart's edges,
		// not past them.
		switch {
		case i == 0:
			t.X, t.Anchor = 0, "start"
		case i+k >= n && float64(i+1)*slot > 92:
			t.X, t.Anchor = 100, "end"
		}
		out = append(out, t)
	}
	return out
}

// tickText names the period p on a time axis: "2 Sep" or "Sep", with
// the year when withYear.
func tickText(p Period, withYear bool) string {
	layout := "2 Jan"
	if p.Span == Monthly {
		layout = "Jan"
	}
	if withYear {
		layout += " 2006"
	}
	return p.Start.Format(layout)
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

// Percent writes a share from 0 to 1 as a percentage.
func Percent(r float64) string { return fmt.Sprintf("%.1f%%", r*100) }

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

// TimeCharts draws the sessions and the tokens of st over time, a bar a
// day, a week or a month, as the span from the first to the last needs.
func TimeCharts(st *Stats) []Chart {
	if len(st.active) == 0 {
		return []Chart{columnChart("sessions", "Sessions", "No session has a date.", nil, nil)}
	}
	first, last := st.active[0].Start, st.active[len(st.active)-1].Start
	span := SpanOf(first, last)
	ps := st.Periods(span)
	what := spanNames[span]
	var sessions, toks []datum
	var sessionRows, tokRows [][]Cell
	var sum int64
	for _, p := range ps {
		sessions = append(sessions, datum{p.Name, render.Plural(p.Sessions, "session"), float64(p.Sessions)})
		toks = append(toks, datum{p.Name, render.HumanInt(p.Tokens()) + " tokens", float64(p.Tokens())})
		sum += p.Tokens()
		if p.Sessions > 0 {
			sessionRows = append(sessionRows, cells(p.Name, render.HumanInt(p.Sessions), render.HumanInt(p.Messages)))
			tokRows = append(tokRows, cells(p.Name, render.HumanInt(p.Tokens()), costText(p.UsageRow)))
		}
	}
	head := cmp.Or(map[Span]string{Weekly: "Week of"}[span], strings.ToUpper(what[:1])+what[1:])
	when := fmt.Sprintf(" (UTC), from %s to %s", ps[0].Name, ps[len(ps)-1].Name)
	if span == Weekly {
		when = fmt.Sprintf(" (UTC, weeks from Monday), from the week of %s to that of %s", ps[0].Name, ps[len(ps)-1].Name)
	}
	desc := "How many sessions started each " + what + when
	if st.Undated > 0 {
		desc += fmt.Sprintf("; %s without a date are not shown", render.Plural(st.Undated, "session"))
	}
	ticks := timeTicks(ps)
	c := columnChart("sessions", "Sessions per "+what, desc+".", sessions, ticks)
	c.Head, c.Rows = []string{head, "Sessions", "Messages"}, sessionRows
	out := []Chart{c}
	if sum > 0 {
		c = columnChart("tokens", "Tokens per "+what, "Tokens the sessions that started each "+what+when+
			" used; the usage tables give them by model.", toks, ticks)
		c.Head, c.Rows = []string{head, "Tokens", "Estimated cost"}, tokRows
		out = append(out, c)
	}
	return out
}

// Charts draws the figures of st besides those over time; those by
// project only when there are several.
func Charts(st *Stats) []Chart {
	var data []datum
	var rows [][]Cell
	for _, a := range st.Agents {
		data = append(data, datum{a.Name, render.HumanInt(a.Sessions), float64(a.Sessions)})
		rows = append(rows, cells(a.Name, render.HumanInt(a.Sessions)))
	}
	c := rowChart("agents", "Sessions by agent", "How many sessions each agent ran.", data)
	c.Head, c.Rows = []string{"Agent", "Sessions"}, rows
	out := []Chart{c}
	out = append(out, usageCharts("model", "Model", st.Models, modelName)...)
	if len(st.Projects) > 1 {
		out = append(out, usageCharts("project", "Project", st.Projects, func(n string) string { return n })...)
	}
	out = append(out, toolCharts(st)...)
	return append(out, longestChart(st))
}

// usageCharts draws the tokens and the costs of rows by kind.
func usageCharts(kind, heading string, rs []UsageRow, name func(string) string) []Chart {
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
	k := rowChart("cost-"+kind, "Estimated cost by "+kind, "The estimated cost in US dollars of the tokens of each "+kind+
		", at the prices of the site's pricing table; tokens of models it has no price for are not counted.", cost)
	k.Head, k.Rows = []string{heading, "Tokens", "Estimated cost"}, costRows
	return []Chart{c, k}
}

// toolCharts draws the tool calls of each kind, and how many failed.
func toolCharts(st *Stats) []Chart {
	var calls, rates []datum
	var callRows, rateRows [][]Cell
	for _, t := range st.Tools {
		k := string(t.Kind)
		calls = append(calls, datum{k, render.HumanInt(t.Calls), float64(t.Calls)})
		callRows = append(callRows, cells(k, render.HumanInt(t.Calls)))
		rates = append(rates, datum{k, Percent(t.ErrorRate()), t.ErrorRate()})
		rateRows = append(rateRows, cells(k, render.HumanInt(t.Calls), render.HumanInt(t.Failed), Percent(t.ErrorRate())))
	}
	c := rowChart("tools", "Tool calls by kind", "How many tool calls of each kind the agents made.", calls)
	c.Head, c.Rows = []string{"Kind", "Calls"}, callRows
	e := rowChart("errors", "Error rate by tool kind", "The share of the tool calls of each kind whose result was an error.", rates)
	e.Head, e.Rows = []string{"Kind", "Calls", "Failed", "Error rate"}, rateRows
	return []Chart{c, e}
}

// longestChart draws the sessions with the most time spent on them.
func longestChart(st *Stats) Chart {
	var data []datum
	var rows [][]Cell
	for _, s := range st.Longest {
		d := render.Duration(s.Stats.Active)
		data = append(data, datum{s.Title, d, s.Stats.Active.Seconds()})
		rows = append(rows, []Cell{{Text: s.Title, Link: s.Path}, {Text: s.Project},
			{Text: s.Started.UTC().Format("2006-01-02 15:04")}, {Text: d}, {Text: render.Duration(s.Duration)}, {Text: render.HumanInt(s.Stats.Messages)}})
	}
	c := rowChart("longest", "Longest sessions", fmt.Sprintf("The sessions with the most time spent on them: the time between messages, "+
		"leaving out pauses longer than %d minutes.", int(transcript.ActiveGap.Minutes())), data)
	c.Head, c.Rows = []string{"Session", "Project", "Started (UTC)", "Active", "First to last", "Messages"}, rows
	return c
}
