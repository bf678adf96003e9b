package opencode

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// opencode's legacy storage tree holds one JSON file per object:
//
//	storage/session/<projectID>/<sessionID>.json   the session's info
//	storage/message/<sessionID>/<messageID>.json   a message's info
//	storage/part/<messageID>/<partID>.json         one part of a message
//	storage/project/<projectID>.json               the project's worktree
//	storage/todo/<sessionID>.json                  the session's todo list
//	storage/{permission,session_share,session_diff}/<id>.json
//
// Each file is read on its own into a piece: a placeholder session that
// carries what the file holds in its Meta, under the keys below, until
// merge assembles the sessions. As opencode's own migration does,
// ids come from the paths: moves left stale ids inside the files.
const (
	kindKey    = "opencode.kind"    // what the file is: session, message, part, project, todo, …
	rootKey    = "opencode.root"    // the tree the file is in: the path before its kind's folder
	ownerKey   = "opencode.owner"   // the folder it is in: a session's project, a message's session, a part's message
	dataKey    = "opencode.data"    // its JSON, or what is kept of it
	sessionKey = "opencode.session" // a part's session, as written inside it
)

// treeLoc is a file's place in a storage tree.
type treeLoc struct{ root, kind, owner, id string }

var (
	owned = map[string]bool{"session": true, "message": true, "part": true}
	flat  = map[string]bool{"project": true, "todo": true, "permission": true, "session_share": true, "session_diff": true}
)

// locate reads a path of the storage tree.
func locate(rel string) (treeLoc, bool) {
	if !strings.HasSuffix(rel, ".json") {
		return treeLoc{}, false
	}
	el := strings.Split(rel, "/")
	n := len(el)
	id := strings.TrimSuffix(el[n-1], ".json")
	switch {
	case n >= 3 && owned[el[n-3]]:
		return treeLoc{root: strings.Join(el[:n-3], "/"), kind: el[n-3], owner: el[n-2], id: id}, true
	case n >= 2 && flat[el[n-2]]:
		return treeLoc{root: strings.Join(el[:n-2], "/"), kind: el[n-2], id: id}, true
	}
	return treeLoc{}, false
}

// readPiece reads one file of a storage tree into a piece.
func readPiece(f *ingest.File, kind string, r io.Reader) ([]*transcript.Session, error) {
	if kind == "" {
		return nil, errors.New("not a file of opencode's storage tree")
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	loc, ok := locate(f.Rel)
	if !ok || loc.kind != kind {
		// A file outside a tree: its ids are the ones inside it.
		loc = treeLoc{root: path.Dir(f.Rel), kind: kind}
	}
	var pf pieceFile
	if err := pf.decode(kind, data); !ingest.IsDrift(err) {
		return nil, err
	} else if err != nil {
		f.Warn(0, "%v; the rest is read", err)
	}
	p := piece(f, kind, loc, nil)
	p.ID = ingest.FirstNonEmpty(loc.id, pf.ID)
	pf.fill(p, f, kind, loc, data)
	return []*transcript.Session{p}, nil
}

// pieceFile is what the files of a storage tree hold that assembling
// them needs.
type pieceFile struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
	ProjectID string `json:"projectID"`
	Worktree  string `json:"worktree"`
	URL       string `json:"url"`
	Time      struct{ Created ingest.JSONTime }
	todos     []ingest.Todo
}

// decode reads a file of the kind: a todo file is a list; permission and
// session_diff files hold nothing a page shows.
func (pf *pieceFile) decode(kind string, data []byte) error {
	switch kind {
	case "todo":
		return json.Unmarshal(data, &pf.todos)
	case "permission", "session_diff":
		return nil
	}
	return json.Unmarshal(data, pf)
}

