package site

import (
	"fmt"
	"strings"

	"github.com/spf13/viper"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input, Output, CacheRead, CacheWrite float64
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

// pricing reads the config key pricing over the defaults.
func pricing(v *viper.Viper) (Pricing, error) {
	p := Pricing{}
	for k, v := range defaultPricing {
		p[k] = v
	}
	raw := v.Get("pricing")
	if raw == nil {
		return p, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("pricing: want a map of model name to prices, got %T", raw)
	}
	for model, entry := range m {
		fields, ok := entry.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("pricing.%s: want input, output, cacheRead and cacheWrite in dollars per million tokens", model)
		}
		var pr Price
		for k, val := range fields {
			f, ok := number(val)
			if !ok || f < 0 {
				return nil, fmt.Errorf("pricing.%s.%s: want a number of dollars per million tokens, got %v", model, k, val)
			}
			switch strings.ToLower(k) {
			case "input":
				pr.Input = f
			case "output":
				pr.Output = f
			case "cacheread":
				pr.CacheRead = f
			case "cachewrite":
				pr.CacheWrite = f
			default:
				return nil, fmt.Errorf("pricing.%s: unknown key %q (want input, output, cacheRead, cacheWrite)", model, k)
			}
		}
		p[model] = pr
	}
	return p, nil
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}
