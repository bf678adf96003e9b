package siteconfig

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// Selection says which sessions a site shows: those its include filter
// matches (all, without one), less those its exclude filter matches and
// those it hides.
type Selection struct {
	Publish struct {
		Include *Filter `config:"include,strict"` // nil when not set
		Exclude *Filter `config:"exclude,strict"`
	} `config:"publish"`
	Hide []string `config:"hide"` // session ids and source globs
}

// Filter matches a session when every condition it sets holds.
type Filter struct {
	Projects []string  `config:"projects"` // project names, as the site shows them
	Sources  []string  `config:"sources"`  // globs of source paths, with ** for any folders
	From     time.Time `config:"from"`     // the first day the session may start on (UTC); zero: open
	To       time.Time `config:"to"`       // the last day; zero: open
}

// check checks the globs of the selection.
func (sel *Selection) check() error {
	for key, f := range map[string]*Filter{"publish.include": sel.Publish.Include, "publish.exclude": sel.Publish.Exclude} {
		for _, g := range f.sources() {
			if !doublestar.ValidatePattern(g) {
				return fmt.Errorf("%s.sources: %q is not a valid glob", key, g)
			}
		}
	}
	for _, h := range sel.Hide {
		if !doublestar.ValidatePattern(h) {
			return fmt.Errorf("hide: %q is neither a session id nor a glob", h)
		}
	}
	return nil
}

func (f *Filter) sources() []string {
	if f == nil {
		return nil
	}
	return f.Sources
}

func (f *Filter) match(s *transcript.Session, project string) bool {
	if len(f.Projects) > 0 && !slices.Contains(f.Projects, project) {
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

// Shows reports whether the site shows s, of the project it names.
func (sel *Selection) Shows(s *transcript.Session, project string) bool {
	if in := sel.Publish.Include; in != nil && !in.match(s, project) {
		return false
	}
	if ex := sel.Publish.Exclude; ex != nil && ex.match(s, project) {
		return false
	}
	return !slices.ContainsFunc(sel.Hide, func(h string) bool { return h == s.ID || globMatch(h, s.Source) })
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
