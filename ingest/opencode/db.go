package opencode

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// readDB reads every session of an opencode database. Its rows hold
// the same objects as the other containers: a message's and a part's data
// column is the object without its ids, which are columns.
func readDB(ctx context.Context, f *ingest.File, r io.Reader) ([]*transcript.Session, error) {
	db, done, err := ingest.OpenSQLiteCopy(ctx, f, r)
	if err != nil {
		return nil, fmt.Errorf("cannot open the database: %w", err)
	}
	defer done()
	tables, err := tablesOf(db)
	if err != nil {
		return nil, err
	}
	worktrees, todos := dbWorktrees(f, db, tables), dbTodos(f, db, tables)
	var infos []sessionInfo
	err = ingest.SQLiteRowMaps(db, "SELECT * FROM session ORDER BY time_created, id", func(row map[string]any) error {
		infos = append(infos, sessionRow(row))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cannot read the sessions: %w", err)
	}
	var out []*transcript.Session
	for i := range infos {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		si := &infos[i]
		b := newBuilder(func(format string, args ...any) { f.Warn(0, "session "+si.ID+": "+format, args...) })
		b.session(si)
		if err := dbMessages(db, si.ID, b); err != nil {
			f.Warn(0, "session %s: messages skipped: %v", si.ID, err)
		}
		b.todos(todos[si.ID])
		b.s.CWD = ingest.FirstNonEmpty(b.s.CWD, worktrees[si.ProjectID])
		out = append(out, b.done())
	}
	return out, nil
}

// tablesOf returns the database's tables, or an error when it lacks
// one opencode always has.
func tablesOf(db *sql.DB) (map[string]bool, error) {
	tables, err := ingest.SQLiteTableNames(db)
	if err != nil {
		return nil, fmt.Errorf("cannot read the database's schema: %w", err)
	}
	for _, t := range []string{"session", "message", "part"} {
		if !tables[t] {
			return nil, fmt.Errorf("not an opencode database: it has no %s table", t)
		}
	}
	return tables, nil
}

// dbWorktrees returns the worktree of each project, by id.
func dbWorktrees(f *ingest.File, db *sql.DB, tables map[string]bool) map[string]string {
	worktrees := map[string]string{}
	if !tables["project"] {
		return worktrees
	}
	err := ingest.SQLiteRowMaps(db, "SELECT * FROM project", func(row map[string]any) error {
		worktrees[rowString(row, "id")] = rowString(row, "worktree")
		return nil
	})
	if err != nil {
		f.Warn(0, "projects skipped: %v", err)
	}
	return worktrees
}

// dbTodos returns the lines of each session's todo list, by session id.
func dbTodos(f *ingest.File, db *sql.DB, tables map[string]bool) map[string][]string {
	todos := map[string][]string{}
	if !tables["todo"] {
		return todos
	}
	err := ingest.SQLiteRowMaps(db, "SELECT * FROM todo ORDER BY session_id, position", func(row map[string]any) error {
		id := rowString(row, "session_id")
		t := ingest.Todo{Content: rowString(row, "content"), Status: rowString(row, "status")}
		todos[id] = append(todos[id], ingest.TodoLine(f, 0, len(todos[id]), t))
		return nil
	})
	if err != nil {
		f.Warn(0, "todo lists skipped: %v", err)
	}
	return todos
}

// dbMessages reads the messages of one session, in opencode's order, with
// their parts.
func dbMessages(db *sql.DB, session string, b *builder) error {
	parts := map[string][]rawPart{}
	err := ingest.SQLiteRowMaps(db, `SELECT part.id AS id, part.message_id AS message_id, part.data AS data
		FROM part JOIN message ON part.message_id = message.id
		WHERE message.session_id = ? ORDER BY part.message_id, part.id`, func(row map[string]any) error {
		msg := rowString(row, "message_id")
		parts[msg] = append(parts[msg], rawPart{id: rowString(row, "id"), data: json.RawMessage(rowString(row, "data"))})
		return nil
	}, session)
	if err != nil {
		return err
	}
	return ingest.SQLiteRowMaps(db, "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id", func(row map[string]any) error {
		id := rowString(row, "id")
		b.message(id, json.RawMessage(rowString(row, "data")), parts[id])
		return nil
	}, session)
}

// sessionRow reads a row of the session table, whose columns flatten the
// session info.
func sessionRow(row map[string]any) sessionInfo {
	si := sessionInfo{
		ID: rowString(row, "id"), Slug: rowString(row, "slug"), Version: rowString(row, "version"),
		ProjectID: rowString(row, "project_id"), Directory: rowString(row, "directory"),
		ParentID: rowString(row, "parent_id"), Title: rowString(row, "title"),
	}
	si.Time.Created.Set(rowString(row, "time_created"))
	si.Time.Updated.Set(rowString(row, "time_updated"))
	si.Time.Archived.Set(rowString(row, "time_archived"))
	if n, err := strconv.ParseInt(rowString(row, "summary_files"), 10, 64); err == nil {
		si.Summary = &struct{ Additions, Deletions, Files int64 }{Files: n}
		si.Summary.Additions, _ = strconv.ParseInt(rowString(row, "summary_additions"), 10, 64)
		si.Summary.Deletions, _ = strconv.ParseInt(rowString(row, "summary_deletions"), 10, 64)
	}
	si.Share.URL = rowString(row, "share_url")
	_ = json.Unmarshal([]byte(rowString(row, "revert")), &si.Revert)
	return si
}

// rowString returns a column's value as text, or "" for NULL and missing columns.
func rowString(row map[string]any, col string) string {
	switch v := row[col].(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return fmt.Sprint(v)
	}
}
