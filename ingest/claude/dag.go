package claude

import (
	"cmp"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// merge joins the files of a session resumed in another file, folds
// subagents' companion files into them, and links each subagent with the
// session and the call that started it.
func merge(ss []*transcript.Session) []*transcript.Session {
	groups := map[sessionKey][]*transcript.Session{}
	var keys []sessionKey
	var metas []*transcript.Session
	for _, s := range ss {
		if len(s.Turns) == 0 {
			metas = append(metas, s) // from readAgentMeta
			continue
		}
		k := sessionKey{project(s.Source), s.ID}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], s)
	}
	out := make([]*transcript.Session, 0, len(keys))
	for _, k := range keys {
		out = append(out, join(groups[k]))
	}
	link(out, metas)
	return out
}

// links joins a subagent's files, under <project>/<session>/subagents/,
// to the session that started it: its companion file names the call by id
// only.
func links(s *transcript.Session) []string {
	if dir := path.Dir(s.Source); path.Base(dir) == "subagents" {
		return []string{"session\x00" + path.Join(path.Dir(path.Dir(dir)), path.Base(path.Dir(dir)))}
	}
	return []string{"session\x00" + strings.TrimSuffix(s.Source, path.Ext(s.Source))}
}

// sessionKey names a session within its project: Claude Code keeps each
// project's sessions, and their subagents, in one folder.
type sessionKey struct{ project, id string }

func project(src string) string {
	dir := path.Dir(src)
	if path.Base(dir) == "subagents" {
		dir = path.Dir(path.Dir(dir)) // <project>/<session>/subagents/
	}
	return dir
}

// join merges the parts of one session. Messages interleave by
// time, each file keeping its own order (ties go to the earlier file); a
// record repeated in several files is kept once.
func join(parts []*transcript.Session) *transcript.Session {
	parts = ownFiles(parts)
	if len(parts) == 1 {
		return parts[0]
	}
	sortByStart(parts)
	s := parts[0]
	interleave(s, parts)
	titled := strongestTitle(parts)
	for _, p := range parts[1:] {
		absorb(s, p)
	}
	if titled != s {
		s.Title = titled.Title
		setMeta(s, "title source", titled.Meta["title source"])
	}
	return s
}

// ownFiles drops the parts read from progress records when the
// subagent's own file is among them: it holds all they repeat.
func ownFiles(parts []*transcript.Session) []*transcript.Session {
	progressOnly := func(s *transcript.Session) bool { return s.Meta[fromProgress] != "" }
	if files := slices.DeleteFunc(slices.Clone(parts), progressOnly); len(files) > 0 {
		return files
	}
	return parts
}

// sortByStart orders parts by their first time; parts with none go last.
func sortByStart(parts []*transcript.Session) {
	starts := map[*transcript.Session]time.Time{}
	for _, p := range parts {
		starts[p] = start(p)
	}
	sort.SliceStable(parts, func(i, j int) bool {
		a, b := starts[parts[i]], starts[parts[j]]
		return !a.IsZero() && (b.IsZero() || a.Before(b))
	})
}

// interleave refills s with the messages of every part, earliest first.
func interleave(s *transcript.Session, parts []*transcript.Session) {
	m := newMerger(parts)
	s.Turns = nil
	seen := map[string]bool{}
	for msg := m.next(); msg != nil; msg = m.next() {
		if msg.ID != "" && seen[msg.ID] {
			continue
		}
		seen[msg.ID] = true
		s.Append(msg)
	}
}

// A merger walks several lists of messages at once, by time.
type merger struct {
	lists [][]*transcript.Message
	at    []int
	last  []time.Time // a message without a time goes with the one before it
}

func newMerger(parts []*transcript.Session) *merger {
	m := &merger{lists: make([][]*transcript.Message, len(parts)), at: make([]int, len(parts)), last: make([]time.Time, len(parts))}
	for i, p := range parts {
		m.lists[i] = p.Messages()
	}
	return m
}

// next returns the earliest message not yet taken, or nil.
func (m *merger) next() *transcript.Message {
	best, bestT := -1, time.Time{}
	for i, l := range m.lists {
		if m.at[i] == len(l) {
			continue
		}
		t := l[m.at[i]].Time
		if t.IsZero() {
			t = m.last[i]
		}
		if best < 0 || t.Before(bestT) {
			best, bestT = i, t
		}
	}
	if best < 0 {
		return nil
	}
	msg := m.lists[best][m.at[best]]
	m.at[best]++
	m.last[best] = bestT
	return msg
}

// strongestTitle is the part with the strongest kind of title, the later
// file among equals.
func strongestTitle(parts []*transcript.Session) *transcript.Session {
	rank := func(p *transcript.Session) int {
		if i := slices.Index(titleKinds, p.Meta["title source"]); i >= 0 {
			return i
		}
		return len(titleKinds)
	}
	titled := parts[0]
	for _, p := range parts {
		if p.Title != "" && rank(p) <= rank(titled) {
			titled = p
		}
	}
	return titled
}

// absorb adds what a later part of s knows to s.
func absorb(s, p *transcript.Session) {
	for _, k := range p.Skipped {
		s.Skip(k.Kind, k.Reason, k.Count)
	}
	s.Sources = append(append(s.Sources, p.Source), p.Sources...)
	s.Warnings = append(s.Warnings, p.Warnings...)
	s.CWD = cmp.Or(s.CWD, p.CWD)
	s.Branch = cmp.Or(p.Branch, s.Branch)
	s.AgentVersion = cmp.Or(p.AgentVersion, s.AgentVersion)
	s.ParentID = cmp.Or(s.ParentID, p.ParentID)
	for k, v := range p.Meta {
		if _, ok := s.Meta[k]; !ok {
			setMeta(s, k, v)
		}
	}
}

