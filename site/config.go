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
	"strings"

	"github.com/spf13/viper"

	transcriptsite "github.com/transcriptsite/transcriptsite"
)

// Config is a site's configuration, resolved: paths are absolute and every
// value has been checked.
type Config struct {
	Title        string
	BaseURL      string // "" (a portable site), a path such as /repo/, or an absolute URL; ends in /
	LanguageCode string
	ContentDir   string // as the user gave it, for messages; "(embedded demo)" for the demo
	Destination  string
	Params       map[string]any
	Highlight    Highlight

	Dir     string // the site dir
	File    string // the config file read, or "" for the embedded demo config
	Content fs.FS  // the content dir
	Theme   fs.FS  // templates/ and assets/: the site's own over the embedded theme
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
}

// keys are the config keys, lower-cased as viper keeps them, with their
// sub-keys where they have fixed ones.
var keys = map[string][]string{
	"title":        nil,
	"baseurl":      nil,
	"languagecode": nil,
	"contentdir":   nil,
	"destination":  nil,
	"params":       nil, // free-form, for templates
	"highlight":    {"style", "darkstyle"},
}

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
	get("contentDir", &c.ContentDir)
	get("destination", &c.Destination)
	get("highlight.style", &c.Highlight.Style)
	get("highlight.darkStyle", &c.Highlight.DarkStyle)
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
	c.Title = cmp.Or(c.Title, "Agent sessions")
	c.Highlight.Style = cmp.Or(c.Highlight.Style, "github")
	c.Highlight.DarkStyle = cmp.Or(c.Highlight.DarkStyle, "github-dark")
	c.Destination = abs(src, cmp.Or(c.Destination, "public"))

	_, envContent := os.LookupEnv("TRANSCRIPTSITE_CONTENTDIR")
	_, flagContent := o.Overrides["contentDir"]
	if file == "" && !envContent && !flagContent {
		c.ContentDir = "(embedded demo)"
		c.Content, _ = fs.Sub(transcriptsite.FS, "content")
	} else {
		dir := abs(src, cmp.Or(c.ContentDir, "content"))
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, warns, fmt.Errorf("%s: contentDir: %s is not a directory", name, dir)
		}
		c.ContentDir = dir
		c.Content = os.DirFS(dir)
	}
	c.Theme = overlay{upper: os.DirFS(src), lower: transcriptsite.FS}
	return c, warns, nil
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
