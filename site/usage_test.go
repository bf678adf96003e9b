package site

import (
	"slices"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/internal/treetest"
	"github.com/transcriptsite/transcriptsite/site/stats"
)

// rowsOf writes each row of a usage table as its cells joined by "|",
// the model rows marked with a leading ">".
func rowsOf(t *stats.UsageTable) []string {
	out := []string{strings.Join(t.Head, "|")}
	for _, r := range t.Rows {
		line := strings.Join(r.Cells, "|")
		if r.Model {
			line = ">" + line
		}
		out = append(out, line)
	}
	return append(out, strings.Join(t.Total, "|"))
}

// TestUsageTables checks the usage reports of testdata/usage.txtar
// against the figures its header computes by hand.
func TestUsageTables(t *testing.T) {
	st := loadSite(t, treetest.Extract(t, "testdata/usage.txtar")).Stats
	table := func(by string) *stats.UsageTable {
		t.Helper()
		u, err := st.UsageBy(by)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	check := func(by string, want []string, notes ...string) {
		t.Helper()
		u := table(by)
		if got := rowsOf(u); !slices.Equal(got, want) {
			t.Errorf("by %s:\n%s\nwant:\n%s", by, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if !slices.Equal(u.Notes, notes) {
			t.Errorf("by %s: notes %q, want %q", by, u.Notes, notes)
		}
	}
	const head = "|Models|Sessions|Input|Output|Cache write|Cache read|Total tokens|Cost"
	priceNote := "* The cost leaves out 55,000 tokens of models the pricing table has no price for."
	undated := "1 session without a date is left out."
	// d1 and d2 on 30 January; d3's model has no price; d4 used two models.
	check("day", []string{
		"Day" + head,
		"2026-01-30|2 models|2|1,100,000|120,000|200,000|2,000,000|3,420,000|$8.85",
		">|└ claude-sonnet-4-5|1|1,000,000|100,000|200,000|2,000,000|3,300,000|$5.85",
		">|└ claude-opus-4-1|1|100,000|20,000|0|0|120,000|$3.00",
		"2026-01-31|mystery-model-1|1|50,000|5,000|0|0|55,000|no price",
		"2026-02-02|2 models|1|210,000|12,000|0|0|222,000|$1.05",
		">|└ claude-sonnet-4-5|1|200,000|10,000|0|0|210,000|$0.75",
		">|└ claude-opus-4-1|1|10,000|2,000|0|0|12,000|$0.30",
		"Total||4|1,360,000|137,000|200,000|2,000,000|3,697,000|$9.90*",
	}, "A session counts, with all its tokens, on the day it started (UTC).", undated, priceNote)
	check("month", []string{
		"Month" + head,
		"2026-01|3 models|3|1,150,000|125,000|200,000|2,000,000|3,475,000|$8.85*",
		">|└ claude-sonnet-4-5|1|1,000,000|100,000|200,000|2,000,000|3,300,000|$5.85",
		">|└ claude-opus-4-1|1|100,000|20,000|0|0|120,000|$3.00",
		">|└ mystery-model-1|1|50,000|5,000|0|0|55,000|no price",
		"2026-02|2 models|1|210,000|12,000|0|0|222,000|$1.05",
		">|└ claude-sonnet-4-5|1|200,000|10,000|0|0|210,000|$0.75",
		">|└ claude-opus-4-1|1|10,000|2,000|0|0|12,000|$0.30",
		"Total||4|1,360,000|137,000|200,000|2,000,000|3,697,000|$9.90*",
	}, "A session counts, with all its tokens, in the month it started (UTC).", undated, priceNote)
	// The weeks from Monday: d1 to d3 in that of 26 January.
	if got := rowsOf(table("week")); got[1] != "2026-01-26|3 models|3|1,150,000|125,000|200,000|2,000,000|3,475,000|$8.85*" ||
		!strings.HasPrefix(got[5], "2026-02-02|") {
		t.Errorf("by week:\n%s", strings.Join(got, "\n"))
	}
	// By model, d5 too, which has no date: sonnet's $5.85 + $0.75 +
	// $0.003; the sessions of the total are sessions, not the sum of the
	// models' (d4 used two).
	check("model", []string{
		"Model|Sessions|Input|Output|Cache write|Cache read|Total tokens|Cost",
		"claude-sonnet-4-5|3|1,201,000|110,000|200,000|2,000,000|3,511,000|$6.60",
		"claude-opus-4-1|2|110,000|22,000|0|0|132,000|$3.30",
		"mystery-model-1|1|50,000|5,000|0|0|55,000|no price",
		"Total|5|1,361,000|137,000|200,000|2,000,000|3,698,000|$9.90*",
	}, priceNote)
	if _, err := st.UsageBy("year"); err == nil {
		t.Error("a usage report by year: no error")
	}
}

// TestUsageTablesText: the tables as the terminal shows them, numbers
// aligned right under their heads.
func TestUsageTablesText(t *testing.T) {
	st := loadSite(t, treetest.Extract(t, "testdata/usage.txtar")).Stats
	u, _ := st.UsageBy("month")
	lines := strings.Split(u.String(), "\n")
	if lines[0] != "Usage by month" || !strings.HasPrefix(lines[2], "Month    Models") || !strings.HasPrefix(lines[3], "───────  ─") {
		t.Fatalf("head:\n%s", strings.Join(lines[:4], "\n"))
	}
	// Every line of the table ends where the head's Cost ends.
	end := len([]rune(lines[2]))
	for _, l := range lines[2:11] {
		if n := len([]rune(l)); n != end {
			t.Errorf("%q is %d runes long, the head %d", l, n, end)
		}
	}
}
