package main

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	transcriptsite "github.com/transcriptsite/transcriptsite"
)

// scaffold is a new site: config.yaml, README.md, .gitignore and, on
// request, a GitHub Actions workflow. content/ is made empty: a file in it
// that is not a session would warn on every build.
//
//go:embed all:scaffold
var scaffold embed.FS

func newNew() *cobra.Command {
	c := &cobra.Command{
		Use:   "new",
		Short: "Create new things: a site",
	}
	var actions bool
	s := &cobra.Command{
		Use:   "site DIR",
		Short: "Create a new site in DIR",
		Long: `New site writes a site directory: config.yaml with every key documented,
an empty content/ for the session files, a README.md that says what to put in
it, and a .gitignore for the built site. With
--github-actions it also writes .github/workflows/pages.yml, which builds the
site and deploys it to GitHub Pages on every push. DIR must be new or empty.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error { return newSite(c.OutOrStdout(), args[0], actions) },
	}
	s.Flags().BoolVar(&actions, "github-actions", false, "also write a GitHub Actions workflow that deploys the site to GitHub Pages")
	c.AddCommand(s)
	return c
}

// newSite writes a site directory in dir, which must be new or empty,
// with a GitHub Actions workflow when actions is set, and says what to do
// next.
func newSite(out io.Writer, dir string, actions bool) error {
	if err := checkEmpty(dir); err != nil {
		return err
	}
	if err := writeScaffolds(dir, actions); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "content"), 0o755); err != nil {
		return err
	}
	nextSteps(out, dir, actions)
	return nil
}

// checkEmpty refuses a dir that exists and holds something.
func checkEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case len(entries) > 0:
		return fmt.Errorf("%s is not empty: choose a new folder for the site", dir)
	}
	return nil
}

// writeScaffolds writes the scaffold's files into dir: the workflow only
// when actions is set.
func writeScaffolds(dir string, actions bool) error {
	root, _ := fs.Sub(scaffold, "scaffold")
	return fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !wanted(p, actions) {
			return err
		}
		return writeScaffold(root, p, dir)
	})
}

// wanted says whether the scaffold's file p goes into a new site: the
// workflows only when actions is set.
func wanted(p string, actions bool) bool {
	return actions || !strings.HasPrefix(p, ".github/")
}

// nextSteps says what to do with the new site in dir.
func nextSteps(out io.Writer, dir string, actions bool) {
	fmt.Fprintf(out, "Created a site in %s. Next:\n", dir)
	fmt.Fprintf(out, "  1. Copy session files into %s\n", filepath.Join(dir, "content"))
	fmt.Fprintf(out, "  2. cd %s && transcriptsite build\n", dir)
	if actions {
		fmt.Fprintln(out, "  3. Push it to GitHub and set Settings > Pages > Source to \"GitHub Actions\"")
		fmt.Fprintln(out, "     (the workflow builds from the session files in the repository, which are not redacted: keep it private)")
	} else {
		fmt.Fprintln(out, "  3. transcriptsite publish, to commit it to gh-pages for GitHub Pages")
	}
}

// writeScaffold writes the scaffold's file p into the site directory dir,
// its workflow pinned to this release.
func writeScaffold(root fs.FS, p, dir string) error {
	data, err := fs.ReadFile(root, p)
	if err != nil {
		return err
	}
	data = bytes.ReplaceAll(data, []byte("@VERSION@"), []byte(pinnedRelease()))
	dst := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

// firstRelease is the release a workflow written by a build that is no
// release (go install from a clone, go run) pins.
const firstRelease = "v0.1.0"

// pinnedRelease is the release a new site's workflow installs: the one
// that wrote it, so the site builds in CI as it did here.
func pinnedRelease() string {
	v := transcriptsite.Version
	if !releaseVersion.MatchString(v) {
		return firstRelease
	}
	return "v" + strings.TrimPrefix(v, "v")
}

var releaseVersion = regexp.MustCompile(`^v?\d+\.\d+\.\d+$`)
