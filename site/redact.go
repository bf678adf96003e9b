package site

import (
	"encoding/json"
	"maps"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/ingest"

	"github.com/transcriptsite/transcriptsite/redact"
	"github.com/transcriptsite/transcriptsite/transcript"
)

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
		TransformID: cache.Key("redact", string(rules)),
		Parsing:     func(int64) { redact.Warm() },
		Merged:      func(s *transcript.Session) { s.Redacted = redact.Count(s) },
	}, nil
}

// total adds up what was redacted in every session, by kind.
func total(hs []*transcript.Header) map[string]int {
	t := map[string]int{}
	for _, h := range hs {
		for k, n := range h.Session.Redacted {
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
func NonNilCounts(c map[string]int) map[string]int {
	if c == nil {
		return map[string]int{}
	}
	return maps.Clone(c)
}
