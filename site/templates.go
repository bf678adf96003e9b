package site

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"strings"
	"sync"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// partialBufs hold what a partial writes until it is returned. A tool's
// view holds its highlighted code, which a buffer grown anew for each
// call copied several times over.
var partialBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// pageKinds are the page templates; each fills the blocks of baseof.html.
var pageKinds = []string{"index", "project", "session", "404", "search", "stats"}

// loadTemplates parses the theme: baseof.html and every partial once, then
// one clone per page kind with that page's template added.
func loadTemplates(theme fs.FS) (map[string]*template.Template, error) {
	funcs := render.Funcs()
	funcs["imageURL"] = imageURL
	funcs["dict"] = dict
	funcs["percent"] = percent
	for name, f := range lookups(nil) {
		funcs[name] = f // bound to each page kind's templates below
	}
	base := template.New("").Funcs(funcs)
	parse := func(t *template.Template, name string) error {
		b, err := fs.ReadFile(theme, "templates/"+name)
		if err != nil {
			return err
		}
		if _, err := t.New(name).Parse(string(b)); err != nil {
			return fmt.Errorf("templates/%w", err)
		}
		return nil
	}
	if err := parse(base, "baseof.html"); err != nil {
		return nil, err
	}
	err := fs.WalkDir(theme, "templates/partials", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		return parse(base, strings.TrimPrefix(p, "templates/"))
	})
	if err != nil {
		return nil, err
	}
	out := map[string]*template.Template{}
	for _, k := range pageKinds {
		t, err := base.Clone()
		if err != nil {
			return nil, err
		}
		if err := parse(t, k+".html"); err != nil {
			return nil, err
		}
		out[k] = t.Funcs(lookups(t))
	}
	return out, nil
}

// lookups are the template functions that choose a partial by name among
// the templates of t, as Hugo's layouts do: the theme's, or a site's own.
//
//	{{partial (toolView .Call) .}}
//
// toolView names the first partial of render.ToolViews the theme has, and
// partial executes the partial it is given.
func lookups(t *template.Template) template.FuncMap {
	return template.FuncMap{
		"partial": func(name string, data any) (template.HTML, error) {
			b := partialBufs.Get().(*bytes.Buffer)
			defer func() { b.Reset(); partialBufs.Put(b) }()
			err := t.ExecuteTemplate(b, name, data)
			return template.HTML(b.String()), err
		},
		"toolView": func(c *transcript.ToolCall) string {
			views := render.ToolViews(c)
			for _, v := range views {
				if t.Lookup("partials/tools/"+v+".html") != nil {
					return "partials/tools/" + v + ".html"
				}
			}
			return "partials/tools/" + views[len(views)-1] + ".html"
		},
	}
}

// imageName is the file an image is written to, beside its session's page.
// It is named by its content, so an image that appears twice is written once.
func imageName(img *transcript.Image) string {
	hash := img.Blob // the sha256 of the data, in hex
	if hash == "" {
		hash = cache.Hash(img.Data)
	}
	ext := strings.TrimPrefix(img.MediaType, "image/")
	if ext == "jpeg" {
		ext = "jpg"
	}
	return "img/" + hash[:24] + "." + ext
}

// imageURL is the link to an image from its session's page. Only images
// whose bytes are a known picture format get one.
func imageURL(img *transcript.Image) string {
	if img == nil || len(img.Data) == 0 && img.Blob == "" || !strings.HasPrefix(img.MediaType, "image/") {
		return ""
	}
	return imageName(img)
}

// dict builds a map from key, value pairs, to pass several values to a
// partial.
func dict(kv ...any) (map[string]any, error) {
	if len(kv)%2 != 0 {
		return nil, fmt.Errorf("dict: odd number of arguments")
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			return nil, fmt.Errorf("dict: key %v is not a string", kv[i])
		}
		m[k] = kv[i+1]
	}
	return m, nil
}
