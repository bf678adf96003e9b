package cursor

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// storeMeta is meta['0'] of a cursor-agent store, hex-encoded JSON.
type storeMeta struct {
	AgentID       string          `json:"agentId"`
	Root          string          `json:"latestRootBlobId"`
	Name          string          `json:"name"`
	Mode          string          `json:"mode"`
	CreatedAt     ingest.JSONTime `json:"createdAt"`
	LastUsedModel string          `json:"lastUsedModel"`
}

// blobStore is a cursor-agent store.db: content-addressed blobs, some JSON
// messages, the others protobuf nodes whose field 1 lists, in order, the
// blobs under them. The latest root lists the conversation.
type blobStore struct {
	blobs   map[string][]byte
	order   []string // blob ids in rowid order
	msgs    []blob   // the conversation, in order
	onPath  map[string]bool
	shown   map[string]bool
	visits  int
	missing int
}

type blob struct {
	id   string
	data []byte
}

// maxStoreVisits bounds the walk of a store whose nodes share children.
const maxStoreVisits = 1 << 20

func readStore(ctx context.Context, f *ingest.File, r io.Reader) ([]*transcript.Session, error) {
	db, done, err := ingest.OpenSQLiteCopy(ctx, f, r)
	if err != nil {
		return nil, fmt.Errorf("cannot open the database: %w", err)
	}
	defer done()
	if err := checkTables(ctx, db); err != nil {
		return nil, err
	}
	meta, err := readMeta(ctx, f, db)
	if err != nil {
		return nil, err
	}
	st, err := readBlobs(ctx, f, db)
	if err != nil {
		return nil, err
	}
	b := newBuilder(f)
	b.storeMeta(meta)
	st.walkRoot(f, strings.ToLower(meta.Root))
	for _, m := range st.msgs {
		b.blob(m, "")
	}
	st.rest(b)
	if len(b.s.Turns) == 0 {
		return nil, nil
	}
	b.finish()
	return []*transcript.Session{b.s}, nil
}

