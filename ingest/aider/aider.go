// Package aider reads the chat histories Aider appends to in each
// repository: .aider.chat.history.md.
package aider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Reader reads Aider's chat history: one Markdown file per repository that
// every session run there is appended to. aider/io.py writes it: a header
// per session, "#### " before each line the user typed, the model's
// response as it came, and "> " before aider's own output, each of those
// lines ending in two spaces (a Markdown line break).
var Reader = &ingest.Reader{
	Name:  "aider",
	Agent: "Aider",
	Files: "<repository>/.aider.chat.history.md (or --chat-history-file): every session aider ran there, one after another; " +
		"SEARCH/REPLACE, whole-file, udiff and patch edits become edit calls with their results",
	Detects: "text with a \"# aider chat started at YYYY-MM-DD HH:MM:SS\" line, or, for a file that begins mid-session, " +
		"\"#### \" user lines and \"> \" lines ending in two spaces",
	Detect: detect,
	Read:   read,
}

func init() { ingest.Register(Reader) }

var (
	startRE = regexp.MustCompile(`^# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s*$`)
	headRE  = regexp.MustCompile(`^# aider chat started at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\r?$`)
	userRE  = regexp.MustCompile(`^#### .*  \r?$`)
	toolRE  = regexp.MustCompile(`^>( .*)?  \r?$`)
)

func detect(h *ingest.Head) float64 {
	// Line by line, with a regular expression only for a line that starts
	// as one of aider's: run over the whole head, the three took 6% of the
	// CPU of a build of Claude Code sessions.
	users, tools := 0, 0
	for line := range bytes.Lines(h.Data) {
		switch headLine(bytes.TrimSuffix(line, []byte("\n"))) {
		case head:
			return ingest.Likely
		case user:
			users++
		case tool:
			tools++
		}
	}
	return score(h.Path, min(users, 3), min(tools, 3))
}

// headLine says what a line of a file's head is: a session header, a user
// line, a tool line or none of aider's.
func headLine(line []byte) blockMode {
	switch {
	case bytes.HasPrefix(line, []byte("# aider chat started at ")) && headRE.Match(line):
		return head
	case bytes.HasPrefix(line, []byte("#### ")) && userRE.Match(line):
		return user
	case bytes.HasPrefix(line, []byte(">")) && toolRE.Match(line):
		return tool
	}
	return none
}

// score is how sure the user and tool lines of a head make it that the
// file is aider's: any will do in a file named as aider names it.
func score(path string, users, tools int) float64 {
	if strings.HasSuffix(path, ".aider.chat.history.md") {
		return ingest.When(users+tools > 0, ingest.Maybe)
	}
	return ingest.When(users > 0 && tools > 0 && users+tools >= 3, ingest.Weak)
}

// blockMode is the kind of block the reader is in.
type blockMode int

const (
	none      blockMode = iota
	user                // "#### " lines
	assistant           // the model's response
	tool                // "> " lines
	cont                // the unprefixed lines of a multi-line tool message: only its first line has "> "
	head                // a session's header: only detect looks for it by kind
)

// reader reads one history file, a line at a time: the files grow past
// 100 MB, and only the block being read is held.
type reader struct {
	f   *ingest.File
	out []*transcript.Session
	s   *transcript.Session
	ids map[string]int

	mode      blockMode
	block     []string
	at        int  // the line the block starts on
	prevBlank bool // the last line was blank
	fence     string

	model, format string                 // from aider's startup lines
	pending       []*transcript.ToolCall // the last response's edits, waiting for "Applied edit to"
	last          *transcript.Message    // the last response, which a "Tokens:" line counts
	counted       bool                   // its tokens were counted
	skipped       int                    // empty inputs
}

func read(ctx context.Context, f *ingest.File, r io.Reader) ([]*transcript.Session, error) {
	a := &reader{f: f, ids: map[string]int{}}
	err := ingest.Lines(ctx, f, r, func(n int, b []byte, _ bool) error {
		if b == nil {
			f.Warn(n, "%v", ingest.ErrTooLong)
			return nil
		}
		a.line(n, b)
		return nil
	})
	a.end("")
	return a.out, err
}

var modeLine = regexp.MustCompile(`^-\*-.*-\*-\s*$`)

