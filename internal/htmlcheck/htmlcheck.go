// Package htmlcheck finds markup in rendered HTML that could run script or
// load something from elsewhere: what untrusted session text must never
// turn into. Tests and fuzz targets use it on pages and fragments.
package htmlcheck

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/html"
)

// banned are elements a page of ours never holds: each runs script, loads
// a document or rewrites where links go.
var banned = map[string]bool{
	"script": true, "iframe": true, "frame": true, "frameset": true, "object": true,
	"embed": true, "applet": true, "base": true, "form": true, "style": true,
	"link": true, "meta": true, "template": true, "math": true, "portal": true,
}

// urlAttrs hold URLs that a browser follows or loads.
var urlAttrs = map[string]bool{
	"href": true, "src": true, "action": true, "formaction": true, "xlink:href": true,
	"poster": true, "background": true, "srcset": true, "data": true, "ping": true,
}

// Fragment returns an error naming the first unsafe element or attribute
// in s, a fragment of rendered HTML: a banned element, an event handler
// or style attribute, or a URL with a scheme other than http, https or
// mailto (data: only for an img's src).
func Fragment(s string) error {
	return check(s, false)
}

// Page is Fragment for a whole page of the site's own templates, which
// may hold the site's link, meta and script elements: a script must load a
// file of the site (no inline code), a link or meta may not point
// elsewhere.
func Page(s string) error {
	return check(s, true)
}

func check(s string, page bool) error {
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return endErr(z.Err())
		case html.StartTagToken, html.SelfClosingTagToken:
			if err := startTag(z, page); err != nil {
				return err
			}
		}
	}
}

// endErr is the error that ended the tokenizer, nil at the end of input.
func endErr(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

// startTag checks the element whose start tag z is at, and a page's
// script's body after it.
func startTag(z *html.Tokenizer, page bool) error {
	t := z.Token()
	if err := element(t, page); err != nil {
		return fmt.Errorf("<%s>: %w", t.Data, err)
	}
	if t.Data == "script" && page {
		return inlineCode(z)
	}
	return nil
}

// inlineCode checks the body of a script: the tokenizer reads it as text;
// our scripts have none.
func inlineCode(z *html.Tokenizer) error {
	if z.Next() == html.TextToken && strings.TrimSpace(string(z.Text())) != "" {
		return fmt.Errorf("<script>: inline code")
	}
	return nil
}

// pageOnly are the banned elements a page of the site's own templates may
// hold.
var pageOnly = map[string]bool{"script": true, "link": true, "meta": true}

// allowed says whether an element may be in a page (page) or fragment.
func allowed(name string, page bool) bool {
	return !banned[name] || page && pageOnly[name]
}

func element(t html.Token, page bool) error {
	if !allowed(t.Data, page) {
		return fmt.Errorf("element not allowed")
	}
	for _, a := range t.Attr {
		if err := attr(t.Data, a); err != nil {
			return err
		}
	}
	if t.Data == "script" {
		return scriptSource(t)
	}
	return nil
}

// forbidden are attributes no element may have, with what to call them.
var forbidden = map[string]string{"style": "style attribute", "srcdoc": "srcdoc attribute"}

// attr checks an attribute of an element: no handler, style or srcdoc,
// URLs of safe schemes, no meta refresh.
func attr(elem string, a html.Attribute) error {
	k := strings.ToLower(a.Key)
	switch {
	case strings.HasPrefix(k, "on"):
		return fmt.Errorf("event handler %s", a.Key)
	case forbidden[k] != "":
		return errors.New(forbidden[k])
	case unsafeURL(elem, k, a.Val):
		return fmt.Errorf("%s=%q", a.Key, a.Val)
	case metaRefresh(elem, k, a.Val):
		return fmt.Errorf("meta refresh %q", a.Val)
	}
	return nil
}

// unsafeURL says whether attribute k (in lower case) of elem holds a URL
// of a scheme we do not allow there.
func unsafeURL(elem, k, val string) bool {
	return urlAttrs[k] && !safeURL(val, elem == "img" && k == "src")
}

// metaRefresh says whether attribute k of elem sends the browser elsewhere.
func metaRefresh(elem, k, val string) bool {
	return k == "content" && elem == "meta" && strings.Contains(strings.ToLower(val), "url=")
}

// scriptSource checks that a script comes from the site.
func scriptSource(t html.Token) error {
	if src := attrVal(t, "src"); !ownFile(src) {
		return fmt.Errorf("script not from the site: src=%q", src)
	}
	return nil
}

// attrVal is the value of t's last attribute named key, or "".
func attrVal(t html.Token, key string) string {
	v := ""
	for _, a := range t.Attr {
		if a.Key == key {
			v = a.Val
		}
	}
	return v
}

// ownFile says whether src is a path on the site: not empty, no scheme,
// no host.
func ownFile(src string) bool {
	return src != "" && scheme(src) == "" && !strings.HasPrefix(src, "//")
}

// safeURL says whether u is relative, or http, https or mailto (or data:
// when data is true).
func safeURL(u string, data bool) bool {
	switch scheme(u) {
	case "", "http", "https", "mailto":
		return true
	case "data":
		return data && strings.HasPrefix(strings.ToLower(strings.TrimSpace(u)), "data:image/")
	}
	return false
}

const (
	// dropped are the bytes a browser drops inside a scheme.
	dropped = "\t\n\r"
	// pathStart are the bytes that end a URL's first part before any
	// scheme could.
	pathStart = "/?#"
)

// scheme is u's scheme in lower case, as a browser reads it: ignoring
// leading spaces and control bytes and tabs or newlines inside it.
func scheme(u string) string {
	var b strings.Builder
	for _, c := range strings.TrimLeft(u, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\v\f\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ") {
		switch {
		case strings.ContainsRune(dropped, c):
			continue
		case c == ':':
			return strings.ToLower(b.String())
		case strings.ContainsRune(pathStart, c):
			return ""
		}
		b.WriteRune(c)
	}
	return ""
}
