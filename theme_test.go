package transcriptsite

import (
	"os"
	"testing"

	"github.com/transcriptsite/transcriptsite/sass"
)

// TestPrecompiledCSSIsFresh checks that the CSS builds use without Dart
// Sass is the theme's SCSS compiled, byte for byte, so that a site is the
// same with Dart Sass or without it (a newline the generator added gave
// the two stylesheets two names, and every page was made again once Dart
// Sass was installed): run go generate after changing it.
func TestPrecompiledCSSIsFresh(t *testing.T) {
	wd, _ := os.Getwd()
	bin, err := sass.Find("", wd)
	if err != nil {
		if os.Getenv("TRANSCRIPTSITE_CI") != "" {
			t.Fatalf("no Dart Sass in CI: %v", err)
		}
		t.Skipf("no Dart Sass: %v (%s)", err, sass.Install)
	}
	c, err := sass.Start(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	css, err := c.Compile(FS, "assets/scss/main.scss", nil)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := FS.ReadFile("assets/css/theme.css")
	if err != nil {
		t.Fatal(err)
	}
	if css != string(committed) {
		t.Error("assets/css/theme.css is not the compiled assets/scss: run go generate ./...")
	}
}
