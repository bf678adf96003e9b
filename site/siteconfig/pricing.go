package siteconfig

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input      float64 `config:"input"`
	Output     float64 `config:"output"`
	CacheRead  float64 `config:"cacheRead"`
	CacheWrite float64 `config:"cacheWrite"`
}

// defaultPricing is the list price of common models, matched by the longest
// prefix of the model's name. Sites add or correct entries with the config
// key pricing; costs on pages are estimates.
var defaultPricing = map[string]Price{
	"claude-opus-4-5":   {5, 25, 0.5, 6.25},
	"claude-opus-4":     {15, 75, 1.5, 18.75},
	"claude-sonnet-4":   {3, 15, 0.3, 3.75},
	"claude-3-7-sonnet": {3, 15, 0.3, 3.75},
	"claude-3-5-sonnet": {3, 15, 0.3, 3.75},
	"claude-haiku-4-5":  {1, 5, 0.1, 1.25},
	"claude-3-5-haiku":  {0.8, 4, 0.08, 1},
	"gpt-5":             {1.25, 10, 0.125, 0},
	"gpt-5-mini":        {0.25, 2, 0.025, 0},
	"gpt-5-nano":        {0.05, 0.4, 0.005, 0},
	"gpt-4.1":           {2, 8, 0.5, 0},
	"gpt-4o":            {2.5, 10, 1.25, 0},
	"o3":                {2, 8, 0.5, 0},
	"o4-mini":           {1.1, 4.4, 0.275, 0},
	"gemini-2.5-pro":    {1.25, 10, 0.31, 0},
	"gemini-2.5-flash":  {0.3, 2.5, 0.075, 0},
	"gemini-3-pro":      {2, 12, 0.2, 0},
}

// Pricing maps model name prefixes to prices.
type Pricing map[string]Price

// Of returns the price of model: the entry with the longest prefix of it.
func (p Pricing) Of(model string) (Price, bool) {
	best, found := "", false
	for prefix := range p {
		if strings.HasPrefix(model, prefix) && (!found || len(prefix) > len(best)) {
			best, found = prefix, true
		}
	}
	return p[best], found
}

// Cost estimates what u cost with model, and reports whether the model has
// a price. Reasoning tokens are not priced on their own: they are part of
// Output, and Input leaves out the cached input (see transcript.Usage).
func (p Pricing) Cost(model string, u transcript.Usage) (float64, bool) {
	pr, ok := p.Of(model)
	if !ok || model == "" {
		return 0, false
	}
	return (float64(u.Input)*pr.Input + float64(u.Output)*pr.Output +
		float64(u.CacheRead)*pr.CacheRead + float64(u.CacheWrite)*pr.CacheWrite) / 1e6, true
}

// check checks the prices the config key pricing gives, and adds the
// built-in ones for the models it does not name.
func (p *Pricing) check() error {
	for _, model := range slices.Sorted(maps.Keys(*p)) {
		pr := (*p)[model]
		for k, f := range map[string]float64{"input": pr.Input, "output": pr.Output, "cacheRead": pr.CacheRead, "cacheWrite": pr.CacheWrite} {
			if f < 0 {
				return fmt.Errorf("pricing.%s.%s: want a number of dollars per million tokens, got %v", model, k, f)
			}
		}
	}
	if *p == nil {
		*p = Pricing{}
	}
	for model, pr := range defaultPricing {
		if _, ok := (*p)[model]; !ok {
			(*p)[model] = pr
		}
	}
	return nil
}
