// Package treetest holds what the site's tests do with folders of files:
// write them, read them back whole, compare two.
package treetest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"
)

// Extract writes a txtar archive's files under a new temporary dir.
func Extract(t *testing.T, archive string) string {
	t.Helper()
	ar, err := txtar.ParseFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string][]byte{}
	for _, f := range ar.Files {
		files[f.Name] = f.Data
	}
	WriteTree(t, dir, files)
	return dir
}

// WriteTree writes files, by their paths relative to dir, under dir.
func WriteTree(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Tree reads every file under dir.
func Tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files[rel], _ = os.ReadFile(p)
		}
		return err
	})
	return files
}

// SameTree reports each file that differs between two trees, and a change in their number.
func SameTree(t *testing.T, a, b map[string][]byte) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%d files, then %d", len(a), len(b))
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Errorf("%s differs", name)
		}
	}
}

// Overwrite writes data over the file p in place, as a disk or a stray
// program would: the same file, not a new one renamed over it.
func Overwrite(t *testing.T, p string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
}

// WriteConfig writes a site dir with the config file name holding body,
// and an empty content folder.
func WriteConfig(t *testing.T, name, body string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Mkdir(filepath.Join(dir, "content"), 0o755)
	return dir
}

// Beside lists what is in parent besides the site, public.
func Beside(t *testing.T, parent string) []string {
	t.Helper()
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() != "public" {
			names = append(names, e.Name())
		}
	}
	return names
}
