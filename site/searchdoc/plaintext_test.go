package searchdoc

import (
	"regexp"
	"strings"
	"testing"
)

// markdownSyntax is what plainText did with regular expressions; its
// scans must do the same.
var markdownSyntax = []struct {
	re  *regexp.Regexp
	new string
}{
	{regexp.MustCompile("(?m)^\\s*(```|~~~).*$"), ""},
	{regexp.MustCompile(`(?m)^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+(\[[ xX]\]\s+)?|\d+[.)]\s+)`), ""},
	{regexp.MustCompile(`!?\[([^\]\n]*)\]\([^)\n]*\)`), "$1"},
	{regexp.MustCompile("\\*\\*|__|`+|~~"), ""},
	{regexp.MustCompile(`(^|\s)[*_]|[*_]($|\s|[.,;:!?])`), "$1$2"},
}

func plainTextByRegexp(md string) string {
	for _, r := range markdownSyntax {
		md = r.re.ReplaceAllString(md, r.new)
	}
	return md
}

var plainTextCases = []string{
	"", "plain words", "# Title\n\nSome *emphasis* and **strong** text, `code` and ~~gone~~.",
	"- item\n- [ ] task\n- [x] done\n  * nested\n1. one\n2) two\n10. ten\n",
	"####### seven\n###### six\n#no\n>quote\n> quote\n>\n",
	"```go\nfunc main() {}\n```\n\n~~~\nx\n~~~", "a\n\n  \n```go\nx", "   ```\n", "\n\n- \n- x",
	"[link](https://x.y) and ![img](a.png) and [no]( and [a\nb](c) ![x](y\n)",
	"snake_case_name and _under_ and *star* at end*", "*", "_", " *", "a_ *b", "x_.", "**_x_**",
	"\t\f\r\n- a\r\n+ b\n  3.  c\n    - four spaces\n", "-\n-x\n- [X]\n- [ ]x", "`` `` ```", "~~~~~", "__init__.py",
	"é *ü* _ß_ [ñ](o) # ö\n> ä", "1.\n2.x\n3. ", "[a](b)[c](d)!![e](f)", "***bold italic***",
}

func TestPlainTextAsRegexps(t *testing.T) {
	for _, md := range plainTextCases {
		if got, want := plainText(md), plainTextByRegexp(md); got != want {
			t.Errorf("plainText(%q) = %q, want %q", md, got, want)
		}
	}
}

func FuzzPlainText(f *testing.F) {
	for _, md := range plainTextCases {
		f.Add(md)
	}
	f.Fuzz(func(t *testing.T, md string) {
		if got, want := plainText(md), plainTextByRegexp(md); got != want {
			t.Errorf("plainText(%q) = %q, want %q", md, got, want)
		}
	})
}

func BenchmarkPlainText(b *testing.B) {
	md := strings.Repeat("## Heading\n\nSome *emphasis*, **strong** text with `code`, a [link](https://example.com) and snake_case names.\n\n- item one\n- [ ] a task\n1. first\n\n```go\nfunc f() {}\n```\n", 30)[:4096]
	b.SetBytes(int64(len(md)))
	for b.Loop() {
		plainText(md)
	}
}

func BenchmarkPlainTextByRegexp(b *testing.B) {
	md := strings.Repeat("## Heading\n\nSome *emphasis*, **strong** text with `code`, a [link](https://example.com) and snake_case names.\n\n- item one\n- [ ] a task\n1. first\n\n```go\nfunc f() {}\n```\n", 30)[:4096]
	b.SetBytes(int64(len(md)))
	for b.Loop() {
		plainTextByRegexp(md)
	}
}
