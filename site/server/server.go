// Package server serves a site built into memory, rebuilds it when its
// sources change, and tells open pages to reload.
package server

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/site"
)

// prefix is where the server's own endpoints live, out of the site's way.
const prefix = "/__transcriptsite/"

//go:embed livereload.js
var liveReloadJS []byte

// Server serves the last good build of a site.
type Server struct {
	base       string // the path the site is served under, "/" or "/repo/"
	hosts      map[string]bool
	liveReload bool
	log        io.Writer

	mu       sync.RWMutex
	files    map[string]file
	built    time.Time
	lastErr  string
	navigate string // see NavigateTo

	subMu sync.Mutex
	subs  map[chan event]bool
}

type file struct {
	data []byte
	etag string
	gz   *compressed // shared by the builds that made the same file
}

// compressed is a file as gzip sends it, made on the first request that
// asks for it: compressing a page of megabytes takes a hundred times as
// long as sending it.
type compressed struct {
	once sync.Once
	data []byte
}

type event struct {
	Type    string `json:"type"` // "reload", "navigate", "css" or "error"
	Message string `json:"message,omitempty"`
	Path    string `json:"path,omitempty"` // where "navigate" goes
}

// New returns a server of a site whose base URL is baseURL, listening on
// the address bind. It answers requests for localhost, for bind and for
// baseURL's host, and no other: a web page whose name is made to point
// at this machine (DNS rebinding) must not read the sessions.
func New(baseURL, bind string, liveReload bool, log io.Writer) *Server {
	return &Server{base: site.BasePath(baseURL), hosts: hosts(baseURL, bind), liveReload: liveReload, log: log, files: map[string]file{}, subs: map[chan event]bool{}}
}

// hosts lists the names a request may give as its Host: localhost's, the
// bind address, and baseURL's host; with a bind to every interface, the
// addresses of this machine's.
func hosts(baseURL, bind string) map[string]bool {
	ok := map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true, bind: true}
	if h := site.BaseHost(baseURL); h != "" {
		ok[h] = true
	}
	if ip := net.ParseIP(bind); ip != nil && ip.IsUnspecified() {
		addrs, _ := net.InterfaceAddrs()
		for _, a := range addrs {
			if n, isNet := a.(*net.IPNet); isNet {
				ok[n.IP.String()] = true
			}
		}
	}
	return ok
}

// allowed reports whether a request's Host is one of the server's.
func (s *Server) allowed(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if ip := net.ParseIP(host); ip != nil {
		host = ip.String()
	}
	return s.hosts[host] || strings.HasSuffix(host, ".localhost") // RFC 6761: always this machine
}

// NavigateTo makes the next update that changes the site take open pages
// to page, a path of the site, instead of reloading them ("" reloads).
func (s *Server) NavigateTo(page string) {
	s.mu.Lock()
	s.navigate = page
	s.mu.Unlock()
}

// Update serves a new build, and tells open pages what changed: a
// stylesheet alone is swapped in place, anything else reloads the page.
func (s *Server) Update(files site.Files) {
	s.mu.RLock()
	prev := s.files
	s.mu.RUnlock()
	next := withETags(files, prev)
	s.mu.Lock()
	prev, failed, page := s.files, s.lastErr != "", s.navigate
	s.files, s.built, s.lastErr, s.navigate = next, time.Now(), "", ""
	s.mu.Unlock()
	if failed { // pages show the error: the recovered site replaces it
		s.broadcast(event{Type: "reload"})
		return
	}

	changed, onlyCSS := changes(prev, next)
	switch {
	case !changed:
	case onlyCSS:
		s.broadcast(event{Type: "css"})
	case page != "":
		s.broadcast(event{Type: "navigate", Path: s.base + page})
	default:
		s.broadcast(event{Type: "reload"})
	}
}

// withETags are a build's files with their ETags; a file that did not
// change keeps its compressed copy.
func withETags(files site.Files, prev map[string]file) map[string]file {
	next := make(map[string]file, len(files))
	for name, data := range files {
		f := file{data: data, etag: `"` + cache.Hash(data)[:16] + `"`, gz: new(compressed)}
		if p, ok := prev[name]; ok && p.etag == f.etag {
			f.gz = p.gz
		}
		next[name] = f
	}
	return next
}

// changes says whether next differs from prev, and whether only
// stylesheets did: a removed stylesheet is no change a page shows.
func changes(prev, next map[string]file) (changed, onlyCSS bool) {
	onlyCSS = true
	for name, f := range next {
		if p, ok := prev[name]; !ok || p.etag != f.etag {
			changed = true
			onlyCSS = onlyCSS && path.Ext(name) == ".css"
		}
	}
	for name := range prev {
		if _, ok := next[name]; !ok && path.Ext(name) != ".css" {
			changed, onlyCSS = true, false
		}
	}
	return changed, onlyCSS
}

// Fail keeps the last good build and shows the error on open pages.
func (s *Server) Fail(err error) {
	s.mu.Lock()
	s.lastErr = err.Error()
	s.mu.Unlock()
	s.broadcast(event{Type: "error", Message: err.Error()})
}