// link links subagents both ways: the parent lists its children, and
// the Task or Agent call that started one names it. The call is found by
// the companion file's toolUseId, or was named while reading from the
// result's agentId or a progress record's parentToolUseID.
func link(ss, metas []*transcript.Session) {
	l := newLinks(ss)
	for _, m := range metas {
		l.fold(m)
	}
	for _, s := range ss {
		l.subagents(s)
	}
	for _, s := range ss {
		if p := l.find(s, s.ParentID); p != nil && strings.HasPrefix(s.ID, compactionAgent) {
			linkCompaction(p, s)
		}
	}
	for _, s := range ss {
		// A subagent, or a session continued from another, is of its
		// parent's project, wherever it ran: one read from progress
		// records knows no directory, and one that changed directory
		// would be listed under the folder it went to.
		if root := l.root(s); root != s {
			s.Project = root.ProjectName()
		}
	}
	l.listChildren(ss)
}

// newLinks indexes the sessions of a group and their calls by id; the
// first of each id wins.
func newLinks(ss []*transcript.Session) linker {
	l := linker{byKey: map[sessionKey]*transcript.Session{}, calls: map[string]*transcript.ToolCall{}}
	for _, s := range ss {
		if k := (sessionKey{project(s.Source), s.ID}); l.byKey[k] == nil {
			l.byKey[k] = s
		}
		s.Parts(func(_ *transcript.Message, p *transcript.Part) {
			if c := p.Call; c != nil && c.ID != "" && l.calls[c.ID] == nil {
				l.calls[c.ID] = c
			}
		})
	}
	return l
}

// listChildren has each parent list its children, earliest first.
func (l linker) listChildren(ss []*transcript.Session) {
	children := map[*transcript.Session][]*transcript.Session{}
	for _, s := range ss {
		if p := l.find(s, s.ParentID); p != nil && p != s && !slices.Contains(children[p], s) {
			children[p] = append(children[p], s)
		}
	}
	for p, cs := range children {
		sort.SliceStable(cs, func(i, j int) bool { return start(cs[i]).Before(start(cs[j])) })
		for _, c := range cs {
			if !slices.Contains(p.ChildIDs, c.ID) {
				p.ChildIDs = append(p.ChildIDs, c.ID)
			}
		}
	}
}

// linker finds the sessions of a group, and their calls, by id.
type linker struct {
	byKey map[sessionKey]*transcript.Session
	calls map[string]*transcript.ToolCall
}

// find returns the session id of the project of from.
func (l linker) find(from *transcript.Session, id string) *transcript.Session {
	return l.byKey[sessionKey{project(from.Source), id}]
}

// root is the first session of the line of parents s has in its group.
func (l linker) root(s *transcript.Session) *transcript.Session {
	seen := map[*transcript.Session]bool{s: true}
	for {
		p := l.find(s, s.ParentID)
		if p == nil || seen[p] {
			return s
		}
		seen[p], s = true, p
	}
}

// fold folds a subagent's companion file m into the subagent's session:
// its facts, its description as a title, and the call that started it.
func (l linker) fold(m *transcript.Session) {
	s := l.find(m, m.ID)
	if s == nil {
		return
	}
	s.Sources = append(s.Sources, m.Source)
	for k, v := range m.Meta {
		if _, ok := s.Meta[k]; !ok {
			setMeta(s, k, v)
		}
	}
	if d := m.Meta["description"]; s.Title == "" && d != "" {
		s.Title = d
		setMeta(s, "title source", "description")
	}
	if c := l.calls[m.Meta["tool use id"]]; c != nil {
		c.Subagent = s.ID
	}
}

// subagents makes s the parent of the sessions its calls started, and
// titles those that have none by the call's description.
func (l linker) subagents(s *transcript.Session) {
	s.Parts(func(_ *transcript.Message, p *transcript.Part) {
		c := p.Call
		if c == nil {
			return
		}
		sub := l.find(s, c.Subagent)
		if sub == nil || sub == s {
			return
		}
		sub.ParentID = cmp.Or(sub.ParentID, s.ID)
		var in struct {
			Description string `json:"description"`
		}
		if sub.Title == "" && ingest.Unmarshal([]byte(c.Input), &in) == nil && strings.TrimSpace(in.Description) != "" {
			sub.Title = strings.TrimSpace(in.Description)
			setMeta(sub, "title source", "description")
		}
	})
}

// linkCompaction links the compaction the agent sub summarised to it: the
// compaction of parent closest to when sub ended, of those not linked yet.
func linkCompaction(parent, sub *transcript.Session) {
	end := lastTime(sub)
	var best *transcript.Event
	var bestGap time.Duration
	parent.Parts(func(m *transcript.Message, p *transcript.Part) {
		if e := p.Event; e != nil && e.Kind == transcript.Compaction && (e.Session == "" || e.Session == sub.ID) {
			if gap := m.Time.Sub(end).Abs(); best == nil || gap < bestGap {
				best, bestGap = e, gap
			}
		}
	})
	if best != nil {
		best.Session = sub.ID
	}
}

// start is the time of a session's first timed message.
// lastTime is the time of the latest message of s.
func lastTime(s *transcript.Session) time.Time {
	var end time.Time
	for _, m := range s.Messages() {
		if m.Time.After(end) {
			end = m.Time
		}
	}
	return end
}

func start(s *transcript.Session) time.Time {
	for _, t := range s.Turns {
		for _, m := range t.Messages {
			if !m.Time.IsZero() {
				return m.Time
			}
		}
	}
	return time.Time{}
}
