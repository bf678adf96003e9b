package render

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/transcriptsite/transcriptsite/transcript"

	"github.com/go-json-experiment/json/jsontext"
)

// Funcs are the template functions of the theme that do not depend on the
// site. Site-dependent ones (URLs) are added by the site package.
func Funcs() template.FuncMap {
	return template.FuncMap{
		"markdown":       Markdown,
		"highlight":      Highlight,
		"highlightFile":  HighlightFile,
		"plain":          Plain,
		"prettyJSON":     PrettyJSON,
		"readable":       Readable,
		"readableOutput": ReadableOutput,
		"outputBody":     OutputBody,
		"toolSummary":    ToolSummary,
		"diff":           Diff,
		"stripANSI":      StripANSI,
		"ansi":           ANSI,
		"fold":           Fold,
		"rows":           Rows,
		"edits":          Edits,
		"read":           Read,
		"lineDiff":       LineDiff,
		"numbered":       Numbered,
		"isHuge":         IsHuge,
		"lines":          splitLines,
		"safeURL":        func(u string) bool { ok, _ := SafeURL(u); return ok },
		"truncate":       Truncate,
		"countLines":     CountLines,
		"humanInt":       HumanInt,
		"tokens":         Tokens,
		"duration":       Duration,
		"date":           func(t time.Time) string { return t.UTC().Format("2006-01-02") },
		"datetime":       func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
		"clock":          func(t time.Time) string { return t.UTC().Format("15:04:05") },
		"isoTime":        func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"add":            func(a, b int) int { return a + b },
		"dollars":        func(f float64) string { return fmt.Sprintf("$%.2f", f) },
		"plural":         Plural,
		"bytes":          Bytes,
	}
}

// PrettyJSON indents a JSON text, its strings written as the characters
// they stand for (an agent's "\u2014" is a dash on the page); anything
// else is returned unchanged.
func PrettyJSON(s string) string {
	dec := jsontext.NewDecoder(strings.NewReader(s))
	var buf bytes.Buffer
	enc := jsontext.NewEncoder(&buf, jsontext.Multiline(true), jsontext.WithIndent("  "))
	for {
		tok, err := dec.ReadToken()
		if err == io.EOF {
			return strings.TrimSuffix(buf.String(), "\n")
		}
		if err != nil || enc.WriteToken(tok) != nil {
			return s
		}
	}
}

// Diff shows a replacement of old by new as diff lines.
func Diff(old, new string) string {
	var b strings.Builder
	for _, side := range []struct {
		mark byte
		text string
	}{{'-', old}, {'+', new}} {
		if side.text == "" {
			continue
		}
		for _, l := range strings.Split(strings.TrimSuffix(side.text, "\n"), "\n") {
			b.WriteByte(side.mark)
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// Truncate cuts s to at most n runes, marking the cut.
func Truncate(n int, s string) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// CountLines counts the lines of s.
func CountLines(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// ansiRE matches terminal escape sequences: CSI, OSC and two-byte escapes.
var ansiRE = regexp.MustCompile(`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])`)

// StripANSI removes terminal escape sequences from s.
func StripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	return ansiRE.ReplaceAllString(s, "")
}

// HumanInt formats n with thousands separators.
func HumanInt(n any) string {
	var v int64
	switch x := n.(type) {
	case int:
		v = int64(x)
	case int64:
		v = x
	default:
		return fmt.Sprint(n)
	}
	s := strconv.FormatInt(v, 10)
	if digits, neg := strings.CutPrefix(s, "-"); neg {
		return "-" + thousands(digits)
	}
	return thousands(s)
}

// TokenCounts are counts of tokens as a page writes them (HumanInt);
// those after Output are "" when 0, and left out.
type TokenCounts struct {
	Input, Output, CacheRead, CacheWrite, Reasoning string
	// Line is them all in one line, as usage.html writes them: "5 in ·
	// 25 out · 30,504 cache read", the counts that are 0 but input and
	// output left out. One value to print, not five, on every message.
	Line string
}

// Tokens is u as a page writes it; nil when it counts nothing. Made in
// Go, not by humanInt in the template: a call by reflection a number,
// two to five a message, was a twentieth of the calls a session page
// makes.
func Tokens(u transcript.Usage) *TokenCounts {
	if u.IsZero() {
		return nil
	}
	some := func(n int64) string {
		if n == 0 {
			return ""
		}
		return HumanInt(n)
	}
	t := &TokenCounts{Input: HumanInt(u.Input), Output: HumanInt(u.Output),
		CacheRead: some(u.CacheRead), CacheWrite: some(u.CacheWrite), Reasoning: some(u.Reasoning)}
	t.Line = t.Input + " in · " + t.Output + " out"
	for _, c := range []struct{ n, what string }{{t.CacheRead, "cache read"}, {t.CacheWrite, "cache write"}, {t.Reasoning, "reasoning"}} {
		if c.n != "" {
			t.Line += " · " + c.n + " " + c.what
		}
	}
	return t
}

// thousands puts a comma between each group of three digits.
func thousands(s string) string {
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Duration formats d for people: "45 s", "12 min", "3 h 5 min".
func Duration(d time.Duration) string {
	switch {
	case d <= 0:
		return ""
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}

// Plural formats a count with its noun: "1 error", "3 errors".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return HumanInt(n) + " " + noun + "s"
}

// Bytes formats a size for people: "812 B", "4.2 KB", "1.3 MB".
func Bytes(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
