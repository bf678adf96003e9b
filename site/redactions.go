package site

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/transcriptsite/transcriptsite/render"

	"github.com/transcriptsite/transcriptsite/redact"
)

// redactionsHeader opens a report of redactions: a tab-separated table, one
// row a secret replaced.
const redactionsHeader = "session\tsource\tmessage\twhere\tkind\tpage\n"

// checkRedactions refuses a report that would be published: it must be
// outside the destination.
func checkRedactions(cfg *Config, file string) error {
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	if r, err := filepath.Rel(cfg.Destination, abs); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return fmt.Errorf("--redactions %s is inside the destination %s, which is published: write it elsewhere", file, cfg.Destination)
	}
	return nil
}

// redactions lists where a secret was replaced in the site's sessions, and
// its kind, never the secret: a session's id and file, the number of the
// message (its anchor m-N on the page; 0 for the session's title,
// directory and metadata), which string of it, the kind and the page, from
// the sessions' bodies.
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
			for _, f := range redact.Findings(body) {
				page := s.Path
				if f.Message > 0 {
					page += fmt.Sprintf("#m-%d", f.Message)
				}
				rows[i] = append(rows[i], strings.Join([]string{s.ID, s.Source, fmt.Sprint(f.Message), f.Field, f.Kind, page}, "\t"))
			}
		}
	}
	total := map[string]int{}
	var body bytes.Buffer
	n, in := 0, 0
	for _, rs := range rows {
		for _, r := range rs {
			body.WriteString(r + "\n")
			total[strings.Split(r, "\t")[4]]++
		}
		n += len(rs)
		if len(rs) > 0 {
			in++
		}
	}
	var out bytes.Buffer
	switch {
	case !b.site.Config.Redact.Enabled:
		out.WriteString("# redaction is off (redact.enabled: false): no secret was redacted\n")
	case n == 0:
		fmt.Fprintf(&out, "# no secret redacted in %d sessions\n", len(b.site.Sessions))
	default:
		fmt.Fprintf(&out, "# %s redacted in %d of %s: %s\n", render.Plural(n, "secret"), in, render.Plural(len(b.site.Sessions), "session"), ByKind(total))
	}
	out.WriteString(redactionsHeader)
	out.Write(body.Bytes())
	return out.Bytes(), nil
}

// ByKind lists counts of secrets by kind, most first: "3 github-pat, 1 jwt".
func ByKind(counts map[string]int) string {
	kinds := slices.SortedFunc(maps.Keys(counts), func(a, b string) int {
		return cmp.Or(counts[b]-counts[a], strings.Compare(a, b))
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", counts[k], k)
	}
	return strings.Join(parts, ", ")
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
