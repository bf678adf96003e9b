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

// Target is what Watch watches: a folder and every folder under it (new
// ones included), or, with Only, a folder alone and in it only the files
// Only accepts (a folder it accepts that appears is watched whole).
type Target struct {
	Path string
	Only func(path string) bool
}

// Watch calls rebuild after files of the targets change, once per burst
// of changes, until ctx is done. A path that does not exist is skipped.
func Watch(ctx context.Context, targets []Target, rebuild func(changed []string)) error {
	w, err := NewWatcher(targets)
	if err != nil {
		return err
	}
	return w.Run(ctx, rebuild)
}

// Watcher watches targets.
type Watcher struct {
	w    *fsnotify.Watcher
	only map[string]func(string) bool // folders watched alone
}

// NewWatcher watches the targets from when it returns: a change made
// after it is seen.
func NewWatcher(targets []Target) (*Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	only := map[string]func(string) bool{}
	for _, t := range targets {
		if t.Only != nil {
			only[filepath.Clean(t.Path)] = t.Only
			_ = w.Add(t.Path)
		} else {
			addTree(w, t.Path)
		}
	}
	return &Watcher{w, only}, nil
}

// Run calls rebuild after files change, once per burst of changes, until
// ctx is done; then it stops watching.
func (wt *Watcher) Run(ctx context.Context, rebuild func(changed []string)) error {
	w := wt.w
	defer w.Close()
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
			if wt.note(ev) {
				changed = append(changed, ev.Name)
				timer.Reset(debounce)
			}
		case <-timer.C:
			rebuild(changed)
			changed = nil
		case <-w.Errors:
		}
	}
}

// note watches a folder an event made, and says whether the event
// changes the site: not a file beside the config that is not the site's
// (a log, a build), nor a change of mode alone.
func (wt *Watcher) note(ev fsnotify.Event) bool {
	if f, alone := wt.only[filepath.Dir(ev.Name)]; alone && !f(ev.Name) {
		return false
	}
	if ev.Has(fsnotify.Create) {
		if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
			addTree(wt.w, ev.Name)
		}
	}
	return !ev.Has(fsnotify.Chmod) || ev.Has(fsnotify.Write)
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
