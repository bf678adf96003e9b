// Package publish commits a built site to a branch of a git remote, such as
// the gh-pages branch GitHub Pages serves. It runs the git command in a
// temporary repository of its own, so the user's working tree, index and
// checked-out branch are never touched, and it keeps the branch's history:
// each publish is one commit on top of the branch's head, and a publish
// that changes nothing makes none.
package publish

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Options say what to publish where.
type Options struct {
	Dir     string // the built site
	Repo    string // the repository whose remote Remote names; "" when Remote is a URL
	Remote  string // a remote name of Repo, or a URL or path of a repository; default "origin"
	Branch  string // default "gh-pages"
	Message string // the commit message
	CNAME   string // a custom domain, written to the branch as CNAME
	// Add adds the files of Dir to what the branch holds, replacing those
	// of the same names and keeping the rest, rather than making the
	// branch hold Dir alone: `share --to pages` adds one session's page
	// to a site published before.
	Add bool
}

// Result says what Publish did.
type Result struct {
	Remote string // the remote's URL
	Branch string
	Commit string // the branch's head after publishing
	Parent string // the head before, or "" for a new branch
}

// Changed reports whether Publish made a commit.
func (r *Result) Changed() bool { return r.Commit != r.Parent }

// RemoteURL returns the URL of a remote as git reads one: a URL as it is;
// a name as the repository at repo has it; else a path to a repository.
func RemoteURL(ctx context.Context, repo, remote string) (string, error) {
	if remote == "" {
		remote = "origin"
	}
	if strings.ContainsAny(remote, `/\:`) {
		return remote, nil
	}
	out, err := git(ctx, repo, nil, "remote", "get-url", remote)
	if err != nil {
		return noRemote(ctx, repo, remote, err)
	}
	if !strings.Contains(out, ":") && !filepath.IsAbs(out) {
		out = filepath.Join(repo, out) // a path relative to the repository
	}
	return out, nil
}

