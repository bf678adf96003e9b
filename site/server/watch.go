package server

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// debounce is how long a burst of changes must be quiet before a rebuild:
// editors and agents write files in several steps.
const debounce = 150 * time.Millisecond

// Watch calls rebuild after files under paths change, once per burst of
// changes, until ctx is done. Folders are watched recursively, new ones
// included; a path that does not exist is skipped.
func Watch(ctx context.Context, paths []string, rebuild func(changed []string)) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	for _, p := range paths {
		addTree(w, p)
	}
	var changed []string
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if ev.Has(fsnotify.Create) {
				if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
					addTree(w, ev.Name)
				}
			}
			if ev.Has(fsnotify.Chmod) && !ev.Has(fsnotify.Write) {
				continue
			}
			changed = append(changed, ev.Name)
			timer.Reset(debounce)
		case <-timer.C:
			rebuild(changed)
			changed = nil
		case <-w.Errors:
		}
	}
}

// addTree watches dir and every folder under it; a file is watched itself.
func addTree(w *fsnotify.Watcher, root string) {
	st, err := os.Stat(root)
	if err != nil {
		return
	}
	if !st.IsDir() {
		// Watch the folder: editors replace files by renaming over them.
		_ = w.Add(filepath.Dir(root))
		return
	}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			_ = w.Add(p)
		}
		return nil
	})
}
