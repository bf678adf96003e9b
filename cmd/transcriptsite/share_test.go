package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/transcriptsite/transcriptsite/redact/redacttest"
)

// api stands in for GitHub's API: it answers POST /gists with status and
// answer, and keeps each request.
type api struct {
	*httptest.Server
	status int
	answer string
	mu     sync.Mutex
	got    []*request
}

type request struct {
	method, path string
	header       http.Header
	body         []byte
}

func newAPI(t *testing.T, status int, answer string) *api {
	a := &api{status: status, answer: answer}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		a.mu.Lock()
		a.got = append(a.got, &request{r.Method, r.URL.Path, r.Header.Clone(), body})
		a.mu.Unlock()
		w.WriteHeader(a.status)
		io.WriteString(w, a.answer)
	}))
	t.Cleanup(a.Close)
	t.Setenv("GITHUB_API_URL", a.URL)
	return a
}

func (a *api) requests() []*request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.got
}

// created is the API's answer to a gist created.
const created = `{"id":"5e55a1","html_url":"https://gist.github.com/someone/5e55a1","public":false,"files":{}}`

// share runs transcriptsite share in this process with the site dir as
// its source, stdin in (nil: none, as in a pipe), and returns what it
// printed.
func share(t *testing.T, site string, in *os.File, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	root := newRoot()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetIn(strings.NewReader(""))
	if in != nil {
		root.SetIn(in)
	}
	root.SetArgs(append([]string{"share", "-s", site}, args...))
	err = root.ExecuteContext(context.Background())
	return out.String(), errb.String(), err
}

// shareSite is a site dir with a config and no content, and no way to a
// token but what the test sets: no gh on PATH.
func shareSite(t *testing.T, config string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "content"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("GH_TOKEN", "tok-share")
	return dir
}

type obj = map[string]any