// fill gives the piece p of the kind what assembling needs: its owner
// and its data.
func (pf *pieceFile) fill(p *transcript.Session, f *ingest.File, kind string, loc treeLoc, data []byte) {
	switch kind {
	case "session":
		p.Meta[ownerKey] = ingest.FirstNonEmpty(loc.owner, pf.ProjectID)
		p.Meta[dataKey] = string(data)
	case "message":
		p.Meta[ownerKey] = ingest.FirstNonEmpty(loc.owner, pf.SessionID)
		p.Meta[dataKey] = string(data)
		p.Started = pf.Time.Created.Time // messages are ordered by it
	case "part":
		p.Meta[ownerKey] = ingest.FirstNonEmpty(loc.owner, pf.MessageID)
		p.Meta[sessionKey] = pf.SessionID
		p.Meta[dataKey] = string(data)
	case "project":
		p.Meta[dataKey] = pf.Worktree
	case "todo":
		lines := make([]string, len(pf.todos))
		for i, t := range pf.todos {
			lines[i] = ingest.TodoLine(f, 0, i, t)
		}
		p.Meta[dataKey] = strings.Join(lines, "\n")
	case "session_share":
		p.Meta[dataKey] = pf.URL // the share's secret is not kept
	}
}

// piece makes the placeholder session a file of a storage tree is read into.
func piece(f *ingest.File, kind string, loc treeLoc, data []byte) *transcript.Session {
	return &transcript.Session{ID: loc.id, Source: f.Rel, Meta: map[string]string{
		kindKey: kind, rootKey: loc.root, dataKey: string(data)}}
}

// tree is one storage tree's pieces.
type tree struct {
	sessions map[string]*transcript.Session   // by session id
	messages map[string][]*transcript.Session // by session id
	parts    map[string][]*transcript.Session // by message id
	projects map[string]*transcript.Session   // by project id
	extras   map[string][]*transcript.Session // todo lists and shares, by session id
}

// assemble joins the pieces of storage trees into sessions.
func assemble(pieces []*transcript.Session) []*transcript.Session {
	trees := map[string]*tree{}
	var roots []string
	for _, p := range pieces {
		kind, root := p.Meta[kindKey], p.Meta[rootKey]

		t := trees[root]
		if t == nil {
			t = &tree{map[string]*transcript.Session{}, map[string][]*transcript.Session{},
				map[string][]*transcript.Session{}, map[string]*transcript.Session{}, map[string][]*transcript.Session{}}
			trees[root] = t
			roots = append(roots, root)
		}
		owner := p.Meta[ownerKey]
		switch kind {
		case "session":
			t.sessions[p.ID] = p
		case "message":
			t.messages[owner] = append(t.messages[owner], p)
		case "part":
			t.parts[owner] = append(t.parts[owner], p)
		case "project":
			t.projects[p.ID] = p
		case "todo", "session_share":
			t.extras[p.ID] = append(t.extras[p.ID], p)
		}
		// permission and session_diff files hold nothing a page shows.
	}
	slices.Sort(roots)
	var out []*transcript.Session
	for _, root := range roots {
		out = append(out, trees[root].assemble()...)
	}
	for _, s := range out {
		s.Format, s.Agent = pieces[0].Format, pieces[0].Agent // ingest set them on the pieces only
	}
	return out
}

// treeSession is a session being assembled.
type treeSession struct {
	b       *builder
	sources []string
	warns   []string // the pieces' warnings
	notes   []string // the builder's warnings
	project string
}

func (t *tree) assemble() []*transcript.Session {
	a := &assembly{tree: t, byID: map[string]*treeSession{}}
	for _, id := range t.sessionIDs() {
		a.session(id)
	}
	a.orphans()
	out := make([]*transcript.Session, 0, len(a.ids))
	for _, id := range a.ids {
		out = append(out, a.finish(id))
	}
	return out
}

