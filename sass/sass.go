// Package sass compiles the theme's SCSS with Dart Sass, through the
// embedded protocol that godartsass speaks.
package sass

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bep/godartsass/v2"
)

// Install tells users how to get Dart Sass.
const Install = "install Dart Sass 1.79 or later: `npm install sass-embedded-linux-x64` in the site directory, " +
	"or a release from https://github.com/sass/dart-sass/releases on your PATH"

// ErrNotFound means no Dart Sass binary was found.
var ErrNotFound = errors.New("no Dart Sass binary found")

// Find returns the Dart Sass binary to use: explicit (config sass.binary)
// if set, else $TRANSCRIPTSITE_SASS, $DART_SASS_BINARY, sass or dart-sass on
// the PATH, and the one npm installs under node_modules in each of dirs.
func Find(explicit string, dirs ...string) (string, error) {
	if explicit != "" {
		return exec.LookPath(explicit)
	}
	if bin, set, err := fromEnv(); set {
		return bin, err
	}
	if bin, ok := onPath(); ok {
		return bin, nil
	}
	if bin, ok := installed(dirs); ok {
		return bin, nil
	}
	return "", ErrNotFound
}

// fromEnv is the binary the first of $TRANSCRIPTSITE_SASS and
// $DART_SASS_BINARY that is set names, and whether one is set: a binary
// it names that is not found is an error, not a reason to look on.
func fromEnv() (bin string, set bool, err error) {
	for _, env := range []string{"TRANSCRIPTSITE_SASS", "DART_SASS_BINARY"} {
		if p := os.Getenv(env); p != "" {
			if bin, err = exec.LookPath(p); err != nil {
				return "", true, fmt.Errorf("%s=%s: %w", env, p, err)
			}
			return bin, true, nil
		}
	}
	return "", false, nil
}

// onPath is sass or dart-sass on the PATH.
func onPath() (string, bool) {
	for _, name := range []string{"sass", "dart-sass"} {
		if bin, err := exec.LookPath(name); err == nil {
			return bin, true
		}
	}
	return "", false
}

// installed is the binary npm installs under node_modules, in the first
// of dirs that has one.
func installed(dirs []string) (string, bool) {
	for _, d := range dirs {
		bin := filepath.Join(d, "node_modules", "sass-embedded-linux-x64", "dart-sass", "sass")
		if _, err := os.Stat(bin); err == nil {
			return bin, true
		}
	}
	return "", false
}

// Compiler is one Dart Sass process, shared by every compile of a build.
type Compiler struct {
	t       *godartsass.Transpiler
	Version string // the compiler's version
}

// Start checks that bin speaks the embedded protocol godartsass speaks, by
// what it reports rather than by its file name, and starts it.
func Start(bin string) (*Compiler, error) {
	v, err := godartsass.Version(bin)
	if err != nil {
		return nil, fmt.Errorf("dart sass %s: %w", bin, err)
	}
	if !strings.HasPrefix(v.ProtocolVersion, "3.") {
		return nil, fmt.Errorf("dart sass %s speaks embedded protocol %s, transcriptsite needs 3.x: %s",
			bin, v.ProtocolVersion, Install)
	}
	t, err := godartsass.Start(godartsass.Options{DartSassEmbeddedFilename: bin})
	if err != nil {
		return nil, fmt.Errorf("dart sass %s: %w", bin, err)
	}
	return &Compiler{t: t, Version: v.CompilerVersion}, nil
}

// Close stops the Dart Sass process.
func (c *Compiler) Close() error { return c.t.Close() }

// Compile compiles the SCSS file entry of fsys (a slash path such as
// "assets/scss/main.scss") to compressed CSS. Its @use and @import rules
// resolve in fsys. vars configure the module "variables", whose !default
// variables the theme reads: a name maps to a value already checked to be
// valid SCSS.
func (c *Compiler) Compile(fsys fs.FS, entry string, vars map[string]string) (string, error) {
	src, err := fs.ReadFile(fsys, entry)
	if err != nil {
		return "", err
	}
	source := string(src)
	if len(vars) > 0 {
		var with []string
		for _, k := range slices.Sorted(maps.Keys(vars)) {
			with = append(with, "$"+k+": "+vars[k])
		}
		// The first load of a module configures it: load it here, before the theme does.
		source = "@use \"variables\" with (" + strings.Join(with, ", ") + ");\n" + source
	}
	res, err := c.t.Execute(godartsass.Args{
		Source:         source,
		URL:            scheme + entry,
		OutputStyle:    godartsass.OutputStyleCompressed,
		ImportResolver: resolver{fsys: fsys, dir: path.Dir(entry)},
	})
	if err != nil {
		return "", fmt.Errorf("%s: %w", entry, err)
	}
	return res.CSS, nil
}

// scheme marks URLs of files in the theme's file system.
const scheme = "theme:/"

// resolver finds SCSS modules in a file system, the way Sass finds them on
// disk: name.scss, _name.scss, name/_index.scss, and .css.
type resolver struct {
	fsys fs.FS
	dir  string // the entry's directory: bare names resolve here
}

func (r resolver) CanonicalizeURL(u string) (string, error) {
	p := strings.TrimPrefix(u, scheme)
	if p == u {
		if strings.Contains(u, ":") {
			return "", nil // another scheme: not ours
		}
		p = path.Join(r.dir, u)
	}
	dir, base := path.Split(p)
	for _, cand := range []string{p, p + ".scss", dir + "_" + base + ".scss", p + "/_index.scss", p + "/index.scss", p + ".css"} {
		if st, err := fs.Stat(r.fsys, cand); err == nil && !st.IsDir() {
			return scheme + cand, nil
		}
	}
	return "", nil
}

func (r resolver) Load(u string) (godartsass.Import, error) {
	p := strings.TrimPrefix(u, scheme)
	b, err := fs.ReadFile(r.fsys, p)
	if err != nil {
		return godartsass.Import{}, err
	}
	syntax := godartsass.SourceSyntaxSCSS
	if strings.HasSuffix(p, ".css") {
		syntax = godartsass.SourceSyntaxCSS
	}
	return godartsass.Import{Content: string(b), SourceSyntax: syntax}, nil
}
