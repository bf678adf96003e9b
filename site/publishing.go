package site

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/spf13/viper"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// Selection says which sessions a site shows: those its include filter
// matches (all, without one), less those its exclude filter matches and
// those it hides.
type Selection struct {
	Include, Exclude *Filter // nil when not set
	Hide             []string
}

// Filter matches a session when every condition it sets holds.
type Filter struct {
	Projects []string  // project names, as the site shows them
	Sources  []string  // globs of source paths, with ** for any folders
	From, To time.Time // the first and last day the session may start on (UTC); zero: open
}

// filterKeys are the keys of publish.include and publish.exclude.
var filterKeys = []string{"projects", "sources", "from", "to"}

// selection reads publish.include, publish.exclude and hide.
func selection(v *viper.Viper) (Selection, error) {
	var sel Selection
	var err error
	if sel.Include, err = filter(v, "publish.include"); err != nil {
		return sel, err
	}
	if sel.Exclude, err = filter(v, "publish.exclude"); err != nil {
		return sel, err
	}
	if s, ok := v.Get("hide").(string); ok {
		sel.Hide = []string{s}
	} else if sel.Hide, err = list(v, "hide"); err != nil {
		return sel, err
	}
	for _, h := range sel.Hide {
		if !doublestar.ValidatePattern(h) {
			return sel, fmt.Errorf("hide: %q is neither a session id nor a glob", h)
		}
	}
	return sel, nil
}

func filter(v *viper.Viper, key string) (*Filter, error) {
	raw := v.Get(key)
	if raw == nil {
		return nil, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a map with any of %s, got %v", key, strings.Join(filterKeys, ", "), raw)
	}
	f := &Filter{}
	for k := range m {
		if !slices.Contains(filterKeys, k) {
			return nil, fmt.Errorf("%s.%s: unknown; want any of %s", key, k, strings.Join(filterKeys, ", "))
		}
	}
	var err error
	one := func(k string) ([]string, error) {
		if s, ok := m[k].(string); ok {
			return []string{s}, nil
		}
		return list(v, key+"."+k)
	}
	if f.Projects, err = one("projects"); err != nil {
		return nil, err
	}
	if f.Sources, err = one("sources"); err != nil {
		return nil, err
	}
	for _, g := range f.Sources {
		if !doublestar.ValidatePattern(g) {
			return nil, fmt.Errorf("%s.sources: %q is not a valid glob", key, g)
		}
	}
	if f.From, err = date(key+".from", m["from"]); err != nil {
		return nil, err
	}
	if f.To, err = date(key+".to", m["to"]); err != nil {
		return nil, err
	}
	return f, nil
}

// date reads a date: YAML gives a time for an unquoted one.
func date(key string, v any) (time.Time, error) {
	switch x := v.(type) {
	case nil:
		return time.Time{}, nil
	case time.Time:
		return x.UTC().Truncate(24 * time.Hour), nil
	case string:
		t, err := time.Parse(time.DateOnly, x)
		if err != nil {
			return t, fmt.Errorf("%s: want a date such as 2026-01-31, got %q", key, x)
		}
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%s: want a date such as 2026-01-31, got %v", key, v)
}

func (f *Filter) match(s *transcript.Session) bool {
	if len(f.Projects) > 0 && !slices.Contains(f.Projects, projectName(s)) {
		return false
	}
	if len(f.Sources) > 0 && !slices.ContainsFunc(f.Sources, func(g string) bool { return globMatch(g, s.Source) }) {
		return false
	}
	if !f.From.IsZero() || !f.To.IsZero() {
		if s.Started.IsZero() {
			return false
		}
		d := s.Started.UTC().Truncate(24 * time.Hour)
		if (!f.From.IsZero() && d.Before(f.From)) || (!f.To.IsZero() && d.After(f.To)) {
			return false
		}
	}
	return true
}

func globMatch(pattern, source string) bool {
	ok, _ := doublestar.Match(pattern, source)
	return ok
}

// shows reports whether the site shows s.
func (sel *Selection) shows(s *transcript.Session) bool {
	if sel.Include != nil && !sel.Include.match(s) {
		return false
	}
	if sel.Exclude != nil && sel.Exclude.match(s) {
		return false
	}
	return !slices.ContainsFunc(sel.Hide, func(h string) bool { return h == s.ID || globMatch(h, s.Source) })
}

// selected returns the sessions the site shows.
func (c *Config) selected(ss []*transcript.Session) []*transcript.Session {
	if c.ShowAll {
		return ss
	}
	return slices.DeleteFunc(slices.Clone(ss), func(s *transcript.Session) bool { return !c.Selection.shows(s) })
}

// cname checks a custom domain: a host name, nothing else.
func cname(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || strings.Trim(label, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") != "" ||
			label[0] == '-' || label[len(label)-1] == '-' {
			return "", fmt.Errorf("%q is not a domain name such as sessions.example.com", s)
		}
	}
	if !strings.Contains(s, ".") {
		return "", fmt.Errorf("%q is not a domain name such as sessions.example.com", s)
	}
	return strings.ToLower(s), nil
}