func (s *Server) broadcast(e event) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	for ch := range s.subs {
		select {
		case ch <- e:
		default: // a slow page misses an event rather than stall the server
		}
	}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.allowed(r.Host) {
		http.Error(w, "this server answers only for localhost and its own address", http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if own := ownPaths[r.URL.Path]; own != nil {
		own(s, w, r)
		return
	}
	name, ok := s.lookup(r.URL.Path)
	if !ok {
		s.notFound(w, r)
		return
	}
	if name == "" { // a directory without its slash
		http.Redirect(w, r, r.URL.Path+"/", http.StatusMovedPermanently)
		return
	}
	s.mu.RLock()
	f, built := s.files[name], s.built
	s.mu.RUnlock()
	s.send(w, r, name, f, built, http.StatusOK)
}

// ownPaths are the server's own paths, not the site's, and their
// handlers.
var ownPaths = map[string]func(*Server, http.ResponseWriter, *http.Request){
	prefix + "livereload.js": func(_ *Server, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		w.Write(liveReloadJS)
	},
	prefix + "events": (*Server).events,
}

// lookup maps a URL path to a file of the site. Files are looked up by
// name in memory, never on disk, and a path with a dot segment in any
// spelling is refused, so nothing outside the site can be served.
func (s *Server) lookup(urlPath string) (string, bool) {
	if !strings.HasPrefix(urlPath, s.base) && urlPath+"/" != s.base {
		return "", false
	}
	rel := strings.TrimPrefix(urlPath, s.base)
	if slices.ContainsFunc(strings.Split(rel, "/"), unsafeSegment) {
		return "", false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if rel == "" || strings.HasSuffix(rel, "/") {
		rel += "index.html"
	}
	if _, ok := s.files[rel]; ok {
		return rel, true
	}
	if _, ok := s.files[rel+"/index.html"]; ok {
		return "", true
	}
	return "", false
}

// unsafeSegment says whether a segment of a path is a dot segment, or
// holds a backslash or a NUL.
func unsafeSegment(seg string) bool {
	return seg == ".." || seg == "." || strings.ContainsAny(seg, "\\\x00")
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.mu.RLock()
	f, ok := s.files["404.html"]
	built := s.built
	s.mu.RUnlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	s.send(w, r, "404.html", f, built, http.StatusNotFound)
}

// send writes a file with its type, validators and compression; HTML gets
// the live-reload script.
func (s *Server) send(w http.ResponseWriter, r *http.Request, name string, f file, built time.Time, status int) {
	h := w.Header()
	ctype := contentType(name, f.data)
	h.Set("Content-Type", ctype)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
	page := func() []byte {
		if strings.HasPrefix(ctype, "text/html") && s.liveReload {
			return injectScript(f.data)
		}
		return f.data
	}
	if status == http.StatusOK && f.fresh(h, r, built) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	var data []byte
	if f.gzips(ctype, r) {
		data = f.gzipped(page)
		h.Set("Content-Encoding", "gzip")
		h.Add("Vary", "Accept-Encoding")
	} else {
		data = page()
	}
	h.Set("Content-Length", fmt.Sprint(len(data)))
	w.WriteHeader(status)
	if r.Method == http.MethodGet {
		w.Write(data)
	}
}

// fresh sets the file's validators, and says whether the client's copy
// is the file.
func (f file) fresh(h http.Header, r *http.Request, built time.Time) bool {
	h.Set("ETag", f.etag)
	h.Set("Last-Modified", built.UTC().Format(http.TimeFormat))
	inm := r.Header.Get("If-None-Match")
	return inm != "" && inm == f.etag
}

// contentType is a file's type by its name's extension, else by its
// bytes.
func contentType(name string, data []byte) string {
	if ctype := mime.TypeByExtension(path.Ext(name)); ctype != "" {
		return ctype
	}
	return http.DetectContentType(data)
}

// gzips says whether the file is sent gzipped to r: a text of some size,
// to a client that takes gzip.
func (f file) gzips(ctype string, r *http.Request) bool {
	return compressible(ctype) && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") && len(f.data) > 512 && f.gz != nil
}

// gzipped is the page gzipped, once.
func (f file) gzipped(page func() []byte) []byte {
	f.gz.once.Do(func() {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(page())
		zw.Close()
		f.gz.data = buf.Bytes()
	})
	return f.gz.data
}

func compressible(ctype string) bool {
	for _, p := range []string{"text/", "application/json", "application/javascript", "application/xml", "image/svg+xml"} {
		if strings.HasPrefix(ctype, p) {
			return true
		}
	}
	return false
}

var script = []byte(`<script src="` + prefix + `livereload.js" defer></script>`)

// injectScript adds the live-reload script to a page: it is a file of
// this origin, so the pages' Content-Security-Policy allows it, and only
// serve adds it.
func injectScript(html []byte) []byte {
	i := bytes.Index(html, []byte("</head>"))
	if i < 0 {
		return html
	}
	out := make([]byte, 0, len(html)+len(script))
	out = append(out, html[:i]...)
	out = append(out, script...)
	return append(out, html[i:]...)
}

// events streams reload events to a page (server-sent events).
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	ch := make(chan event, 4)
	s.subMu.Lock()
	s.subs[ch] = true
	s.subMu.Unlock()
	defer func() {
		s.subMu.Lock()
		delete(s.subs, ch)
		s.subMu.Unlock()
	}()
	s.mu.RLock()
	pending := s.lastErr
	s.mu.RUnlock()
	fmt.Fprint(w, ": connected\n\n")
	if pending != "" {
		writeEvent(w, event{Type: "error", Message: pending})
	}
	fl.Flush()
	ping := time.NewTicker(20 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case e := <-ch:
			writeEvent(w, e)
			fl.Flush()
		case <-ping.C:
			fmt.Fprint(w, ": ping\n\n")
			fl.Flush()
		}
	}
}

func writeEvent(w io.Writer, e event) {
	data, _ := json.Marshal(e)
	fmt.Fprintf(w, "data: %s\n\n", data)
}

// Subscribers is how many pages listen for reloads.
func (s *Server) Subscribers() int {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	return len(s.subs)
}