// sessionIDs are the ids of the tree's sessions, by their files or their
// messages', in order.
func (t *tree) sessionIDs() []string {
	ids := make([]string, 0, len(t.sessions)+len(t.messages))
	for id := range t.sessions {
		ids = append(ids, id)
	}
	for id := range t.messages {
		if t.sessions[id] == nil {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// assembly is a tree's sessions being assembled, in the order of ids.
type assembly struct {
	*tree
	ids  []string
	byID map[string]*treeSession
}

// get is the session id, begun if it is new.
func (a *assembly) get(id string) *treeSession {
	if ts := a.byID[id]; ts != nil {
		return ts
	}
	ts := &treeSession{}
	ts.b = newBuilder(func(format string, args ...any) { ts.notes = append(ts.notes, fmt.Sprintf(format, args...)) })
	ts.b.s.ID = id
	a.byID[id] = ts
	a.ids = append(a.ids, id)
	return ts
}

// session reads the session id's own file, then its messages in order,
// each with its parts.
func (a *assembly) session(id string) {
	ts := a.get(id)
	if p := a.sessions[id]; p != nil {
		var si sessionInfo
		_ = json.Unmarshal([]byte(p.Meta[dataKey]), &si) // checked when read
		ts.b.session(&si)
		ts.b.s.ID = id
		ts.project = p.Meta[ownerKey]
		ts.add(p)
	}
	msgs := a.messages[id]
	slices.SortFunc(msgs, func(a, b *transcript.Session) int {
		return cmp.Or(a.Started.Compare(b.Started), strings.Compare(a.ID, b.ID))
	})
	for _, m := range msgs {
		ts.add(m)
		ts.b.message(m.ID, json.RawMessage(m.Meta[dataKey]), a.takeParts(ts, m.ID))
	}
}

// orphans are parts whose message has no file yet: they join the session
// they name.
func (a *assembly) orphans() {
	orphans := make([]string, 0, len(a.parts))
	for id := range a.parts {
		orphans = append(orphans, id)
	}
	slices.Sort(orphans)
	for _, msg := range orphans {
		ts := a.get(ingest.FirstNonEmpty(a.parts[msg][0].Meta[sessionKey], msg))
		ts.b.message(msg, nil, a.takeParts(ts, msg))
	}
}

// finish adds the session's todo lists, share and project, and makes it.
func (a *assembly) finish(id string) *transcript.Session {
	ts := a.byID[id]
	var todos []string
	for _, e := range a.extras[id] {
		ts.add(e)
		if e.Meta[kindKey] == "todo" && e.Meta[dataKey] != "" {
			todos = append(todos, strings.Split(e.Meta[dataKey], "\n")...)
		} else if e.Meta[dataKey] != "" {
			ts.b.s.Meta["share url"] = e.Meta[dataKey]
		}
	}
	ts.b.todos(todos)
	if p := a.projects[ts.project]; p != nil {
		ts.add(p)
		ts.b.s.CWD = ingest.FirstNonEmpty(ts.b.s.CWD, p.Meta[dataKey])
	}
	s := ts.b.done()
	s.Source, s.Sources = ts.sources[0], ts.sources[1:] // a session comes from one file at least
	s.Warnings = ts.warns
	for _, w := range ts.notes {
		s.Warnings = append(s.Warnings, s.Source+": "+w)
	}
	return s
}

// takeParts returns the parts of message id, in order, and forgets them.
func (t *tree) takeParts(ts *treeSession, id string) []rawPart {
	ps := t.parts[id]
	delete(t.parts, id)
	slices.SortFunc(ps, func(a, b *transcript.Session) int { return strings.Compare(a.ID, b.ID) })
	raws := make([]rawPart, len(ps))
	for i, p := range ps {
		ts.add(p)
		raws[i] = rawPart{id: p.ID, data: json.RawMessage(p.Meta[dataKey])}
	}
	return raws
}

// add records that piece p went into the session.
func (ts *treeSession) add(p *transcript.Session) {
	ts.sources = append(ts.sources, p.Source)
	ts.warns = append(ts.warns, p.Warnings...)
}
