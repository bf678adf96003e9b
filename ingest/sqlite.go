package ingest

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	_ "modernc.org/sqlite" // pure Go: no cgo
)

// SQLiteMagic opens every SQLite database file.
var SQLiteMagic = []byte("SQLite format 3\x00")

// SQLiteTables reports whether the head is a SQLite database whose schema
// creates every named table. Detection never opens a database: its first
// pages, which the head holds, keep the CREATE TABLE statements as text.
func SQLiteTables(h *Head, names ...string) bool {
	if !bytes.HasPrefix(h.Data, SQLiteMagic) {
		return false
	}
	for _, n := range names {
		re := `(?i)CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?["'` + "`" + `\[]?` + regexp.QuoteMeta(n) + `["'` + "`" + `\]]?\s*\(`
		if !regexp.MustCompile(re).Match(h.Data) {
			return false
		}
	}
	return true
}

// sqliteSidecars are the files SQLite keeps beside a database: never
// sessions of their own (openSQLiteCopy reads the -wal with its database).
var sqliteSidecars = []string{"-wal", "-shm", "-journal"}

// isSQLiteSidecar reports whether name is the -wal, -shm or -journal file of
// a database among files.
func isSQLiteSidecar(name string, files map[string]bool) bool {
	for _, suf := range sqliteSidecars {
		if db, ok := strings.CutSuffix(name, suf); ok && files[db] {
			return true
		}
	}
	return false
}

// OpenSQLiteCopy opens a copy of the database f, whose content r streams,
// with the -wal file beside it that holds its latest writes. The agent may
// be writing the original, which must never be touched, not even by a
// reader's lock or a WAL checkpoint. done closes the copy and removes it.
func OpenSQLiteCopy(ctx context.Context, f *File, r io.Reader) (db *sql.DB, done func(), err error) {
	dir, err := os.MkdirTemp("", "transcriptsite-sqlite-")
	if err != nil {
		return nil, nil, err
	}
	remove := func() { os.RemoveAll(dir) }
	name := filepath.Join(dir, "db")
	if err := writeFile(name, r); err != nil {
		remove()
		return nil, nil, err
	}
	if f.FS != nil {
		wal, err := fs.ReadFile(f.FS, f.Name+"-wal")
		switch {
		case err == nil:
			err = os.WriteFile(name+"-wal", wal, 0o600)
		case errors.Is(err, fs.ErrNotExist):
			err = nil
		}
		if err != nil {
			remove()
			return nil, nil, err
		}
	}
	// Read-only: SQLite still builds the -shm index it reads a WAL with,
	// beside the copy.
	db, err = sql.Open("sqlite", "file:"+filepath.ToSlash(name)+"?mode=ro")
	if err == nil {
		db.SetMaxOpenConns(1)
		err = db.PingContext(ctx)
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		remove()
		return nil, nil, err
	}
	return db, func() { db.Close(); remove() }, nil
}

func writeFile(name string, r io.Reader) error {
	out, err := os.Create(name)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, r)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// SQLiteRows runs query and calls fn with each row. A row fn fails on is
// skipped with a warning; only a failing query fails.
func SQLiteRows(ctx context.Context, f *File, db *sql.DB, query string, fn func(*sql.Rows) error) error {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	for rows.Next() {
		if err := fn(rows); err != nil {
			f.Warn(0, "%s: row skipped: %v", query, err)
		}
	}
	return errors.Join(rows.Err(), rows.Close())
}

// IsSQLite reports whether the head is a SQLite database.
func IsSQLite(h *Head) bool { return bytes.HasPrefix(h.Data, SQLiteMagic) }

// SQLiteTableNames lists the tables of an open database.
func SQLiteTableNames(db *sql.DB) (map[string]bool, error) {
	tables := map[string]bool{}
	err := SQLiteRowMaps(db, "SELECT name FROM sqlite_master WHERE type = 'table'", func(row map[string]any) error {
		if n, ok := row["name"].(string); ok {
			tables[n] = true
		}
		return nil
	})
	return tables, err
}

// SQLiteRowMaps runs query and calls fn with each row as a map of column
// name to value, so a reader copes with columns that come and go between
// versions of an agent's schema. Values are strings, int64s, float64s or
// nil; BLOBs are turned into strings.
func SQLiteRowMaps(db *sql.DB, query string, fn func(row map[string]any) error, args ...any) error {
	rows, err := db.Query(query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		row := make(map[string]any, len(cols))
		for i, c := range cols {
			if b, ok := vals[i].([]byte); ok {
				row[c] = string(b)
			} else {
				row[c] = vals[i]
			}
		}
		if err := fn(row); err != nil {
			return err
		}
	}
	return rows.Err()
}
