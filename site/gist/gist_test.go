package gist

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCreate(t *testing.T) {
	var got struct {
		Description string
		Public      *bool
		Files       map[string]struct{ Content string }
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for h, want := range map[string]string{"Authorization": "Bearer tok-1", "Accept": "application/vnd.github+json", "User-Agent": "transcriptsite/test", "Content-Type": "application/json"} {
			if r.Header.Get(h) != want {
				t.Errorf("%s: %q, want %q", h, r.Header.Get(h), want)
			}
		}
		if r.Method != http.MethodPost || r.URL.Path != "/api/v3/gists" {
			t.Errorf("%s %s", r.Method, r.URL.Path)
		}
		data, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(data, &got); err != nil {
			t.Error(err)
		}
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"id":"aa11","html_url":"https://gist.example.com/aa11","files":{}}`)
	}))
	defer srv.Close()
	c := &Client{API: APIURL(env{"GITHUB_API_URL": srv.URL + "/api/v3/"}.get), Token: "tok-1", UserAgent: "transcriptsite/test"}
	g, err := c.Create(context.Background(), "A session", []File{{"s.html", "<p>hi"}, {"s.md", "# hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if g.ID != "aa11" || g.HTMLURL != "https://gist.example.com/aa11" {
		t.Errorf("gist %+v", g)
	}
	if got.Public == nil || *got.Public || got.Description != "A session" || len(got.Files) != 2 ||
		got.Files["s.html"].Content != "<p>hi" || got.Files["s.md"].Content != "# hi" {
		t.Errorf("request %+v", got)
	}
	if u := PreviewURL("aa11", "a b.html"); u != "https://gisthost.github.io/?aa11/a%20b.html" {
		t.Errorf("preview %s", u)
	}
}

func TestRefusals(t *testing.T) {
	for _, c := range []struct {
		status int
		answer string
		want   []string
	}{
		{401, `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}`, []string{"401 Bad credentials", "wrong, expired or revoked", "gh auth login"}},
		{403, `{"message":"Resource not accessible by personal access token"}`, []string{"403 Resource not accessible by personal access token", "gist scope"}},
		{404, `{"message":"Not Found"}`, []string{"404 Not Found", "gist scope"}},
		{422, `{"message":"Validation Failed","errors":[{"resource":"Gist","code":"missing_field","field":"files"}]}`, []string{"422 Validation Failed (Gist files missing_field)", "--to pages"}},
		{502, `<html>bad gateway</html>`, []string{"502 Bad Gateway"}},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(c.status)
			io.WriteString(w, c.answer)
		}))
		_, err := (&Client{API: srv.URL, Token: "t"}).Create(context.Background(), "", []File{{"a", "b"}})
		srv.Close()
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%d: err = %v, want %q", c.status, err, w)
			}
		}
	}
}

func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // nothing listens there now
	_, err := (&Client{API: srv.URL, Token: "t"}).Create(context.Background(), "", nil)
	if err == nil || !strings.Contains(err.Error(), "could not reach "+srv.URL) || !strings.Contains(err.Error(), "check the network") {
		t.Errorf("closed: %v", err)
	}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // then the server sees the client leave
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer slow.Close()
	_, err = (&Client{API: slow.URL, Token: "t", Timeout: 50 * time.Millisecond}).Create(context.Background(), "", nil)
	if err == nil || !strings.Contains(err.Error(), "did not answer in 50ms") {
		t.Errorf("slow: %v", err)
	}
	_, err = (&Client{API: "api.example.com", Token: "t"}).Create(context.Background(), "", nil)
	if err == nil || !strings.Contains(err.Error(), "api.example.com") {
		t.Errorf("no scheme: %v", err)
	}
}

type env map[string]string

func (e env) get(k string) string { return e[k] }

// fakeGH puts a gh on PATH that runs script (sh), alone on PATH.
func fakeGH(t *testing.T, script string) {
	dir := t.TempDir()
	if script != "" {
		if err := os.WriteFile(filepath.Join(dir, "gh"), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
}

func TestToken(t *testing.T) {
	ctx := context.Background()
	fakeGH(t, `[ "$*" = "auth token --hostname ghe.example.com" ] && echo ghe-token && exit 0; echo "from gh: $*"`)
	for _, c := range []struct {
		env  env
		api  string
		want string
	}{
		{env{"GH_TOKEN": "gh-1", "GITHUB_TOKEN": "github-1"}, DefaultAPI, "gh-1"},
		{env{"GITHUB_TOKEN": " github-1\n"}, DefaultAPI, "github-1"},
		{env{}, DefaultAPI, "from gh: auth token --hostname github.com"},
		{env{}, "https://ghe.example.com/api/v3", "ghe-token"},
	} {
		if got, err := Token(ctx, c.api, c.env.get); err != nil || got != c.want {
			t.Errorf("%v at %s: %q, %v; want %q", c.env, c.api, got, err, c.want)
		}
	}

	fakeGH(t, `echo "no oauth token found for github.com" >&2; exit 1`)
	if _, err := Token(ctx, DefaultAPI, env{}.get); err == nil || !strings.Contains(err.Error(), "no GitHub token") ||
		!strings.Contains(err.Error(), "gh auth token: no oauth token found for github.com") || !strings.Contains(err.Error(), "gh auth login") {
		t.Errorf("gh logged out: %v", err)
	}
	fakeGH(t, "")
	if _, err := Token(ctx, DefaultAPI, env{}.get); err == nil || !strings.Contains(err.Error(), "(gh) is not installed") || !strings.Contains(err.Error(), "Set GH_TOKEN") {
		t.Errorf("no gh: %v", err)
	}
}
