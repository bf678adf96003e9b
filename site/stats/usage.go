package stats

import (
	"fmt"
	"strings"

	"github.com/transcriptsite/transcriptsite/render"
)

// UsageTable is a usage report as people know them from ccusage's: the
// tokens and estimated cost of each day, week or month, or of each model,
// with a row for each model under a period that used several, and their
// total. The stats page and `transcriptsite stats` show the same tables.
type UsageTable struct {
	ID, Title string
	Notes     []string // what the figures leave out, and how they count
	Head      []string
	Rows      []UsageLine
	Total     []string
	Count     string // how many days, months or models it lists
	Numbers   int    // the first column of numbers
	Open      bool   // short enough to show open on the page
}

// UsageLine is a row of a usage table.
type UsageLine struct {
	Cells []string
	Model bool // a model's share of the period above it
}

// usageHead are the columns of figures, as ccusage names them but for the
// site's "cache write" (ccusage's "cache create").
var usageHead = []string{"Sessions", "Input", "Output", "Cache write", "Cache read", "Total tokens", "Cost"}

// UsageBy is the usage report of st by day, week, month or model.
func (st *Stats) UsageBy(by string) (*UsageTable, error) {
	if by == "model" {
		return st.modelTable(), nil
	}
	span, err := ParseSpan(by)
	if err != nil {
		return nil, fmt.Errorf("%q is not a usage report: want day, week, month or model", by)
	}
	return st.periodTable(span), nil
}

func (st *Stats) periodTable(span Span) *UsageTable {
	first := map[Span]string{Daily: "Day", Weekly: "Week of", Monthly: "Month"}[span]
	t := &UsageTable{ID: "usage-" + spanNames[span], Title: "Usage by " + spanNames[span], Head: append([]string{first, "Models"}, usageHead...), Numbers: 2}
	ps := Active(st.Periods(span))
	t.Count = render.Plural(len(ps), spanNames[span])
	for _, p := range ps {
		t.Rows = append(t.Rows, UsageLine{Cells: append([]string{p.Name, modelsText(p.Models)}, figures(p.UsageRow)...)})
		if len(p.Models) < 2 {
			continue
		}
		for _, m := range p.Models {
			t.Rows = append(t.Rows, UsageLine{Cells: append([]string{"", "└ " + modelName(m.Name)}, figures(m)...), Model: true})
		}
	}
	total := Total(ps)
	t.Total = append([]string{"Total", ""}, figures(total)...)
	t.Notes = append(t.Notes, "A session counts, with all its tokens, "+map[Span]string{Daily: "on the day it started (UTC).",
		Weekly: "in the week it started (UTC, weeks from Monday).", Monthly: "in the month it started (UTC)."}[span])
	if st.Undated > 0 {
		t.Notes = append(t.Notes, render.Plural(st.Undated, "session")+" without a date "+map[bool]string{true: "is", false: "are"}[st.Undated == 1]+" left out.")
	}
	return t.withPriceNote(total)
}

func (st *Stats) modelTable() *UsageTable {
	t := &UsageTable{ID: "usage-model", Title: "Usage by model", Head: append([]string{"Model"}, usageHead...), Numbers: 1}
	t.Count = render.Plural(len(st.Models), "model")
	total := UsageRow{Name: "Total", Sessions: st.Sessions}
	for _, m := range st.Models {
		t.Rows = append(t.Rows, UsageLine{Cells: append([]string{modelName(m.Name)}, figures(m)...)})
		total.addUsage(m)
	}
	t.Total = append([]string{"Total"}, figures(total)...)
	return t.withPriceNote(total)
}

// withPriceNote says, when a cost leaves tokens out, how many.
func (t *UsageTable) withPriceNote(total UsageRow) *UsageTable {
	if total.Unpriced > 0 {
		t.Notes = append(t.Notes, "* The cost leaves out "+render.HumanInt(total.Unpriced)+" tokens of models the pricing table has no price for.")
	}
	return t
}

// figures are the cells of r's numbers.
func figures(r UsageRow) []string {
	u := r.Usage
	return []string{render.HumanInt(r.Sessions), render.HumanInt(u.Input), render.HumanInt(u.Output), render.HumanInt(u.CacheWrite),
		render.HumanInt(u.CacheRead), render.HumanInt(r.Tokens()), costCell(r)}
}

// costCell is the estimated cost of r, starred when it leaves tokens out.
func costCell(r UsageRow) string {
	switch {
	case r.Unpriced > 0 && r.Cost == 0:
		return "no price"
	case r.Unpriced > 0:
		return dollars(r.Cost) + "*"
	}
	return dollars(r.Cost)
}

// modelsText names the models of a period: the one, or how many.
func modelsText(ms []UsageRow) string {
	switch len(ms) {
	case 0:
		return ""
	case 1:
		return modelName(ms[0].Name)
	}
	return fmt.Sprintf("%d models", len(ms))
}

// openPeriods are the most months, and days, of a usage table that the
// page shows open; a longer one opens when asked.
var openPeriods = map[Span]int{Daily: 14, Monthly: 36}

// Tables are the usage reports of a page of st: by month, then by day.
func Tables(st *Stats) []*UsageTable {
	if len(st.active) == 0 {
		return nil
	}
	var tables []*UsageTable
	for _, span := range []Span{Monthly, Daily} {
		t := st.periodTable(span)
		t.Open = len(Active(st.Periods(span))) <= openPeriods[span]
		tables = append(tables, t)
	}
	return tables
}

// Numeric reports whether column i holds numbers, which align right.
func (t *UsageTable) Numeric(i int) bool { return i >= t.Numbers }

// String is the table as plain text, its columns aligned: what
// `transcriptsite stats` prints.
func (t *UsageTable) String() string {
	lines := [][]string{t.Head}
	for _, r := range t.Rows {
		lines = append(lines, r.Cells)
	}
	lines = append(lines, t.Total)
	widths := make([]int, len(t.Head))
	for _, l := range lines {
		for i, c := range l {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	b.WriteString(t.Title + "\n\n")
	for n, l := range lines {
		if n == len(lines)-1 {
			b.WriteString(rule(widths) + "\n")
		}
		var cells []string
		for i, c := range l {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if t.Numeric(i) {
				cells = append(cells, pad+c)
			} else {
				cells = append(cells, c+pad)
			}
		}
		b.WriteString(strings.TrimRight(strings.Join(cells, "  "), " ") + "\n")
		if n == 0 {
			b.WriteString(rule(widths) + "\n")
		}
	}
	for _, n := range t.Notes {
		b.WriteString("\n" + n)
	}
	if len(t.Notes) > 0 {
		b.WriteByte('\n')
	}
	return b.String()
}

// rule is a line under a table's head, as wide as its columns.
func rule(widths []int) string {
	var parts []string
	for _, w := range widths {
		parts = append(parts, strings.Repeat("─", w))
	}
	return strings.Join(parts, "  ")
}
