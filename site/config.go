// Package site builds the static site: config, URLs, pages and output.
package site

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/viper"

	transcriptsite "github.com/transcriptsite/transcriptsite"
	"github.com/transcriptsite/transcriptsite/ingest"
)

// Config is a site's configuration, resolved: paths are absolute and every
// value has been checked.
type Config struct {
	Title        string
	BaseURL      string // "" (a portable site), a path such as /repo/, or an absolute URL; ends in /
	LanguageCode string
	Destination  string
	Agents       bool   // read every installed agent's default session folders too
	CacheDir     string // where builds keep what they may reuse; "" for none
	Params       map[string]any
	Highlight    Highlight
	Pricing      Pricing // model prices for cost estimates
	Sass         struct{ Binary string }
	Search       map[string]bool // what the search index holds (search.include); nil: no search
	Redact       Redact          // what is redacted before anything is written
	Outputs      Outputs         // which exports are written beside each session page
	Selection    Selection       // which sessions the site shows (publish.include, publish.exclude, hide)
	CNAME        string          // the custom domain of a GitHub Pages site
	ShowAll      bool            // show every session, whatever the selection says

	Dir    string  // the site dir
	File   string  // the config file read, or "" for the embedded demo config
	Mounts []Mount // the content dirs; one with an empty Dir is the embedded demo
	Theme  fs.FS   // templates/ and assets/: the site's own over the embedded theme
}

// Mount is a content dir as the site reads it.
type Mount struct {
	Name string // prefixes the sources of its files when the site has several
	Dir  string // absolute; "" for the embedded demo content
}

// Content returns the mounts to read.
func (c *Config) Content() []ingest.Root {
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
	Style     string // chroma style for the light scheme
	DarkStyle string // chroma style for the dark scheme
}

// Options say where to find the config and what overrides it.
type Options struct {
	Source     string         // the site dir; default "."
	ConfigFile string         // an explicit config file
	Overrides  map[string]any // flag values, by config key; they win over everything
	ShowAll    bool           // ignore publish.include, publish.exclude and hide (for serve)
}

// keys are the config keys, lower-cased as viper keeps them, with their
// sub-keys where they have fixed ones.
var keys = map[string][]string{
	"title":        nil,
	"baseurl":      nil,
	"languagecode": nil,
	"contentdir":   nil,
	"contentdirs":  nil,
	"agents":       nil,
	"agentdirs":    nil, // by format name, free-form
	"destination":  nil,
	"cachedir":     nil,
	"params":       nil, // free-form, for templates
	"highlight":    {"style", "darkstyle"},
	"pricing":      nil, // by model name prefix
	"sass":         {"binary"},
	"search":       {"include", "enabled"},
	"redact":       {"enabled", "patterns", "literals", "paths"},
	"outputs":      {"markdown", "json"},
	"publish":      {"include", "exclude"},
	"hide":         nil, // session ids and source globs
	"cname":        nil,
}

// defaultTitle is the title of a site whose config sets none.
const defaultTitle = "Agent sessions"

// configNames are the file names looked for in the site dir, in order.
var configNames = []string{"config.yaml", "config.yml", "config.toml", "config.json"}

