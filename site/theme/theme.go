// Package theme holds the templates of a site's theme: it parses them
// (baseof.html, the partials, a page template for each kind of page), with
// the functions they call, and names the files a page refers to (its
// images, the precompiled stylesheet).
package theme

import (
	"bytes"
	"cmp"
	"fmt"
	"html/template"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/transcriptsite/transcriptsite"
	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/site/searchdoc"
	"github.com/transcriptsite/transcriptsite/site/stats"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// partialBufs hold what a partial writes until it is returned. A tool's
// view holds its highlighted code, which a buffer grown anew for each
// call copied several times over.
var partialBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// pageKinds are the page templates; each fills the blocks of baseof.html.
var PageKinds = []string{"index", "project", "session", "404", "search", "stats"}

// Load parses the theme: baseof.html and every partial once, then one
// clone per page kind with that page's template added.
func Load(theme fs.FS) (map[string]*template.Template, error) {
	base, err := loadBase(theme)
	if err != nil {
		return nil, err
	}
	out := map[string]*template.Template{}
	for _, k := range PageKinds {
		t, err := base.Clone()
		if err == nil {
			err = parse(theme, t, k+".html")
		}
		if err != nil {
			return nil, err
		}
		out[k] = t.Funcs(lookups(t))
	}
	return out, nil
}

// loadBase parses what every page kind shares: baseof.html, the partials
// and the template that chooses a tool call's view.
func loadBase(theme fs.FS) (*template.Template, error) {
	base := template.New("").Funcs(funcs())
	if err := parse(theme, base, "baseof.html"); err != nil {
		return nil, err
	}
	err := fs.WalkDir(theme, "templates/partials", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		return parse(theme, base, strings.TrimPrefix(p, "templates/"))
	})
	if err != nil {
		return nil, err
	}
	for _, h := range twins {
		if err == nil && asShipped(theme, h.name) && asShipped(theme, h.uses...) {
			_, err = base.New(h.name).Parse(h.twin)
		}
	}
	if err == nil {
		_, err = base.New(toolViewName).Parse(toolViewTemplate(base))
	}
	return base, err
}

// twins are partials that the site also writes in Go, with the partials
// they use, and the template that prints the Go one: a message's header
// (Entry.Head) and a call's (PartView.Head, site/heads.go), and what a
// tool printed (render.OutputBody), each tested to write what its partial
// does. In a template they were a dozen actions each, at a few thousand
// instructions an action, the most a page makes. Where a theme leaves all
// of them as shipped, the twin stands in; a site that overrides any of
// them gets its templates.
var twins = []struct {
	name string
	uses []string
	twin string
}{
	{"partials/message-head.html", []string{"partials/msg-time.html", "partials/usage.html"}, `{{.Head}}`},
	{"partials/tool-head.html", nil, `{{.Head}}`},
	{"partials/output-body.html", nil, `{{outputBody .}}`},
}

// asShipped reports whether each of the templates names is in theme as
// the default theme has it.
func asShipped(theme fs.FS, names ...string) bool {
	for _, n := range names {
		b, err := fs.ReadFile(theme, "templates/"+n)
		shipped, err2 := fs.ReadFile(transcriptsite.FS, "templates/"+n)
		if err != nil || err2 != nil || !bytes.Equal(b, shipped) {
			return false
		}
	}
	return true
}

// funcs are the functions the templates call.
func funcs() template.FuncMap {
	funcs := render.Funcs()
	funcs["imageURL"] = ImageURL
	funcs["dict"] = dict
	funcs["percent"] = stats.Percent
	for name, f := range lookups(nil) {
		funcs[name] = f // bound to each page kind's templates by Load
	}
	return funcs
}

// parse adds the theme's templates/name to t.
func parse(theme fs.FS, t *template.Template, name string) error {
	b, err := fs.ReadFile(theme, "templates/"+name)
	if err != nil {
		return err
	}
	if _, err := t.New(name).Parse(string(b)); err != nil {
		return fmt.Errorf("templates/%w", err)
	}
	return nil
}

// toolViewName is the template that shows a tool call in its view:
//
//	{{template "partials/tool-view" .}}
//
// is {{partial (toolView .Call) .}} written to the page as it is made,
// where partial returns the view's HTML (the tool's highlighted code) as a
// string that the page copies again.
const toolViewName = "partials/tool-view"

// toolViewTemplate is the text of toolViewName for the views of t: the
// view toolView names, chosen among them by name, the commonest first.
func toolViewTemplate(t *template.Template) string {
	var b strings.Builder
	b.WriteString(`{{$v := toolView .Call}}`)
	views := toolViews(t)
	for i, v := range views {
		b.WriteString(`{{`)
		if i > 0 {
			b.WriteString(`else `)
		}
		q := strconv.Quote(v)
		b.WriteString(`if eq $v ` + q + `}}{{template ` + q + ` .}}`)
	}
	if len(views) > 0 {
		b.WriteString(`{{end}}`)
	}
	return b.String()
}

// toolViews are the views of tool calls among the templates of t, the
// views of the commonest tool kinds first.
func toolViews(t *template.Template) []string {
	var views []string
	for _, v := range t.Templates() {
		if strings.HasPrefix(v.Name(), toolViewDir) {
			views = append(views, v.Name())
		}
	}
	kinds := searchdoc.KindNames() // the tool kinds, commonest first
	rank := func(name string) int {
		k := strings.TrimSuffix(strings.TrimPrefix(name, toolViewDir), ".html")
		if i := slices.Index(kinds, k); i >= 0 {
			return i
		}
		return len(kinds)
	}
	slices.SortFunc(views, func(a, b string) int { return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a, b)) })
	return views
}

// toolViewDir is where the views of tool calls are among the templates
// (render.ToolViews names them).
const toolViewDir = "partials/tools/"

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
				if t.Lookup(toolViewDir+v+".html") != nil {
					return toolViewDir + v + ".html"
				}
			}
			return toolViewDir + views[len(views)-1] + ".html"
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

// PrecompiledCSS is the theme's SCSS compiled with no variables, by go
// generate: the stylesheet of a site without Dart Sass, and of a page on
// its own.
const PrecompiledCSS = "assets/css/theme.css"

// ImageURL is the link to an image from its session's page. Only images
// whose bytes are a known picture format get one.
func ImageURL(img *transcript.Image) string {
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