// claudeSession writes a Claude Code session of records: a user's prompt
// for each string of prompts, then each pair of tool call and result.
func claudeSession(t *testing.T, file string, prompts []string, calls []obj) {
	t.Helper()
	var b bytes.Buffer
	n := 0
	add := func(typ string, msg obj) {
		n++
		rec := obj{"parentUuid": nil, "sessionId": "5ec0-1", "cwd": "/home/dev/shop", "type": typ, "uuid": fmt.Sprintf("u%d", n),
			"timestamp": fmt.Sprintf("2026-05-01T10:%02d:%02dZ", n/60%60, n%60), "message": msg}
		if n > 1 {
			rec["parentUuid"] = fmt.Sprintf("u%d", n-1)
		}
		data, _ := json.Marshal(rec)
		b.Write(append(data, '\n'))
	}
	for _, p := range prompts {
		add("user", obj{"role": "user", "content": p})
	}
	for i := 0; i+1 < len(calls); i += 2 {
		add("assistant", obj{"id": fmt.Sprintf("m%d", i), "role": "assistant", "model": "claude-sonnet-4-5", "content": []obj{calls[i]}})
		add("user", obj{"role": "user", "content": []obj{calls[i+1]}})
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// plantedSecrets writes a session that holds a secret of every rule of
// gitleaks' set, an AWS key and a GitHub token among them, and reads of a
// private key and a .env file, and returns the secrets.
func plantedSecrets(t *testing.T, file string) []string {
	samples, _ := redacttest.Samples()
	keys, _ := redacttest.Keys(1)
	var prompts, secrets []string
	var rules []string
	for _, s := range samples {
		prompts = append(prompts, "Why does this fail? "+s.Text)
		secrets = append(secrets, s.Secret)
		rules = append(rules, s.Rule)
	}
	for _, want := range []string{"aws-access-token", "github-pat"} {
		if !strings.Contains(strings.Join(rules, " "), want) {
			t.Fatalf("no %s among the samples", want)
		}
	}
	var calls []obj
	for i, r := range redacttest.Reads(5, keys[:4]) {
		if r.Path != ".env" && !strings.HasSuffix(r.Path, "id_ed25519") {
			continue
		}
		id := fmt.Sprintf("call%d", i)
		calls = append(calls, obj{"type": "tool_use", "id": id, "name": "Read", "input": obj{"file_path": r.Path}},
			obj{"type": "tool_result", "tool_use_id": id, "content": redacttest.Numbered(r.Output)})
		for _, s := range r.Secrets {
			secrets = append(secrets, s.Secret)
		}
	}
	if len(calls) != 4 {
		t.Fatalf("%d reads of .env and a private key", len(calls)/2)
	}
	claudeSession(t, file, prompts, calls)
	return secrets
}

// TestShareGist shares a session full of secrets as a gist: one request,
// with the token, secret, holding the page and its Markdown, and no
// secret; the links printed; what was redacted said, by kind.
func TestShareGist(t *testing.T) {
	site := shareSite(t, "title: Mine\n")
	file := filepath.Join(t.TempDir(), "planted.jsonl")
	secrets := plantedSecrets(t, file)
	a := newAPI(t, http.StatusCreated, created)
	stdout, stderr, err := share(t, site, nil, "--yes", file)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	reqs := a.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.method != http.MethodPost || r.path != "/gists" || r.header.Get("Authorization") != "Bearer tok-share" ||
		r.header.Get("Accept") != "application/vnd.github+json" || !strings.HasPrefix(r.header.Get("User-Agent"), "transcriptsite/") {
		t.Errorf("request %s %s %v", r.method, r.path, r.header)
	}
	var body struct {
		Description string
		Public      *bool
		Files       map[string]struct{ Content string }
	}
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Public == nil || *body.Public {
		t.Errorf("public: %v, want false", body.Public)
	}
	var page, md, pageName string
	for name, f := range body.Files {
		switch filepath.Ext(name) {
		case ".html":
			page, pageName = f.Content, name
		case ".md":
			md = f.Content
		}
	}
	if len(body.Files) != 2 || !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.Contains(page, `id="m-12"`) || !strings.Contains(md, "\n# ") {
		t.Errorf("files %v: want the page, with its anchors, and the Markdown", len(body.Files))
	}
	if !strings.Contains(body.Description, "Why does this fail?") {
		t.Errorf("description %q", body.Description)
	}

	// No secret, nor a long run of letters and digits of one, anywhere in
	// the request as sent, nor in the files it holds, nor in what share said.
	needles := redacttest.Needles(secrets...)
	texts := map[string]string{"request": string(r.body), "page": page, "markdown": md, "description": body.Description, "stdout": stdout, "stderr": stderr}
	for what, text := range texts {
		text = strings.ToLower(text)
		for _, n := range needles {
			if strings.Contains(text, n) {
				t.Errorf("the %s holds %q", what, n)
			}
		}
	}

	for _, want := range []string{"Redacted ", " aws-access-token", " github-pat", " private-key", " env-secret", "To upload as a secret gist: ", pageName + " ("} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	want := "Shared: https://gisthost.github.io/?5e55a1/" + pageName + "\nGist:   https://gist.github.com/someone/5e55a1\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
}

// TestShareMarkdown shares the Markdown alone, and links the gist.
func TestShareMarkdown(t *testing.T) {
	site := shareSite(t, "title: Mine\n")
	file := filepath.Join(t.TempDir(), "s.jsonl")
	claudeSession(t, file, []string{"Hello there"}, nil)
	a := newAPI(t, http.StatusCreated, created)
	stdout, stderr, err := share(t, site, nil, "-y", "--markdown", file)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var body struct {
		Files map[string]struct{ Content string }
	}
	if reqs := a.requests(); len(reqs) != 1 || json.Unmarshal(reqs[0].body, &body) != nil || len(body.Files) != 1 {
		t.Fatalf("want one request of one file")
	}
	for name := range body.Files {
		if !strings.HasSuffix(name, ".md") {
			t.Errorf("file %s", name)
		}
	}
	if stdout != "Shared: https://gist.github.com/someone/5e55a1\n" {
		t.Errorf("stdout %q", stdout)
	}
}

// TestShareRefuses runs share where it must not upload, or where the API
// refuses: each says what went wrong and what to do, and only those that
// got to the API sent it anything.
func TestShareRefuses(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.jsonl")
	claudeSession(t, small, []string{"Hello there"}, nil)
	// Markup, which the page escapes and the Markdown keeps: its page is
	// over the limit, its Markdown under; and text over it in both.
	page := filepath.Join(dir, "page.jsonl")
	claudeSession(t, page, []string{"Hello there", strings.Repeat(`<a href="x">&amp;</a> `, 25000)}, nil)
	big := filepath.Join(dir, "big.jsonl")
	claudeSession(t, big, []string{"Hello there", strings.Repeat("words, words ", 80000)}, nil)
	notes := filepath.Join(dir, "notes.txt")
	_ = os.WriteFile(notes, []byte("just notes\n"), 0o644)

	for _, c := range []struct {
		name, file   string
		args         []string
		status       int
		answer       string
		env          map[string]string
		config, want string
		sent         bool
	}{
		{name: "no token", file: small, env: map[string]string{"GH_TOKEN": ""},
			want: "no GitHub token: GH_TOKEN and GITHUB_TOKEN are not set, and the GitHub CLI (gh) is not installed. Set GH_TOKEN"},
		{name: "no terminal", file: small, args: []string{}, want: "there is no terminal to ask on: run it in a terminal, or pass --yes"},
		{name: "401", file: small, status: 401, answer: `{"message":"Bad credentials"}`, sent: true,
			want: "GitHub refused to create the gist: 401 Bad credentials: the token is wrong, expired or revoked"},
		{name: "403", file: small, status: 403, answer: `{"message":"Resource not accessible by personal access token"}`, sent: true,
			want: "403 Resource not accessible by personal access token: the token may not create gists (a classic token needs the gist scope"},
		{name: "422", file: small, status: 422, answer: `{"message":"Validation Failed","errors":[{"resource":"Gist","field":"files","code":"invalid"}]}`, sent: true,
			want: "422 Validation Failed (Gist files invalid)"},
		{name: "no network", file: small, env: map[string]string{"GITHUB_API_URL": "http://127.0.0.1:1"},
			want: "could not reach http://127.0.0.1:1: "},
		{name: "not a session", file: notes, want: "notes.txt: no session could be read from it"},
		{name: "too big", file: page,
			want: "over the 1.0 MB a gist holds here (GitHub's API gives at most one megabyte of a gist's files, and the preview reads them from it, so a bigger page shows cut short): share it with --to pages, on the site's GitHub Pages, or its Markdown alone ("},
		{name: "too big, Markdown too", file: big, args: []string{"--yes", "--markdown"}, want: "MB a gist holds here (GitHub's API gives at most one megabyte of a gist's files, and the preview reads them from it, so a bigger page shows cut short): share it with --to pages, on the site's GitHub Pages\n"},
		{name: "redaction off", file: small, config: "redact: {enabled: false}\n", want: "redaction is off (redact.enabled: false), so every secret in the session would be shared"},
		{name: "to nowhere", file: small, args: []string{"--to", "dropbox"}, want: `--to "dropbox": want gist or pages`},
		{name: "remote of a gist", file: small, args: []string{"--remote", "upstream"}, want: "--remote says where --to pages publishes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			site := shareSite(t, "title: Mine\n"+c.config)
			a := newAPI(t, c.status, c.answer)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			args := c.args
			if args == nil {
				args = []string{"--yes"}
			}
			_, stderr, err := share(t, site, nil, append(args, c.file)...)
			if err == nil || !strings.Contains(err.Error()+"\n", c.want) {
				t.Errorf("err = %v\nwant %q", err, c.want)
			}
			if got := len(a.requests()) > 0; got != c.sent {
				t.Errorf("sent a request: %t, want %t", got, c.sent)
			}
			if c.name == "not a session" && !strings.Contains(stderr, "WARN "+notes+": not a session file") {
				t.Errorf("stderr: %s", stderr)
			}
		})
	}
}