// LoadConfig reads the site's config. Without a config file in the site dir
// it uses the embedded demo config and, unless a content dir is given, the
// embedded demo content. Warnings are about keys that were ignored.
func LoadConfig(o Options) (*Config, []string, error) {
	src, err := filepath.Abs(cmp.Or(o.Source, "."))
	if err != nil {
		return nil, nil, err
	}
	v := viper.New()
	v.SetEnvPrefix("TRANSCRIPTSITE")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()

	file := o.ConfigFile
	if file == "" {
		for _, n := range configNames {
			if _, err := os.Stat(filepath.Join(src, n)); err == nil {
				file = filepath.Join(src, n)
				break
			}
		}
	}
	name := "config.yaml (embedded demo)"
	if file != "" {
		v.SetConfigFile(file)
		if err := v.ReadInConfig(); err != nil {
			return nil, nil, fmt.Errorf("config %s: %w", file, err)
		}
		name = file
	} else {
		v.SetConfigType("yaml")
		if err := v.ReadConfig(bytes.NewReader(transcriptsite.DemoConfig)); err != nil {
			return nil, nil, fmt.Errorf("embedded config: %w", err)
		}
	}
	for k, val := range o.Overrides {
		v.Set(k, val)
	}

	var warns []string
	for k, val := range v.AllSettings() {
		sub, known := keys[k]
		if !known {
			warns = append(warns, fmt.Sprintf("%s: unknown key %q is ignored", name, k))
			continue
		}
		if m, ok := val.(map[string]any); ok && sub != nil {
			for sk := range m {
				if !slices.Contains(sub, sk) {
					warns = append(warns, fmt.Sprintf("%s: unknown key %q is ignored", name, k+"."+sk))
				}
			}
		}
	}
	slices.Sort(warns)

	c := &Config{Dir: src, File: file}
	get := func(key string, dst *string) {
		if err == nil {
			*dst, err = str(v, key)
			if err != nil {
				err = fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	get("title", &c.Title)
	get("baseURL", &c.BaseURL)
	get("languageCode", &c.LanguageCode)
	var contentDir string
	get("contentDir", &contentDir)
	get("destination", &c.Destination)
	get("cacheDir", &c.CacheDir)
	get("highlight.style", &c.Highlight.Style)
	get("highlight.darkStyle", &c.Highlight.DarkStyle)
	get("sass.binary", &c.Sass.Binary)
	get("cname", &c.CNAME)
	if err != nil {
		return nil, warns, err
	}
	if p := v.Get("params"); p != nil {
		m, ok := p.(map[string]any)
		if !ok {
			return nil, warns, fmt.Errorf("%s: params: want a map of values for the theme, got %T", name, p)
		}
		c.Params = m
	}
	if c.BaseURL, err = normBaseURL(c.BaseURL); err != nil {
		return nil, warns, fmt.Errorf("%s: baseURL: %w", name, err)
	}
	c.LanguageCode = cmp.Or(c.LanguageCode, "en")
	c.Title = cmp.Or(c.Title, defaultTitle)
	c.Highlight.Style = cmp.Or(c.Highlight.Style, "github")
	c.Highlight.DarkStyle = cmp.Or(c.Highlight.DarkStyle, "github-dark")
	c.Destination = abs(src, cmp.Or(c.Destination, "public"))
	if c.CacheDir != "" {
		c.CacheDir = abs(src, c.CacheDir)
	} else if dir, err := os.UserCacheDir(); err == nil {
		// One cache per site dir, under the user's cache dir.
		c.CacheDir = filepath.Join(dir, "transcriptsite", ingest.Key(src)[:16])
	}

	if c.Pricing, err = pricing(v); err != nil {
		return nil, warns, fmt.Errorf("%s: %w", name, err)
	}
	if c.Search, err = searchInclude(v); err != nil {
		return nil, warns, fmt.Errorf("%s: %w", name, err)
	}
	if v.Get("search.enabled") != nil {
		on, err := boolean(v, "search.enabled")
		if err != nil {
			return nil, warns, fmt.Errorf("%s: %w", name, err)
		}
		if !on {
			c.Search = nil
		}
	}
	if c.Agents, err = boolean(v, "agents"); err != nil {
		return nil, warns, fmt.Errorf("%s: %w", name, err)
	}
	if c.Redact, err = redactConfig(v); err != nil {
		return nil, warns, fmt.Errorf("%s: %w", name, err)
	}
	if c.Outputs, err = outputs(v); err != nil {
		return nil, warns, fmt.Errorf("%s: %w", name, err)
	}
	if c.Selection, err = selection(v); err != nil {
		return nil, warns, fmt.Errorf("%s: %w", name, err)
	}
	if c.CNAME, err = cname(c.CNAME); err != nil {
		return nil, warns, fmt.Errorf("%s: cname: %w", name, err)
	}
	c.ShowAll = o.ShowAll
	dirs, err := list(v, "contentDirs")
	if err != nil {
		return nil, warns, fmt.Errorf("%s: %w", name, err)
	}
	_, envContent := os.LookupEnv("TRANSCRIPTSITE_CONTENTDIR")
	_, flagContent := o.Overrides["contentDir"]
	switch {
	case flagContent || envContent:
		dirs = []string{contentDir} // the single form wins when it is given on the command line
	case len(dirs) > 0:
	case file == "":
		if !c.Agents {
			c.Mounts = []Mount{{}} // the embedded demo
		}
	default:
		dirs = []string{cmp.Or(contentDir, "content")}
	}
	for _, d := range dirs {
		dir := abs(src, d)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, warns, fmt.Errorf("%s: contentDir: %s is not a directory", name, dir)
		}
		c.Mounts = append(c.Mounts, Mount{Dir: dir})
	}
	if c.Agents {
		agentDirs, err := agentLocations(v)
		if err != nil {
			return nil, warns, fmt.Errorf("%s: %w", name, err)
		}
		for _, l := range agentDirs {
			if fi, err := os.Stat(l.Dir); err == nil && fi.IsDir() {
				c.Mounts = append(c.Mounts, Mount{Name: l.Name, Dir: l.Dir})
			}
		}
		if len(c.Mounts) == 0 {
			warns = append(warns, "agents: no agent session folders found here (see `transcriptsite formats`)")
		}
	}
	if !(len(c.Mounts) == 1 && c.Mounts[0].Dir == "") {
		c.ownSessions()
	}
	nameMounts(c.Mounts)
	c.Theme = overlay{upper: os.DirFS(src), lower: transcriptsite.FS}
	return c, warns, nil
}

// ownSessions is for a config that reads the user's own sessions: the
// embedded config's title and words describe the demo content, not them.
func (c *Config) ownSessions() {
	if c.File != "" {
		return
	}
	if _, set := os.LookupEnv("TRANSCRIPTSITE_TITLE"); !set {
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
func agentLocations(v *viper.Viper) ([]ingest.Location, error) {
	home, _ := os.UserHomeDir()
	locs := ingest.AgentLocations(home, os.Getenv)
	overrides, ok := v.Get("agentDirs").(map[string]any)
	if !ok {
		if v.Get("agentDirs") != nil {
			return nil, fmt.Errorf("agentDirs: want a map of format name to folders, got %T", v.Get("agentDirs"))
		}
		return locs, nil
	}
	for format := range overrides {
		if ingest.Lookup(format) == nil {
			return nil, fmt.Errorf("agentDirs: %q is not a format (see `transcriptsite formats`)", format)
		}
		dirs, err := list(v, "agentDirs."+format)
		if err != nil {
			return nil, err
		}
		locs = slices.DeleteFunc(locs, func(l ingest.Location) bool { return l.Format == format })
		for i, d := range dirs {
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

// list returns a config value that is a list of strings; a single string
// is a list of paths separated as in $PATH.
func list(v *viper.Viper, key string) ([]string, error) {
	switch x := v.Get(key).(type) {
	case nil:
		return nil, nil
	case string:
		return filepath.SplitList(x), nil
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%s: want a list of strings, got %v in it", key, e)
			}
			out[i] = s
		}
		return out, nil
	case []string:
		return x, nil
	default:
		return nil, fmt.Errorf("%s: want a list of strings, got %T", key, x)
	}
}

// boolean returns a config value that is true or false.
func boolean(v *viper.Viper, key string) (bool, error) {
	switch x := v.Get(key).(type) {
	case nil:
		return false, nil
	case bool:
		return x, nil
	case string:
		b, err := strconv.ParseBool(x)
		if err != nil {
			return false, fmt.Errorf("%s: want true or false, got %q", key, x)
		}
		return b, nil
	default:
		return false, fmt.Errorf("%s: want true or false, got %v", key, x)
	}
}

// str returns a scalar config value as a string, or an error naming the key.
func str(v *viper.Viper, key string) (string, error) {
	switch x := v.Get(key).(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case int, int64, float64, bool:
		return fmt.Sprint(x), nil
	default:
		return "", fmt.Errorf("%s: want a single value, got %T", key, x)
	}
}

// normBaseURL checks a base URL and gives it its trailing slash.
func normBaseURL(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	switch {
	case u.Scheme == "" && u.Host == "" && strings.HasPrefix(u.Path, "/"):
	case (u.Scheme == "http" || u.Scheme == "https") && u.Host != "":
	default:
		return "", errors.New(fmt.Sprintf("%q", s) + " is neither an absolute http(s) URL nor a path starting with /")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", errors.New(fmt.Sprintf("%q", s) + " must not have a query or fragment")
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u.String(), nil
}

func abs(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}
