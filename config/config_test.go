package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

type section struct {
	Style string   `config:"style"`
	On    bool     `config:"on"`
	List  []string `config:"list"`
}

type filter struct {
	Names []string  `config:"names"`
	From  time.Time `config:"from"`
}

type embedded struct {
	Deep string `config:"deep"`
}

type testConfig struct {
	Title    string                          `config:"title"`
	Dirs     SplitList                       `config:"dirs"`
	Section  section                         `config:"section"`
	Filter   *filter                         `config:"filter,strict"`
	Prices   map[string]struct{ In float64 } `config:"prices"`
	Params   map[string]any                  `config:"params"`
	Embedded embedded                        `config:",squash"`
	Resolved string                          `config:"-"`
}

func load(t *testing.T, body string, overrides map[string]any) (*testConfig, []string, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &testConfig{Section: section{On: true}}
	_, warns, err := Load(Options{Dir: dir, Overrides: overrides}, c)
	return c, warns, err
}

// The environment sets any key, in the file or not, and a flag wins over
// both; free-form maps keep keys with dots, which viper's own flattening
// would split.
func TestLayers(t *testing.T) {
	t.Setenv("TRANSCRIPTSITE_SECTION_STYLE", "env")
	t.Setenv("TRANSCRIPTSITE_SECTION_ON", "false")
	t.Setenv("TRANSCRIPTSITE_DIRS", "a"+string(os.PathListSeparator)+"b")
	t.Setenv("TRANSCRIPTSITE_DEEP", "squashed")
	c, warns, err := load(t, "title: file\nsection:\n  style: file\n  list: one\nprices:\n  gpt-4.1: {in: 2}\nparams:\n  a.b: c\n",
		map[string]any{"title": "flag"})
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	want := &testConfig{Title: "flag", Dirs: SplitList{"a", "b"}, Section: section{Style: "env", On: false, List: []string{"one"}},
		Prices: map[string]struct{ In float64 }{"gpt-4.1": {2}}, Params: map[string]any{"a.b": "c"}, Embedded: embedded{"squashed"}}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got  %+v\nwant %+v", c, want)
	}
}

// A variable named as a section is no key of it: TRANSCRIPTSITE_SASS names
// the Dart Sass binary, and with viper's automatic environment it replaced
// the config's whole sass section with a string, which failed the build.
func TestEnvNamedAsASection(t *testing.T) {
	t.Setenv("TRANSCRIPTSITE_SECTION", "/usr/bin/something")
	t.Setenv("TRANSCRIPTSITE_PARAMS", "x")
	c, warns, err := load(t, "section:\n  style: file\nparams:\n  a: b\n", nil)
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	if c.Section.Style != "file" || c.Params["a"] != "b" {
		t.Errorf("the sections became %+v and %v", c.Section, c.Params)
	}
}

func TestUnknownKeysAndTypes(t *testing.T) {
	_, warns, err := load(t, "titel: x\nsection:\n  stlye: y\nresolved: z\n", nil)
	got := strings.Join(warns, "\n")
	// A slip names the key meant; a key like none names none.
	if err != nil || len(warns) != 3 || !strings.Contains(got, `config.yaml: unknown key "section.stlye" is ignored (did you mean "section.style"?)`) ||
		!strings.Contains(got, `unknown key "titel" is ignored (did you mean "title"?)`) || !slices.ContainsFunc(warns, func(w string) bool { return strings.HasSuffix(w, `unknown key "resolved" is ignored`) }) {
		t.Errorf("warnings %q, err %v", warns, err)
	}
	// What a key got is said in the words of the file, not Go's types.
	for body, want := range map[string]string{
		"filter:\n  nmaes: [a]\n":   `filter.nmaes: unknown (did you mean "filter.names"?); want any of names, from`,
		"filter:\n  from: May\n":    `filter.from: want a date such as 2026-01-31, got "May"`,
		"filter: x\n":               `filter: want a map with any of names, from, got "x"`,
		"title: [a]\n":              "title: want a single value, got a list ([a])",
		"section:\n  on: perhaps\n": `section.on: want true or false, got "perhaps"`,
		"section:\n  list: [1]\n":   "section.list: want a list of strings, got the number 1 in it",
		"prices:\n  m: {in: x}\n":   `prices[m].In: want a number, got "x"`,
		"params: 3\n":               "params: want a map, got the number 3",
		"dirs: {a: b}\n":            "dirs: want a list of strings, got a map (a)",
	} {
		_, _, err := load(t, body, nil)
		if err == nil || !strings.Contains(err.Error(), "config.yaml: "+want) {
			t.Errorf("%q: err %v, want %q", body, err, want)
		}
	}
}

func TestKeys(t *testing.T) {
	got := strings.Join(Keys(&testConfig{}), " ")
	if want := "title dirs section section.style section.on section.list filter filter.names filter.from prices params deep"; got != want {
		t.Errorf("keys %q, want %q", got, want)
	}
}
