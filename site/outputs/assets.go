package outputs

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/sass"
	"github.com/transcriptsite/transcriptsite/site"
	"github.com/transcriptsite/transcriptsite/site/siteconfig"
	"github.com/transcriptsite/transcriptsite/site/theme"
)

const (
	scssEntry = "assets/scss/main.scss"
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
type assetsOutput struct{ site.Base }

func (assetsOutput) Start(_ context.Context, c site.Context) error {
	cfg := c.Site().Config
	css, err := stylesheet(c)
	if err != nil {
		return err
	}
	chroma, err := render.ChromaCSS(cfg.Highlight.Style, cfg.Highlight.DarkStyle)
	if err != nil {
		return fmt.Errorf("highlight: %w", err)
	}
	if err := c.Asset("css/theme.css", []byte(css)); err != nil {
		return err
	}
	if err := c.Asset("css/chroma.css", []byte(chroma)); err != nil {
		return err
	}
	return fs.WalkDir(cfg.Theme, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == theme.PrecompiledCSS || strings.HasPrefix(p, "assets/scss/") {
			return err
		}
		data, err := fs.ReadFile(cfg.Theme, p)
		if err != nil {
			return err
		}
		return c.Asset(strings.TrimPrefix(p, "assets/"), data)
	})
}

// stylesheet is the theme's CSS: compiled by Dart Sass when it can be
// found, or as it compiled it for an earlier build; else the precompiled
// CSS, and a notice of what the site misses. A binary the config names
// must work; one found on its own may be missing or too old.
func stylesheet(c site.Context) (string, error) {
	cfg := c.Site().Config
	sc, css, key, err := startSass(c)
	if err != nil && cfg.Sass.Binary != "" {
		return "", fmt.Errorf("sass.binary: %w", err)
	}
	if sc != nil {
		defer sc.Close()
	}
	vars, verr := scssVars(cfg.Params)
	switch {
	case verr != nil:
		return "", verr
	case css != "":
		return css, nil
	case sc != nil:
		css, err := sc.Compile(cfg.Theme, scssEntry, vars)
		if err == nil && key != "" {
			c.Cache().Put(key, []byte(css))
		}
		return css, err
	}
	return precompiledCSS(c, vars, err)
}

// startSass starts Dart Sass if it can be found, unless it compiled the
// theme's CSS for an earlier build of the same theme and params: then css
// is what it compiled. Starting Dart Sass costs a rebuild 0.1-0.15 CPU-s,
// as much as the rest of a rebuild with nothing changed. key is the cache
// entry of the CSS it compiles; "" without a cache.
func startSass(c site.Context) (sc *sass.Compiler, css, key string, err error) {
	cfg := c.Site().Config
	wd, _ := os.Getwd()
	bin, err := sass.Find(cfg.Sass.Binary, cfg.Dir, wd)
	if err != nil {
		return nil, "", "", err
	}
	if key = compiledKey(c, bin); key != "" {
		if data, _ := c.Cache().Get(key); len(data) > 0 {
			return nil, string(data), key, nil // compiled by this Dart Sass before: no need to start it
		}
	}
	sc, err = sass.Start(bin)
	return sc, "", key, err
}

// compiledKey is the cache entry of the CSS the Dart Sass at bin compiles
// for the theme and params; "" without a cache. The binary is known by
// its path, size and time, which an upgrade changes.
func compiledKey(c site.Context, bin string) string {
	if c.Cache() == nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return ""
	}
	fi, err := os.Stat(real)
	if err != nil {
		return ""
	}
	return cache.Key("css", c.Theme(), real, strconv.FormatInt(fi.Size(), 10), strconv.FormatInt(fi.ModTime().UnixNano(), 10))
}

// precompiledCSS is the default theme's CSS, compiled by go generate,
// for a site without Dart Sass (noSass says why); the notice says what
// the site misses.
func precompiledCSS(c site.Context, vars map[string]string, noSass error) (string, error) {
	cfg := c.Site().Config
	data, err := fs.ReadFile(cfg.Theme, theme.PrecompiledCSS)
	if err != nil {
		return "", err
	}
	var why []string
	for _, v := range slices.Sorted(maps.Keys(vars)) {
		why = append(why, "$"+v)
	}
	if ownSCSS(cfg) {
		why = append(why, "its own assets/scss")
	}
	if len(why) > 0 {
		c.Notice(fmt.Sprintf("the site sets %s, which needs Dart Sass, and none was found (%v): "+
			"the pages use the default theme's precompiled CSS; %s", strings.Join(why, " and "), noSass, sass.Install))
	}
	return string(data), nil
}

// ownSCSS reports whether the site dir has SCSS files of its own: files
// the default theme lacks or has otherwise. A copy of the theme's own (a
// clone of this repository, or a site that copied them to start from)
// needs no Dart Sass: the precompiled CSS is what it compiles to.
func ownSCSS(cfg *site.Config) bool {
	o, ok := cfg.Theme.(siteconfig.Overlay)
	if !ok {
		return false
	}
	own := false
	fs.WalkDir(o.Upper, "assets/scss", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		mine, err := fs.ReadFile(o.Upper, p)
		if theirs, terr := fs.ReadFile(o.Lower, p); err != nil || terr != nil || !bytes.Equal(mine, theirs) {
			own = true
			return fs.SkipAll
		}
		return nil
	})
	return own
}
