// Package siteconfig is the configuration of a site: its config file,
// environment and flags decoded and checked, its paths resolved, its
// theme, and which sessions it shows.
package siteconfig

import (
	"cmp"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	transcriptsite "github.com/transcriptsite/transcriptsite"
	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/config"
	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/redact"
	"github.com/transcriptsite/transcriptsite/sass"
	"github.com/transcriptsite/transcriptsite/site/search"
)

// Config is a site's configuration: one section per subsystem, each of
// a type of the package that uses it, which checks it and gives its
// defaults. Load decodes the config file, the environment and the
// flags into it at once (package config), then lets each section check
// itself (sections); what remains is resolved: paths are absolute.
type Config struct {
	Title        string          `config:"title"`
	BaseURL      string          `config:"baseURL"` // "" (a portable site), a path such as /repo/, or an absolute URL; ends in /
	LanguageCode string          `config:"languageCode"`
	Destination  string          `config:"destination"`
	CacheDir     string          `config:"cacheDir"` // where builds keep what they may reuse; "" for none
	CNAME        string          `config:"cname"`    // the custom domain of a GitHub Pages site
	Params       map[string]any  `config:"params"`   // free-form, for templates
	Content      Content         `config:",squash"`  // where the sessions are
	Highlight    Highlight       `config:"highlight"`
	Pricing      Pricing         `config:"pricing,strict"` // model prices for cost estimates
	Sass         sass.Config     `config:"sass"`
	Search       search.Config   `config:"search"`  // what the search index holds
	Redact       redact.Settings `config:"redact"`  // what is redacted before anything is written
	Outputs      Outputs         `config:"outputs"` // which exports are written beside each session page
	Selection    Selection       `config:",squash"` // which sessions the site shows (publish.include, publish.exclude, hide)

	ShowAll bool    `config:"-"` // show every session, whatever the selection says
	Dir     string  `config:"-"` // the site dir
	File    string  `config:"-"` // the config file read, or "" for the embedded demo config
	Mounts  []Mount `config:"-"` // the content dirs; one with an empty Dir is the embedded demo
	Theme   fs.FS   `config:"-"` // templates/ and assets/: the site's own over the embedded theme
}

// Content says where a site's sessions are.
type Content struct {
	Dir       string                      `config:"contentDir"`
	Dirs      config.SplitList            `config:"contentDirs"`
	Agents    bool                        `config:"agents"`    // read every installed agent's default session folders too
	AgentDirs map[string]config.SplitList `config:"agentDirs"` // by format name
}

// Mount is a content dir as the site reads it.
type Mount struct {
	Name string // prefixes the sources of its files when the site has several
	Dir  string // absolute; "" for the embedded demo content
}

// Roots returns the mounts to read.
func (c *Config) Roots() []ingest.Root {
	roots := make([]ingest.Root, len(c.Mounts))
	for i, m := range c.Mounts {
		roots[i] = ingest.Root{Name: m.Name, FS: ingest.DirFS(m.Dir)}
		if m.Dir == "" {
			roots[i].FS, _ = fs.Sub(transcriptsite.FS, "content")
		}
	}
	return roots
}

// DiskPath returns where the file with the given source path is on disk.
func (c *Config) DiskPath(source string) string {
	for _, m := range c.Mounts {
		if m.Dir != "" && (m.Name == "" || strings.HasPrefix(source, m.Name+"/")) {
			return filepath.Join(m.Dir, filepath.FromSlash(strings.TrimPrefix(source, m.Name+"/")))
		}
	}
	return source
}

// Highlight configures code highlighting.
type Highlight struct {
	Style     string `config:"style"`     // chroma style for the light scheme
	DarkStyle string `config:"darkStyle"` // chroma style for the dark scheme
}

// Options say where to find the config and what overrides it.
type Options struct {
	Source     string         // the site dir; default "."
	ConfigFile string         // an explicit config file
	Overrides  map[string]any // flag values, by config key; they win over everything
	ShowAll    bool           // ignore publish.include, publish.exclude and hide (for serve)
}

