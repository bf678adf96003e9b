package site

import (
	gocontext "context"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/site/output"
	"github.com/transcriptsite/transcriptsite/site/sink"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// The builder is the context of the outputs it runs: what they see of it.
var _ output.Context[*Site] = (*builder)(nil)

func (b *builder) Site() *Site { return b.site }

func (b *builder) Theme() string { return b.theme }

func (b *builder) Key(dig string, parts ...string) string { return b.sessionKey(dig, parts...) }

func (b *builder) Digest(i int) string { return b.digs[i] }

func (b *builder) InMemory() bool { return b.memory }

func (b *builder) Write(rel string, data []byte) error { return b.out.Write(rel, data) }

func (b *builder) Create(rel string) (io.WriteCloser, error) { return b.out.Create(rel) }

func (b *builder) Remove(rel string) error { return b.out.Remove(rel) }

// Cache is nil without a cache: an interface holding a nil store is not.
func (b *builder) Cache() output.Cache {
	if b.store == nil {
		return nil
	}
	return b.store
}

func (b *builder) Load(ctx gocontext.Context, i int) (*transcript.Session, error) {
	return b.loader(ctx, b.units[b.unitOf[i]])(b.site.Sessions[i])
}

// Render counts the session pages it renders, for the report.
func (b *builder) Render(w io.Writer, kind string, data any) error {
	if kind == "session" {
		b.rendered.Add(1)
	}
	return b.renderTo(w, kind, data.(*Page))
}

func (b *builder) Notice(msg string) {
	b.mu.Lock()
	b.notices = append(b.notices, msg)
	b.mu.Unlock()
}

// Asset writes a theme asset, CSS and JS under names that carry a hash of
// their content, so browsers and CDNs may cache them for ever; pages link
// it by its name in the theme ("css/theme.css" → "css/theme.1a2b3c4d5e.css").
// Every page links the assets by these names, and the CSS is not always
// what the theme digest covers: Dart Sass, found or not, or of another
// version, compiles the same SCSS into other bytes, so another name.
// Pages cached under the digest alone linked a stylesheet that was gone.
func (b *builder) Asset(name string, data []byte) error {
	out := name
	if ext := path.Ext(name); b.fingerprint && (ext == ".css" || ext == ".js") {
		out = strings.TrimSuffix(name, ext) + "." + cache.Hash(data)[:10] + ext
	}
	b.site.assets[name] = out
	parts := []string{b.themeBase}
	for _, name := range slices.Sorted(maps.Keys(b.site.assets)) {
		parts = append(parts, name, b.site.assets[name])
	}
	b.theme = cache.Key(parts...)
	return b.out.Write(out, data)
}

// File writes the file rel of the site: from the cache entry key when
// there is a sound one, else as make writes it, given to the cache as it
// is written, so a cache that cannot be written never fails the file. A
// session's page or export can be hundreds of megabytes and is never held
// whole. key "" skips the cache.
func (b *builder) File(rel, key string, make func(io.Writer) error) error {
	if key == "" {
		return sink.Stream(b.out, rel, make)
	}
	if b.Copy(rel, key) {
		return nil
	}
	err := sink.Stream(b.out, rel, func(w io.Writer) error { return b.store.Tee(key, w, make) })
	if sum, ok := b.store.Made(key); ok && err == nil {
		b.out.Made(rel, sum)
	}
	return err
}

// Copy writes the file rel of the site from the cache entry key, and
// reports whether it did: false when there is no such entry or it proved
// damaged (the store then drops it). The previous site's file is kept
// when it holds what the entry does; else the entry is copied, checked as
// it is.
func (b *builder) Copy(rel, key string) bool {
	want, ok := b.store.Entry(key)
	if ok && b.out.Keep(rel, want) {
		b.store.Count(true)
		return true
	}
	r, ok := b.store.Open(key)
	if !ok {
		return false
	}
	defer r.Close()
	err := sink.Stream(b.out, rel, func(w io.Writer) error {
		_, err := io.Copy(w, r)
		return err
	})
	if err == nil {
		b.out.Made(rel, want)
	}
	return err == nil
}

// Blob reads an image the readers put in the blob store.
func Blob(c outCtx, key string) ([]byte, error) {
	if c.Cache() == nil {
		return nil, fmt.Errorf("image %s: no blob store", key)
	}
	rc, err := c.Cache().OpenBlob(key)
	if err != nil {
		return nil, fmt.Errorf("image %s is no longer in the cache (run with --ignoreCache): %w", key, err)
	}
	defer rc.Close()
	return io.ReadAll(rc)
}
