package opencode

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
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
	d := &pieceData{raw: data}
	if err := d.decode(kind); !ingest.IsDrift(err) {
		return nil, err
	} else if err != nil {
		f.Warn(0, "%v; the rest is read", err)
	}
	loc := locOf(f.Rel, kind)
	p := piece(f, kind, loc, nil)
	p.ID = ingest.FirstNonEmpty(loc.id, d.obj.ID)
	if keep := keepers[kind]; keep != nil {
		keep(f, p, loc, d)
	}
	// permission and session_diff files hold nothing a page shows.
	return []*transcript.Session{p}, nil
}

// locOf is the place of a file of the given kind; a file outside a
// tree has none but its folder, and its ids are the ones inside it.
func locOf(rel, kind string) treeLoc {
	loc, ok := locate(rel)
	if !ok || loc.kind != kind {
		return treeLoc{root: path.Dir(rel), kind: kind}
	}
	return loc
}

// pieceData is a file of a storage tree: its JSON and what is read of it.
type pieceData struct {
	raw []byte
	obj struct {
		ID        string `json:"id"`
		SessionID string `json:"sessionID"`
		MessageID string `json:"messageID"`
		ProjectID string `json:"projectID"`
		Worktree  string `json:"worktree"`
		URL       string `json:"url"`
		Time      struct{ Created ingest.JSONTime }
	}
	todos []ingest.Todo
}

// decode reads the JSON of a file of the given kind: a todo file is a
// list, permissions and diffs are not read, the others are objects.
func (d *pieceData) decode(kind string) error {
	switch kind {
	case "todo":
		return json.Unmarshal(d.raw, &d.todos)
	case "permission", "session_diff":
		return nil
	}
	return json.Unmarshal(d.raw, &d.obj)
}

// keepers keep in a piece what a file of each kind holds for its session.
var keepers = map[string]func(f *ingest.File, p *transcript.Session, loc treeLoc, d *pieceData){
	"session":       keepSession,
	"message":       keepMessage,
	"part":          keepPart,
	"project":       keepProject,
	"todo":          keepTodos,
	"session_share": keepShare,
}

func keepSession(_ *ingest.File, p *transcript.Session, loc treeLoc, d *pieceData) {
	p.Meta[ownerKey] = ingest.FirstNonEmpty(loc.owner, d.obj.ProjectID)
	p.Meta[dataKey] = string(d.raw)
}

func keepMessage(_ *ingest.File, p *transcript.Session, loc treeLoc, d *pieceData) {
	p.Meta[ownerKey] = ingest.FirstNonEmpty(loc.owner, d.obj.SessionID)
	p.Meta[dataKey] = string(d.raw)
	p.Started = d.obj.Time.Created.Time // messages are ordered by it
}

func keepPart(_ *ingest.File, p *transcript.Session, loc treeLoc, d *pieceData) {
	p.Meta[ownerKey] = ingest.FirstNonEmpty(loc.owner, d.obj.MessageID)
	p.Meta[sessionKey] = d.obj.SessionID
	p.Meta[dataKey] = string(d.raw)
}

func keepProject(_ *ingest.File, p *transcript.Session, _ treeLoc, d *pieceData) {
	p.Meta[dataKey] = d.obj.Worktree
}

func keepTodos(f *ingest.File, p *transcript.Session, _ treeLoc, d *pieceData) {
	lines := make([]string, len(d.todos))
	for i, t := range d.todos {
		lines[i] = ingest.TodoLine(f, 0, i, t)
	}
	p.Meta[dataKey] = strings.Join(lines, "\n")
}

