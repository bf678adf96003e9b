package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/transcriptsite/transcriptsite/site"
	"github.com/transcriptsite/transcriptsite/site/stats"
)

// statsFlags are what `transcriptsite stats` reports, and how.
type statsFlags struct {
	by, since, until string
	json             bool
}

func newStats() *cobra.Command {
	var f buildFlags
	var sf statsFlags
	c := &cobra.Command{
		Use:   "stats",
		Short: "Print the tokens and estimated cost of the sessions by day, month or model",
		Long: `Stats reads the sessions a build would show, with the same flags, config and
build cache, and prints the usage tables of the site's stats page: a row a
day or month (or week, or model), the models of each, sessions, input and
output tokens, cache writes and reads, the total and the estimated cost from
the pricing table, a row for each model under a period that used several,
and the total. Without --by it prints the tables by day and by month. A
session counts, with all its tokens, on the day it started (UTC). No site is
written. --json prints the same figures as JSON, in the field names of
ccusage's reports (inputTokens, cacheCreationTokens, totalCost, ...).`,
		Example: `  transcriptsite stats
  transcriptsite stats --by month --since 2026-01-01
  transcriptsite stats --agents --by model --json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return sf.run(c, &f) },
	}
	f.registerLoad(c)
	fl := c.Flags()
	fl.StringVar(&sf.by, "by", "", "day, week, month or model (default: day and month)")
	fl.StringVar(&sf.since, "since", "", "count only sessions that started on this day (YYYY-MM-DD, UTC) or after")
	fl.StringVar(&sf.until, "until", "", "count only sessions that started on this day (YYYY-MM-DD, UTC) or before")
	fl.BoolVar(&sf.json, "json", false, "print the figures as JSON")
	return c
}

// reports are the usage tables --by asks for.
func (sf *statsFlags) reports() ([]string, error) {
	switch sf.by {
	case "":
		return []string{"day", "month"}, nil
	case "day", "week", "month", "model":
		return []string{sf.by}, nil
	}
	return nil, fmt.Errorf("--by %q: want day, week, month or model", sf.by)
}

// days reads --since and --until.
func (sf *statsFlags) days() (from, to time.Time, err error) {
	if from, err = day("since", sf.since); err != nil {
		return from, to, err
	}
	if to, err = day("until", sf.until); err != nil {
		return from, to, err
	}
	if !from.IsZero() && !to.IsZero() && to.Before(from) {
		return from, to, fmt.Errorf("--until %s is before --since %s", sf.until, sf.since)
	}
	return from, to, nil
}

// day is the value of the flag named flag, a day; the zero time when it
// is not set.
func day(flag, value string) (time.Time, error) {
	if value == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.DateOnly, value)
	if err != nil {
		return t, fmt.Errorf("--%s %q: want a day as YYYY-MM-DD", flag, value)
	}
	return t, nil
}

func (sf *statsFlags) run(c *cobra.Command, f *buildFlags) error {
	by, err := sf.reports()
	if err != nil {
		return err
	}
	from, to, err := sf.days()
	if err != nil {
		return err
	}
	figs, err := load(c, f, from, to)
	if err != nil {
		return err
	}
	if sf.json {
		return writeUsageJSON(c.OutOrStdout(), figs, by)
	}
	tables, err := usageTables(figs, by)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(c.OutOrStdout(), tables)
	return err
}

// load reads the sessions the flags f select, as a build would, and
// returns the figures of the days from to to.
func load(c *cobra.Command, f *buildFlags, from, to time.Time) (*stats.Stats, error) {
	stderr := f.stderr(c)
	cfg, warns, err := site.LoadConfig(f.options(c))
	if err != nil {
		return nil, err
	}
	warn(stderr, warns)
	b, err := site.NewBuilder(cfg, site.BuildOptions{IgnoreCache: f.ignoreCache, Waiting: waiting(stderr)})
	if err != nil {
		return nil, err
	}
	st, rep, err := b.Load(c.Context())
	if err != nil {
		return nil, err
	}
	printWarnings(stderr, cfg, rep)
	return st.StatsBetween(from, to), nil
}

// printWarnings prints the warnings and notices of loading the sessions.
func printWarnings(stderr io.Writer, cfg *site.Config, rep *site.Report) {
	for _, w := range rep.Warnings {
		fmt.Fprintln(stderr, "WARN", warningPath(cfg, w))
	}
	warn(stderr, rep.Notices)
}

// usageTables are the tables of usage by each of by, one after another.
func usageTables(figs *stats.Stats, by []string) (string, error) {
	var tables []string
	for _, name := range by {
		t, err := figs.UsageBy(name)
		if err != nil {
			return "", err
		}
		tables = append(tables, t.String())
	}
	return strings.Join(tables, "\n"), nil
}

// usageJSON is what stats --json prints: the periods and models asked
// for, in the field names of ccusage's JSON reports, and their total.
type usageJSON struct {
	Daily   []periodJSON `json:"daily,omitzero"`
	Weekly  []periodJSON `json:"weekly,omitzero"`
	Monthly []periodJSON `json:"monthly,omitzero"`
	Models  []modelJSON  `json:"models,omitzero"`
	Totals  figuresJSON  `json:"totals"`
}

// figuresJSON are the figures of a row. Reasoning tokens are part of the
// output tokens, and not added to the total again.
type figuresJSON struct {
	Sessions            int     `json:"sessions"`
	InputTokens         int64   `json:"inputTokens"`
	OutputTokens        int64   `json:"outputTokens"`
	CacheCreationTokens int64   `json:"cacheCreationTokens"`
	CacheReadTokens     int64   `json:"cacheReadTokens"`
	ReasoningTokens     int64   `json:"reasoningTokens"`
	TotalTokens         int64   `json:"totalTokens"`
	TotalCost           float64 `json:"totalCost"`
	UnpricedTokens      int64   `json:"unpricedTokens"` // tokens of models with no price, left out of the cost
}

type periodJSON struct {
	Date            string      `json:"date,omitempty"`
	Week            string      `json:"week,omitempty"`
	Month           string      `json:"month,omitempty"`
	ModelsUsed      []string    `json:"modelsUsed"`
	ModelBreakdowns []modelJSON `json:"modelBreakdowns"`
	figuresJSON
}

type modelJSON struct {
	ModelName string `json:"modelName"` // "" for usage recorded with no model
	figuresJSON
}

func figures(r stats.UsageRow) figuresJSON {
	u := r.Usage
	return figuresJSON{Sessions: r.Sessions, InputTokens: u.Input, OutputTokens: u.Output, CacheCreationTokens: u.CacheWrite,
		CacheReadTokens: u.CacheRead, ReasoningTokens: u.Reasoning, TotalTokens: r.Tokens(), TotalCost: math.Round(r.Cost*1e6) / 1e6, UnpricedTokens: r.Unpriced}
}

func models(rs []stats.UsageRow) []modelJSON {
	out := []modelJSON{}
	for _, r := range rs {
		out = append(out, modelJSON{ModelName: r.Name, figuresJSON: figures(r)})
	}
	return out
}

// writeUsageJSON writes the reports by of st.
func writeUsageJSON(w io.Writer, st *stats.Stats, by []string) error {
	out := usageJSON{}
	for _, name := range by {
		if err := out.add(st, name); err != nil {
			return err
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// add adds the report of st by name; the totals are those of the last
// report added.
func (u *usageJSON) add(st *stats.Stats, name string) error {
	if name == "model" {
		u.Models = models(st.Models)
		u.Totals = figures(stats.UsageRow{Sessions: st.Sessions, Usage: st.Usage, Cost: st.Cost, Unpriced: st.Unpriced})
		return nil
	}
	span, err := stats.ParseSpan(name)
	if err != nil {
		return err
	}
	ps := stats.Active(st.Periods(span))
	if f, ok := spanPeriods[span]; ok {
		*f(u) = periods(ps)
	}
	u.Totals = figures(stats.Total(ps))
	return nil
}

// spanPeriods is the field of usageJSON that holds the periods of each
// span.
var spanPeriods = map[stats.Span]func(*usageJSON) *[]periodJSON{
	stats.Daily:   func(u *usageJSON) *[]periodJSON { return &u.Daily },
	stats.Weekly:  func(u *usageJSON) *[]periodJSON { return &u.Weekly },
	stats.Monthly: func(u *usageJSON) *[]periodJSON { return &u.Monthly },
}

// periods is ps as JSON.
func periods(ps []stats.Period) []periodJSON {
	list := []periodJSON{}
	for _, p := range ps {
		list = append(list, period(p))
	}
	return list
}

// spanName is the field of periodJSON that names a period of each span:
// its day, its week's Monday or its month.
var spanName = map[stats.Span]func(*periodJSON) *string{
	stats.Daily:   func(j *periodJSON) *string { return &j.Date },
	stats.Weekly:  func(j *periodJSON) *string { return &j.Week },
	stats.Monthly: func(j *periodJSON) *string { return &j.Month },
}

// period is p as JSON, named by its day, its week's Monday or its month.
func period(p stats.Period) periodJSON {
	j := periodJSON{ModelsUsed: []string{}, ModelBreakdowns: models(p.Models), figuresJSON: figures(p.UsageRow)}
	if f, ok := spanName[p.Span]; ok {
		*f(&j) = p.Name
	}
	for _, m := range p.Models {
		j.ModelsUsed = append(j.ModelsUsed, m.Name)
	}
	return j
}
