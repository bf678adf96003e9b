package site

import (
	"encoding/json"
	"time"

	"github.com/transcriptsite/transcriptsite/site/sink"
)

// manifest is sessions.json, the machine-readable list of every session,
// which also marks a folder as a site transcriptsite built.
type manifest struct{ base }

// sessionEntry is one element of sessions.json.
type sessionEntry struct {
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

// Finish writes the machine-readable list of every session.
func (manifest) Finish(c outCtx) error {
	st := c.Site()
	list := make([]sessionEntry, 0, len(st.Sessions))
	for _, s := range st.Sessions {
		list = append(list, sessionEntry{
			ID: s.ID, Title: s.Title, Project: s.Project.Name, Format: s.Format, Source: s.Source,
			URL: s.Path, Started: s.Started, Ended: s.Ended, Messages: s.Stats.Messages,
			ToolCalls: s.Stats.ToolCalls, Models: nonNil(s.Models), Warnings: nonNil(s.Warnings),
			Redacted: nonNilCounts(s.Redacted), Volume: s.Volume,
		})
	}
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	return c.Write(sink.Marker, append(data, '\n'))
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