func (a *reader) line(n int, b []byte) {
	if !utf8.Valid(b) {
		b = bytes.ToValidUTF8(b, []byte("\uFFFD")) // aider writes with errors="ignore"
	}
	s := string(b)
	if n == 1 && modeLine.MatchString(s) {
		return // an Emacs mode line the user added; not part of any session
	}
	if m := startRE.FindStringSubmatch(s); m != nil {
		a.end(m[1])
		a.start(m[1])
		return
	}
	blank := strings.TrimSpace(s) == ""
	a.bodyLine(n, s, blank)
	a.prevBlank = blank
}

// bodyLine reads a line of a session: the rest of a tool's message, a
// user's line (####), a tool's (>), or a response's.
func (a *reader) bodyLine(n int, s string, blank bool) {
	hard := strings.HasSuffix(s, "  ") // the line break aider puts after its own lines
	switch {
	case a.mode == cont:
		a.contLine(s, hard, blank)
	case isUserLine(s) && a.ends(hard):
		a.enter(user, n)
		a.block = append(a.block, strings.TrimRight(strings.TrimPrefix(strings.TrimPrefix(s, "####"), " "), " "))
	case isToolLine(s) && a.ends(hard):
		a.toolLine(n, s, hard)
	case blank:
		a.blankLine()
	default:
		a.responseLine(n, s)
	}
}

// isUserLine says whether a line starts as a line the user typed.
func isUserLine(s string) bool { return s == "####" || strings.HasPrefix(s, "#### ") }

// isToolLine says whether a line starts as one of aider's own.
func isToolLine(s string) bool { return strings.HasPrefix(s, ">") && (len(s) == 1 || s[1] == ' ') }

// contLine reads a line that continues a tool's message aider broke.
func (a *reader) contLine(s string, hard, blank bool) {
	a.block = append(a.block, strings.TrimRight(s, " "))
	if hard && !blank { // the message's last line: aider stripped it, then broke it
		a.mode = tool
	}
}

// toolLine reads a "> " line: what aider itself printed.
func (a *reader) toolLine(n int, s string, hard bool) {
	a.enter(tool, n)
	t := strings.TrimRight(strings.TrimPrefix(s[1:], " "), " ")
	a.block = append(a.block, t)
	if !hard && t != "" {
		a.mode = cont
	}
}

// blankLine keeps a blank line of a response; it ends a user's message.
func (a *reader) blankLine() {
	switch a.mode {
	case assistant:
		a.block = append(a.block, "")
	case user:
		a.flush()
	}
}

// responseLine reads a line of the model's response, minding fences.
func (a *reader) responseLine(n int, s string) {
	if a.mode != assistant {
		a.enter(assistant, n)
	}
	a.block = append(a.block, s)
	a.fence = ingest.FenceState(a.fence, strings.TrimSpace(s))
}

// ends reports whether a "#### " or "> " line ends the response being read,
// rather than being part of it (a Markdown heading or quote, or a line of a
// file inside a fence). aider's lines end in two spaces, and follow a blank
// line when they come after a response.
func (a *reader) ends(hard bool) bool {
	return a.mode != assistant || hard && (a.fence == "" || a.prevBlank)
}

// enter starts a block of kind mode at line n, unless one is being read.
func (a *reader) enter(mode blockMode, n int) {
	if a.mode != mode {
		a.flush()
		a.mode, a.at, a.fence = mode, n, ""
	}
}

// start starts the session whose header says it started at ts.
func (a *reader) start(ts string) {
	t := headerTime(ts)
	id := "aider-" + t.Format("20060102-150405")
	if a.ids[id]++; a.ids[id] > 1 {
		id += "-" + strconv.Itoa(a.ids[id])
	}
	a.begin(&transcript.Session{ID: id, Started: t, Meta: map[string]string{"time zone": "unknown: aider writes local time"}})
}

// headerTime reads the time a session header gives: local time of an
// unknown zone, read as UTC.
func headerTime(ts string) time.Time {
	t, _ := time.Parse("2006-01-02 15:04:05", ts)
	return t
}

func (a *reader) begin(s *transcript.Session) {
	a.s = s
	a.model, a.format, a.pending, a.last, a.skipped = "", "", nil, nil, 0
}

