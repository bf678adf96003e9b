package sass

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// compiler starts Dart Sass, or skips the test when it is not installed.
func compiler(t *testing.T) *Compiler {
	t.Helper()
	wd, _ := os.Getwd()
	bin, err := Find("", wd, filepath.Dir(wd))
	if err != nil {
		if os.Getenv("TRANSCRIPTSITE_CI") != "" {
			t.Fatalf("no Dart Sass in CI: %v", err)
		}
		t.Skipf("no Dart Sass: %v (%s)", err, Install)
	}
	c, err := Start(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestCompileResolvesModulesAndVariables(t *testing.T) {
	c := compiler(t)
	fsys := fstest.MapFS{
		"assets/scss/main.scss":          {Data: []byte(`@use "variables" as v; @use "parts/button"; body { color: v.$accent; }`)},
		"assets/scss/_variables.scss":    {Data: []byte(`$accent: blue !default;`)},
		"assets/scss/parts/_button.scss": {Data: []byte(`@use "../variables" as v; .btn { border-color: v.$accent; }`)},
	}
	css, err := c.Compile(fsys, "assets/scss/main.scss", nil)
	if err != nil {
		t.Fatal(err)
	}
	if css != ".btn{border-color:blue}body{color:blue}" {
		t.Errorf("css = %q", css)
	}
	css, err = c.Compile(fsys, "assets/scss/main.scss", map[string]string{"accent": "#ff6600"})
	if err != nil {
		t.Fatal(err)
	}
	if css != ".btn{border-color:#f60}body{color:#f60}" {
		t.Errorf("with $accent: css = %q", css)
	}
	// The transpiler survives an error and names the file and line.
	fsys["assets/scss/bad.scss"] = &fstest.MapFile{Data: []byte("a {\n  color: $nope;\n}")}
	_, err = c.Compile(fsys, "assets/scss/bad.scss", nil)
	if err == nil || !strings.Contains(err.Error(), "Undefined variable") || !strings.Contains(err.Error(), "bad.scss") {
		t.Errorf("err = %v", err)
	}
	if _, err := c.Compile(fsys, "assets/scss/main.scss", nil); err != nil {
		t.Errorf("after an error: %v", err)
	}
}

func TestFindOrder(t *testing.T) {
	dir := t.TempDir()
	npm := filepath.Join(dir, "node_modules", "sass-embedded-linux-x64", "dart-sass", "sass")
	_ = os.MkdirAll(filepath.Dir(npm), 0o755)
	_ = os.WriteFile(npm, []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("PATH", t.TempDir())
	t.Setenv("TRANSCRIPTSITE_SASS", "")
	t.Setenv("DART_SASS_BINARY", "")
	if got, err := Find("", dir); err != nil || got != npm {
		t.Errorf("node_modules: %q %v", got, err)
	}
	t.Setenv("DART_SASS_BINARY", "/no/such/sass")
	if _, err := Find("", dir); err == nil || !strings.Contains(err.Error(), "DART_SASS_BINARY") {
		t.Errorf("a bad DART_SASS_BINARY must be reported, got %v", err)
	}
	if _, err := Find("", t.TempDir()); err == nil {
		t.Error("found a binary where there is none")
	}
}

func TestStartChecksTheProtocol(t *testing.T) {
	old := filepath.Join(t.TempDir(), "sass")
	_ = os.WriteFile(old, []byte("#!/bin/sh\necho '{\"protocolVersion\":\"2.7.1\",\"compilerVersion\":\"1.70.0\"}'\n"), 0o755)
	if _, err := Start(old); err == nil || !strings.Contains(err.Error(), "protocol 2.7.1") {
		t.Errorf("err = %v", err)
	}
}
