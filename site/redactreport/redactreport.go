// Package redactreport writes the report of redactions a build makes
// when asked (--redactions): where a secret was replaced, and its kind,
// never the secret.
package redactreport

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/transcriptsite/transcriptsite/redact"
	"github.com/transcriptsite/transcriptsite/render"
)

// header opens a report of redactions: a tab-separated table, one row a
// secret replaced.
const header = "session\tsource\tmessage\twhere\tkind\tpage\n"

// Check refuses a report that would be published: file must be outside
// the destination dest.
func Check(dest, file string) error {
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	if r, err := filepath.Rel(dest, abs); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return fmt.Errorf("--redactions %s is inside the destination %s, which is published: write it elsewhere", file, dest)
	}
	return nil
}

// Rows are the rows of the findings of one session, whose id is id, read
// from source, whose page is at path: the number of the message (its
// anchor m-N on the page; 0 for the session's title, directory and
// metadata), which string of it, the kind and the page.
func Rows(id, source, path string, findings []redact.Finding) []string {
	var rows []string
	for _, f := range findings {
		page := path
		if f.Message > 0 {
			page += fmt.Sprintf("#m-%d", f.Message)
		}
		rows = append(rows, strings.Join([]string{id, source, fmt.Sprint(f.Message), f.Field, f.Kind, page}, "\t"))
	}
	return rows
}

// Report is the report of the rows of each of sessions, in their
// order, with a line that sums them up: enabled is whether the site
// redacts at all.
func Report(enabled bool, sessions [][]string) []byte {
	total := map[string]int{}
	var body bytes.Buffer
	n, in := 0, 0
	for _, rs := range sessions {
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
	case !enabled:
		out.WriteString("# redaction is off (redact.enabled: false): no secret was redacted\n")
	case n == 0:
		fmt.Fprintf(&out, "# no secret redacted in %d sessions\n", len(sessions))
	default:
		fmt.Fprintf(&out, "# %s redacted in %d of %s: %s\n", render.Plural(n, "secret"), in, render.Plural(len(sessions), "session"), ByKind(total))
	}
	out.WriteString(header)
	out.Write(body.Bytes())
	return out.Bytes()
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