// noRemote is for a remote that the repository at repo does not name: a
// folder of that name is a repository to publish to; else the error says
// what to do.
func noRemote(ctx context.Context, repo, remote string, err error) (string, error) {
	if isDir(remote) {
		return remote, nil
	}
	if _, rerr := git(ctx, repo, nil, "rev-parse", "--git-dir"); rerr != nil {
		return "", notARepository(repo, remote)
	}
	return "", fmt.Errorf("remote %q of %s: %w (give --remote a URL, or add the remote with `git remote add %s URL`)", remote, repo, err, remote)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// notARepository says how to make the site folder a repository that
// publishes to GitHub Pages: every step, since a first publish is where
// people meet them.
func notARepository(repo, remote string) error {
	return fmt.Errorf(`%s is not a git repository, so it has no remote %q to publish to. To publish to GitHub Pages:
  1. create an empty repository on GitHub, e.g. USER/sessions
  2. cd %s
     git init
     git remote add %s https://github.com/USER/sessions.git
  3. transcriptsite publish
  4. on GitHub, set Settings > Pages > Source to "Deploy from a branch", branch gh-pages
Or publish without a repository here: transcriptsite publish --remote https://github.com/USER/sessions.git`, repo, remote, repo, remote)
}

// Publish commits the site in opt.Dir to the branch and pushes it.
func Publish(ctx context.Context, opt Options) (*Result, error) {
	remote, err := opt.check(ctx)
	if err != nil {
		return nil, err
	}
	res := &Result{Remote: remote, Branch: opt.Branch}
	r, err := newScratch(ctx, opt.Repo)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(r.dir)
	ref := "refs/heads/" + opt.Branch
	if res.Parent, err = r.head(remote, ref, opt.Branch); err != nil {
		return nil, err
	}
	if err := r.keep(res.Parent, opt.Add); err != nil {
		return nil, err
	}
	tree, err := r.stage(opt.Dir, opt.CNAME, opt.Add)
	if err != nil {
		return nil, err
	}
	if r.sameTree(res.Parent, tree) {
		res.Commit = res.Parent // nothing changed
		return res, nil
	}
	if res.Commit, err = r.commit(tree, res.Parent, opt.Message); err != nil {
		return nil, err
	}
	// No --force: if the branch moved since the fetch, the push fails
	// rather than drop someone's commit.
	if _, err := r.run("push", "-q", remote, res.Commit+":"+ref); err != nil {
		return nil, fmt.Errorf("push to %s %s: %w", remote, opt.Branch, err)
	}
	return res, nil
}

// check fills in opt's defaults, checks it, and returns the remote's URL:
// a path is made absolute, from where the command runs.
func (opt *Options) check(ctx context.Context) (string, error) {
	opt.Branch = cmp.Or(opt.Branch, "gh-pages")
	opt.Message = cmp.Or(opt.Message, "Publish the site")
	if !validBranch(ctx, opt.Branch) {
		return "", fmt.Errorf("branch %q: not a valid branch name", opt.Branch)
	}
	if !isDir(opt.Dir) {
		return "", fmt.Errorf("site %s: not a directory: build it first", opt.Dir)
	}
	remote, err := RemoteURL(ctx, opt.Repo, opt.Remote)
	if err != nil {
		return "", err
	}
	return absPath(remote), nil
}

// validBranch says whether git takes name as a branch's name, as it is.
func validBranch(ctx context.Context, name string) bool {
	out, err := git(ctx, "", nil, "check-ref-format", "--branch", name)
	return err == nil && out == name
}

// absPath is a remote that is a path made absolute; a URL (scheme:// or
// user@host:) as it is.
func absPath(remote string) string {
	if strings.Contains(remote, "://") || strings.Contains(remote, "@") {
		return remote
	}
	if abs, err := filepath.Abs(remote); err == nil {
		return abs
	}
	return remote
}

// scratch is the bare repository a publish commits in.
type scratch struct {
	ctx context.Context
	dir string
	env []string
}

// newScratch makes a bare repository of our own in a temporary folder: it
// holds the index, the objects and the fetched head; the site dir is only
// read, as its work tree. The caller removes r.dir.
func newScratch(ctx context.Context, repo string) (*scratch, error) {
	tmp, err := os.MkdirTemp("", "transcriptsite-publish-")
	if err != nil {
		return nil, err
	}
	r := &scratch{ctx: ctx, dir: tmp, env: append(identity(ctx, repo), "GIT_DIR="+tmp, "GIT_INDEX_FILE="+filepath.Join(tmp, "index"))}
	if _, err := git(ctx, "", nil, "init", "-q", "--bare", tmp); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return r, nil
}

// keep puts the files of the branch's head in the index, when add says
// to keep them.
func (r *scratch) keep(parent string, add bool) error {
	if !add || parent == "" {
		return nil
	}
	_, err := r.run("read-tree", parent)
	return err
}

// sameTree says whether the parent commit has the tree.
func (r *scratch) sameTree(parent, tree string) bool {
	if parent == "" {
		return false
	}
	old, err := r.run("rev-parse", parent+"^{tree}")
	return err == nil && old == tree
}

// commit commits the tree on parent ("" for a branch's first commit).
func (r *scratch) commit(tree, parent, message string) (string, error) {
	args := []string{"commit-tree", tree, "-m", message}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	return r.run(args...)
}

func (r *scratch) run(args ...string) (string, error) { return git(r.ctx, "", r.env, args...) }

// head fetches the branch's head from the remote, and returns it; "" when
// the remote has no such branch yet.
func (r *scratch) head(remote, ref, branch string) (string, error) {
	heads, err := r.run("ls-remote", "--heads", remote, ref)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", remote, err)
	}
	if heads == "" {
		return "", nil
	}
	if _, err := r.run("fetch", "-q", "--depth=1", remote, ref+":refs/remotes/site/head"); err != nil {
		return "", fmt.Errorf("fetch %s from %s: %w", branch, remote, err)
	}
	return r.run("rev-parse", "refs/remotes/site/head")
}

