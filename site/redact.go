package site

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/spf13/viper"

	"github.com/transcriptsite/transcriptsite/ingest"

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

// readOptions returns how the build reads sessions: redacted as soon as
// they are read, so no secret reaches the cache, a page, the index or an
// export. The rules are part of the cache key.
func readOptions(cfg *Config) (ingest.Options, error) {
	if !cfg.Redact.Enabled {
		return ingest.Options{TransformID: "no-redaction"}, nil
	}
	r, err := redact.New(cfg.Redact.Config)
	if err != nil {
		return ingest.Options{}, err
	}
	rules, err := json.Marshal(cfg.Redact)
	if err != nil {
		return ingest.Options{}, err
	}
	return ingest.Options{
		Transform:   func(s *transcript.Session) { r.Session(s) },
		TransformID: ingest.Key("redact", string(rules)),
		Merged:      func(s *transcript.Session) { s.Redacted = redact.Count(s) },
	}, nil
}

// total adds up what was redacted in every session, by kind.
func total(sessions []*transcript.Session) map[string]int {
	t := map[string]int{}
	for _, s := range sessions {
		for k, n := range s.Redacted {
			t[k] += n
		}
	}
	return t
}

// Sum adds up counts.
func Sum(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// nonNilCounts returns counts, or an empty map for none.
func nonNilCounts(c map[string]int) map[string]int {
	if c == nil {
		return map[string]int{}
	}
	return maps.Clone(c)
}
