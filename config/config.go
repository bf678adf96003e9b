// Package config reads a site's configuration, in one place: its file
// (YAML, TOML or JSON), then the environment (TRANSCRIPTSITE_<KEY>), then
// the command line's flags, each over the one before. It decodes the
// whole into one typed struct whose sections are types of the packages
// that use them (redaction's of redact, search's of the search index), so
// each package owns its keys, their defaults and their checks. Keys the
// struct has no field for, and values of the wrong type, are reported
// from the decoder's own account of what it did: there is no second list
// of keys to keep in step.
package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
)

// EnvPrefix starts the environment variables that set keys:
// TRANSCRIPTSITE_BASEURL sets baseURL, TRANSCRIPTSITE_HIGHLIGHT_STYLE sets
// highlight.style.
const EnvPrefix = "TRANSCRIPTSITE"

// Env is the environment variable that sets key.
func Env(key string) string {
	return EnvPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// Names are the config files a site dir may hold, looked for in this order.
var Names = []string{"config.yaml", "config.yml", "config.toml", "config.json"}

// Options say where a config is and what overrides it.
type Options struct {
	Dir       string         // the site dir
	File      string         // an explicit config file; "" looks for one of Names in Dir
	Default   []byte         // the YAML read when there is no file
	Overrides map[string]any // values by key, from flags: they win over everything
}

// Source is where a config was read from.
type Source struct {
	File string // the file read, or "" for Options.Default
	Name string // what messages call it
}

// Load reads the config and decodes it into dst, a pointer to a struct
// whose fields name their keys in `config:"key"` tags (see the package's
// decoding rules in decode.go). dst holds the defaults: a key the config
// does not set leaves its field as it is. Load returns a warning for each
// key that dst has no field for, sorted; a value of the wrong type, or an
// unknown key below a field tagged strict, is an error that names the file
// and the key.
func Load(o Options, dst any) (Source, []string, error) {
	v, src, err := read(o)
	if err != nil {
		return src, nil, err
	}
	warns, err := decode(tree(v, reflect.TypeOf(dst).Elem()), dst)
	for i, w := range warns {
		warns[i] = src.Name + ": " + w
	}
	if err != nil {
		return src, warns, prefix(src.Name, err)
	}
	return src, warns, nil
}

// read reads the config file, or the default, with the environment and
// the overrides over it.
func read(o Options) (*viper.Viper, Source, error) {
	v := viper.New()
	v.SetEnvPrefix(EnvPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	// The environment is bound key by key (tree), not automatically: then
	// a variable named as a whole section (TRANSCRIPTSITE_SASS, which
	// names the Dart Sass binary) replaced the section with a string.
	src := source(o)
	if err := readSource(v, &src, o.Default); err != nil {
		return nil, src, err
	}
	for k, val := range o.Overrides {
		v.Set(k, val)
	}
	return v, src, nil
}

// source is the config file: the one given, else the first of Names in
// the dir; none when there is none.
func source(o Options) Source {
	if o.File != "" {
		return Source{File: o.File, Name: o.File}
	}
	for _, n := range Names {
		if p := filepath.Join(o.Dir, n); fileExists(p) {
			return Source{File: p, Name: p}
		}
	}
	return Source{}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// readSource reads the config file into v, or without one the default,
// and then names src after it.
func readSource(v *viper.Viper, src *Source, def []byte) error {
	if src.File != "" {
		v.SetConfigFile(src.File)
		if err := v.ReadInConfig(); err != nil {
			return fmt.Errorf("config %s: %w", src.File, err)
		}
		return nil
	}
	src.Name = "config.yaml (embedded demo)"
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(def)); err != nil {
		return fmt.Errorf("embedded config: %w", err)
	}
	return nil
}

// tree is the whole config as one map, for the decoder. viper flattens
// keys at their dots, so the free-form maps (params, pricing, whose model
// names have dots) are taken whole from where they are; the keys of t's
// fields are then each read through viper, which gives the environment and
// the overrides their precedence.
func tree(v *viper.Viper, t reflect.Type) map[string]any {
	out := map[string]any{}
	for _, k := range v.AllKeys() {
		top, _, _ := strings.Cut(k, ".")
		if _, ok := out[top]; !ok {
			if val := v.Get(top); val != nil {
				out[top] = val
			}
		}
	}
	for _, key := range leaves(t, "") {
		v.BindEnv(key)
		if val := v.Get(key); val != nil {
			set(out, strings.Split(key, "."), val)
		}
	}
	return out
}

// set sets the value at path in m, copying the maps on the way, which are
// viper's. A value under one that is not a map is left out: the decoder
// reports the value that is not.
func set(m map[string]any, path []string, val any) {
	if len(path) == 1 {
		m[path[0]] = val
		return
	}
	var sub map[string]any
	switch x := m[path[0]].(type) {
	case nil:
		sub = map[string]any{}
	case map[string]any:
		sub = make(map[string]any, len(x)+1)
		for k, v := range x {
			sub[k] = v
		}
	default:
		return
	}
	set(sub, path[1:], val)
	m[path[0]] = sub
}

// leaves lists the keys of t's fields that hold a value, not a section:
// those the environment can set. Free-form maps are not among them.
func leaves(t reflect.Type, prefix string) []string {
	var out []string
	for _, f := range fields(t) {
		key := prefix + f.key
		switch ft := deref(f.Type); {
		case f.squash:
			out = append(out, leaves(ft, prefix)...)
		case ft.Kind() == reflect.Struct && ft != timeType:
			out = append(out, leaves(ft, key+".")...)
		case ft.Kind() != reflect.Map && ft.Kind() != reflect.Interface:
			out = append(out, strings.ToLower(key))
		}
	}
	return out
}

// field is a struct field with the key that sets it.
type field struct {
	reflect.StructField
	key    string
	squash bool // its fields are its parent's
	strict bool // an unknown key below it is an error
}

// fields lists the fields of the struct t that a key sets.
func fields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get(tagName)
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		o := strings.Split(opts, ",")
		out = append(out, field{f, cmp.Or(name, f.Name), slices.Contains(o, "squash"), slices.Contains(o, "strict")})
	}
	return out
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// prefix names the config in every error of err.
func prefix(name string, err error) error {
	var errs []error
	for _, e := range flatten(err) {
		errs = append(errs, fmt.Errorf("%s: %w", name, e))
	}
	return errors.Join(errs...)
}

// flatten lists the errors err joins, each naming its key.
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	var de *mapstructure.DecodeError
	if errors.As(err, &de) {
		inner := de.Unwrap()
		if _, nested := inner.(interface{ Unwrap() []error }); nested {
			return flatten(inner)
		}
		if _, nested := inner.(*mapstructure.DecodeError); nested {
			return flatten(inner)
		}
		return []error{fmt.Errorf("%s: %w", de.Name(), inner)}
	}
	return []error{err}
}

// DecodeTOML decodes the TOML text into dst as viper does, for the
// configs of libraries made for it (gitleaks' rules).
func DecodeTOML(text string, dst any) error {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(text)); err != nil {
		return err
	}
	return v.Unmarshal(dst)
}

// Keys lists the keys of the config struct that dst points to, dotted
// (highlight, highlight.style), sections before their keys; the keys of
// free-form maps and of list elements are not among them.
func Keys(dst any) []string {
	return keyPaths(reflect.TypeOf(dst).Elem(), "")
}

func keyPaths(t reflect.Type, prefix string) []string {
	var out []string
	for _, f := range fields(t) {
		ft := deref(f.Type)
		if f.squash {
			out = append(out, keyPaths(ft, prefix)...)
			continue
		}
		out = append(out, prefix+f.key)
		if ft.Kind() == reflect.Struct && ft != timeType {
			out = append(out, keyPaths(ft, prefix+f.key+".")...)
		}
	}
	return out
}
