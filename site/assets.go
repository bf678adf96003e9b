package site

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/sass"
)

const (
	scssEntry   = "assets/scss/main.scss"
	precompiled = "assets/css/theme.css" // scssEntry compiled with no variables, by go generate
)

// themeVars are the params a site sets to restyle the theme, the SCSS
// variables they set, and the values each accepts. Values are checked so a
// config value cannot inject SCSS.
var themeVars = []struct {
	param, variable string
	valid           *regexp.Regexp
}{
	{"accent", "accent", regexp.MustCompile(`^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20}|(rgb|hsl)a?\([0-9.,% ]+\))$`)},
	{"fontFamily", "font-family", regexp.MustCompile(`^[\w\s,"'-]{1,200}$`)},
	{"maxWidth", "max-width", regexp.MustCompile(`^\d{1,4}(\.\d+)?(px|rem|em|ch|vw|%)$`)},
}

// scssVars returns the theme variables the config sets.
func scssVars(params map[string]any) (map[string]string, error) {
	vars := map[string]string{}
	for _, tv := range themeVars {
		v, ok := params[strings.ToLower(tv.param)]
		if !ok {
			continue
		}
		s, ok := v.(string)
		if !ok || !tv.valid.MatchString(s) {
			return nil, fmt.Errorf("params.%s: %v is not a valid value", tv.param, v)
		}
		vars[tv.variable] = s
	}
	return vars, nil
}

// assetsOutput is the theme's stylesheets, scripts and other files, which
// every page links by the names they are written under: it comes first.
type assetsOutput struct{ siteOutput }

func (assetsOutput) start(_ context.Context, b *builder) error {
	assets, notices, err := b.assets(b.chroma)
	if err != nil {
		return err
	}
	b.site.assets = assets
	b.notices = append(b.notices, notices...)
	// Every page links the assets by these names, and the CSS is not always
	// what the theme digest covers: Dart Sass, found or not, or of another
	// version, compiles the same SCSS into other bytes, so another name.
	// Pages cached under the digest alone linked a stylesheet that was gone.
	parts := []string{b.theme}
	for _, name := range slices.Sorted(maps.Keys(assets)) {
		parts = append(parts, name, assets[name])
	}
	b.theme = cache.Key(parts...)
	return nil
}

// assets writes the theme's stylesheets, scripts and other files, CSS and
// JS under names that carry a hash of their content, so browsers and CDNs
// may cache them for ever. It returns the site path of each by its name in
// the theme ("css/theme.css" → "css/theme.1a2b3c4d5e.css") and notices for
// the user.
func (b *builder) assets(chroma string) (map[string]string, []string, error) {
	cfg := b.site.Config
	names := map[string]string{}
	var notices []string
	put := func(name string, data []byte) error {
		out := name
		if ext := path.Ext(name); b.fingerprint && (ext == ".css" || ext == ".js") {
			out = strings.TrimSuffix(name, ext) + "." + cache.Hash(data)[:10] + ext
		}
		names[name] = out
		return b.out.Write(out, data)
	}

	css, notice, err := b.themeCSS()
	if err != nil {
		return nil, nil, err
	}
	if notice != "" {
		notices = append(notices, notice)
	}
	if err := put("css/theme.css", []byte(css)); err != nil {
		return nil, nil, err
	}
	if err := put("css/chroma.css", []byte(chroma)); err != nil {
		return nil, nil, err
	}
	err = fs.WalkDir(cfg.Theme, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == precompiled || strings.HasPrefix(p, "assets/scss/") {
			return err
		}
		data, err := fs.ReadFile(cfg.Theme, p)
		if err != nil {
			return err
		}
		return put(strings.TrimPrefix(p, "assets/"), data)
	})
	return names, notices, err
}

// themeCSS compiles the theme's SCSS with Dart Sass, or, without it, reads
// the precompiled CSS; then the notice says what the site misses.
func (b *builder) themeCSS() (css, notice string, err error) {
	cfg := b.site.Config
	vars, err := scssVars(cfg.Params)
	if err != nil {
		return "", "", err
	}
	if b.css != "" {
		return b.css, "", nil
	}
	if b.sass != nil {
		css, err := b.sass.Compile(cfg.Theme, scssEntry, vars)
		if err == nil && b.cssKey != "" {
			b.store.Put(b.cssKey, []byte(css))
		}
		return css, "", err
	}
	data, err := fs.ReadFile(cfg.Theme, precompiled)
	if err != nil {
		return "", "", err
	}
	var why []string
	for _, v := range slices.Sorted(maps.Keys(vars)) {
		why = append(why, "$"+v)
	}
	if ownSCSS(cfg) {
		why = append(why, "its own assets/scss")
	}
	if len(why) > 0 {
		notice = fmt.Sprintf("the site sets %s, which needs Dart Sass, and none was found (%v): "+
			"the pages use the default theme's precompiled CSS; %s", strings.Join(why, " and "), b.sassErr, sass.Install)
	}
	return string(data), notice, nil
}

// ownSCSS reports whether the site dir has SCSS files of its own: files
// the default theme lacks or has otherwise. A copy of the theme's own (a
// clone of this repository, or a site that copied them to start from)
// needs no Dart Sass: the precompiled CSS is what it compiles to.
func ownSCSS(cfg *Config) bool {
	o, ok := cfg.Theme.(overlay)
	if !ok {
		return false
	}
	own := false
	fs.WalkDir(o.upper, "assets/scss", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		mine, err := fs.ReadFile(o.upper, p)
		if theirs, terr := fs.ReadFile(o.lower, p); err != nil || terr != nil || !bytes.Equal(mine, theirs) {
			own = true
			return fs.SkipAll
		}
		return nil
	})
	return own
}

// Asset links to a theme asset by its name in the theme ("css/theme.css").
func (p *Page) Asset(name string) string {
	if out, ok := p.Site.assets[name]; ok {
		return p.URL(out)
	}
	return p.URL(name)
}