// session returns the session being read, starting one without a header
// for a file that begins mid-session.
func (a *reader) session() *transcript.Session {
	if a.s == nil {
		a.begin(&transcript.Session{Meta: map[string]string{}})
	}
	return a.s
}

// end finishes the session being read; next is the time of the one that
// follows, which names a session that had no header.
func (a *reader) end(next string) {
	a.flush()
	s := a.s
	a.s = nil
	if s == nil || len(s.Turns) == 0 {
		return // a header alone: aider started and quit
	}
	if s.ID == "" {
		s.ID = a.headlessID(next)
	}
	if a.skipped > 0 {
		s.Skip("empty input", "a prompt line with nothing typed on it", a.skipped)
	}
	if t := commandTitle(s.Meta["command"]); t != "" && s.FirstPrompt() == "" {
		// A run without prompts (aider --commit, --lint) is named by what ran.
		s.Title = t
	}
	a.out = append(a.out, s)
}

// headlessID is the id of a session without a header: named after the
// file, or after the time of the session that follows it.
func (a *reader) headlessID(next string) string {
	if next == "" {
		return "aider-" + a.f.Rel
	}
	return "aider-before-" + headerTime(next).Format("20060102-150405")
}

// commandTitle is the command line aider ran with, its program without
// the directory; empty for none.
func commandTitle(command string) string {
	cmd := strings.Fields(command)
	if len(cmd) == 0 {
		return ""
	}
	return strings.Join(append([]string{path.Base(cmd[0])}, cmd[1:]...), " ")
}

// flush maps the block just read.
func (a *reader) flush() {
	block, kind := trimBlankEnd(a.block), a.mode
	a.block, a.mode = nil, none
	if len(block) == 0 {
		return
	}
	a.session()
	if read := blockModes[kind]; read != nil {
		read(a, block)
	}
}

// blockModes map a block of each kind.
var blockModes = map[blockMode]func(a *reader, block []string){
	user:      (*reader).userBlock,
	assistant: (*reader).responseBlock,
	tool:      (*reader).output,
	cont:      (*reader).output,
}

