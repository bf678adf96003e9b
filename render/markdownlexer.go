package render

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// markdownLexer highlights Markdown source: the README, plan or notes an
// agent read or wrote, shown a row at a time. It stands in for chroma's
// own, whose every character of prose is a token of its own that each of
// its seventeen rules is tried on: 0.5 MB/s, where agents write Markdown
// by the hundred kilobytes. Here a run of plain text is one token, so a
// line of prose costs a few matches. It shows what chroma's does
// (headings, list and quote markers, emphasis, code spans, links,
// comments, YAML front matter and fenced code in its language) in the
// same token types, so the theme's classes are the same.
//
// Its time grows with the text, whatever the text: front matter and
// fences are found by a scan of the lines, not by a pattern that looks
// ahead to the end for each opening line, and the inline patterns look
// no further than a span's bound. (chroma's took 35 s on a line of 20,000
// unclosed "**": a session is untrusted input.)
func markdownLexer() chroma.Lexer {
	mdOnce.Do(func() {
		mdLexer = &markdown{quick(chroma.MustNewLexer(&chroma.Config{
			Name:      "markdown",
			Aliases:   []string{"md", "mkd"},
			Filenames: []string{"*.md", "*.mkd", "*.markdown"},
			MimeTypes: []string{"text/x-markdown"},
		}, markdownRules))}
	})
	return mdLexer
}

var (
	mdOnce  sync.Once
	mdLexer chroma.Lexer
)

// markdown lexes the text between fences with its rules (run by the
// quick loop, as every lexer is), and the fences' code with the lexer of
// its language.
type markdown struct{ prose chroma.Lexer }

func (m *markdown) Config() *chroma.Config { return m.prose.Config() }
func (m *markdown) SetRegistry(r *chroma.LexerRegistry) chroma.Lexer {
	m.prose.SetRegistry(r)
	return m
}
func (m *markdown) SetAnalyser(a func(string) float32) chroma.Lexer {
	m.prose.SetAnalyser(a)
	return m
}
func (m *markdown) AnalyseText(text string) float32 { return m.prose.AnalyseText(text) }

// lineEnds makes every line end \n, as chroma's lexers do.
var lineEnds = strings.NewReplacer("\r\n", "\n", "\r", "\n")

func (m *markdown) Tokenise(options *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	it, _, err := m.tokeniseFrom(options, text)
	return it, err
}

// tokeniseFrom is Tokenise, and the text its prose is cut from.
func (m *markdown) tokeniseFrom(_ *chroma.TokeniseOptions, text string) (chroma.Iterator, string, error) {
	text = lineEnds.Replace(text)
	if !utf8.ValidString(text) {
		text = string([]rune(text)) // as chroma reads text: a byte not UTF-8 is U+FFFD
	}
	var its []chroma.Iterator
	prose := func(s string) error {
		if s == "" {
			return nil
		}
		it, err := m.prose.Tokenise(nil, s)
		its = append(its, it)
		return err
	}
	literal := func(t chroma.TokenType, s string) {
		if s != "" {
			its = append(its, chroma.Literator(chroma.Token{Type: t, Value: s}))
		}
	}
	from := 0 // the start of the prose not yet lexed
	if fm, ok := frontMatterOf(text); ok {
		open, body, closing := text[:4], text[4:fm-3], text[fm-3:fm]
		literal(chroma.String, open)
		its = append(its, embedded("yaml", body))
		literal(chroma.String, closing)
		from = fm
	}
	for at := from; at < len(text); {
		line := text[at:lineEnd(text, at)]
		fence, lang, ok := fenceOpening(line)
		if !ok {
			at += len(line)
			continue
		}
		if err := prose(text[from:at]); err != nil {
			return nil, "", err
		}
		body := at + len(line)
		end := body // of the code: at the closing fence, or the text's end when there is none
		for end < len(text) {
			l := text[end:lineEnd(text, end)]
			if fenceClosing(l, fence) {
				break
			}
			end += len(l)
		}
		literal(chroma.String, line)
		if code := text[body:end]; code != "" {
			its = append(its, embedded(lang, code))
		}
		closeLine := strings.TrimSuffix(text[end:lineEnd(text, end)], "\n")
		literal(chroma.String, closeLine)
		at = end + len(closeLine)
		from = at
	}
	if err := prose(text[from:]); err != nil {
		return nil, "", err
	}
	return chroma.Concaterator(its...), text, nil
}

// lineEnd is where the line of text that starts at i ends, after its \n.
func lineEnd(text string, i int) int {
	if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(text)
}

