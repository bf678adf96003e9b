package config

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"

	"github.com/transcriptsite/transcriptsite/internal/suggest"
)

// How a config decodes into a struct:
//
//   - A field's key is its `config:"key"` tag, matched without regard to
//     case (viper lowers every key); `config:",squash"` puts a struct's
//     fields in its parent's place, and `config:"key,strict"` makes an
//     unknown key anywhere below the field an error rather than a
//     warning (a misspelt filter would otherwise widen what it picks).
//   - A string takes a single value: a number or true gives its text.
//   - A bool takes true or false, also as text ("false" from the
//     environment).
//   - A float takes a number.
//   - A []string takes a list of strings, or one string as a list of one;
//     a SplitList takes one string as a list separated as in $PATH.
//   - A time.Time takes a day, 2026-01-31, as text or as YAML's date.
//   - A struct or a map takes a map, and a list a list.

const tagName = "config"

// SplitList is a list of strings that may also be given as one string of
// items separated as in $PATH, which is how the environment gives a list.
type SplitList []string

var (
	timeType      = reflect.TypeFor[time.Time]()
	splitListType = reflect.TypeFor[SplitList]()
)

// decode decodes in into dst and sorts the keys it had no field for into
// warnings, and errors below a strict field.
func decode(in map[string]any, dst any) ([]string, error) {
	var md mapstructure.Metadata
	d, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{DecodeHook: hook, Metadata: &md, Result: dst, TagName: tagName})
	if err != nil {
		return nil, err
	}
	if err := d.Decode(in); err != nil {
		return nil, err
	}
	slices.Sort(md.Unused)
	var warns []string
	var errs []error
	for _, key := range md.Unused {
		strict, known := lookup(reflect.TypeOf(dst), key)
		hint := meant(key, known)
		if strict {
			errs = append(errs, fmt.Errorf("%s: unknown%s; want any of %s", key, hint, strings.Join(known, ", ")))
		} else {
			warns = append(warns, fmt.Sprintf("unknown key %q is ignored%s", key, hint))
		}
	}
	return warns, errors.Join(errs...)
}

// meant says which key a misspelt one likely is, or "".
func meant(key string, known []string) string {
	parts := split(key)
	if len(parts) == 0 {
		return ""
	}
	last := parts[len(parts)-1]
	near := suggest.Closest(last, known)
	if near == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", strings.TrimSuffix(key, last)+near)
}

// hook turns what a file or the environment gives into the field's type,
// or says what the field wants.
func hook(from, to reflect.Value) (any, error) {
	t := deref(to.Type())
	if h, ok := typeHooks[t]; ok {
		return h(from, t)
	}
	if h, ok := kindHooks[t.Kind()]; ok {
		return h(from, t)
	}
	return from.Interface(), nil
}

// A hookFunc turns from into a field of the type t, or says what t wants.
type hookFunc func(from reflect.Value, t reflect.Type) (any, error)

// typeHooks are the hooks of the types that are read their own way.
var typeHooks = map[reflect.Type]hookFunc{
	splitListType: pathList,
	timeType:      value(day),
}

// kindHooks are the hooks by the kind of the field; a kind without one
// takes the value as it is.
var kindHooks = map[reflect.Kind]hookFunc{
	reflect.String:  value(scalar),
	reflect.Bool:    value(boolean),
	reflect.Float32: value(number),
	reflect.Float64: value(number),
	reflect.Slice:   list,
	reflect.Map:     mapOf,
	reflect.Struct:  structOf,
}

// value makes a hook of a function of the value alone.
func value[T any](f func(any) (T, error)) hookFunc {
	return func(from reflect.Value, _ reflect.Type) (any, error) { return f(from.Interface()) }
}

// pathList is a list of paths: a list, or a string of paths separated as
// the system separates them in $PATH.
func pathList(from reflect.Value, _ reflect.Type) (any, error) {
	if s, ok := from.Interface().(string); ok {
		return SplitList(filepath.SplitList(s)), nil
	}
	return stringList(from.Interface())
}

// list is a list; of strings, a string is a list of one.
func list(from reflect.Value, t reflect.Type) (any, error) {
	data := from.Interface()
	if t.Elem().Kind() == reflect.String {
		if s, ok := data.(string); ok {
			return []string{s}, nil
		}
		return stringList(data)
	}
	if from.Kind() != reflect.Slice {
		return nil, fmt.Errorf("want a list, got %s", describe(data))
	}
	return data, nil
}

func mapOf(from reflect.Value, _ reflect.Type) (any, error) {
	if from.Kind() != reflect.Map {
		return nil, fmt.Errorf("want a map, got %s", describe(from.Interface()))
	}
	return from.Interface(), nil
}

