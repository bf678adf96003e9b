package siteconfig

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// normBaseURL checks a base URL and gives it its trailing slash.
func normBaseURL(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	if !isSitePath(u) && !isHTTP(u) {
		return "", errors.New(fmt.Sprintf("%q", s) + " is neither an absolute http(s) URL nor a path starting with /")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", errors.New(fmt.Sprintf("%q", s) + " must not have a query or fragment")
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u.String(), nil
}

// isSitePath says whether u is a path from the root of a host: "/docs/".
func isSitePath(u *url.URL) bool {
	return u.Scheme == "" && u.Host == "" && strings.HasPrefix(u.Path, "/")
}

// isHTTP says whether u is an absolute http(s) URL.
func isHTTP(u *url.URL) bool {
	return (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