// checkTables tells a cursor-agent store by its tables.
func checkTables(ctx context.Context, db *sql.DB) error {
	var tables int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('blobs', 'meta')`).Scan(&tables)
	if err != nil {
		return err
	}
	if tables != 2 {
		return errors.New("not a cursor-agent store: it lacks the blobs and meta tables")
	}
	return nil
}

// readMeta reads meta['0'], JSON that may be hex-encoded.
func readMeta(ctx context.Context, f *ingest.File, db *sql.DB) (storeMeta, error) {
	var meta storeMeta
	err := ingest.SQLiteRows(ctx, f, db, `SELECT key, value FROM meta`, func(rows *sql.Rows) error {
		var key string
		var value []byte
		if err := rows.Scan(&key, &value); err != nil || key != "0" {
			return err
		}
		if b, err := hex.DecodeString(strings.TrimSpace(string(value))); err == nil {
			value = b
		}
		if err := ingest.Unmarshal(value, &meta); err != nil {
			return fmt.Errorf("meta['0'] is not the expected JSON: %w", err)
		}
		return nil
	})
	return meta, err
}

// readBlobs reads every blob, in the order stored.
func readBlobs(ctx context.Context, f *ingest.File, db *sql.DB) (*blobStore, error) {
	st := &blobStore{blobs: map[string][]byte{}, onPath: map[string]bool{}, shown: map[string]bool{}}
	err := ingest.SQLiteRows(ctx, f, db, `SELECT id, data FROM blobs`, func(rows *sql.Rows) error {
		var id string
		var data []byte
		if err := rows.Scan(&id, &data); err != nil {
			return err
		}
		id = strings.ToLower(id)
		if _, dup := st.blobs[id]; !dup {
			st.order = append(st.order, id)
		}
		st.blobs[id] = data
		return nil
	})
	return st, err
}

// storeMeta sets the session's facts from the store's meta.
func (b *builder) storeMeta(meta storeMeta) {
	s := b.s
	dir := path.Dir(b.f.Rel)
	s.ID = ingest.FirstNonEmpty(meta.AgentID, path.Base(dir), b.stem)
	s.Project = path.Base(path.Dir(dir)) // the md5 of the cwd, until <user_info> names it
	s.Title = meta.Name
	s.Started = meta.CreatedAt.Time
	s.AddModel(meta.LastUsedModel)
	if meta.Mode != "" {
		s.Meta["mode"] = meta.Mode
	}
}

// walkRoot lists the messages under the root blob, saying what is
// missing.
func (st *blobStore) walkRoot(f *ingest.File, root string) {
	_, ok := st.blobs[root]
	switch {
	case ok:
		st.walk(root, 0)
	case len(st.blobs) == 0:
	case root == "":
		f.Warn(0, "meta names no root blob: messages are shown in the order they were stored")
	default:
		f.Warn(0, "the root blob %s is missing: messages are shown in the order they were stored", root)
	}
	if st.missing > 0 {
		f.Warn(0, "%d blobs the conversation refers to are missing", st.missing)
	}
}

// rest shows the messages no longer under the root: what the user
// rewound or edited.
func (st *blobStore) rest(b *builder) {
	branch := ""
	if len(st.msgs) > 0 {
		branch = "not in the latest conversation"
	}
	for _, id := range st.order {
		if data := st.blobs[id]; !st.shown[id] && isMessage(data) {
			b.blob(blob{id, data}, branch)
		}
	}
}

// isMessage says whether a blob is a message's JSON.
func isMessage(data []byte) bool {
	return len(data) > 0 && data[0] == '{' && messageJSON(data) != nil
}

// walk lists the messages under blob id, in order.
func (st *blobStore) walk(id string, depth int) {
	data, ok := st.visit(id, depth)
	if !ok {
		return
	}
	if len(data) > 0 && data[0] == '{' && json.Valid(data) {
		st.emit(id, data)
		return
	}
	st.onPath[id] = true
	defer delete(st.onPath, id)
	b := data
	for {
		num, v, rest, ok := nextBytesField(b)
		b = rest // where the fields end, or stop parsing: the JSON may start there
		if !ok {
			break
		}
		st.child(id, num, v, depth)
	}
	// Older stores append a message's JSON after the node's fields.
	if msg := messageJSON(b); msg != nil {
		st.emit(id, msg)
	}
}

// child walks what a bytes field of node id holds: field 1 with 32 bytes
// is the id of a blob under it, another field may hold a message's JSON.
func (st *blobStore) child(id string, num protowire.Number, v []byte, depth int) {
	if num == 1 && len(v) == 32 {
		st.walk(hex.EncodeToString(v), depth+1)
	} else if msg := messageJSON(v); msg != nil {
		st.emit(id, msg)
	}
}

// visit is the blob id, unless the walk has gone too far or too deep, or
// come round to it again, or the store lacks it.
func (st *blobStore) visit(id string, depth int) ([]byte, bool) {
	st.visits++
	if st.visits > maxStoreVisits || depth > 64 || st.onPath[id] {
		return nil, false
	}
	data, ok := st.blobs[id]
	if !ok {
		st.missing++
	}
	return data, ok
}

// nextBytesField reads the fields of b up to the next one of bytes: its
// number, its value and what follows it; false at the end, or where b
// stops parsing, with b from there.
func nextBytesField(b []byte) (protowire.Number, []byte, []byte, bool) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			break
		}
		if typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b[n:])
			if m < 0 {
				break
			}
			return num, v, b[n+m:], true
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			break
		}
		b = b[n+m:]
	}
	return 0, nil, b, false
}

func (st *blobStore) emit(id string, data []byte) {
	st.msgs = append(st.msgs, blob{id, data})
	st.shown[id] = true
}

// messageJSON finds a JSON message inside a hybrid blob: the first
// object that starts at `{"` and has a role.
func messageJSON(b []byte) []byte {
	i := bytes.Index(b, []byte(`{"`))
	if i < 0 {
		return nil
	}
	var raw json.RawMessage
	if json.NewDecoder(bytes.NewReader(b[i:])).Decode(&raw) != nil {
		return nil
	}
	var m struct {
		Role *string `json:"role"`
	}
	if ingest.Unmarshal(raw, &m) != nil || m.Role == nil {
		return nil
	}
	return raw
}

// blob maps one message blob. Its messages take the blob's id: Cursor
// gives every assistant message the id "1".
func (b *builder) blob(bl blob, branch string) {
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := ingest.Unmarshal(bl.data, &m); err != nil || m.Role == "" {
		b.mark(func() { b.event(transcript.Unknown, "Unknown blob", bl.data) }, bl.id, branch)
		return
	}
	b.mark(func() { b.message(0, m.Role, m.Content, bl.data) }, bl.id, branch)
}

// mark runs add and gives the messages it appended the id and branch.
func (b *builder) mark(add func(), id, branch string) {
	b.added = b.added[:0]
	add()
	for i, m := range b.added {
		m.ID, m.Branch = id, branch
		if i > 0 {
			m.ID = fmt.Sprintf("%s.%d", id, i)
		}
	}
}
