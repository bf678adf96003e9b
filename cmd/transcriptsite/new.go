package main

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
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
		RunE: func(c *cobra.Command, args []string) error {
			dir := args[0]
			if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
				return fmt.Errorf("%s is not empty: choose a new folder for the site", dir)
			} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			root, _ := fs.Sub(scaffold, "scaffold")
			err := fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || (!actions && strings.HasPrefix(p, ".github/")) {
					return err
				}
				data, err := fs.ReadFile(root, p)
				if err != nil {
					return err
				}
				dst := filepath.Join(dir, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
					return err
				}
				return os.WriteFile(dst, data, 0o644)
			})
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Join(dir, "content"), 0o755); err != nil {
				return err
			}
			out := c.OutOrStdout()
			fmt.Fprintf(out, "Created a site in %s. Next:\n", dir)
			fmt.Fprintf(out, "  1. Copy session files into %s\n", filepath.Join(dir, "content"))
			fmt.Fprintf(out, "  2. cd %s && transcriptsite build\n", dir)
			if actions {
				fmt.Fprintln(out, "  3. Push it to GitHub and set Settings > Pages > Source to \"GitHub Actions\"")
			} else {
				fmt.Fprintln(out, "  3. transcriptsite publish, to commit it to gh-pages for GitHub Pages")
			}
			return nil
		},
	}
	s.Flags().BoolVar(&actions, "github-actions", false, "also write a GitHub Actions workflow that deploys the site to GitHub Pages")
	c.AddCommand(s)
	return c
}
