package publish

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPublishKeepsHistory publishes to a local bare repository three times:
// a first site, a changed one, and the same again.
func TestPublishKeepsHistory(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	remote := filepath.Join(root, "remote.git")
	gitT(t, root, "init", "-q", "--bare", remote)

	// The site's own repository, with a branch checked out and work in
	// progress, which publishing must leave alone.
	repo := filepath.Join(root, "site")
	write(t, repo, map[string]string{"config.yaml": "title: T\n", "content/a.jsonl": "{}\n"})
	gitT(t, repo, "init", "-q", "-b", "main")
	gitT(t, repo, "add", ".")
	gitT(t, repo, "commit", "-q", "-m", "site")
	gitT(t, repo, "remote", "add", "origin", remote)
	write(t, repo, map[string]string{"config.yaml": "title: Work in progress\n"})
	public := filepath.Join(repo, "public")
	write(t, public, map[string]string{"index.html": "v1", "sessions.json": "[]", "_hidden/x.css": "x", "sessions/a/index.html": "a"})
	status := gitT(t, repo, "status", "--porcelain", "--ignored")
	ctx := context.Background()
	opt := Options{Dir: public, Repo: repo, CNAME: "sessions.example.com", Message: "Publish 1"}
	r1, err := Publish(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !r1.Changed() || r1.Parent != "" || r1.Branch != "gh-pages" || r1.Remote != remote {
		t.Errorf("first publish: %+v", r1)
	}
	files := strings.Split(gitT(t, remote, "ls-tree", "-r", "--name-only", "gh-pages"), "\n")
	if want := []string{".nojekyll", "CNAME", "_hidden/x.css", "index.html", "sessions.json", "sessions/a/index.html"}; !slices.Equal(files, want) {
		t.Errorf("branch holds %v, want %v", files, want)
	}
	if c := gitT(t, remote, "show", "gh-pages:CNAME"); c != "sessions.example.com" {
		t.Errorf("CNAME %q", c)
	}

	write(t, public, map[string]string{"index.html": "v2"})
	_ = os.Remove(filepath.Join(public, "sessions", "a", "index.html"))
	opt.Message = "Publish 2"
	r2, err := Publish(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !r2.Changed() || r2.Parent != r1.Commit {
		t.Errorf("second publish: %+v, want on top of %s", r2, r1.Commit)
	}
	if got := gitT(t, remote, "show", "gh-pages:index.html"); got != "v2" {
		t.Errorf("index.html is %q", got)
	}
	if strings.Contains(gitT(t, remote, "ls-tree", "-r", "--name-only", "gh-pages"), "sessions/a/") {
		t.Error("a file removed from the site is still on the branch")
	}

	r3, err := Publish(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	if r3.Changed() || r3.Commit != r2.Commit {
		t.Errorf("a publish with no change made a commit: %+v", r3)
	}
	if log := gitT(t, remote, "log", "--format=%s %P", "gh-pages"); log != "Publish 2 "+r1.Commit+"\nPublish 1" {
		t.Errorf("history:\n%s", log)
	}

	// The site's repository is as it was: same branch, same changes, no
	// new branch.
	if got := gitT(t, repo, "status", "--porcelain", "--ignored"); got != status {
		t.Errorf("status changed:\n%s\nwas:\n%s", got, status)
	}
	if b := gitT(t, repo, "branch", "--format=%(refname:short)"); b != "main" {
		t.Errorf("branches: %s", b)
	}
}

// TestPublishAdds adds one page to a published site: the branch keeps
// every file it had, and gains the page, or has it replaced.
func TestPublishAdds(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	remote := filepath.Join(root, "remote.git")
	gitT(t, root, "init", "-q", "--bare", remote)
	site, one := filepath.Join(root, "site"), filepath.Join(root, "one")
	write(t, site, map[string]string{"index.html": "home", "sessions/a/index.html": "a", "sessions/b/index.html": "b"})
	write(t, one, map[string]string{"sessions/c/index.html": "c", "sessions/c/session.md": "# c", "sessions/a/index.html": "a2"})
	ctx := context.Background()
	// To a branch that does not exist yet: the page alone.
	if _, err := Publish(ctx, Options{Dir: one, Remote: remote, Branch: "fresh", Add: true}); err != nil {
		t.Fatal(err)
	}
	files := strings.Split(gitT(t, remote, "ls-tree", "-r", "--name-only", "fresh"), "\n")
	if want := []string{".nojekyll", "sessions/a/index.html", "sessions/c/index.html", "sessions/c/session.md"}; !slices.Equal(files, want) {
		t.Errorf("new branch holds %v, want %v", files, want)
	}
	r1, err := Publish(ctx, Options{Dir: site, Remote: remote})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Publish(ctx, Options{Dir: one, Remote: remote, Add: true, Message: "Share c"})
	if err != nil {
		t.Fatal(err)
	}
	if !r2.Changed() || r2.Parent != r1.Commit {
		t.Errorf("adding: %+v, want a commit on top of %s", r2, r1.Commit)
	}
	files = strings.Split(gitT(t, remote, "ls-tree", "-r", "--name-only", "gh-pages"), "\n")
	if want := []string{".nojekyll", "index.html", "sessions/a/index.html", "sessions/b/index.html", "sessions/c/index.html", "sessions/c/session.md"}; !slices.Equal(files, want) {
		t.Errorf("branch holds %v, want %v", files, want)
	}
	if got := gitT(t, remote, "show", "gh-pages:sessions/a/index.html"); got != "a2" {
		t.Errorf("the page added again is %q, want the new one", got)
	}
	if r3, err := Publish(ctx, Options{Dir: one, Remote: remote, Add: true}); err != nil || r3.Changed() {
		t.Errorf("the same page again: %+v, %v; want no commit", r3, err)
	}
}

func TestPublishErrors(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir, repo := t.TempDir(), t.TempDir()
	gitT(t, repo, "init", "-q")
	ctx := context.Background()
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Dir: dir, Repo: dir}, dir + ` is not a git repository, so it has no remote "origin" to publish to`},
		{Options{Dir: dir, Repo: repo}, `remote "origin" of ` + repo},
		{Options{Dir: dir, Remote: filepath.Join(dir, "nowhere.git")}, "read " + filepath.Join(dir, "nowhere.git")},
		{Options{Dir: filepath.Join(dir, "missing"), Remote: dir}, "not a directory: build it first"},
		{Options{Dir: dir, Remote: dir, Branch: "bad..name"}, `branch "bad..name": not a valid branch name`},
	} {
		if _, err := Publish(ctx, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want %q", c.opt, err, c.want)
		}
	}
}

func TestPagesURL(t *testing.T) {
	for _, c := range []struct{ remote, cname, want string }{
		{"https://github.com/Octo/sessions.git", "", "https://octo.github.io/sessions/"},
		{"https://github.com/octo/sessions", "", "https://octo.github.io/sessions/"},
		{"git@github.com:octo/sessions.git", "", "https://octo.github.io/sessions/"},
		{"ssh://git@github.com/octo/sessions", "", "https://octo.github.io/sessions/"},
		{"https://x-access-token:abc@github.com/octo/sessions.git", "", "https://octo.github.io/sessions/"},
		{"https://github.com/Octo/octo.github.io.git", "", "https://octo.github.io/"},
		{"https://github.com/octo/sessions.git", "sessions.example.com", "https://sessions.example.com/"},
		{"https://gitlab.com/octo/sessions.git", "", ""},
		{"/srv/git/sessions.git", "", ""},
	} {
		if got := PagesURL(c.remote, c.cname); got != c.want {
			t.Errorf("PagesURL(%q, %q) = %q, want %q", c.remote, c.cname, got, c.want)
		}
	}
}
