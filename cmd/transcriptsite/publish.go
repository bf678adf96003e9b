package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/site"
	"github.com/transcriptsite/transcriptsite/site/publish"
	"github.com/transcriptsite/transcriptsite/site/redactreport"
)

func newPublish() *cobra.Command {
	p := &publishFlags{}
	f, opt := &p.build, &p.opt
	c := &cobra.Command{
		Use:   "publish",
		Short: "Build the site and commit it to the gh-pages branch for GitHub Pages",
		Long: `Publish builds the site and commits it, with .nojekyll (and CNAME when the
config sets cname), to a branch of a git remote: gh-pages of the site
directory's origin unless told otherwise. Each publish is one commit on top of
the branch, none when nothing changed; your working tree and checked-out
branch are never touched. With -d DIR it publishes a site already built there.

Without a baseURL in the config or on the command line, the site is built for
the GitHub Pages address the remote gives. Publish refuses to run when
redaction is turned off (redact.enabled: false) unless --allow-secrets is given.

On GitHub, set Settings > Pages > Source to "Deploy from a branch", gh-pages.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return p.run(c) },
	}
	f.register(c)
	f.registerStrict(c)
	f.registerRedactions(c)
	fl := c.Flags()
	fl.StringVar(&opt.Remote, "remote", "origin", "the git remote to publish to: a remote name of the site directory's repository, or a URL")
	fl.StringVar(&opt.Branch, "branch", "gh-pages", "the branch to commit the site to")
	fl.StringVar(&opt.Message, "message", "", `the commit message (default "Publish N sessions", N the number of sessions in the site)`)
	fl.BoolVar(&p.allowSecrets, "allow-secrets", false, "publish even though redaction is turned off in the config")
	return c
}

// publishFlags are publish's flags.
type publishFlags struct {
	build        buildFlags
	opt          publish.Options
	allowSecrets bool
}

func (p *publishFlags) run(c *cobra.Command) error {
	f, opt := &p.build, &p.opt
	cfg, warns, err := site.LoadConfig(f.options(c))
	if err != nil {
		return err
	}
	if err := guardSecrets(cfg, p.allowSecrets, "the sessions would be published"); err != nil {
		return err
	}
	ctx := c.Context()
	remote, err := publish.RemoteURL(ctx, cfg.Dir, opt.Remote)
	if err != nil {
		return err
	}
	pages := publish.PagesURL(remote, cfg.CNAME)
	opt.Remote, opt.Dir, opt.CNAME, opt.Repo = remote, cfg.Destination, cfg.CNAME, cfg.Dir
	sessions, redacted, err := p.site(c, cfg, warns, pages)
	if err != nil {
		return err
	}
	if opt.Message == "" {
		opt.Message = "Publish " + render.Plural(sessions, "session")
	}
	res, err := publish.Publish(ctx, *opt)
	if err != nil {
		return err
	}
	if !f.quiet {
		published(c.OutOrStdout(), cfg, redacted, res, pages)
	}
	return nil
}

// site returns the number of sessions of the site to publish and what was
// redacted in them: of the site built in -d, or of the site it builds
// now, for the GitHub Pages address pages unless the config has a baseURL.
func (p *publishFlags) site(c *cobra.Command, cfg *site.Config, warns []string, pages string) (int, map[string]int, error) {
	if !c.Flags().Changed("destination") {
		if cfg.BaseURL == "" {
			cfg.BaseURL = pages
		}
		rep, err := p.build.build(c, cfg, warns)
		if err != nil {
			return 0, nil, err
		}
		return rep.Sessions, rep.Redacted, nil
	}
	if p.build.redactions != "" {
		return 0, nil, errors.New("--redactions lists what a build redacts: leave out -d to build and publish")
	}
	sessions, redacted, err := site.Published(p.opt.Dir)
	if err != nil {
		return 0, nil, fmt.Errorf("%s holds no site built by transcriptsite (no sessions.json): build it, or leave out -d to build and publish", p.opt.Dir)
	}
	return sessions, redacted, nil
}

// published says what was redacted, what was published where, and the
// site's address.
func published(out io.Writer, cfg *site.Config, redacted map[string]int, res *publish.Result, pages string) {
	if n := site.Sum(redacted); n > 0 {
		fmt.Fprintf(out, "Redacted %s: %s\n", render.Plural(n, "secret"), redactreport.ByKind(redacted))
	} else if cfg.Redact.Enabled {
		fmt.Fprintln(out, "Redacted no secret")
	}
	if res.Changed() {
		fmt.Fprintf(out, "Published %.12s to %s of %s\n", res.Commit, res.Branch, res.Remote)
	} else {
		fmt.Fprintf(out, "Nothing changed: %s of %s is up to date at %.12s\n", res.Branch, res.Remote, res.Commit)
	}
	if pages != "" {
		fmt.Fprintln(out, "Site:", pages)
	}
}
