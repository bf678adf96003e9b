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
	switch {
	case u.Scheme == "" && u.Host == "" && strings.HasPrefix(u.Path, "/"):
	case (u.Scheme == "http" || u.Scheme == "https") && u.Host != "":
	default:
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