// frontMatterOf is where the YAML block that opens text ends, after its
// closing "---" (not its line end).
func frontMatterOf(text string) (int, bool) {
	if !strings.HasPrefix(text, "---\n") {
		return 0, false
	}
	for at := 4; at < len(text); {
		end := lineEnd(text, at)
		if strings.TrimSuffix(text[at:end], "\n") == "---" {
			return at + 3, at > 4 // an empty block is a rule, not front matter
		}
		at = end
	}
	return 0, false
}

// fenceOpening reports whether line opens a fenced block (up to three
// spaces, three or more backticks or tildes, an info string), with its
// fence and the language the info string names.
func fenceOpening(line string) (fence, lang string, ok bool) {
	rest := strings.TrimLeft(line, " ")
	if len(line)-len(rest) > 3 || len(rest) < 3 || (rest[0] != '`' && rest[0] != '~') {
		return "", "", false
	}
	n := len(rest) - len(strings.TrimLeft(rest, rest[:1]))
	if n < 3 {
		return "", "", false
	}
	info := strings.TrimSpace(rest[n:])
	if rest[0] == '`' && strings.Contains(info, "`") {
		return "", "", false
	}
	if i := strings.IndexAny(info, " \t{"); i >= 0 {
		info = info[:i]
	}
	return rest[:n], strings.ToLower(info), true
}

// fenceClosing reports whether line closes the block fence opened: up to
// three spaces, as many of its character or more, and nothing else.
func fenceClosing(line, fence string) bool {
	rest := strings.TrimLeft(line, " ")
	if len(line)-len(rest) > 3 || !strings.HasPrefix(rest, fence) {
		return false
	}
	return strings.TrimSpace(strings.TrimLeft(rest, fence[:1])) == ""
}

// markdownRules lex Markdown without its fences and front matter.
func markdownRules() chroma.Rules {
	return chroma.Rules{
		"root": {
			// Block syntax, at the start of a line.
			{Pattern: `^ {0,3}#[ \t][^\n]*`, Type: chroma.GenericHeading},
			{Pattern: `^ {0,3}#{2,6}(?:[ \t][^\n]*)?$`, Type: chroma.GenericSubheading},
			{Pattern: `^ {0,3}(?:\*[ \t]*){3,}$|^ {0,3}(?:-[ \t]*){3,}$|^ {0,3}(?:_[ \t]*){3,}$`, Type: chroma.Keyword},
			{Pattern: `^([ \t]*)([*+-]|[0-9]{1,9}[.)])([ \t]+)(\[[ xX]\](?=[ \t]))?`, Type: chroma.ByGroups(chroma.Text, chroma.Keyword, chroma.Text, chroma.Keyword)},
			{Pattern: `^[ \t]{0,3}(?:>[ \t]?)+`, Type: chroma.Keyword},
			// Inline syntax: spans of at most a few hundred characters.
			{Pattern: `<!--`, Type: chroma.CommentMultiline, Mutator: chroma.Push("comment")},
			{Pattern: "``[^\\n]{1,256}?``|`[^`\\n]+`", Type: chroma.LiteralStringBacktick},
			{Pattern: `(\*\*|__)(?=\S)[^\n]{0,256}?\S\1`, Type: chroma.GenericStrong},
			{Pattern: `\*(?=[^\s*])[^*\n]*?[^\s*]\*|\*[^\s*]\*|\b_(?=[^\s_])[^_\n]*?[^\s_]_\b|\b_[^\s_]_\b`, Type: chroma.GenericEmph},
			{Pattern: `~~(?=\S)[^~\n]*?\S~~`, Type: chroma.GenericDeleted},
			{Pattern: `(!?\[)([^\]\n]{0,256})(\]\()([^)\s]{0,2048})([^)\n]{0,256}\))`, Type: chroma.ByGroups(chroma.Text, chroma.NameTag, chroma.Text, chroma.NameAttribute, chroma.Text)},
			{Pattern: `<[a-zA-Z][a-zA-Z0-9+.-]{0,31}:[^\s<>]{0,2048}>`, Type: chroma.NameAttribute},
			{Pattern: "\\\\[!-/:-@\\[-`{-~]", Type: chroma.Text},
			// Everything else: a run of characters that start none of the above.
			{Pattern: "[^\\n`*_~\\[!<\\\\]+", Type: chroma.Text},
			{Pattern: `.|\n`, Type: chroma.Text},
		},
		"comment": {
			{Pattern: `-->`, Type: chroma.CommentMultiline, Mutator: chroma.Pop(1)},
			{Pattern: `[^-]+|-`, Type: chroma.CommentMultiline},
		},
	}
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
