package site

import (
	"net/url"
	"strings"
	"unicode"

	"github.com/transcriptsite/transcriptsite/cache"
	"golang.org/x/text/unicode/norm"
)

// slug turns s into lowercase ASCII letters, digits and single hyphens, at
// most max bytes long, cut at a word boundary where it can be. Letters with
// accents lose them; other scripts are dropped. It may return "".
func slug(s string, max int) string {
	var b strings.Builder
	hyphen := false
	for _, r := range norm.NFKD.String(s) {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(unicode.ToLower(r))
		case unicode.Is(unicode.Mn, r): // a combining accent: drop it, keep the word
		default:
			hyphen = true
		}
		if b.Len() > max {
			break
		}
	}
	out := b.String()
	if len(out) > max {
		cut := out[:max]
		if out[max] != '-' { // cut inside a word: drop the word when that keeps most of the slug
			if i := strings.LastIndexByte(cut, '-'); i > max/2 {
				cut = cut[:i]
			}
		}
		out = cut
	}
	return strings.Trim(out, "-")
}

// deviceName reports whether Windows reserves a slug as the name of a
// device (con, nul, com1…) in every folder, so that no folder can have it.
func deviceName(slug string) bool {
	switch slug {
	case "con", "prn", "aux", "nul":
		return true
	}
	return len(slug) == 4 && (strings.HasPrefix(slug, "com") || strings.HasPrefix(slug, "lpt")) && '0' <= slug[3] && slug[3] <= '9'
}

// shortID is the id part of a session URL: the first 8 digits of the first
// run of hex digits in the id (a UUID's first group, as agents show it), or a
// hash of the id when it has no such run.
func shortID(id string) string {
	run := 0
	for i := 0; i < len(id); i++ {
		c := id[i] | 0x20 // lower-case letters; digits are unchanged
		if ('0' <= id[i] && id[i] <= '9') || ('a' <= c && c <= 'f') {
			run++
			if run == 8 {
				return strings.ToLower(id[i-7 : i+1])
			}
		} else {
			run = 0
		}
	}
	return hash8(id)
}

// hash8 is a short hash of parts, for a URL that must not collide.
func hash8(parts ...string) string {
	return cache.Hash([]byte(strings.Join(parts, "\x00") + "\x00"))[:8]
}

// A site's base URL is "" (a portable site, whose links are relative), a
// path such as /repo/, or an absolute http(s) URL; it ends in /. It is
// parsed here, and only here.

// parseBase parses a base URL that the config checked (siteconfig.Load); nil for none.
func parseBase(base string) *url.URL {
	u, err := url.Parse(base)
	if base == "" || err != nil {
		return nil
	}
	return u
}

// BasePath is the path a site whose base URL is base is served under, from
// the host: "/" without one.
func BasePath(base string) string {
	u := parseBase(base)
	if u == nil || u.EscapedPath() == "" {
		return "/"
	}
	return u.EscapedPath()
}

// BaseHost is the host name of an absolute base URL, lower-cased; "" for
// a path or none.
func BaseHost(base string) string {
	if u := parseBase(base); u != nil {
		return strings.ToLower(u.Hostname())
	}
	return ""
}

// absolute reports whether base is an absolute URL, which pages can give
// as their canonical address.
func Absolute(base string) bool {
	u := parseBase(base)
	return u != nil && u.IsAbs()
}
