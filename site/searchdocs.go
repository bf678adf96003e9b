package site

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/viper"

	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/site/search"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// searchParts are what the search index can hold, for the config key
// search.include. Thinking is left out unless asked for, and so are files
// as the agent read them: more than half of what sessions hold, and
// found better in the repository they came from; the read itself is found
// by its path.
var searchParts = []string{"prompts", "assistant", "thinking", "tools", "commands", "paths", "output", "files"}

var defaultSearch = []string{"prompts", "assistant", "tools", "commands", "paths", "output"}

// toolKinds are the tool kinds in the order of the index's kind bits.
var toolKinds = []transcript.ToolKind{
	transcript.ShellTool, transcript.ReadTool, transcript.WriteTool, transcript.EditTool, transcript.SearchTool,
	transcript.WebTool, transcript.TaskTool, transcript.MCPTool, transcript.OtherTool,
}

// toolInput is what the index takes from a tool call's input: the command,
// and the fields that name files, directories, patterns or URLs. Decoding
// into it skips the rest of the input.
type toolInput struct {
	Command      any `json:"command"`
	Cmd          any `json:"cmd"`
	FilePath     any `json:"file_path"`
	Path         any `json:"path"`
	FilePath2    any `json:"filePath"`
	AbsolutePath any `json:"absolute_path"`
	NotebookPath any `json:"notebook_path"`
	DirPath      any `json:"dir_path"`
	Pattern      any `json:"pattern"`
	Glob         any `json:"glob"`
	URL          any `json:"url"`
	Query        any `json:"query"`
}

func searchInclude(v *viper.Viper) (map[string]bool, error) {
	list, err := list(v, "search.include")
	if err != nil {
		return nil, err
	}
	if list == nil {
		list = defaultSearch
	}
	inc := map[string]bool{}
	for _, p := range list {
		if !slices.Contains(searchParts, p) {
			return nil, fmt.Errorf("search.include: %q is not one of %s", p, strings.Join(searchParts, ", "))
		}
		inc[p] = true
	}
	return inc, nil
}

// partText is how much text of a session's documents is prepared for the
// index at a time: what preparing holds is a few times the text it
// tokenizes, and a session can hold gigabytes.
var partText = 8 << 20 // a variable for tests

// searchSession prepares a session for the index: a document of its title
// and models (number 0: a result that links to the page's top), then one
// per message, with the text the config includes, in parts of about
// partText.
func searchSession(s *Session, include map[string]bool) []*search.Prepared {
	day := 0
	if !s.Started.IsZero() {
		day = int(s.Started.Unix() / 86400)
	}
	info := search.Session{Title: s.Title, Project: s.Project.Name, Agent: s.Agent, Models: s.Models, Path: s.Path, Day: day}
	about := strings.Join(append([]string{s.Title}, s.Models...), "\n")
	docs := []search.Doc{{Role: search.RoleSystem, Text: about, Excerpt: about}}
	var parts []*search.Prepared
	size, n := len(about), 0
	flush := func() {
		parts = append(parts, search.PreparePart(info, docs, len(parts) > 0))
		docs, size = nil, 0
	}
	for _, t := range s.Turns {
		for _, m := range t.Messages {
			n++
			if d, ok := searchDoc(m, include); ok {
				d.N = n
				docs = append(docs, d)
				if size += len(d.Text); size >= partText {
					flush()
				}
			}
		}
	}
	if len(docs) > 0 || len(parts) == 0 {
		flush()
	}
	return parts
}

func searchDoc(m *transcript.Message, include map[string]bool) (search.Doc, bool) {
	d := search.Doc{Role: map[transcript.Role]int{
		transcript.User: search.RoleUser, transcript.Assistant: search.RoleAssistant,
		transcript.System: search.RoleSystem, transcript.Tool: search.RoleTool,
	}[m.Role]}
	var b, ex strings.Builder // what is indexed; what a result shows of it
	show := func(text string, markdown bool) {
		if ex.Len() < excerptSource {
			text = text[:min(len(text), excerptSource)]
			if markdown {
				text = plainText(text)
			}
			ex.WriteString(text)
			ex.WriteByte('\n')
		}
	}
	addText := func(on bool, text string, markdown bool) {
		if on && text != "" {
			b.WriteString(text)
			b.WriteByte('\n')
			show(text, markdown)
		}
	}
	add := func(on bool, text string) { addText(on, text, false) }
	textPart := include["assistant"]
	if m.Role == transcript.User {
		textPart = include["prompts"] && !m.Meta
	}
	for _, p := range m.Parts {
		switch p.Kind {
		case transcript.TextPart:
			addText(textPart, p.Text, true)
		case transcript.CodePart:
			add(textPart, p.Text)
		case transcript.ThinkingPart:
			addText(include["thinking"], p.Text, true)
		case transcript.EventPart:
			add(true, p.Text)
		case transcript.CallPart:
			c := p.Call
			d.Kinds |= 1 << slices.Index(toolKinds, c.Kind)
			if include["tools"] { // an id is how a log, an API error or a colleague names a call; a result shows the name
				b.WriteString(c.Name + " " + c.ID + "\n")
				show(c.Name, false)
			}
			if include["commands"] || include["paths"] {
				var in toolInput
				if json.Unmarshal([]byte(c.Input), &in) != nil {
					add(include["commands"], c.Input) // free text: apply_patch, a command line
				}
				for _, v := range []any{in.Command, in.Cmd} {
					add(include["commands"], words(v))
				}
				if include["paths"] {
					for _, v := range []any{in.FilePath, in.Path, in.FilePath2, in.AbsolutePath, in.NotebookPath, in.DirPath, in.Pattern, in.Glob, in.URL, in.Query} {
						add(true, words(v))
					}
				}
			}
			if c.Result != nil {
				part := "output"
				if c.Kind == transcript.ReadTool {
					part = "files"
				}
				add(include[part], render.StripANSI(c.Result.Output))
			}
		case transcript.ResultPart:
			if !p.Result.Paired {
				add(include["output"], render.StripANSI(p.Result.Output))
			}
		}
	}
	d.Text, d.Excerpt = b.String(), ex.String()
	return d, d.Text != ""
}

// excerptSource is how much of a document's text is made plain for its
// excerpt: more than the index keeps of it.
const excerptSource = 4 << 10

// markdownSyntax is what plainText takes out of Markdown: fences, heading
// and quote markers, list bullets, emphasis and code marks, and the
// brackets of links and images (their text stays, their address goes).
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

// plainText is Markdown as a reader sees it, for a search result.
func plainText(md string) string {
	for _, r := range markdownSyntax {
		md = r.re.ReplaceAllString(md, r.new)
	}
	return md
}

// words returns a string input value, or an argv list joined by spaces.
func words(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, " ")
	}
	return ""
}

func toolKindNames() []string {
	names := make([]string, len(toolKinds))
	for i, k := range toolKinds {
		names[i] = string(k)
	}
	return names
}
