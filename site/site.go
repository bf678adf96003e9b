package site

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/transcript"
)

const (
	maxTitleSlug   = 48
	maxProjectSlug = 48
)

// newSite groups sessions by project, orders everything and gives every
// page its URL. The result depends only on the sessions, not on the order
// they were read in.
func newSite(cfg *Config, hs []*transcript.Header) *Site {
	st := &Site{Config: cfg, byID: map[string][]*Session{}}
	for _, h := range hs {
		st.Sessions = append(st.Sessions, newSession(st, h))
	}
	slices.SortFunc(st.Sessions, func(a, b *Session) int {
		return cmp.Or(b.Started.Compare(a.Started), cmp.Compare(a.Source, b.Source), cmp.Compare(a.ID, b.ID), cmp.Compare(a.Volume, b.Volume))
	})
	joinVolumes(st.Sessions)
	for _, s := range st.Sessions {
		if s.Volume <= 1 { // a session's id names its first volume
			st.byID[s.ID] = append(st.byID[s.ID], s)
		}
	}

	projects := map[string]*Project{}
	names := projectNames(hs)
	for _, s := range st.Sessions {
		if s.Volume > 1 {
			continue // of its first volume's project, below
		}
		p := newProject(names[s.header.Session])
		if known := projects[p.Slug]; known != nil {
			p = known
		} else {
			projects[p.Slug] = p
			st.Projects = append(st.Projects, p)
		}
		s.Project = p
		p.Sessions = append(p.Sessions, s)
	}
	for _, s := range st.Sessions {
		if s.Volume > 1 {
			s.Project = s.Volumes[0].Project
		}
	}
	for _, p := range st.Projects {
		for i, s := range p.Sessions {
			if i > 0 {
				s.Next = p.Sessions[i-1]
			}
			if i+1 < len(p.Sessions) {
				s.Prev = p.Sessions[i+1]
			}
		}
	}
	assignPaths(st.Sessions)
	st.Stats = statsOf(cfg.Pricing, st.Sessions)
	for _, p := range st.Projects {
		p.Stats = statsOf(cfg.Pricing, p.Sessions)
	}
	return st
}

// joinVolumes links the volumes of each session read in volumes
// (transcript.Session.Volume). The first stands for the session: it is
// listed, with the figures of every volume, and the others are titled and
// numbered after it. A session with one volume is a whole one.
func joinVolumes(ss []*Session) {
	type key struct{ format, source, id string }
	volumes := map[key][]*Session{}
	var keys []key
	for _, s := range ss {
		if s.Volume > 0 {
			k := key{s.Format, s.Source, s.ID}
			if volumes[k] == nil {
				keys = append(keys, k)
			}
			volumes[k] = append(volumes[k], s)
		}
	}
	for _, k := range keys {
		vs := volumes[k]
		slices.SortFunc(vs, func(a, b *Session) int { return cmp.Compare(a.Volume, b.Volume) })
		if len(vs) == 1 {
			vs[0].Volume = 0
			continue
		}
		head := vs[0]
		head.Stats = head.Stats.Plus(transcript.Stats{}) // its own maps, which the others add to
		head.models, head.byModel = slices.Clone(head.models), maps.Clone(head.byModel)
		for i, v := range vs {
			v.Volume, v.Volumes = i+1, vs
			if i == 0 {
				continue
			}
			v.first = vs[i-1].first + vs[i-1].header.Summary.Stats.Messages
			v.Title = fmt.Sprintf("%s (part %d of %d)", head.Title, i+1, len(vs))
			head.Stats = head.Stats.Plus(v.Stats)
			head.Usage.Add(v.Usage)
			head.Ended = later(head.Ended, v.Ended)
			for _, m := range v.models {
				if !slices.Contains(head.models, m) {
					head.models = append(head.models, m)
				}
				u := head.byModel[m]
				u.Add(v.byModel[m])
				if head.byModel == nil {
					head.byModel = map[string]transcript.Usage{}
				}
				head.byModel[m] = u
			}
			for _, m := range v.Models {
				if !slices.Contains(head.Models, m) {
					head.Models = append(slices.Clip(head.Models), m)
				}
			}
		}
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// alone is a session as an export of it on its own shows it: in a site
// of that session alone, with the title and the project its page has. The
// embedded config's title and words describe the demo content, not it.
func alone(cfg *Config, h *transcript.Header) *Session {
	own := *cfg
	own.OwnSessions()
	return newSite(&own, []*transcript.Header{h}).Sessions[0]
}

// newProject is the project called name, without its sessions.
func newProject(name string) *Project {
	sl := slug(name, maxProjectSlug)
	if sl == "" || deviceName(sl) {
		sl = "project-" + cmp.Or(sl, hash8(name))
	}
	return &Project{Name: name, Slug: sl, Path: "projects/" + sl + "/"}
}

// assignPaths gives each session its URL. Two sessions never share one:
// when they would, each gets a hash of its id, format and source instead of
// the short id, which keeps every URL stable whatever else is in the site.
// Should that URL be taken too (a session's id can be made to match another's
// hash), a number joins what is hashed until the URL is free.
func assignPaths(all []*Session) {
	ss := slices.DeleteFunc(slices.Clone(all), func(s *Session) bool { return s.Volume > 1 })
	defer func() {
		// A volume after the first is where the first is, under its
		// number: a session that grows keeps its URLs.
		for _, s := range all {
			if s.Volume > 1 {
				s.Path = s.Volumes[0].Path + strconv.Itoa(s.Volume) + "/"
			}
		}
	}()
	byPath := map[string]int{}
	for _, s := range ss {
		s.Path = sessionPath(s, shortID(s.ID))
		byPath[s.Path]++
	}
	taken := map[string]bool{}
	var shared []*Session
	for _, s := range ss {
		if byPath[s.Path] == 1 {
			taken[s.Path] = true
		} else {
			shared = append(shared, s)
		}
	}
	for _, s := range shared {
		p := sessionPath(s, hash8(s.ID, s.Format, s.Source))
		for n := 1; taken[p]; n++ {
			p = sessionPath(s, hash8(s.ID, s.Format, s.Source, strconv.Itoa(n)))
		}
		s.Path = p
		taken[p] = true
	}
}

func sessionPath(s *Session, id string) string {
	name := id
	if t := slug(s.Title, maxTitleSlug); t != "" {
		name = t + "-" + id
	}
	if !s.Started.IsZero() {
		name = s.Started.UTC().Format("2006-01-02") + "-" + name
	}
	return "sessions/" + s.Project.Slug + "/" + name + "/"
}

// title is what a session is called on the site.
func title(s *transcript.Session, prompt string) string {
	if s.Title != "" {
		return render.Truncate(120, strings.Join(strings.Fields(s.Title), " "))
	}
	for _, line := range strings.Split(render.StripANSI(prompt), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return render.Truncate(80, line)
		}
	}
	return "Session " + s.ID
}
