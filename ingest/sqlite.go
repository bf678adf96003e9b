package ingest

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // pure Go, no cgo
)

// sqliteMagic opens every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// isSQLite reports whether the head is a SQLite database.
func isSQLite(h *Head) bool { return bytes.HasPrefix(h.Data, sqliteMagic) }

// openSQLiteCopy opens a private copy of the database f, whose content is
// r: agents keep their databases open and SQLite may write beside a file it
// opens (its -wal and -shm), so the source is only ever read. The -wal file
// beside the source is copied too, so writes not yet checkpointed are seen.
// done closes the database and removes the copy.
func openSQLiteCopy(f *File, r io.Reader) (db *sql.DB, done func(), err error) {
	dir, err := os.MkdirTemp("", "transcriptsite-sqlite-")
	if err != nil {
		return nil, nil, err
	}
	done = func() { os.RemoveAll(dir) }
	name := filepath.Join(dir, "copy.db")
	if err := copyTo(name, r); err != nil {
		done()
		return nil, nil, fmt.Errorf("copying the database: %w", err)
	}
	if f.FS != nil {
		if wal, err := f.FS.Open(f.Name + "-wal"); err == nil {
			err = copyTo(name+"-wal", wal)
			wal.Close()
			if err != nil {
				done()
				return nil, nil, fmt.Errorf("copying the -wal file: %w", err)
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			f.Warn(0, "the -wal file beside it cannot be read (recent changes may be missing): %v", err)
		}
	}
	// The copy is opened read-write so SQLite can replay the -wal into it;
	// query_only keeps this reader from changing anything else.
	dsn := "file:" + (&url.URL{Path: name}).EscapedPath() + "?_pragma=query_only(1)&_pragma=busy_timeout(5000)"
	db, err = sql.Open("sqlite", dsn)
	if err != nil {
		done()
		return nil, nil, err
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		done()
		return nil, nil, err
	}
	return db, func() { db.Close(); os.RemoveAll(dir) }, nil
}

func copyTo(name string, r io.Reader) error {
	out, err := os.Create(name)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// sqliteTables lists the tables of db.
func sqliteTables(db *sql.DB) (map[string]bool, error) {
	rows, err := db.Query("SELECT name FROM sqlite_master WHERE type = 'table'")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	tables := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		tables[n] = true
	}
	return tables, rows.Err()
}

// sqliteRows runs query and calls fn with each row as a map of column name
// to value, so a reader copes with columns that come and go between
// versions of an agent's schema. Values are strings, int64s, float64s or
// nil; BLOBs are turned into strings.
func sqliteRows(db *sql.DB, query string, fn func(row map[string]any) error, args ...any) error {
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
