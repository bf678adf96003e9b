package site

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"slices"

	"github.com/spf13/viper"
	"golang.org/x/sync/errgroup"

	"github.com/transcriptsite/transcriptsite/redact"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Redact is the config of redaction: on unless redact.enabled is false.
type Redact struct {
	Enabled bool
	redact.Config
}

// redactConfig reads the redact keys and checks the site's patterns.
func redactConfig(v *viper.Viper) (Redact, error) {
	r := Redact{Enabled: true}
	var err error
	if v.Get("redact.enabled") != nil {
		if r.Enabled, err = boolean(v, "redact.enabled"); err != nil {
			return r, err
		}
	}
	if r.Paths, err = boolean(v, "redact.paths"); err != nil {
		return r, err
	}
	switch l := v.Get("redact.literals").(type) {
	case string:
		r.Literals = []string{l} // one literal, not a list of paths
	default:
		if r.Literals, err = list(v, "redact.literals"); err != nil {
			return r, err
		}
	}
	if p := v.Get("redact.patterns"); p != nil {
		items, ok := p.([]any)
		if !ok {
			return r, fmt.Errorf("redact.patterns: want a list of {kind, regex}, got %T", p)
		}
		for i, it := range items {
			m, ok := it.(map[string]any)
			kind, _ := m["kind"].(string)
			re, _ := m["regex"].(string)
			if !ok || kind == "" || re == "" || len(m) != 2 {
				return r, fmt.Errorf("redact.patterns[%d]: want {kind: a-name, regex: 'an expression'}, got %v", i, it)
			}
			r.Patterns = append(r.Patterns, redact.Pattern{Kind: kind, Regex: re})
		}
	}
	if r.Enabled {
		_, err = redact.New(r.Config) // reports a bad pattern with the config's name
	}
	return r, err
}

// redactSessions redacts every session, on every core, and returns what it
// redacted in each, by kind. It does nothing when redaction is off.
func redactSessions(ctx context.Context, cfg *Config, sessions []*transcript.Session) (map[*transcript.Session]map[string]int, error) {
	if !cfg.Redact.Enabled {
		return nil, nil
	}
	r, err := redact.New(cfg.Redact.Config)
	if err != nil {
		return nil, err
	}
	counts := make([]map[string]int, len(sessions))
	// The longest first, so that no core is left with a long one at the end.
	order := make([]int, len(sessions))
	size := make([]int, len(sessions))
	for i, s := range sessions {
		order[i] = i
		s.Parts(func(_ *transcript.Message, p *transcript.Part) {
			size[i] += len(p.Text)
			if p.Call != nil {
				size[i] += len(p.Call.Input)
			}
			if p.Result != nil {
				size[i] += len(p.Result.Output)
			}
		})
	}
	slices.SortStableFunc(order, func(a, b int) int { return size[b] - size[a] })
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, i := range order {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			counts[i] = r.Session(sessions[i])
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make(map[*transcript.Session]map[string]int, len(sessions))
	for i, s := range sessions {
		out[s] = counts[i]
	}
	return out, nil
}

// total adds up the counts of every session.
func total(by map[*transcript.Session]map[string]int) map[string]int {
	t := map[string]int{}
	for _, c := range by {
		for k, n := range c {
			t[k] += n
		}
	}
	return t
}

func sum(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// redactedOf returns what was redacted in s, never nil.
func (st *Site) redactedOf(s *Session) map[string]int {
	if c := st.redacted[s.Session]; c != nil {
		return maps.Clone(c)
	}
	return map[string]int{}
}