// trimBlankEnd is lines without the blank lines they end with.
func trimBlankEnd(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// userBlock maps what the user typed.
func (a *reader) userBlock(block []string) {
	text := strings.Join(block, "\n")
	if text == "<blank>" { // the user pressed enter on an empty line
		a.skipped++
		return
	}
	a.s.Append(&transcript.Message{Role: transcript.User, Parts: []*transcript.Part{{Kind: transcript.TextPart, Text: text}}})
}

// responseBlock maps the model's response; its edits wait for what aider
// says became of them.
func (a *reader) responseBlock(block []string) {
	m := &transcript.Message{Role: transcript.Assistant, Model: a.model, Parts: a.response(block)}
	a.s.Append(m)
	a.last, a.counted, a.pending = m, false, nil
	for _, p := range m.Parts {
		if p.Call != nil {
			a.pending = append(a.pending, p.Call)
		}
	}
}

var (
	modelRE   = regexp.MustCompile(`^(?:Main model|Model|Models): (\S+)(?: with (\S+) edit format)?`)
	weakRE    = regexp.MustCompile(`(?:^Weak model: |weak model )(\S+)`)
	editorRE  = regexp.MustCompile(`^Editor model: (\S+)(?: with (\S+) edit format)?`)
	commitRE  = regexp.MustCompile(`^Commit [0-9a-f]{7,40} `)
	tokensRE  = regexp.MustCompile(`^Tokens: (.*?)\.?(?: Cost: (.*))?$`)
	countRE   = regexp.MustCompile(`^([\d.,]+)([kKmM]?) (sent|received|cache write|cache hit)$`)
	sessionRE = regexp.MustCompile(`\$([\d.,]+) session`)
	// failRE opens aider's report of edits it could not apply.
	failRE = regexp.MustCompile(`^(The LLM did not conform to the edit format|# \d+ SEARCH/REPLACE blocks? failed to match|SearchReplaceNoExactMatch|UnifiedDiffNoMatch|Failed to apply edit)`)
)

// output maps a block of aider's own output: its startup lines, command
// output, lint and test results, and what became of the last response
// (its edits, its commit, its tokens).
func (a *reader) output(lines []string) {
	s := a.s
	o := &outputLines{a: a, m: &transcript.Message{Role: transcript.System}}
	for _, l := range lines {
		o.line(l)
	}
	o.flush()
	m := o.m
	a.failEdits(m, o.failed)
	if len(m.Parts) > 0 || !m.Usage.IsZero() {
		s.Append(m)
	}
	if slices.ContainsFunc(m.Parts, func(p *transcript.Part) bool { return p.Event != nil && p.Event.Kind == transcript.ErrorEvent }) {
		s.Turns[len(s.Turns)-1].Status = transcript.Failed
	}
}

// outputLines reads aider's own lines into one message: its text as
// blocks, commits, interrupts and errors as events.
type outputLines struct {
	a            *reader
	m            *transcript.Message
	text, failed []string
}

func (o *outputLines) line(l string) {
	switch {
	case tokensRE.MatchString(l):
		o.a.tokens(l, o.m)
	case o.failed != nil:
		o.failed = append(o.failed, l)
	case o.applied(l):
	case failRE.MatchString(l) && len(o.a.pending) > 0:
		o.failed = []string{l}
	default:
		o.other(l)
	}
}

// applied reads an "Applied edit to" line that answers edits of the last
// response.
func (o *outputLines) applied(l string) bool {
	path, ok := strings.CutPrefix(l, "Applied edit to ")
	return ok && o.a.applied(path, l, o.m)
}

// interrupts are the lines aider prints when the user presses Ctrl-C.
var interrupts = map[string]bool{"^C again to exit": true, "^C KeyboardInterrupt": true}

// other reads a line that concerns no edit: a commit, an interrupt, an
// error, or text, which may tell about aider's startup.
func (o *outputLines) other(l string) {
	switch {
	case commitRE.MatchString(l):
		o.event("commit", l)
	case interrupts[l]:
		o.event(transcript.Interrupt, l)
	case strings.HasPrefix(l, "Unexpected error: "):
		o.event(transcript.ErrorEvent, l)
	default:
		o.a.startup(l)
		o.text = append(o.text, l)
	}
}

// event ends the text before it and adds an event.
func (o *outputLines) event(kind, l string) {
	o.flush()
	o.m.Parts = append(o.m.Parts, ingest.EventPart(kind, l, nil))
}

// flush adds the text read since the last event as a block.
func (o *outputLines) flush() {
	if t := joinTrim(o.text); strings.TrimSpace(t) != "" {
		o.m.Parts = append(o.m.Parts, &transcript.Part{Kind: transcript.CodePart, Lang: "text", Text: t})
	}
	o.text = nil
}

// joinTrim joins lines without the empty lines around them.
func joinTrim(lines []string) string {
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// failEdits answers the edits of the last response that were not
// applied with the failure aider printed.
func (a *reader) failEdits(m *transcript.Message, failed []string) {
	if failed == nil {
		return
	}
	out := joinTrim(failed)
	for _, c := range a.pending {
		m.Parts = append(m.Parts, &transcript.Part{Kind: transcript.ResultPart,
			Result: &transcript.ToolResult{CallID: c.ID, Output: out, IsError: true}})
	}
	a.pending = nil
}

// startup reads what aider says about itself when it starts or switches
// models.
func (a *reader) startup(l string) {
	a.models(l)
	switch {
	case strings.HasPrefix(l, "Aider v"):
		a.s.AgentVersion = ingest.FirstNonEmpty(a.s.AgentVersion, strings.TrimPrefix(l, "Aider v"))
	case strings.HasPrefix(l, "Git repo: "):
		a.setMeta("git repo", strings.TrimPrefix(l, "Git repo: "))
	case len(a.s.Turns) == 0 && !a.s.Started.IsZero() && strings.Contains(l, "aider"):
		a.setMeta("command", l) // the command line, the first line after the header
	}
}

// models reads the lines that name the models and the edit format.
func (a *reader) models(l string) {
	if m := modelRE.FindStringSubmatch(l); m != nil {
		a.model, a.format = m[1], m[2]
		a.s.AddModel(m[1])
		a.setMeta("edit format", m[2])
	}
	if m := editorRE.FindStringSubmatch(l); m != nil {
		// In architect mode the editor model, named next, writes the edits.
		a.s.AddModel(m[1])
		a.setMeta("editor model", m[1])
		a.format = ingest.FirstNonEmpty(m[2], a.format)
	}
	if m := weakRE.FindStringSubmatch(l); m != nil {
		a.setMeta("weak model", strings.TrimSuffix(m[1], ","))
	}
}

// setMeta sets a fact of the session unless it is set or v is empty: the
// first time aider says it counts.
func (a *reader) setMeta(k, v string) {
	if _, ok := a.s.Meta[k]; !ok && v != "" {
		a.s.Meta[k] = v
	}
}

// tokens counts a "Tokens: 4.2k sent, 1.1k cache hit, 84 received. Cost:
// $0.02 message, $0.35 session." line for the response it follows, or for
// the message it is in when no response came since the last.
func (a *reader) tokens(l string, m *transcript.Message) {
	sm := tokensRE.FindStringSubmatch(l)
	var u transcript.Usage
	for _, item := range strings.Split(sm[1], ", ") {
		if field, n, ok := tokenCount(item); ok {
			*tokenFields[field](&u) = n
		}
	}
	// "sent" is LiteLLM's prompt_tokens, which holds the cache hits, and
	// aider adds the cache writes to it.
	u.Input = max(u.Input-u.CacheRead-u.CacheWrite, 0)
	if c := sessionRE.FindStringSubmatch(sm[2]); c != nil {
		a.s.Meta["cost (USD)"] = strings.ReplaceAll(c[1], ",", "")
	}
	if a.last != nil && !a.counted {
		a.last.Usage.Add(u)
		a.counted = true
		return
	}
	m.Usage.Add(u)
}

// tokenCount reads "4.2k sent": the field and the count; false for what
// is not a count the usage has.
func tokenCount(item string) (string, int64, bool) {
	c := countRE.FindStringSubmatch(strings.TrimSpace(item))
	if c == nil || tokenFields[c[3]] == nil {
		return "", 0, false
	}
	v, _ := strconv.ParseFloat(strings.ReplaceAll(c[1], ",", ""), 64)
	return c[3], int64(v*tokenUnits[strings.ToLower(c[2])] + 0.5), true
}

// tokenUnits are what aider's suffixes multiply by.
var tokenUnits = map[string]float64{"": 1, "k": 1e3, "m": 1e6}

// tokenFields are the usage's field of each count aider names.
var tokenFields = map[string]func(*transcript.Usage) *int64{
	"sent":        func(u *transcript.Usage) *int64 { return &u.Input },
	"received":    func(u *transcript.Usage) *int64 { return &u.Output },
	"cache write": func(u *transcript.Usage) *int64 { return &u.CacheWrite },
	"cache hit":   func(u *transcript.Usage) *int64 { return &u.CacheRead },
}

// applied gives the edits of path in the last response their result.
func (a *reader) applied(path, line string, m *transcript.Message) bool {
	found := false
	for i := 0; i < len(a.pending); i++ {
		c := a.pending[i]
		var in struct {
			Path string `json:"file_path"`
		}
		_ = json.Unmarshal([]byte(c.Input), &in)
		if in.Path != path && !strings.HasSuffix(path, "/"+in.Path) && !strings.HasSuffix(in.Path, "/"+path) {
			continue
		}
		m.Parts = append(m.Parts, &transcript.Part{Kind: transcript.ResultPart, Result: &transcript.ToolResult{CallID: c.ID, Output: line}})
		a.pending = append(a.pending[:i], a.pending[i+1:]...)
		i--
		found = true
	}
	return found
}

var (
	searchRE  = regexp.MustCompile(`^<{5,9} SEARCH>?\s*$`)
	dividerRE = regexp.MustCompile(`^={5,9}\s*$`)
	replaceRE = regexp.MustCompile(`^>{5,9} REPLACE\s*$`)
)

// response maps the lines of a model response: its reasoning, its text and
// the edits in it, which become edit calls in their place.
func (a *reader) response(lines []string) []*transcript.Part {
	r := &response{a: a, whole: strings.HasSuffix(a.format, "whole")}
	r.lines, r.parts = thinking(lines)
	for i := 0; i < len(r.lines); i++ {
		l := strings.TrimSpace(r.lines[i])
		switch {
		case searchRE.MatchString(r.lines[i]):
			i = r.searchReplace(i)
		case l == "*** Begin Patch":
			i = r.patch(i)
		case fence(l):
			i = r.fence(i)
		}
	}
	if r.from < len(r.lines) {
		r.text(r.lines[r.from:])
	}
	return r.parts
}

// response maps the lines of a response to parts.
type response struct {
	a     *reader
	lines []string
	parts []*transcript.Part
	whole bool   // the edit format writes whole files
	from  int    // the first line not yet mapped
	path  string // the file of the last SEARCH block
}

func (r *response) text(ls []string) {
	if t := joinTrim(ls); strings.TrimSpace(t) != "" {
		r.parts = append(r.parts, &transcript.Part{Kind: transcript.TextPart, Text: t})
	}
}

func (r *response) call(n int, name string, kind transcript.ToolKind, input map[string]string) {
	b, _ := json.Marshal(input)
	r.parts = append(r.parts, &transcript.Part{Kind: transcript.CallPart, Call: &transcript.ToolCall{
		ID: fmt.Sprintf("edit-%d", r.a.at+n), Name: name, Kind: kind, Input: string(b)}})
}

// searchReplace maps the SEARCH/REPLACE block that starts on line i, and
// returns its last line.
func (r *response) searchReplace(i int) int {
	lines := r.lines
	r.text(lines[r.from:r.named(i)])
	search, replace, j := sides(lines, i)
	r.call(i, "search_replace", transcript.EditTool, map[string]string{"file_path": r.path,
		"old_string": strings.Join(search, "\n"), "new_string": strings.Join(replace, "\n")})
	if closesAt(lines, j+1) {
		j++ // the fence it was in closes
	}
	r.from = j + 1
	return j
}

// named reads the file the SEARCH/REPLACE block on line i edits, named on a
// line before, around the fence the block is in; a block without one edits
// the last block's file. It returns the first line of the block with them.
func (r *response) named(i int) int {
	cut, named, fenced := i, false, false
	for j := i - 1; j >= max(r.from, i-3); j-- {
		t := strings.TrimSpace(r.lines[j])
		if p := filename(t); p != "" && !named {
			r.path, cut, named = p, j, true
		} else if fence(t) && !fenced {
			cut, fenced = j, true
		} else {
			break
		}
	}
	return cut
}

// sides reads the lines a SEARCH/REPLACE block that starts on line i
// replaces and those it puts in their place, and returns its last line.
func sides(lines []string, i int) (search, replace []string, end int) {
	j := i + 1
	for ; j < len(lines) && !dividerRE.MatchString(lines[j]); j++ {
		search = append(search, lines[j])
	}
	for j++; j < len(lines) && !replaceRE.MatchString(lines[j]); j++ {
		replace = append(replace, lines[j])
	}
	return search, replace, j
}

// patch maps the patch that starts on line i, and returns its last line.
func (r *response) patch(i int) int {
	lines := r.lines
	cut, end := i, i+1
	if i > r.from && fence(strings.TrimSpace(lines[i-1])) {
		cut = i - 1
	}
	for end < len(lines) && strings.TrimSpace(lines[end]) != "*** End Patch" {
		end++
	}
	r.text(lines[r.from:cut])
	r.call(i, "apply_patch", transcript.EditTool, map[string]string{"patch": strings.Join(lines[i:min(end+1, len(lines))], "\n")})
	if cut < end && closesAt(lines, end+1) {
		end++
	}
	r.from = end + 1
	return end
}

// fence maps the fenced block that opens on line i: a udiff, a whole
// file, a fence around edits (read on from the next line) or code, whose
// lines are text whatever they hold. It returns the line to go on after.
func (r *response) fence(i int) int {
	lines := r.lines
	end := closeFence(lines, i)
	body := lines[i+1 : end]
	name := ""
	if i > r.from {
		name = filename(strings.TrimSpace(lines[i-1]))
	}
	switch {
	case r.isUdiff(lines[i], body):
		r.text(lines[r.from:i])
		r.call(i, "udiff", transcript.EditTool, map[string]string{"file_path": diffPath(body), "patch": strings.Join(body, "\n")})
	case r.whole && name != "":
		r.text(lines[r.from : i-1])
		r.call(i, "whole_file", transcript.WriteTool, map[string]string{"file_path": name, "content": strings.Join(body, "\n")})
	case hasEdit(body):
		return i // a fence around SEARCH/REPLACE blocks or a patch: read next
	default:
		return end // a code block: its lines are text, whatever they hold
	}
	r.from = end + 1
	return end
}

// isUdiff says whether the fence opened by line l holds a udiff edit.
func (r *response) isUdiff(l string, body []string) bool {
	return strings.HasPrefix(strings.TrimSpace(l), "```diff") && strings.Contains(r.a.format, "udiff") && isDiff(body)
}

// diffPath is the file a unified diff's first "+++ " line names.
func diffPath(body []string) string {
	for _, b := range body {
		if f, ok := strings.CutPrefix(b, "+++ "); ok && strings.TrimSpace(f) != "" {
			return strings.TrimPrefix(strings.Fields(f)[0], "b/")
		}
	}
	return ""
}

// thinking takes the reasoning a response starts with: aider's
// <thinking-content-…> tags, or the model's own <think>.
func thinking(lines []string) ([]string, []*transcript.Part) {
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i == len(lines) {
		return nil, nil
	}
	tag := thinkTag(strings.TrimSpace(lines[i]))
	if tag == "" {
		return lines, nil
	}
	rest := strings.Join(lines[i:], "\n")
	rest = strings.TrimPrefix(strings.TrimSpace(rest), "<"+tag+">")
	thought, after, _ := strings.Cut(rest, "</"+tag+">") // no end: the response was cut off while thinking
	var parts []*transcript.Part
	if t := strings.TrimSpace(thought); t != "" {
		parts = append(parts, &transcript.Part{Kind: transcript.ThinkingPart, Text: t})
	}
	if strings.TrimSpace(after) == "" {
		return nil, parts
	}
	return strings.Split(strings.TrimLeft(after, "\n"), "\n"), parts
}

// thinkTag is the tag that opens reasoning on the first line of a
// response, or "" when it opens none.
func thinkTag(first string) string {
	switch {
	case strings.HasPrefix(first, "<think>"):
		return "think"
	case strings.HasPrefix(first, "<thinking-content-") && strings.Contains(first, ">"):
		return first[1:strings.IndexByte(first, '>')]
	}
	return ""
}

// fence reports whether a trimmed line opens or closes a code fence.
func fence(t string) bool { return strings.HasPrefix(t, "```") }

// closeFence returns the line that closes the fence opened on line i, or
// len(lines) when it is not closed (a response cut off).
func closeFence(lines []string, i int) int {
	for j := i + 1; j < len(lines); j++ {
		if closesAt(lines, j) {
			return j
		}
	}
	return len(lines)
}

// closesAt says whether line j is there and closes a fence.
func closesAt(lines []string, j int) bool {
	return j < len(lines) && strings.TrimSpace(lines[j]) == "```"
}

// filename reads a line naming a file before an edit as aider does:
// without the Markdown around it, and looking like a path.
func filename(t string) string {
	t = strings.TrimSpace(strings.TrimLeft(strings.TrimRight(t, ":"), "#"))
	t = strings.Trim(strings.Trim(t, "`"), "*")
	if t == "" || t == "..." || strings.ContainsAny(t, " \t") || !strings.ContainsAny(t, "./") {
		return ""
	}
	return t
}

// hasEdit reports whether the lines hold a SEARCH/REPLACE block or a patch.
func hasEdit(body []string) bool {
	for _, b := range body {
		if searchRE.MatchString(b) || strings.TrimSpace(b) == "*** Begin Patch" {
			return true
		}
	}
	return false
}

// isDiff reports whether the lines hold a unified diff.
func isDiff(body []string) bool {
	minus, plus := false, false
	for _, b := range body {
		minus = minus || strings.HasPrefix(b, "--- ")
		plus = plus || strings.HasPrefix(b, "+++ ")
	}
	return minus && plus
}
