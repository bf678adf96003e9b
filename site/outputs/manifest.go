package outputs

import (
	"encoding/json"

	"github.com/transcriptsite/transcriptsite/site"
	"github.com/transcriptsite/transcriptsite/site/sink"
)

// manifest is sessions.json, the machine-readable list of every session,
// which also marks a folder as a site transcriptsite built.
type manifest struct{ site.Base }

// Finish writes the machine-readable list of every session.
func (manifest) Finish(c site.Context) error {
	st := c.Site()
	list := make([]site.SessionEntry, 0, len(st.Sessions))
	for _, s := range st.Sessions {
		list = append(list, site.SessionEntry{
			ID: s.ID, Title: s.Title, Project: s.Project.Name, Format: s.Format, Source: s.Source,
			URL: s.Path, Started: s.Started, Ended: s.Ended, Messages: s.Stats.Messages,
			ToolCalls: s.Stats.ToolCalls, Models: nonNil(s.Models), Warnings: nonNil(s.Warnings),
			Redacted: site.NonNilCounts(s.Redacted), Volume: s.Volume,
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