// stage puts the site's files in the index, all of them (--force: the
// user's excludes must not drop any), and the two files GitHub Pages
// reads, and returns the tree they make. The files the index holds and
// the site does not are removed from it, unless add says to keep them.
func (r *scratch) stage(dir, cname string, add bool) (string, error) {
	site, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	removals := "--all"
	if add {
		removals = "--no-all"
	}
	if _, err := git(r.ctx, site, append(r.env, "GIT_WORK_TREE="+site), "add", removals, "--force", "."); err != nil {
		return "", fmt.Errorf("add the site's files: %w", err)
	}
	if err := r.addFile(".nojekyll", ""); err != nil {
		return "", err
	}
	if cname != "" {
		if err := r.addFile("CNAME", cname+"\n"); err != nil {
			return "", err
		}
	}
	return r.run("write-tree")
}

// addFile puts a file of the content in the index.
func (r *scratch) addFile(name, content string) error {
	sha, err := gitIn(r.ctx, "", r.env, strings.NewReader(content), "hash-object", "-w", "--stdin")
	if err != nil {
		return err
	}
	_, err = r.run("update-index", "--add", "--cacheinfo", "100644,"+sha+","+name)
	return err
}

// identity is the author and committer for the commit: the user's, as git
// finds them in the site's repository (its own user.name and user.email
// first, as git itself would there; the commit is made in a repository of
// our own, which would see only the global ones), or transcriptsite's when
// there are none, so that publishing from CI works.
func identity(ctx context.Context, repo string) []string {
	env := os.Environ()
	for _, who := range []string{"AUTHOR", "COMMITTER"} {
		name, email := "transcriptsite", "transcriptsite@localhost"
		if out, err := git(ctx, repo, nil, "var", "GIT_"+who+"_IDENT"); err == nil {
			if m := identRE.FindStringSubmatch(out); m != nil {
				name, email = m[1], m[2]
			}
		}
		env = append(env, "GIT_"+who+"_NAME="+name, "GIT_"+who+"_EMAIL="+email)
	}
	return env
}

// identRE reads git's "Name <email> 1700000000 +0000".
var identRE = regexp.MustCompile(`^(.*) <(.*)> \d+ [+-]\d{4}$`)

// git runs git in dir ("" for the current dir) with env (nil for this
// process's) and returns its output, trimmed, or an error with what it said.
func git(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	return gitIn(ctx, dir, env, nil, args...)
}

func gitIn(ctx context.Context, dir string, env []string, stdin *strings.Reader, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = env
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", errors.New("git is not installed: publishing needs it")
		}
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return "", fmt.Errorf("git %s: %s", args[0], msg)
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return strings.TrimSpace(out.String()), nil
}

// githubRemote matches the remote URLs of GitHub repositories:
// https://github.com/o/r(.git), git@github.com:o/r.git, ssh://git@github.com/o/r.
var githubRemote = regexp.MustCompile(`^(?:(?:https?|ssh|git)://(?:[^@/]+@)?|[^@/]+@)github\.com[:/]([A-Za-z0-9-]+)/([A-Za-z0-9._-]+?)(?:\.git)?/?$`)

// PagesURL is where GitHub Pages serves a site published from remote: its
// custom domain when it has one, else https://<owner>.github.io/<repo>/, or
// https://<owner>.github.io/ for the <owner>.github.io repository. It is ""
// for a remote that is not on GitHub.
func PagesURL(remote, cname string) string {
	if cname != "" {
		return "https://" + cname + "/"
	}
	m := githubRemote.FindStringSubmatch(remote)
	if m == nil {
		return ""
	}
	owner, repo := strings.ToLower(m[1]), m[2]
	if strings.EqualFold(repo, owner+".github.io") {
		return "https://" + owner + ".github.io/"
	}
	return "https://" + owner + ".github.io/" + url.PathEscape(repo) + "/"
}