// defaults is the config before the file, the environment and the flags
// are decoded over it: what a key it does not set means.
func defaults() *Config {
	return &Config{
		Search:  search.DefaultConfig(),
		Redact:  redact.DefaultSettings(),
		Outputs: Outputs{Markdown: true},
	}
}

// sections check the config's sections once it is decoded, and fill in
// what the config left empty; each is the business of the package that
// owns the section, and an error names the key.
var sections = []func(c *Config) error{
	(*Config).checkSite,
	func(c *Config) error { return c.Highlight.check() },
	func(c *Config) error { return c.Pricing.check() },
	func(c *Config) error { return c.Search.Check() },
	func(c *Config) error { return c.Redact.Check() },
	func(c *Config) error { return c.Selection.check() },
}

// defaultTitle is the title of a site whose config sets none.
const defaultTitle = "Agent sessions"

// Load reads the site's config. Without a config file in the site dir
// it uses the embedded demo config and, unless a content dir is given, the
// embedded demo content. Warnings are about keys that were ignored.
func Load(o Options) (*Config, []string, error) {
	dir, err := siteDir(o.Source)
	if err != nil {
		return nil, nil, err
	}
	c := defaults()
	src, warns, err := config.Load(config.Options{Dir: dir, File: o.ConfigFile, Default: transcriptsite.DemoConfig, Overrides: o.Overrides}, c)
	if err != nil {
		return nil, warns, err
	}
	c.Dir, c.File, c.ShowAll = dir, src.File, o.ShowAll
	for _, check := range sections {
		if err := check(c); err != nil {
			return nil, warns, fmt.Errorf("%s: %w", src.Name, err)
		}
	}
	if c.Mounts, err = c.Content.mounts(dir, src.File == "", contentDirGiven(o)); err != nil {
		return nil, warns, fmt.Errorf("%s: %w", src.Name, err)
	}
	if c.Content.Agents && len(c.Mounts) == 0 {
		warns = append(warns, "agents: no agent session folders found here (see `transcriptsite formats`)")
	}
	if !c.embeddedDemo() {
		c.OwnSessions()
	}
	c.Theme = Overlay{Upper: os.DirFS(dir), Lower: transcriptsite.FS}
	return c, warns, nil
}

// siteDir is the site folder of a source, made absolute; it must exist.
func siteDir(source string) (string, error) {
	dir, err := filepath.Abs(cmp.Or(source, "."))
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		// A site folder is never made on the way: a slip of -s would
		// build the demo into a new folder and say nothing.
		return "", fmt.Errorf("site folder %s does not exist: make one with `transcriptsite new site %s`, "+
			"or read sessions from a folder with --contentDir", dir, source)
	}
	return dir, nil
}

// contentDirGiven says whether the command line or the environment gives
// contentDir.
func contentDirGiven(o Options) bool {
	_, flag := o.Overrides["contentDir"]
	_, env := os.LookupEnv(config.Env("contentDir"))
	return flag || env
}

// embeddedDemo says whether the site reads the embedded demo content only.
func (c *Config) embeddedDemo() bool {
	return len(c.Mounts) == 1 && c.Mounts[0].Dir == ""
}

// checkSite checks the keys of the site itself, and resolves its paths
// against the site dir.
func (c *Config) checkSite() error {
	var err error
	if c.BaseURL, err = normBaseURL(c.BaseURL); err != nil {
		return fmt.Errorf("baseURL: %w", err)
	}
	if c.CNAME, err = cname(c.CNAME); err != nil {
		return fmt.Errorf("cname: %w", err)
	}
	c.LanguageCode = cmp.Or(c.LanguageCode, "en")
	c.Title = cmp.Or(c.Title, defaultTitle)
	c.Destination = abs(c.Dir, cmp.Or(c.Destination, "public"))
	if c.CacheDir != "" {
		c.CacheDir = abs(c.Dir, c.CacheDir)
	} else if dir, err := os.UserCacheDir(); err == nil {
		// One cache per site dir, under the user's cache dir.
		c.CacheDir = filepath.Join(dir, "transcriptsite", cache.Key(c.Dir)[:16])
	}
	return nil
}

