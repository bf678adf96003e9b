package redactreport

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/redact"
)

// TestReport: a row a secret, the message's anchor on its page, and a
// first line that sums them up by kind, most first.
func TestReport(t *testing.T) {
	rows := [][]string{
		Rows("a", "a.jsonl", "sessions/p/a/", []redact.Finding{{Message: 2, Field: "text", Kind: "jwt"}, {Field: "title", Kind: "github-pat"}}),
		nil,
		Rows("c", "c.jsonl", "sessions/p/c/", []redact.Finding{{Message: 1, Field: "tool input", Kind: "github-pat"}}),
	}
	want := "# 3 secrets redacted in 2 of 3 sessions: 2 github-pat, 1 jwt\n" + header +
		"a\ta.jsonl\t2\ttext\tjwt\tsessions/p/a/#m-2\n" +
		"a\ta.jsonl\t0\ttitle\tgithub-pat\tsessions/p/a/\n" +
		"c\tc.jsonl\t1\ttool input\tgithub-pat\tsessions/p/c/#m-1\n"
	if got := string(Report(true, rows)); got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
	if got := string(Report(true, [][]string{nil, nil})); !strings.HasPrefix(got, "# no secret redacted in 2 sessions\n") {
		t.Errorf("report of none = %q", got)
	}
	if got := string(Report(false, [][]string{nil})); !strings.HasPrefix(got, "# redaction is off") {
		t.Errorf("report with redaction off = %q", got)
	}
}

// TestCheck: a report inside the destination would be published.
func TestCheck(t *testing.T) {
	dest := t.TempDir()
	if err := Check(dest, filepath.Join(dest, "r.tsv")); err == nil {
		t.Error("a report inside the destination is allowed")
	}
	if err := Check(dest, filepath.Join(dest+"-x", "r.tsv")); err != nil {
		t.Errorf("a report beside the destination: %v", err)
	}
}
