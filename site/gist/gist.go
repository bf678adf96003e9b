// Package gist creates secret GitHub gists through GitHub's REST API, for
// `transcriptsite share`: one request, with a token found as the GitHub
// CLI finds it, and errors that say what to do.
package gist

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"time"
)

// DefaultAPI is GitHub's API, used when GITHUB_API_URL is not set.
const DefaultAPI = "https://api.github.com"

// MaxSize is the most bytes the files of one gist may hold together. A
// gist preview service reads a file's content from the API, which gives
// at most one megabyte of each file (GitHub's "Truncation" note on the
// gists API) and has been seen to cut every file short once one is
// over: a bigger page would show cut off, or blank. 10^6 is the smaller
// reading of "one megabyte".
const MaxSize = 1_000_000

// Preview is the preview service a shared page's link opens: it fetches
// the gist from the API in the reader's browser and shows the file as a
// page. gisthost.github.io is Simon Willison's maintained fork of
// gistpreview.github.io (the same ?ID/FILE addresses); neither is GitHub's.
const Preview = "https://gisthost.github.io/"

// PreviewURL is the address at which Preview shows the file of gist id.
func PreviewURL(id, file string) string {
	return Preview + "?" + id + "/" + url.PathEscape(file)
}

// File is a file of a gist.
type File struct {
	Name    string
	Content string
}

// Gist is a gist created.
type Gist struct {
	ID      string `json:"id"`
	HTMLURL string `json:"html_url"` // its page on GitHub
}

// Client creates gists at API (DefaultAPI, or GitHub Enterprise's
// https://HOST/api/v3) with Token.
type Client struct {
	API       string
	Token     string
	UserAgent string        // GitHub refuses a request without one
	Timeout   time.Duration // of the whole request; 0 for a minute
	HTTP      *http.Client  // nil for http.DefaultClient, which honours HTTPS_PROXY
}

// APIURL is the API's address: $GITHUB_API_URL, as GitHub Actions sets it
// and GitHub Enterprise needs it, or DefaultAPI.
func APIURL(getenv func(string) string) string {
	if u := strings.TrimRight(getenv("GITHUB_API_URL"), "/"); u != "" {
		return u
	}
	return DefaultAPI
}

// Create creates a secret gist of files, described by description.
func (c *Client) Create(ctx context.Context, description string, files []File) (*Gist, error) {
	body := struct {
		Description string                       `json:"description"`
		Public      bool                         `json:"public"`
		Files       map[string]map[string]string `json:"files"`
	}{Description: description, Files: map[string]map[string]string{}}
	for _, f := range files {
		body.Files[f.Name] = map[string]string{"content": f.Content}
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	timeout := cmp.Or(c.Timeout, time.Minute)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := c.request(ctx, data)
	if err != nil {
		return nil, err
	}
	resp, err := cmp.Or(c.HTTP, http.DefaultClient).Do(req)
	if err != nil {
		return nil, c.unreachable(ctx, err, timeout)
	}
	defer resp.Body.Close()
	// The answer repeats the files: as big as the request, and more.
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 4*MaxSize+1<<20))
	if err != nil {
		return nil, c.unreachable(ctx, err, timeout)
	}
	if resp.StatusCode != http.StatusCreated {
		return nil, refused(resp.StatusCode, answer)
	}
	var g Gist
	if err := json.Unmarshal(answer, &g); err != nil || g.ID == "" {
		return nil, fmt.Errorf("%s answered 201 Created without a gist's id: is GITHUB_API_URL the address of a GitHub API? (%.200q)", c.API, answer)
	}
	return &g, nil
}

// request is the API's request to create a gist of data.
func (c *Client) request(ctx context.Context, data []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.API+"/gists", bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("GITHUB_API_URL %q: %w", c.API, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", c.UserAgent)
	return req, nil
}

// unreachable says that the API could not be reached, and what to check.
func (c *Client) unreachable(ctx context.Context, err error, timeout time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s did not answer in %s: check the network, and try again", c.API, timeout)
	}
	return fmt.Errorf("could not reach %s: %w: check the network connection (and GITHUB_API_URL, if set)", c.API, err)
}

// Error is an answer of the API that refused to create the gist.
type Error struct {
	Status  int
	Message string   // the API's message, such as "Bad credentials"
	Details []string // what a 422 found invalid
}

func (e *Error) Error() string {
	what := fmt.Sprintf("GitHub refused to create the gist: %d %s", e.Status, e.Message)
	if len(e.Details) > 0 {
		what += " (" + strings.Join(e.Details, "; ") + ")"
	}
	if advice, ok := statusAdvice[e.Status]; ok {
		return what + ": " + advice
	}
	return what
}

// statusAdvice says what to do about a refusal, by its status.
var statusAdvice = map[int]string{
	http.StatusUnauthorized:        "the token is wrong, expired or revoked; set GH_TOKEN to a new one, or run gh auth login",
	http.StatusForbidden:           noGists,
	http.StatusNotFound:            noGists,
	http.StatusUnprocessableEntity: "GitHub found the gist invalid; try --markdown to share the Markdown alone, or --to pages",
}

const noGists = `the token may not create gists (a classic token needs the gist scope, a fine-grained one the "Gists" account permission, read and write), or a rate limit was reached: wait, and try again`

// refused reads the API's error answer.
func refused(status int, answer []byte) error {
	var a struct {
		Message string `json:"message"`
		Errors  []struct {
			Resource, Field, Code, Message string
		} `json:"errors"`
	}
	e := &Error{Status: status}
	if json.Unmarshal(answer, &a) == nil && a.Message != "" {
		e.Message = a.Message
		for _, d := range a.Errors {
			e.Details = append(e.Details, strings.Join(nonEmpty(d.Resource, d.Field, d.Code, d.Message), " "))
		}
	} else {
		e.Message = http.StatusText(status)
	}
	return e
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Token finds a token for api as the GitHub CLI does: $GH_TOKEN, then
// $GITHUB_TOKEN (in GitHub Actions, the workflow's, which cannot create
// gists: GH_TOKEN comes first so that a token of one's own wins), then
// what `gh auth token` gives for the API's host.
func Token(ctx context.Context, api string, getenv func(string) string) (string, error) {
	for _, name := range []string{"GH_TOKEN", "GITHUB_TOKEN"} {
		if t := strings.TrimSpace(getenv(name)); t != "" {
			return t, nil
		}
	}
	t, why := ghToken(ctx, apiHost(api))
	if t != "" {
		return t, nil
	}
	return "", fmt.Errorf("no GitHub token: GH_TOKEN and GITHUB_TOKEN are not set, and %s. "+
		"Set GH_TOKEN to a token that may create gists (https://github.com/settings/tokens: a classic token with the gist scope, "+
		`or a fine-grained one with the "Gists" permission), or log in with gh auth login`, why)
}

// apiHost is the host the GitHub CLI knows the API by: github.com for
// api.github.com, else the API's own.
func apiHost(api string) string {
	if u, err := url.Parse(api); err == nil && u.Host != "" && u.Host != "api.github.com" {
		return u.Host
	}
	return "github.com"
}

// ghToken is what `gh auth token` gives for host, or why it gave none.
func ghToken(ctx context.Context, host string) (token, why string) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, "gh", "auth", "token", "--hostname", host)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if t := strings.TrimSpace(out.String()); err == nil && t != "" {
		return t, ""
	}
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return "", "the GitHub CLI (gh) is not installed"
	case err != nil:
		return "", "gh auth token: " + cmp.Or(strings.TrimSpace(errb.String()), err.Error())
	}
	return "", "gh auth token gave none"
}
