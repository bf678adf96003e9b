package render

import (
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// markdownLexer highlights Markdown source: the README, plan or notes an
// agent read or wrote, shown a row at a time. It stands in for chroma's
// own, whose every character of prose is a token of its own that each of
// its seventeen rules is tried on: 0.5 MB/s, where agents write Markdown
// by the hundred kilobytes. Here a run of plain text is one token, so a
// line of prose costs a few matches. It shows what chroma's does (headings,
// list and quote markers, emphasis, code spans, links, comments, YAML
// front matter and fenced code in its language) in the same token types,
// so the theme's classes are the same.
func markdownLexer() chroma.Lexer {
	mdOnce.Do(func() {
		mdLexer = chroma.MustNewLexer(&chroma.Config{
			Name:      "markdown",
			Aliases:   []string{"md", "mkd"},
			Filenames: []string{"*.md", "*.mkd", "*.markdown"},
			MimeTypes: []string{"text/x-markdown"},
		}, markdownRules)
	})
	return mdLexer
}

var (
	mdOnce  sync.Once
	mdLexer chroma.Lexer
)

func markdownRules() chroma.Rules {
	return chroma.Rules{"root": {
		// Block syntax, at the start of a line.
		{Pattern: `\A(---\n)([\w\W]*?\n)(---)$`, Type: chroma.EmitterFunc(frontMatter)},
		{Pattern: "^ {0,3}((`|~)\\2{2,})[ \\t]*([^\\s`{]*)([^\\n]*\\n)([\\w\\W]*?)(^ {0,3}\\1\\2*)[ \\t]*$", Type: chroma.EmitterFunc(fencedCode)},
		{Pattern: `^ {0,3}#[ \t][^\n]*`, Type: chroma.GenericHeading},
		{Pattern: `^ {0,3}#{2,6}(?:[ \t][^\n]*)?$`, Type: chroma.GenericSubheading},
		{Pattern: `^ {0,3}(?:\*[ \t]*){3,}$|^ {0,3}(?:-[ \t]*){3,}$|^ {0,3}(?:_[ \t]*){3,}$`, Type: chroma.Keyword},
		{Pattern: `^([ \t]*)([*+-]|[0-9]{1,9}[.)])([ \t]+)(\[[ xX]\](?=[ \t]))?`, Type: chroma.ByGroups(chroma.Text, chroma.Keyword, chroma.Text, chroma.Keyword)},
		{Pattern: `^[ \t]{0,3}(?:>[ \t]?)+`, Type: chroma.Keyword},
		// Inline syntax.
		{Pattern: `<!--[\w\W]*?-->`, Type: chroma.CommentMultiline},
		{Pattern: "``[^\\n]+?``|`[^`\\n]+`", Type: chroma.LiteralStringBacktick},
		{Pattern: `(\*\*|__)(?=\S)[^\n]*?\S\1`, Type: chroma.GenericStrong},
		{Pattern: `\*(?=[^\s*])[^*\n]*?[^\s*]\*|\*[^\s*]\*|\b_(?=[^\s_])[^_\n]*?[^\s_]_\b|\b_[^\s_]_\b`, Type: chroma.GenericEmph},
		{Pattern: `~~(?=\S)[^~\n]*?\S~~`, Type: chroma.GenericDeleted},
		{Pattern: `(!?\[)([^\]\n]*)(\]\()([^)\s]*)([^)\n]*\))`, Type: chroma.ByGroups(chroma.Text, chroma.NameTag, chroma.Text, chroma.NameAttribute, chroma.Text)},
		{Pattern: `<[a-zA-Z][a-zA-Z0-9+.-]*:[^\s<>]*>`, Type: chroma.NameAttribute},
		{Pattern: "\\\\[!-/:-@\\[-`{-~]", Type: chroma.Text},
		// Everything else: a run of characters that start none of the above.
		{Pattern: "[^\\n`*_~\\[!<\\\\]+", Type: chroma.Text},
		{Pattern: `.|\n`, Type: chroma.Text},
	}}
}

// frontMatter emits a leading YAML block: its fences, and the YAML.
func frontMatter(groups []string, _ *chroma.LexerState) chroma.Iterator {
	return chroma.Concaterator(
		chroma.Literator(chroma.Token{Type: chroma.String, Value: groups[1]}),
		embedded("yaml", groups[2]),
		chroma.Literator(chroma.Token{Type: chroma.String, Value: groups[3]}))
}

// fencedCode emits a fenced block: its opening line, the code in the
// language its info string names, and its closing fence.
func fencedCode(groups []string, _ *chroma.LexerState) chroma.Iterator {
	all, code := groups[0], groups[5]
	end := len(groups[6]) + len(all) - len(strings.TrimRight(all, " \t")) // the closing fence and blanks
	open := all[:len(all)-end-len(code)]
	return chroma.Concaterator(
		chroma.Literator(chroma.Token{Type: chroma.String, Value: open}),
		embedded(strings.ToLower(groups[3]), code),
		chroma.Literator(chroma.Token{Type: chroma.String, Value: all[len(all)-end:]}))
}

// embedded is code in the named language, or text when there is no lexer
// for it.
func embedded(lang, code string) chroma.Iterator {
	if lang != "" {
		if l := lexer(lang, lexers.Get); l != nil {
			if it, err := l.Tokenise(nil, code); err == nil {
				return it
			}
		}
	}
	return chroma.Literator(chroma.Token{Type: chroma.Text, Value: code})
}
