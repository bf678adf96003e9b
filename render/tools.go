package render

import (
	"cmp"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// Views of tool calls: what a page and the Markdown export show of an
// edit, a read, a question to the user, a plan and a web search.

// pathKeys name the file a tool call works on, in the agents' inputs.
var pathKeys = []string{"file_path", "path", "filePath", "absolute_path", "notebook_path"}

// Edits returns the changes an edit call made: the patch its result
// reports, with line numbers; or else, from its input, an old/new pair
// (Claude Edit, Gemini replace, str_replace), a list of them (MultiEdit,
// a diff each), or a patch (apply_patch). A diff of old and new text has
// no line numbers: the text may be anywhere in its file.
func Edits(c *transcript.ToolCall) []FileDiff {
	p := FirstField(c.Input, pathKeys...)
	if r := c.Result; r != nil && !r.IsError && len(r.Patch) > 0 {
		// A file a diff each, in the patch's order.
		var fds []FileDiff
		for i := 0; i < len(r.Patch); {
			j := i + 1
			for j < len(r.Patch) && r.Patch[j].Path == r.Patch[i].Path {
				j++
			}
			fds = append(fds, FileDiff{Path: cmp.Or(r.Patch[i].Path, p), Rows: patchRows(r.Patch[i:j])})
			i = j
		}
		return fds
	}
	if old, new := FirstField(c.Input, "old_string", "old_str", "oldString"), FirstField(c.Input, "new_string", "new_str", "newString"); old != "" || new != "" {
		return []FileDiff{{Path: p, Rows: LineDiff(old, new, 0)}}
	}
	if edits := Field(c.Input, "edits"); strings.HasPrefix(edits, "[") {
		var fds []FileDiff
		for _, e := range jsonObjects(edits) {
			fds = append(fds, FileDiff{Path: p, Rows: LineDiff(FirstField(e, "old_string", "old_str"), FirstField(e, "new_string", "new_str"), 0)})
		}
		return fds
	}
	patch := patchText(c.Input)
	if patch == "" {
		return nil
	}
	fds := ParsePatch(patch)
	for i := range fds {
		if fds[i].Path == "" {
			fds[i].Path = p
		}
	}
	return fds
}

// patchText is the patch an input holds: a field of it, or the whole input
// of a freeform tool such as apply_patch.
func patchText(input string) string {
	patch := FirstField(input, "patch", "input", "diff")
	if patch == "" && !strings.HasPrefix(strings.TrimSpace(input), "{") {
		patch = input
	}
	return patch
}

// patchRows numbers the lines of a patch's hunks, with "…" between hunks.
func patchRows(hunks []transcript.Hunk) []Row {
	var rows []Row
	for i, h := range hunks {
		if i > 0 {
			rows = append(rows, Row{Op: '@', Text: "…"})
		}
		on, nn := h.OldStart, h.NewStart
		for _, l := range h.Lines {
			op, text := byte(' '), l
			if l != "" {
				op, text = l[0], l[1:]
			}
			switch op {
			case '+':
				rows = append(rows, Row{'+', text, nn})
				nn++
			case '-':
				rows = append(rows, Row{'-', text, on})
				on++
			case '\\': // "\ No newline at end of file"
				rows = append(rows, Row{'@', l, 0})
			default:
				rows = append(rows, Row{' ', text, nn})
				on, nn = on+1, nn+1
			}
		}
	}
	return rows
}

// ReadView is what a read call returned: the file's lines, numbered as in
// the file, and what the agent added after them (Claude Code appends a
// reminder to some reads).
type ReadView struct {
	Path string
	Rows []Row
	Tail string
}

// catLine is a line as a read numbers it: "    12\tcode" (cat -n, older
// Claude Code) or "    12→code".
var catLine = regexp.MustCompile(`^ *(\d+)(?:\t|→)(.*)$`)

// Read returns the view of a read call. The agent's own line numbers are
// taken off the text, so the page numbers each line once; text without
// them is numbered from the call's offset.
func Read(c *transcript.ToolCall) ReadView {
	v := ReadView{Path: FirstField(c.Input, pathKeys...)}
	if c.Result == nil {
		return v
	}
	lines := splitLines(c.Result.Output)
	i := 0
	for ; i < len(lines); i++ {
		m := catLine.FindStringSubmatch(lines[i])
		if m == nil {
			break
		}
		n, _ := strconv.Atoi(m[1])
		v.Rows = append(v.Rows, Row{' ', m[2], n})
	}
	if i == 0 {
		start, _ := strconv.Atoi(FirstField(c.Input, "offset", "line", "start_line"))
		return ReadView{Path: v.Path, Rows: Numbered(c.Result.Output, max(start, 1))}
	}
	v.Tail = strings.TrimSpace(strings.Join(lines[i:], "\n"))
	return v
}

// ToolSummary returns the one line a tool call's header shows: the
// command of a shell call, the pattern of a search, the files a patch
// touches, or else the input field that best says what the call did.
func ToolSummary(c *transcript.ToolCall) string {
	var v string
	switch c.Kind {
	case transcript.SearchTool:
		v = FirstField(c.Input, "pattern", "query", "regex", "glob")
	case transcript.EditTool:
		if patch := patchText(c.Input); patch != "" {
			var paths []string
			for _, fd := range ParsePatch(patch) {
				if fd.Path != "" {
					paths = append(paths, fd.Path)
				}
			}
			v = strings.Join(paths, ", ")
		}
	}
	if v == "" {
		v = Command(c.Input)
	}
	if v == "" {
		v = FirstField(c.Input, summaryKeys...)
	}
	return Truncate(120, firstLine(v))
}

// Question is one question an agent asked the user (Claude Code's
// AskUserQuestion), with the options it offered and the user's answer.
type Question struct {
	Header, Text string
	Options      []Option
	Multi        bool
	Answer       string
}

// Option is an answer the agent offered.
type Option struct{ Label, Description string }

// answerRE reads the answers from the result the agent got:
// User has answered your questions: "Which one?"="The first". …
var answerRE = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"="((?:[^"\\]|\\.)*)"`)

// Questions returns the questions of a call that asks the user, and the
// answers its result gives; nil for any other call.
func Questions(c *transcript.ToolCall) []Question {
	var in struct {
		Questions []struct {
			Question    string `json:"question"`
			Header      string `json:"header"`
			MultiSelect bool   `json:"multiSelect"`
			Options     []struct {
				Label       string `json:"label"`
				Description string `json:"description"`
			} `json:"options"`
		} `json:"questions"`
	}
	if !strings.Contains(c.Input, `"questions"`) || json.Unmarshal([]byte(c.Input), &in) != nil {
		return nil
	}
	answers := map[string]string{}
	if c.Result != nil {
		for _, m := range answerRE.FindAllStringSubmatch(c.Result.Output, -1) {
			answers[unquote(m[1])] = unquote(m[2])
		}
	}
	var out []Question
	for _, q := range in.Questions {
		if q.Question == "" {
			continue
		}
		oq := Question{Header: q.Header, Text: q.Question, Multi: q.MultiSelect, Answer: answers[q.Question]}
		for _, o := range q.Options {
			oq.Options = append(oq.Options, Option(o))
		}
		out = append(out, oq)
	}
	return out
}

func unquote(s string) string {
	if u, err := strconv.Unquote(`"` + s + `"`); err == nil {
		return u
	}
	return s
}

// Plan returns the plan a call proposes (Claude Code's ExitPlanMode), as
// Markdown; "" for any other call. A list (Codex's update_plan) is a task
// list, not a plan text.
func Plan(c *transcript.ToolCall) string {
	p := FirstField(c.Input, "plan")
	if strings.HasPrefix(p, "[") || strings.HasPrefix(p, "{") {
		return ""
	}
	return p
}

// Link is a result of a web search.
type Link struct{ Title, URL string }

// WebResults is what a web search returned: its links, and the text the
// search tool wrote about them.
type WebResults struct {
	Links []Link
	Text  string
}

// WebSearch reads the result of Claude Code's WebSearch:
//
//	Web search results for query: "…"
//	Links: [{"title":"…","url":"…"}, …]
//	a summary of what was found
//
// Any other output gives no links.
func WebSearch(output string) WebResults {
	var w WebResults
	var text []string
	for _, l := range splitLines(output) {
		if rest, ok := strings.CutPrefix(l, "Links: "); ok {
			var links []struct{ Title, URL string }
			if json.Unmarshal([]byte(rest), &links) == nil {
				for _, k := range links {
					w.Links = append(w.Links, Link{Title: k.Title, URL: k.URL})
				}
				continue
			}
		}
		if strings.HasPrefix(l, "Web search results for query: ") {
			continue
		}
		text = append(text, l)
	}
	if w.Links != nil {
		w.Text = strings.TrimSpace(strings.Join(text, "\n"))
	}
	return w
}
