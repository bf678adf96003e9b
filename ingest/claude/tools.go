package claude

import (
	"fmt"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"regexp"
	"strings"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// toolUse is toolUseResult, the structured copy of a tool's result that
// Claude Code writes beside the text the model saw. Only what the page can
// use is read; originalFile and the like are skipped.
type toolUse struct {
	Stdout           *string `json:"stdout"` // set for Bash
	Stderr           string  `json:"stderr"`
	Interrupted      bool    `json:"interrupted"`
	BackgroundTaskID string  `json:"backgroundTaskId"`
	ExitCode         *int    `json:"exitCode"` // BashOutput
	IsError          bool    `json:"is_error"`
	FilePath         string  `json:"filePath"`
	StructuredPatch  []struct {
		OldStart int      `json:"oldStart"`
		NewStart int      `json:"newStart"`
		Lines    []string `json:"lines"`
	} `json:"structuredPatch"` // Edit, MultiEdit, Write
	File *struct {
		Content   string `json:"content"`
		StartLine int    `json:"startLine"`
		Base64    string `json:"base64"`
	} `json:"file"` // Read
	AgentID string `json:"agentId"` // Task, Agent
}

// output is a tool_result block's content: mostly a string, decoded in
// the pass that reads its block; anything else (blocks of text and
// images) is kept raw.
type output struct {
	text   string
	isText bool // a string, or null: what Unmarshal decodes into a string
	raw    ingest.Raw
}

func (o *output) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*o = output{} // a repeated key's value replaces the first's
	if k := dec.PeekKind(); k != '"' && k != 'n' {
		return o.raw.UnmarshalJSONFrom(dec)
	}
	// Should json/v2 fail on the string, decode reads the block again with
	// this value raw, handed to UnmarshalJSON.
	o.isText = true
	return jsonv2.UnmarshalDecode(dec, &o.text)
}

func (o *output) UnmarshalJSON(b []byte) error {
	*o = output{}
	if o.isText = ingest.Unmarshal(b, &o.text) == nil; !o.isText {
		o.raw = b
	}
	return nil
}

// structured is a record's toolUseResult: the result as text (an error
// mostly), or the tool's own fields, decoded in the pass that reads the
// record. Should json/v2 fail on any of them, decode reads the record
// again with this value raw, handed to UnmarshalJSON: there the fields
// that drifted are left out and the others kept.
type structured struct {
	text   string
	isText bool // a string, or null
	use    toolUse
	isUse  bool // use holds the fields
}

func (st *structured) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*st = structured{}
	switch dec.PeekKind() {
	case '"', 'n':
		st.isText = true
		return jsonv2.UnmarshalDecode(dec, &st.text)
	case '{':
		st.isUse = true
		return jsonv2.UnmarshalDecode(dec, &st.use)
	}
	return dec.SkipValue()
}

func (st *structured) UnmarshalJSON(b []byte) error {
	*st = structured{}
	if st.isText = ingest.Unmarshal(b, &st.text) == nil; !st.isText {
		st.isUse = ingest.IsDrift(ingest.Unmarshal(b, &st.use))
	}
	return nil
}

var (
	agentIDRE = regexp.MustCompile(`(?m)^agentId: ([\w-]+) \(`)
)

// toolResult reads a tool_result block, with the record's toolUseResult
// when it describes this block.
func (cf *file) toolResult(b block, structured *structured) *transcript.ToolResult {
	r := &transcript.ToolResult{CallID: b.ToolUseID, IsError: b.IsError}
	cf.resultContent(r, b.Content)
	u := structured.use
	if structured.isText {
		addText(r, structured.text)
	} else if structured.isUse {
		cf.useStructured(r, &u)
	}
	if id := agentID(&u, r.Output); id != "" {
		cf.agentOf[b.ToolUseID] = "agent-" + id
	}
	if r.ExitCode == nil {
		r.ExitCode = exitCode(r, &u)
	}
	return r
}

// addText adds a result given as plain text, an error mostly: "Error: "
// and what the model saw, or what it did not see (the user's reason to
// reject).
func addText(r *transcript.ToolResult, s string) {
	if t := strings.TrimPrefix(s, "Error: "); !strings.Contains(r.Output, strings.TrimSpace(t)) {
		r.Output = strings.TrimLeft(r.Output+"\n"+s, "\n")
	}
}

