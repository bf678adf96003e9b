// Command gencss compiles the default theme's SCSS to the precompiled CSS
// that builds use when Dart Sass is not installed. Run it with go generate
// from the repository root after changing assets/scss.
package main

import (
	"fmt"
	"os"

	"github.com/transcriptsite/transcriptsite/sass"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gencss:", err)
		os.Exit(1)
	}
}

func run() error {
	wd, _ := os.Getwd()
	bin, err := sass.Find("", wd)
	if err != nil {
		return fmt.Errorf("%w: %s", err, sass.Install)
	}
	c, err := sass.Start(bin)
	if err != nil {
		return err
	}
	defer c.Close()
	css, err := c.Compile(os.DirFS("."), "assets/scss/main.scss", nil)
	if err != nil {
		return err
	}
	// As Dart Sass writes it, with no newline added: then a site is the
	// same byte for byte whether or not Dart Sass is installed.
	return os.WriteFile("assets/css/theme.css", []byte(css), 0o644)
}