// structOf is a map of a struct's keys.
func structOf(from reflect.Value, t reflect.Type) (any, error) {
	if from.Kind() != reflect.Map {
		return nil, fmt.Errorf("want a map with any of %s, got %s", strings.Join(keys(t), ", "), describe(from.Interface()))
	}
	return from.Interface(), nil
}

func scalar(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case int, int64, uint64, float64, bool:
		return fmt.Sprint(x), nil
	}
	return "", fmt.Errorf("want a single value, got %s", describe(v))
}

func boolean(v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		b, err := strconv.ParseBool(x)
		if err != nil {
			return false, fmt.Errorf("want true or false, got %q", x)
		}
		return b, nil
	}
	return false, fmt.Errorf("want true or false, got %s", describe(v))
}

func number(v any) (float64, error) {
	switch x := v.(type) {
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case uint64:
		return float64(x), nil
	case float64:
		return x, nil
	}
	return 0, fmt.Errorf("want a number, got %s", describe(v))
}

func stringList(v any) ([]string, error) {
	switch x := v.(type) {
	case []string:
		return x, nil
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("want a list of strings, got %s in it", describe(e))
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a list of strings, got %s", describe(v))
}

// describe says what a value of a config is, in words a user knows from
// the file they wrote, not Go's names for its types.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "nothing"
	case []any, []string:
		return fmt.Sprintf("a list (%v)", x)
	case map[string]any:
		return "a map (" + strings.Join(slices.Sorted(maps.Keys(x)), ", ") + ")"
	case string:
		return strconv.Quote(x)
	case bool:
		return fmt.Sprintf("%v (true or false)", x)
	case int, int64, uint64, float64:
		return fmt.Sprintf("the number %v", x)
	}
	return fmt.Sprintf("%v", v)
}

// day reads a day: YAML gives a time for an unquoted one.
func day(v any) (time.Time, error) {
	switch x := v.(type) {
	case time.Time:
		return x.UTC().Truncate(24 * time.Hour), nil
	case string:
		t, err := time.Parse(time.DateOnly, x)
		if err != nil {
			return t, fmt.Errorf("want a date such as 2026-01-31, got %q", x)
		}
		return t, nil
	}
	return time.Time{}, fmt.Errorf("want a date such as 2026-01-31, got %s", describe(v))
}

// keys lists the keys of the struct t's fields.
func keys(t reflect.Type) []string {
	var out []string
	for _, f := range fields(t) {
		if f.squash {
			out = append(out, keys(deref(f.Type))...)
		} else {
			out = append(out, f.key)
		}
	}
	return out
}

// lookup follows key, as the decoder names it (a.b[k].c), through the type
// t to the struct that has no field for its last part, and says whether a
// field on the way is strict, and which keys that struct has.
func lookup(t reflect.Type, key string) (strict bool, known []string) {
	parts := split(key)
	if len(parts) == 0 {
		return false, nil
	}
	for _, p := range parts[:len(parts)-1] {
		f, ok := step(deref(t), p)
		if !ok {
			return false, nil
		}
		strict, t = strict || f.strict, f.Type
	}
	return strict, keys(deref(t))
}

// step follows a part of a key from t: an element's [key] or [index] to
// the map's or the list's elements, a name to the struct's field.
func step(t reflect.Type, p string) (field, bool) {
	if !strings.HasPrefix(p, "[") {
		return fieldFor(t, p)
	}
	if t.Kind() != reflect.Map && t.Kind() != reflect.Slice {
		return field{}, false
	}
	return field{StructField: reflect.StructField{Type: t.Elem()}}, true
}

// fieldFor finds the field of the struct t that key sets.
func fieldFor(t reflect.Type, key string) (field, bool) {
	if t.Kind() != reflect.Struct {
		return field{}, false
	}
	for _, f := range fields(t) {
		if f.squash {
			if sub, ok := fieldFor(deref(f.Type), key); ok {
				return sub, true
			}
		} else if strings.EqualFold(f.key, key) {
			return f, true
		}
	}
	return field{}, false
}

// split splits a key as the decoder names it into its parts: names, and
// the [key] or [index] of an element.
func split(key string) []string {
	var out []string
	for key != "" {
		switch key[0] {
		case '.':
			key = key[1:]
		case '[':
			i := strings.IndexByte(key, ']')
			if i < 0 {
				i = len(key) - 1
			}
			out = append(out, key[:i+1])
			key = key[i+1:]
		default:
			i := strings.IndexAny(key, ".[")
			if i < 0 {
				i = len(key)
			}
			out = append(out, key[:i])
			key = key[i:]
		}
	}
	return out
}