// agentID is the subagent a Task result names, for resuming it.
func agentID(u *toolUse, output string) string {
	if u.AgentID != "" || !strings.Contains(output, "agentId: ") { // the test first: the pattern is tried at every line
		return u.AgentID
	}
	if m := agentIDRE.FindStringSubmatch(output); m != nil {
		return m[1]
	}
	return ""
}

// exitCode is a result's exit code, as its output says; Bash reports
// "Exit code N" as an error for any other status than 0.
func exitCode(r *transcript.ToolResult, u *toolUse) *int {
	if code := ingest.ExitCode(r.Output); code != nil {
		return code
	}
	if u.Stdout != nil && !r.IsError && !u.Interrupted && u.BackgroundTaskID == "" {
		zero := 0
		return &zero
	}
	return nil
}

// resultContent reads a tool result's content: a string, or blocks of text
// and images.
func (cf *file) resultContent(r *transcript.ToolResult, content output) {
	var elems []ingest.Raw
	switch raw := content.raw; {
	case content.isText:
		r.Output = content.text
	case ingest.Unmarshal(raw, &elems) == nil:
		var texts []string
		for _, e := range elems {
			if text, ok := cf.resultElem(r, e); ok {
				texts = append(texts, text)
			}
		}
		r.Output = strings.Join(texts, "\n")
	default:
		r.Output = ingest.Text(raw)
	}
}

// useStructured completes a result from its toolUseResult: Bash output and
// interruption, the patch of an edit, a read file, and its image when the
// text lacks it (the same image is often in both: it is kept once).
// resultElem reads an element of a result's content: its text, or false
// for an image, which it adds to r.
func (cf *file) resultElem(r *transcript.ToolResult, e ingest.Raw) (string, bool) {
	var c struct {
		block
		Title string `json:"title"`
		URL   string `json:"url"`
	}
	if err := decode(e, &c); !ingest.IsDrift(err) {
		return ingest.Text(e), true
	}
	switch c.Type {
	case "text":
		return c.Text, true
	case "image":
		if p := cf.imagePart(c.block); p.Image != nil {
			r.Images = append(r.Images, p.Image)
		}
		return "", false
	case "tool_reference":
		return c.ToolName, true
	case "web_search_result":
		return c.Title + "\n" + c.URL, true
	}
	return ingest.Text(e), true
}

func (cf *file) useStructured(r *transcript.ToolResult, u *toolUse) {
	r.IsError = r.IsError || u.IsError
	if u.ExitCode != nil {
		r.ExitCode = u.ExitCode
	}
	addPrinted(r, u)
	if u.Interrupted && !strings.Contains(strings.ToLower(r.Output), "interrupt") {
		r.Output = strings.TrimLeft(r.Output+"\n[interrupted]", "\n")
	}
	// The patch of an edit, with the line numbers the page shows.
	if !r.IsError {
		for _, h := range u.StructuredPatch {
			r.Patch = append(r.Patch, transcript.Hunk{OldStart: h.OldStart, NewStart: h.NewStart, Lines: h.Lines})
		}
	}
	if u.File != nil {
		cf.addReadFile(r, u)
	}
}

// addPrinted adds what the command printed to the output; the model sees
// the same, but for an output too long for it.
func addPrinted(r *transcript.ToolResult, u *toolUse) {
	if u.Stdout == nil {
		return
	}
	out := strings.Trim(strings.TrimRight(*u.Stdout, "\n")+"\n"+u.Stderr, "\n")
	if !strings.Contains(r.Output, out) {
		r.Output = strings.Trim(r.Output+"\n"+out, "\n")
	}
}

// addReadFile gives a result without output or images the file Read read:
// its text numbered from its start line, as Read shows a file to the
// model, or its image.
func (cf *file) addReadFile(r *transcript.ToolResult, u *toolUse) {
	f := u.File
	if r.Output == "" && f.Content != "" {
		lines := strings.Split(strings.TrimSuffix(f.Content, "\n"), "\n")
		for i, l := range lines {
			lines[i] = fmt.Sprintf("%6d→%s", max(f.StartLine, 1)+i, l)
		}
		r.Output = strings.Join(lines, "\n")
	}
	if len(r.Images) == 0 && f.Base64 != "" {
		if img, ok := ingest.DecodeImage(cf.f, f.Base64); ok {
			r.Images = append(r.Images, img)
		}
	}
}