func keepShare(_ *ingest.File, p *transcript.Session, _ treeLoc, d *pieceData) {
	p.Meta[dataKey] = d.obj.URL // the share's secret is not kept
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
		root := p.Meta[rootKey]
		if trees[root] == nil {
			trees[root] = newTree()
			roots = append(roots, root)
		}
		if file := filers[p.Meta[kindKey]]; file != nil {
			file(trees[root], p)
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

func newTree() *tree {
	return &tree{map[string]*transcript.Session{}, map[string][]*transcript.Session{},
		map[string][]*transcript.Session{}, map[string]*transcript.Session{}, map[string][]*transcript.Session{}}
}

// filers file a piece of each kind in its tree.
var filers = map[string]func(t *tree, p *transcript.Session){
	"session":       func(t *tree, p *transcript.Session) { t.sessions[p.ID] = p },
	"message":       func(t *tree, p *transcript.Session) { fileUnder(t.messages, p.Meta[ownerKey], p) },
	"part":          func(t *tree, p *transcript.Session) { fileUnder(t.parts, p.Meta[ownerKey], p) },
	"project":       func(t *tree, p *transcript.Session) { t.projects[p.ID] = p },
	"todo":          func(t *tree, p *transcript.Session) { fileUnder(t.extras, p.ID, p) },
	"session_share": func(t *tree, p *transcript.Session) { fileUnder(t.extras, p.ID, p) },
}

func fileUnder(m map[string][]*transcript.Session, key string, p *transcript.Session) {
	m[key] = append(m[key], p)
}

// treeSession is a session being assembled.
type treeSession struct {
	b       *builder
	sources []string
	warns   []string // the pieces' warnings
	notes   []string // the builder's warnings
	project string
}

// assembly is the assembling of one tree's sessions, in the order they
// are first met.
type assembly struct {
	t    *tree
	ids  []string
	byID map[string]*treeSession
}

func (t *tree) assemble() []*transcript.Session {
	a := &assembly{t: t, byID: map[string]*treeSession{}}
	for _, id := range t.sessionIDs() {
		a.read(id)
	}
	// Parts whose message has no file yet join the session they name.
	for _, msg := range slices.Sorted(maps.Keys(t.parts)) {
		sid := ingest.FirstNonEmpty(t.parts[msg][0].Meta[sessionKey], msg)
		ts := a.get(sid)
		ts.b.message(msg, nil, t.takeParts(ts, msg))
	}
	out := make([]*transcript.Session, 0, len(a.ids))
	for _, id := range a.ids {
		out = append(out, a.finish(id))
	}
	return out
}

// sessionIDs are the ids of the sessions that have a file or messages, sorted.
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

// get returns the session of id, started when first asked for.
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

// read reads session id's info and its messages, in opencode's order.
func (a *assembly) read(id string) {
	ts := a.get(id)
	if p := a.t.sessions[id]; p != nil {
		ts.info(id, p)
	}
	msgs := a.t.messages[id]
	slices.SortFunc(msgs, func(a, b *transcript.Session) int {
		return cmp.Or(a.Started.Compare(b.Started), strings.Compare(a.ID, b.ID))
	})
	for _, m := range msgs {
		ts.add(m)
		ts.b.message(m.ID, json.RawMessage(m.Meta[dataKey]), a.t.takeParts(ts, m.ID))
	}
}

// info applies the session's own file, p.
func (ts *treeSession) info(id string, p *transcript.Session) {
	var si sessionInfo
	_ = json.Unmarshal([]byte(p.Meta[dataKey]), &si) // checked when read
	ts.b.session(&si)
	ts.b.s.ID = id
	ts.project = p.Meta[ownerKey]
	ts.add(p)
}

// finish adds session id's todo list, share and project, and ends it.
func (a *assembly) finish(id string) *transcript.Session {
	ts := a.byID[id]
	ts.b.todos(ts.extras(a.t.extras[id]))
	if p := a.t.projects[ts.project]; p != nil {
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

// extras applies the session's share files and returns the lines of its
// todo lists.
func (ts *treeSession) extras(es []*transcript.Session) (todos []string) {
	for _, e := range es {
		ts.add(e)
		switch data := e.Meta[dataKey]; {
		case data == "":
		case e.Meta[kindKey] == "todo":
			todos = append(todos, strings.Split(data, "\n")...)
		default:
			ts.b.s.Meta["share url"] = data
		}
	}
	return todos
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
