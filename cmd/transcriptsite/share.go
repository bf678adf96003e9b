package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	transcriptsite "github.com/transcriptsite/transcriptsite"
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/site"
	"github.com/transcriptsite/transcriptsite/site/gist"
	"github.com/transcriptsite/transcriptsite/site/publish"
	"github.com/transcriptsite/transcriptsite/site/redactreport"
)

// shareFlags are the flags of share.
type shareFlags struct {
	source, config, session, to, remote, branch string
	yes, markdown, allowSecrets                 bool
}

func newShare() *cobra.Command {
	var f shareFlags
	c := &cobra.Command{
		Use:   "share SESSION_FILE",
		Short: "Share one session: its page as a secret gist, with a link that shows it, or on the site's GitHub Pages",
		Long: `Share reads one session file, in any format transcriptsite reads, makes its
page as one self-contained HTML file (as export --format html does) and its
Markdown, redacted as a build redacts them, says what was redacted (kinds and
counts, never the secret) and what it will upload, asks, and uploads it.

--to gist (the default) creates a secret gist of the page and its Markdown,
with the token in GH_TOKEN or GITHUB_TOKEN, or the GitHub CLI's (gh auth
login), at GitHub's API or GITHUB_API_URL's. It prints the gist's address,
and a link that shows the page through ` + gist.Preview + `
(a preview service, not GitHub's). A secret gist is not listed or searched,
but anyone with a link can open it: it is unlisted, not private; delete the
gist to stop sharing. A gist holds at most 1 MB here, which the preview
shows whole; --markdown shares the Markdown alone, which GitHub shows itself.

--to pages adds the page and its Markdown to the gh-pages branch of the site
directory's origin (as publish does; nothing else of the site is published,
and what the branch holds stays) and prints the page's address.

Share asks before it uploads; --yes does not ask, and without a terminal to
ask on, share needs it. A file that holds several sessions needs --session.`,
		Example: `  transcriptsite share ~/.claude/projects/-home-me-app/SESSION.jsonl
  transcriptsite share --to pages -s ~/sessions content/SESSION.jsonl
  transcriptsite share --yes --markdown big-session.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error { return f.run(c, args[0]) },
	}
	fl := c.Flags()
	fl.StringVar(&f.to, "to", "gist", "where to share it: gist (a secret gist) or pages (the site's GitHub Pages branch)")
	fl.StringVar(&f.session, "session", "", "the id of the session to share, when the file holds several")
	fl.BoolVarP(&f.yes, "yes", "y", false, "upload without asking first")
	fl.BoolVar(&f.markdown, "markdown", false, "share the Markdown alone, as a gist GitHub shows (for a page too big for a gist)")
	fl.StringVarP(&f.source, "source", "s", "", "site directory whose config says what to redact, and whose repository --to pages publishes to (default: current directory)")
	fl.StringVar(&f.config, "config", "", "config file (default: config.yaml, .yml, .toml or .json in the site directory)")
	fl.StringVar(&f.remote, "remote", "origin", "with --to pages: the git remote to publish to: a remote name of the site directory's repository, or a URL")
	fl.StringVar(&f.branch, "branch", "gh-pages", "with --to pages: the branch to add the page to")
	fl.BoolVar(&f.allowSecrets, "allow-secrets", false, "share even though redaction is turned off in the config")
	return c
}

// check refuses flags that do not go together.
func (f *shareFlags) check(c *cobra.Command) error {
	switch f.to {
	case "gist":
		for _, name := range []string{"remote", "branch"} {
			if c.Flags().Changed(name) {
				return fmt.Errorf("--%s says where --to pages publishes: a gist has none", name)
			}
		}
	case "pages":
		if f.markdown {
			return errors.New("--markdown shares the Markdown alone as a gist: --to pages publishes the page and its Markdown")
		}
	default:
		return fmt.Errorf("--to %q: want gist or pages", f.to)
	}
	return nil
}

func (f *shareFlags) run(c *cobra.Command, file string) error {
	if err := f.check(c); err != nil {
		return err
	}
	stderr := c.ErrOrStderr()
	cfg, warns, err := site.LoadConfig(site.Options{Source: f.source, ConfigFile: f.config})
	if err != nil {
		return err
	}
	warn(stderr, warns)
	if err := guardSecrets(cfg, f.allowSecrets, "the session would be shared"); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "transcriptsite-share-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	sh, read, err := site.Share(c.Context(), cfg, file, f.session, dir)
	warn(stderr, read)
	if err != nil {
		return err
	}
	fmt.Fprintln(stderr, redacted(cfg, sh.Redacted))
	if f.to == "pages" {
		return f.toPages(c, cfg, sh, dir)
	}
	return f.toGist(c, sh, dir)
}

// guardSecrets refuses to go on when the config turns redaction off and
// --allow-secrets was not given; what says what would happen to every
// secret in what.
func guardSecrets(cfg *site.Config, allow bool, what string) error {
	if cfg.Redact.Enabled || allow {
		return nil
	}
	return errors.New("redaction is off (redact.enabled: false), so every secret in " + what + ": " +
		"turn it on, or pass --allow-secrets if you are sure")
}

// redacted says what was redacted, never the secret.
func redacted(cfg *site.Config, counts map[string]int) string {
	switch n := site.Sum(counts); {
	case !cfg.Redact.Enabled:
		return "Redaction is off (redact.enabled: false): nothing was redacted"
	case n > 0:
		return fmt.Sprintf("Redacted %s: %s", render.Plural(n, "secret"), redactreport.ByKind(counts))
	}
	return "Redacted no secret"
}

// toGist uploads the page and its Markdown, or the Markdown alone, as a
// secret gist.
func (f *shareFlags) toGist(c *cobra.Command, sh *site.Shared, dir string) error {
	files, err := f.gistFiles(sh, dir)
	if err != nil {
		return err
	}
	if err := fits(files, f.markdown); err != nil {
		return err
	}
	stderr := c.ErrOrStderr()
	fmt.Fprintf(stderr, "To upload as a secret gist: %q, %s\n%s", sh.Title, render.Plural(sh.Messages, "message"), sizes(files))
	ctx := c.Context()
	api := gist.APIURL(os.Getenv)
	token, err := gist.Token(ctx, api, os.Getenv)
	if err != nil {
		return err
	}
	if ok, err := f.confirm(c, "Upload it?"); !ok || err != nil {
		return err
	}
	client := &gist.Client{API: api, Token: token, UserAgent: "transcriptsite/" + transcriptsite.Version}
	g, err := client.Create(ctx, sh.Title, files)
	if err != nil {
		return err
	}
	f.printGist(c.OutOrStdout(), g, files)
	fmt.Fprintln(stderr, "The gist is secret: unlisted, not private. Anyone with a link can open it; delete the gist to stop sharing.")
	return nil
}

// printGist prints the links to the gist g made of files: its preview of
// the page, unless the Markdown was shared alone, and the gist.
func (f *shareFlags) printGist(out io.Writer, g *gist.Gist, files []gist.File) {
	if f.markdown {
		fmt.Fprintln(out, "Shared:", g.HTMLURL)
		return
	}
	fmt.Fprintln(out, "Shared:", gist.PreviewURL(g.ID, files[0].Name))
	fmt.Fprintln(out, "Gist:  ", g.HTMLURL)
}

// gistFiles are the files of the gist, named after the page's folder: the
// page first, which the link shows, and the Markdown; or the Markdown
// alone.
func (f *shareFlags) gistFiles(sh *site.Shared, dir string) ([]gist.File, error) {
	name := path.Base(strings.TrimSuffix(sh.Path, "/"))
	var files []gist.File
	for _, p := range []struct{ rel, ext string }{{sh.Page, ".html"}, {sh.Markdown, ".md"}} {
		if f.markdown && p.ext == ".html" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p.rel)))
		if err != nil {
			return nil, err
		}
		files = append(files, gist.File{Name: name + p.ext, Content: string(data)})
	}
	return files, nil
}

// fits refuses a gist too big to be shown whole, and says what can be
// shared instead.
func fits(files []gist.File, markdown bool) error {
	total, md := 0, 0
	for _, f := range files {
		total += len(f.Content)
		if strings.HasSuffix(f.Name, ".md") {
			md = len(f.Content)
		}
	}
	if total <= gist.MaxSize {
		return nil
	}
	instead := "share it with --to pages, on the site's GitHub Pages"
	if !markdown && md <= gist.MaxSize {
		instead += fmt.Sprintf(", or its Markdown alone (%s) with --markdown", render.Bytes(md))
	}
	return fmt.Errorf("the gist would hold %s, over the %s a gist holds here (GitHub's API gives at most one megabyte of a gist's files, "+
		"and the preview reads them from it, so a bigger page shows cut short): %s", render.Bytes(total), render.Bytes(gist.MaxSize), instead)
}

// sizes lists files with their sizes, a line each.
func sizes(files []gist.File) string {
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "  %s (%s)\n", f.Name, render.Bytes(len(f.Content)))
	}
	return b.String()
}

// toPages adds the page and its Markdown to the site's published branch.
func (f *shareFlags) toPages(c *cobra.Command, cfg *site.Config, sh *site.Shared, dir string) error {
	if err := dropMarkdown(cfg, sh, dir); err != nil {
		return err
	}
	ctx := c.Context()
	remote, err := publish.RemoteURL(ctx, cfg.Dir, f.remote)
	if err != nil {
		return err
	}
	stderr := c.ErrOrStderr()
	fmt.Fprintf(stderr, "To publish on %s of %s: %q, %s, at %s\n", f.branch, remote, sh.Title, render.Plural(sh.Messages, "message"), sh.Path)
	if ok, err := f.confirm(c, "Publish it?"); !ok || err != nil {
		return err
	}
	res, err := publish.Publish(ctx, publish.Options{Dir: dir, Repo: cfg.Dir, Remote: f.remote, Branch: f.branch, CNAME: cfg.CNAME, Add: true,
		Message: "Share " + sh.Title})
	if err != nil {
		return err
	}
	if res.Changed() {
		fmt.Fprintf(stderr, "Published %.12s to %s of %s\n", res.Commit, res.Branch, res.Remote)
	} else {
		fmt.Fprintf(stderr, "Nothing changed: %s of %s holds the page already\n", res.Branch, res.Remote)
	}
	printShared(c.OutOrStdout(), siteURL(cfg, remote), sh.Path)
	return nil
}

// dropMarkdown removes the shared page's Markdown from dir when the site
// publishes none beside its pages.
func dropMarkdown(cfg *site.Config, sh *site.Shared, dir string) error {
	if cfg.Outputs.Markdown {
		return nil
	}
	return os.Remove(filepath.Join(dir, filepath.FromSlash(sh.Markdown)))
}

// printShared prints the address of the page at page of the site served
// at base, or its path when the address is not known.
func printShared(out io.Writer, base, page string) {
	if base == "" {
		fmt.Fprintf(out, "Shared: %s of the site (set baseURL in the config for its address)\n", page)
		return
	}
	fmt.Fprintln(out, "Shared:", base+page)
}

// siteURL is the address the site is served at: its baseURL when that is
// one, else where GitHub Pages serves the remote's; "" when neither says.
func siteURL(cfg *site.Config, remote string) string {
	if strings.HasPrefix(cfg.BaseURL, "https://") || strings.HasPrefix(cfg.BaseURL, "http://") {
		return cfg.BaseURL
	}
	return publish.PagesURL(remote, cfg.CNAME)
}

// confirm asks question on the terminal, unless --yes answered it, and
// reports whether the answer was yes. Without a terminal to ask on it
// refuses: a script that shares says so with --yes.
func (f *shareFlags) confirm(c *cobra.Command, question string) (bool, error) {
	if f.yes {
		return true, nil
	}
	in, ok := c.InOrStdin().(*os.File)
	if !ok || !term.IsTerminal(int(in.Fd())) {
		return false, errors.New("share asks before it uploads, and there is no terminal to ask on: run it in a terminal, or pass --yes to share without being asked")
	}
	stderr := c.ErrOrStderr()
	fmt.Fprintf(stderr, "%s [y/N] ", question)
	answer, _ := bufio.NewReader(in).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return true, nil
	}
	fmt.Fprintln(stderr, "Nothing was shared.")
	return false, nil
}
