package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/transcriptsite/transcriptsite/site"
)

func newExport() *cobra.Command {
	var source, config, format, session string
	c := &cobra.Command{
		Use:   "export SESSION_FILE",
		Short: "Write one session as Markdown, JSON or one HTML file to stdout",
		Long: `Export reads one session file, in any format transcriptsite reads, and
writes the session to stdout as the site's exports do: Markdown to read
(--format md), or JSON of the normalised model (--format json, schema
transcriptsite.session/1); or its page as one self-contained HTML file that
works offline, to attach or mail (--format html). No site is built. Secrets are redacted as in a
build, by the config of the site directory (--source, default the current
directory): only redact.enabled: false turns that off. A file that holds
several sessions needs --session to choose one.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			cfg, warns, err := site.LoadConfig(site.Options{Source: source, ConfigFile: config})
			if err != nil {
				return err
			}
			for _, w := range warns {
				fmt.Fprintln(c.ErrOrStderr(), "WARN", w)
			}
			read, err := site.Export(c.Context(), cfg, args[0], session, format, c.OutOrStdout())
			for _, w := range read {
				fmt.Fprintln(c.ErrOrStderr(), "WARN", w)
			}
			return err
		},
	}
	fl := c.Flags()
	fl.StringVarP(&format, "format", "f", "md", "md (Markdown), json or html (the page, one file)")
	fl.StringVar(&session, "session", "", "the id of the session to export, when the file holds several")
	fl.StringVarP(&source, "source", "s", "", "site directory whose config says what to redact (default: current directory)")
	fl.StringVar(&config, "config", "", "config file (default: config.yaml, .yml, .toml or .json in the site directory)")
	return c
}