func (h *Highlight) check() error {
	h.Style = cmp.Or(h.Style, "github")
	h.DarkStyle = cmp.Or(h.DarkStyle, "github-dark")
	return nil
}

// mounts are the content dirs of a site in dir: contentDirs, or
// contentDir (which wins when the command line or the environment gives
// it), or the embedded demo content for a site without a config file,
// and with agents every agent's folders that exist.
func (ct *Content) mounts(dir string, demo, given bool) ([]Mount, error) {
	if demo && !given && len(ct.Dirs) == 0 && !ct.Agents {
		return []Mount{{}}, nil // the embedded demo
	}
	ms, err := dirMounts(dir, ct.dirs(demo, given))
	if err != nil {
		return nil, err
	}
	agents, err := ct.agentMounts()
	if err != nil {
		return nil, err
	}
	ms = append(ms, agents...)
	nameMounts(ms)
	return ms, nil
}

// dirs are the content dirs the config names: contentDir when given,
// else contentDirs, else contentDir or "content" (none for a demo).
func (ct *Content) dirs(demo, given bool) []string {
	switch {
	case given:
		return []string{ct.Dir}
	case len(ct.Dirs) > 0:
		return ct.Dirs
	case demo:
		return nil
	}
	return []string{cmp.Or(ct.Dir, "content")}
}

// dirMounts are the content dirs, resolved against dir; each must exist.
func dirMounts(dir string, dirs []string) ([]Mount, error) {
	var ms []Mount
	for _, d := range dirs {
		d = abs(dir, d)
		if !isDir(d) {
			return nil, fmt.Errorf("contentDir: %s is not a directory", d)
		}
		ms = append(ms, Mount{Dir: d})
	}
	return ms, nil
}

// agentMounts are, with agents, every agent's session folders that exist.
func (ct *Content) agentMounts() ([]Mount, error) {
	if !ct.Agents {
		return nil, nil
	}
	locs, err := ct.agentLocations()
	if err != nil {
		return nil, err
	}
	var ms []Mount
	for _, l := range locs {
		if isDir(l.Dir) {
			ms = append(ms, Mount{Name: l.Name, Dir: l.Dir})
		}
	}
	return ms, nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// OwnSessions is for a config that reads the user's own sessions: the
// embedded config's title and words describe the demo content, not them.
func (c *Config) OwnSessions() {
	if c.File != "" {
		return
	}
	if _, set := os.LookupEnv(config.Env("title")); !set {
		c.Title = defaultTitle
	}
	c.Params = nil
}

// nameMounts names the mounts of a site that reads several content dirs, so
// every source path says which it came from.
func nameMounts(ms []Mount) {
	if len(ms) == 1 && ms[0].Name == "" {
		return
	}
	seen := map[string]bool{}
	for i := range ms {
		n := cmp.Or(ms[i].Name, filepath.Base(ms[i].Dir))
		for k := 2; seen[n]; k++ {
			n = fmt.Sprintf("%s-%d", cmp.Or(ms[i].Name, filepath.Base(ms[i].Dir)), k)
		}
		seen[n] = true
		ms[i].Name = n
	}
}

// agentLocations returns the default session folders of every agent, with
// the config's agentDirs overrides (by format name) applied.
func (ct *Content) agentLocations() ([]ingest.Location, error) {
	home, _ := os.UserHomeDir()
	locs := ingest.AgentLocations(home, os.Getenv)
	for _, format := range slices.Sorted(maps.Keys(ct.AgentDirs)) {
		if ingest.Lookup(format) == nil {
			return nil, fmt.Errorf("agentDirs: %q is not a format (see `transcriptsite formats`)", format)
		}
		locs = slices.DeleteFunc(locs, func(l ingest.Location) bool { return l.Format == format })
		for i, d := range ct.AgentDirs[format] {
			name := format
			if i > 0 {
				name = fmt.Sprintf("%s-%d", format, i+1)
			}
			locs = append(locs, ingest.Location{Format: format, Name: name, Dir: abs(home, expandHome(d, home))})
		}
	}
	return locs, nil
}

func expandHome(p, home string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[1:])
	}
	return p
}

func abs(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}
