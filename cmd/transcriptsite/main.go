// Command transcriptsite builds a static site from AI coding-agent sessions.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"text/tabwriter"

	"github.com/spf13/cobra"

	transcriptsite "github.com/transcriptsite/transcriptsite"
	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/site"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newRoot().ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "transcriptsite",
		Short: "Build a browsable, searchable static site from AI coding-agent sessions",
		Long: `transcriptsite reads the session logs that coding agents leave on disk
(Claude Code, Codex CLI, Gemini CLI and more), detects each file's format from
its content, and writes a static site with a page per session and per project.

Run "transcriptsite build" in a site directory (one with config.yaml and
content/), or anywhere to build the embedded demo site into public/.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newBuild(), newVersion(), newFormats(), newPublish(), newNew())
	return root
}

// buildFlags are the flags that select and override a site's config, shared
// by every command that builds.
type buildFlags struct {
	source, config, contentDir, destination, baseURL string
	quiet, agents                                    bool
}

func (f *buildFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVarP(&f.source, "source", "s", "", "site directory: where config.yaml and content/ are (default: current directory)")
	fl.StringVar(&f.config, "config", "", "config file (default: config.yaml, .yml, .toml or .json in the site directory)")
	fl.StringVar(&f.contentDir, "contentDir", "", "folder of session files to read")
	fl.StringVarP(&f.destination, "destination", "d", "", "folder to write the site to (default: public)")
	fl.StringVar(&f.baseURL, "baseURL", "", "URL the site is served from, e.g. https://user.github.io/repo/")
	fl.BoolVar(&f.agents, "agents", false, "also read every installed agent's session folders (see `transcriptsite formats`)")
	fl.BoolVar(&f.quiet, "quiet", false, "print nothing but errors")
}

// options turns the flags the user set into config overrides.
func (f *buildFlags) options(c *cobra.Command) site.Options {
	o := site.Options{Source: f.source, ConfigFile: f.config, Overrides: map[string]any{}}
	for flag, key := range map[string]string{"contentDir": "contentDir", "destination": "destination", "baseURL": "baseURL"} {
		if c.Flags().Changed(flag) {
			v, _ := c.Flags().GetString(flag)
			if key != "baseURL" {
				// Paths given on the command line are relative to where it runs.
				v, _ = filepath.Abs(v)
			}
			o.Overrides[key] = v
		}
	}
	if c.Flags().Changed("agents") {
		o.Overrides["agents"] = f.agents
	}
	return o
}

func newBuild() *cobra.Command {
	var f buildFlags
	c := &cobra.Command{
		Use:   "build",
		Short: "Build the site",
		Long: `Build reads every session file under the content directory and writes the
site to the destination. Files it cannot read are reported as warnings with
their path and line; the build goes on and every good session gets its page.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, warns, err := site.LoadConfig(f.options(c))
			if err != nil {
				return err
			}
			_, err = f.build(c, cfg, warns)
			return err
		},
	}
	f.register(c)
	return c
}

// build builds the site and reports what it did: warnings on stderr, the
// summary on stdout.
func (f *buildFlags) build(c *cobra.Command, cfg *site.Config, warns []string) (*site.Report, error) {
	stderr := c.ErrOrStderr()
	if f.quiet {
		stderr = io.Discard
	}
	for _, w := range warns {
		fmt.Fprintln(stderr, "WARN", w)
	}
	rep, err := site.Build(c.Context(), cfg)
	if err != nil {
		return nil, err
	}
	for _, w := range rep.Warnings {
		fmt.Fprintln(stderr, "WARN", warningPath(cfg, w))
	}
	for _, n := range rep.Notices {
		fmt.Fprintln(stderr, "WARN", n)
	}
	if !f.quiet {
		fmt.Fprintln(c.OutOrStdout(), rep)
	}
	return rep, nil
}

// warningPath names the file of a warning as the user can open it.
func warningPath(cfg *site.Config, w ingest.Warning) string {
	w.File = cfg.DiskPath(w.File)
	if wd, err := os.Getwd(); err == nil && filepath.IsAbs(w.File) {
		if r, err := filepath.Rel(wd, w.File); err == nil && len(r) < len(w.File) {
			w.File = r
		}
	}
	return w.String()
}

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(c *cobra.Command, _ []string) {
			fmt.Fprintf(c.OutOrStdout(), "transcriptsite %s %s/%s %s\n", transcriptsite.Version, runtime.GOOS, runtime.GOARCH, runtime.Version())
		},
	}
}

func newFormats() *cobra.Command {
	return &cobra.Command{
		Use:   "formats",
		Short: "List the session formats transcriptsite reads, and where agents keep them here",
		Long: `Formats lists every reader: its format name, the files it reads, and how it
recognises them from their content. Then it lists the folders where installed
agents keep their sessions on this machine: "build --agents" reads those that
exist (config key agentDirs moves them).`,
		Args: cobra.NoArgs,
		Run: func(c *cobra.Command, _ []string) {
			w := tabwriter.NewWriter(c.OutOrStdout(), 0, 4, 2, ' ', 0)
			for _, r := range ingest.Readers {
				fmt.Fprintf(w, "%s\t%s\n", r.Name, r.Agent)
				fmt.Fprintf(w, "\treads:\t%s\n", r.Files)
				fmt.Fprintf(w, "\tdetects:\t%s\n", r.Detects)
			}
			fmt.Fprintln(w, "\nAgent session folders on this machine (build --agents):")
			home, _ := os.UserHomeDir()
			for _, l := range ingest.AgentLocations(home, os.Getenv) {
				fmt.Fprintf(w, "%s\t%s\t%s\n", l.Format, l.Dir, countFiles(l.Dir))
			}
			w.Flush()
		},
	}
}

// countFiles says how many files are under dir, or that it does not exist.
func countFiles(dir string) string {
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "not found"
	case err != nil:
		return err.Error()
	}
	return fmt.Sprintf("%d files", n)
}
