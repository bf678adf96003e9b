package site

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/transcriptsite/transcriptsite/redact"
	"github.com/transcriptsite/transcriptsite/site/redactreport"
)

// redactions is the report of where a secret was replaced in the site's
// sessions (redactreport), from the sessions' bodies.
func (b *builder) redactions(ctx context.Context) ([]byte, error) {
	rows := make([][]string, len(b.site.Sessions))
	for _, u := range b.units {
		get := b.loader(ctx, u)
		for _, i := range u.sessions {
			s := b.site.Sessions[i]
			body, err := get(s)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.Source, err)
			}
			rows[i] = redactreport.Rows(s.ID, s.Source, s.Path, redact.Findings(body))
		}
	}
	return redactreport.Report(b.site.Config.Redact.Enabled, rows), nil
}

// Published reads a built site's sessions.json: how many sessions it
// holds, and the secrets redacted in them, by kind.
func Published(dir string) (sessions int, redacted map[string]int, err error) {
	data, err := os.ReadFile(filepath.Join(dir, "sessions.json"))
	if err != nil {
		return 0, nil, err
	}
	var list []SessionEntry
	if err := json.Unmarshal(data, &list); err != nil {
		return 0, nil, fmt.Errorf("sessions.json: %w", err)
	}
	t := map[string]int{}
	for _, e := range list {
		for k, n := range e.Redacted {
			t[k] += n
		}
	}
	return len(list), t, nil
}

// SessionEntry is one element of sessions.json, which the manifest
// output writes and Published reads.
type SessionEntry struct {
	ID        string         `json:"id"`
	Title     string         `json:"title"`
	Project   string         `json:"project"`
	Format    string         `json:"format"`
	Source    string         `json:"source"`
	URL       string         `json:"url"`
	Started   time.Time      `json:"started,omitzero"`
	Ended     time.Time      `json:"ended,omitzero"`
	Messages  int            `json:"messages"`
	ToolCalls int            `json:"tool_calls"`
	Models    []string       `json:"models"`
	Warnings  []string       `json:"warnings"`
	Redacted  map[string]int `json:"redacted"`         // secrets replaced, by kind
	Volume    int            `json:"volume,omitempty"` // its number among the volumes of a session read in volumes
}
