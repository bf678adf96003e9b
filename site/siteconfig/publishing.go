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

// match says whether s, of the project it names, passes each of the
// filter's conditions it sets.
func (f *Filter) match(s *transcript.Session, project string) bool {
	return f.hasProject(project) && f.hasSource(s.Source) && f.inDays(s.Started)
}

func (f *Filter) hasProject(project string) bool {
	return len(f.Projects) == 0 || slices.Contains(f.Projects, project)
}

func (f *Filter) hasSource(source string) bool {
	return len(f.Sources) == 0 || slices.ContainsFunc(f.Sources, func(g string) bool { return globMatch(g, source) })
}

// inDays says whether a session started at t started within from and to,
// by its day in UTC; a session without a start passes only when neither
// is set.
func (f *Filter) inDays(t time.Time) bool {
	if f.From.IsZero() && f.To.IsZero() {
		return true
	}
	d := t.UTC().Truncate(24 * time.Hour)
	return !t.IsZero() && (f.From.IsZero() || !d.Before(f.From)) && (f.To.IsZero() || !d.After(f.To))
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
	labels := strings.Split(s, ".")
	if len(labels) < 2 || !all(labels, isDomainLabel) {
		return "", fmt.Errorf("%q is not a domain name such as sessions.example.com", s)
	}
	return strings.ToLower(s), nil
}

// isDomainLabel says whether s is a label of a host name: letters, digits
// and inner hyphens, 1 to 63 of them.
func isDomainLabel(s string) bool {
	return s != "" && len(s) <= 63 && s[0] != '-' && s[len(s)-1] != '-' &&
		strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") == ""
}

// all says whether each of ss is ok.
func all(ss []string, ok func(string) bool) bool {
	return !slices.ContainsFunc(ss, func(s string) bool { return !ok(s) })
}
