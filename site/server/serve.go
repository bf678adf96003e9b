package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/transcriptsite/transcriptsite/config"
	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/site"
)

// Options say what Serve serves and how.
type Options struct {
	Site  site.Options      // where the config is, and the flags over it
	Build site.BuildOptions // how each build uses the cache; every build, after a reload too, builds into memory
	Out   io.Writer         // a line for each build
	Err   io.Writer         // warnings and errors
	Quiet bool              // no warnings about session files

	LiveReload        bool // reload open pages when the site changes
	OpenBrowser       bool // open the site in the browser once it is built
	NavigateToChanged bool // take open pages to the page of a session whose file changed
	// Warning, when set, names the file of a warning as the user can open
	// it.
	Warning func(cfg *site.Config, w ingest.Warning) string
}

// Serve builds the site into memory and serves it on ln until ctx is done.
// It watches the content, the site's templates and assets and its config,
// and builds again when they change; a change to the config reads it again,
// and watches what it now names. A build that fails keeps the last good
// site and shows the error on its pages.
func Serve(ctx context.Context, ln net.Listener, o Options) error {
	o.Build.Memory = true
	cfg, warns, err := site.LoadConfig(o.Site)
	if err != nil {
		return err
	}
	for _, w := range warns {
		fmt.Fprintln(o.Err, "WARN", w)
	}
	b, err := site.NewBuilder(cfg, o.Build)
	if err != nil {
		return err
	}
	addr := ln.Addr().(*net.TCPAddr)
	s := &serving{o: o, srv: New(cfg.BaseURL, addr.IP.String(), o.LiveReload, o.Err), cfg: cfg, b: b}
	s.rebuild(ctx, nil)
	if err := s.watch(ctx, cfg); err != nil {
		return err
	}
	url := fmt.Sprintf("http://localhost:%d%s", addr.Port, site.BasePath(cfg.BaseURL))
	fmt.Fprintf(o.Out, "Serving at %s (bind address %s); press Ctrl+C to stop\n", url, addr.IP)
	if o.OpenBrowser {
		if err := openBrowser(url); err != nil {
			fmt.Fprintln(o.Err, "WARN could not open a browser:", err)
		}
	}
	return listen(ctx, ln, s.srv)
}

// listen serves h on ln until ctx is done, then shuts down: requests
// under way get a few seconds to finish.
func listen(ctx context.Context, ln net.Listener, h http.Handler) error {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		return hs.Shutdown(shut)
	}
}

// serving is a site being served: its config and builder, which a change to
// the config replaces, and what watches its sources.
type serving struct {
	o   Options
	srv *Server

	mu        sync.Mutex // one build at a time; guards what follows
	cfg       *site.Config
	b         *site.Builder
	stopWatch context.CancelFunc
}

// rebuild builds the site and serves it; changed are the paths whose
// change asked for it.
func (s *serving) rebuild(ctx context.Context, changed []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	files, rep, err := s.b.BuildFiles(ctx)
	if err != nil {
		if ctx.Err() == nil {
			fmt.Fprintln(s.o.Err, "ERROR", err)
			s.srv.Fail(err)
		}
		return
	}
	s.warn(rep.Warnings)
	if s.o.NavigateToChanged {
		s.srv.NavigateTo(changedPage(s.cfg, files, changed))
	}
	s.srv.Update(files)
	fmt.Fprintf(s.o.Out, "%s (%s rendered)\n", rep, render.Plural(rep.Rendered, "page"))
	// serve waits for the next change with only the site to hold: what
	// the build used goes back to the system now, not minutes later.
	debug.FreeOSMemory()
}

// warn prints a build's warnings, unless quiet.
func (s *serving) warn(ws []ingest.Warning) {
	if s.o.Quiet {
		return
	}
	for _, w := range ws {
		fmt.Fprintln(s.o.Err, "WARN", s.warning(w))
	}
}

func (s *serving) warning(w ingest.Warning) string {
	if s.o.Warning != nil {
		return s.o.Warning(s.cfg, w)
	}
	return w.String()
}

// changed is what the watcher calls: the config is read again when it
// changed, then the site is built again.
func (s *serving) changed(ctx context.Context, paths []string) {
	s.mu.Lock()
	isConf := isConfig(s.cfg)
	s.mu.Unlock()
	if slices.ContainsFunc(paths, isConf) {
		if err := s.reload(ctx); err != nil {
			fmt.Fprintln(s.o.Err, "ERROR", err)
			s.srv.Fail(err)
			return
		}
	}
	s.rebuild(ctx, paths)
}

// reload reads the config again, with the same flags and cache options
// (--ignoreCache holds for the whole session), and watches what it names:
// a content folder it adds is watched from now on.
func (s *serving) reload(ctx context.Context) error {
	next, _, err := site.LoadConfig(s.o.Site)
	if err != nil {
		return err
	}
	nb, err := site.NewBuilder(next, s.o.Build)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.cfg, s.b = next, nb
	s.mu.Unlock()
	return s.watch(ctx, next)
}

// watch watches the sources of the site cfg configures, from when it
// returns, and stops watching those of the config before.
func (s *serving) watch(ctx context.Context, cfg *site.Config) error {
	w, err := NewWatcher(targets(cfg))
	if err != nil {
		return err
	}
	wctx, stop := context.WithCancel(ctx)
	go w.Run(wctx, func(changed []string) { s.changed(ctx, changed) })
	s.mu.Lock()
	prev := s.stopWatch
	s.stopWatch = stop
	s.mu.Unlock()
	if prev != nil {
		prev()
	}
	return nil
}

// targets are what a site's serve watches: its content folders, its theme
// and its config; not the whole site folder, where a log or a build
// written would rebuild forever.
func targets(cfg *site.Config) []Target {
	trees := trees(cfg)
	conf, file := isConfig(cfg), cfg.File
	var watched []Target
	if !slices.Contains(trees, cfg.Dir) { // content in the site dir itself watches it whole
		watched = append(watched, Target{Path: cfg.Dir, Only: func(p string) bool { return conf(p) || slices.Contains(trees, p) }})
	}
	if file != "" && filepath.Dir(file) != cfg.Dir {
		watched = append(watched, Target{Path: filepath.Dir(file), Only: func(p string) bool { return p == file }})
	}
	for _, t := range trees {
		watched = append(watched, Target{Path: t})
	}
	return watched
}

// trees are the folders of a site watched whole: its theme's and its
// content folders (the embedded demo has none).
func trees(cfg *site.Config) []string {
	trees := []string{filepath.Join(cfg.Dir, "templates"), filepath.Join(cfg.Dir, "assets")}
	for _, m := range cfg.Mounts {
		if m.Dir != "" {
			trees = append(trees, m.Dir)
		}
	}
	return trees
}

// isConfig reports whether a changed path is the site's config file, or a
// config file appearing in the site dir.
func isConfig(cfg *site.Config) func(string) bool {
	return func(p string) bool {
		return p == cfg.File || filepath.Dir(p) == cfg.Dir && slices.Contains(config.Names, filepath.Base(p))
	}
}

// changedPage is the site path of the page of the first session whose file
// is among the changed paths, or "".
func changedPage(cfg *site.Config, files site.Files, changed []string) string {
	var list []struct{ Source, URL string }
	if len(changed) == 0 || json.Unmarshal(files["sessions.json"], &list) != nil {
		return ""
	}
	for _, p := range changed {
		for _, e := range list {
			if cfg.DiskPath(e.Source) == p {
				return e.URL
			}
		}
	}
	return ""
}

// openBrowser opens url in $BROWSER, or in the system's browser.
func openBrowser(url string) error {
	name, args := os.Getenv("BROWSER"), []string{url}
	switch {
	case name != "":
	case runtime.GOOS == "darwin":
		name = "open"
	case runtime.GOOS == "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler", url}
	default:
		name = "xdg-open"
	}
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() //nolint:errcheck // the browser outlives nothing we wait for
	return nil
}
