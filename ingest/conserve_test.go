package ingest_test

// The conservation test reads files no one here wrote (the shared corpus
// of real sessions) and files a generator wrote, and checks that nothing a
// person or a model wrote is lost on the way to what a reader sees: every
// string of every record reaches both the pages and the session.md of the
// sessions the file gave (shown_test.go), or the session lists the
// record's kind as skipped, with a reason. What is not text anyone wrote
// (ids, times, hashes, settings) is named below, with why.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/internal/synth"
	"github.com/transcriptsite/transcriptsite/transcript"

	_ "modernc.org/sqlite"
)

// corpusDir is the shared corpus beside the repository. A user's clone
// has none: the tests that read it skip.
const corpusDir = "../../shared/corpus"

// loaded holds what Load gave for a directory, read once for all tests.
type loaded struct {
	res      *ingest.Result
	bySource map[string][]*transcript.Session // a file → the sessions read from it
	warned   map[string]map[int]bool          // a file → lines a warning names
}

var loads sync.Map // dir → func() (*loaded, error)

func load(t *testing.T, dir string) *loaded {
	t.Helper()
	f, _ := loads.LoadOrStore(dir, sync.OnceValues(func() (*loaded, error) {
		res, err := ingest.Load(context.Background(), ingest.Root{FS: os.DirFS(dir)})
		if err != nil {
			return nil, err
		}
		l := &loaded{res: res, bySource: map[string][]*transcript.Session{}, warned: map[string]map[int]bool{}}
		for _, s := range res.Sessions {
			for _, src := range append([]string{s.Source}, s.Sources...) {
				l.bySource[src] = append(l.bySource[src], s)
			}
		}
		for _, w := range res.Warnings {
			if l.warned[w.File] == nil {
				l.warned[w.File] = map[int]bool{}
			}
			l.warned[w.File][w.Line] = true
		}
		return l, nil
	}))
	l, err := f.(func() (*loaded, error))()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func corpus(t *testing.T) *loaded {
	t.Helper()
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skip("no shared corpus beside the repository")
	}
	return load(t, corpusDir)
}

func TestConservation(t *testing.T) {
	conserve(t, corpusDir, corpus(t))
}

// TestConservationDirs runs the check over any folders of session files,
// listed in $TRANSCRIPTSITE_CONSERVE (separated by the OS's list
// separator): real sessions a user or another project has.
func TestConservationDirs(t *testing.T) {
	dirs := filepath.SplitList(os.Getenv("TRANSCRIPTSITE_CONSERVE"))
	if len(dirs) == 0 {
		t.Skip("no $TRANSCRIPTSITE_CONSERVE")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) { conserve(t, dir, load(t, dir)) })
	}
}

// TestConservationGenerated runs the same check over sessions the
// generator writes in each agent's format, with images and long outputs.
func TestConservationGenerated(t *testing.T) {
	dir := t.TempDir()
	if _, err := synth.Generate(dir, synth.Options{Sessions: 9, Messages: 40, Seed: 11, Images: true, OutputLines: 80,
		Formats: []string{"claude-code", "codex", "gemini-cli"}}); err != nil {
		t.Fatal(err)
	}
	conserve(t, dir, load(t, dir))
}

func conserve(t *testing.T, dir string, l *loaded) {
	var files []string
	_ = fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && len(l.bySource[p]) > 0 {
			files = append(files, p)
		}
		return err
	})
	if len(files) == 0 {
		t.Fatal("no session files")
	}
	shown := siteOf(t, dir)
	total, lost := 0, 0
	for _, p := range files {
		ss := l.bySource[p]
		var ids []string
		for _, s := range ss {
			ids = append(ids, s.ID)
		}
		page, md := shown.hays(t, ids)
		for _, n := range needles(t, path.Join(dir, p), ss[0].Format) {
			if l.warned[p][n.line] || skippedKind(ss, n.kind) || notWritten(ss[0].Format, n) {
				continue
			}
			total++
			if prefix := addedPrefix[ss[0].Format+" "+n.path]; prefix != "" {
				n.text = strings.TrimPrefix(n.text, prefix)
			}
			for _, re := range []*regexp.Regexp{gutter[ss[0].Format+" "+n.path], status[ss[0].Format+" "+n.path]} {
				if re != nil {
					n.text = re.ReplaceAllString(n.text, "")
				}
			}
			for _, h := range []struct {
				where string
				hay   *hay
			}{{"page", page}, {"session.md", md}} {
				miss := h.hay.missing(n.text)
				if miss != "" && n.or != "" && h.hay.missing(n.or) == "" {
					miss = ""
				}
				if miss == "" {
					continue
				}
				if os.Getenv("CONSERVE_DEBUG") != "" {
					fmt.Printf("LOST %s %s %s %s\t%s:%d %q\n", h.where, ss[0].Format, n.kind, n.path, p, n.line, cut(miss, 80))
				}
				if lost++; lost <= 60 {
					t.Errorf("%s:%d: %s%s lost on the %s: %q", p, n.line, n.kind, n.path, h.where, cut(miss, 100))
				}
			}
		}
	}
	t.Logf("%d files, %d strings written by a person or a model, %d losses (on a page or in a session.md)", len(files), total, lost)
	if lost > 60 {
		t.Errorf("and %d more lost", lost-60)
	}
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// A needle is a string of a session file: where it is and what it says.
type needle struct {
	line int    // its line in a JSONL file, or 1
	kind string // the record's type, "type/subtype" where one type has several
	path string // its JSON path in the record, "[]" for any index
	text string
	or   string // what a page may show instead: a JSON member's value
}

// needles lists every string of the file at p: each JSON string of each
// record, each text cell of a database, each line of a text file.
func needles(t *testing.T, p, format string) []needle {
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []needle
	switch {
	case bytes.HasPrefix(data, []byte("SQLite format 3\x00")):
		return dbNeedles(t, p)
	case json.Valid(data):
		walkRecords(data, 1, &out)
	case jsonLines(data):
		for i, line := range bytes.Split(data, []byte("\n")) {
			walkRecords(line, i+1, &out)
		}
	default:
		return textNeedles(format, string(data))
	}
	return out
}

// textNeedles lists the lines of a Markdown or text session (Aider,
// SpecStory and domarkx Markdown, Cursor's text transcripts) without
// their markup: headings and quote marks, fences, rules, comments, and the
// lines each format writes around messages.
func textNeedles(format, data string) []needle {
	var out []needle
	config, front := false, false
	for i, line := range strings.Split(data, "\n") {
		t := strings.TrimSpace(lineNumber.ReplaceAllString(line, ""))
		for {
			s := strings.TrimSpace(markupPrefix.ReplaceAllString(t, ""))
			if p := linePrefix[format]; p != nil {
				s = p.ReplaceAllString(s, "")
			}
			if s == t {
				break
			}
			t = s
		}
		bare := strings.Trim(strings.TrimSpace(htmlTag.ReplaceAllString(t, "")), "`*_")
		switch {
		case bare == "":
			continue
		case i == 0 && t == "---":
			front = true
			continue
		case front:
			// Front matter: settings, but for the title.
			front = t != "---"
			if title, ok := strings.CutPrefix(t, "title:"); ok {
				out = append(out, needle{line: i + 1, kind: "line", text: strings.Trim(strings.TrimSpace(title), `"`)})
			}
			continue
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			// domarkx's agent settings and message metadata
			config = strings.Contains(t, "session-config") || strings.Contains(t, "msg-metadata")
			continue
		case config, markupLine.MatchString(bare), textSyntax[format] != nil && textSyntax[format].MatchString(bare):
			continue
		}
		text, value := textOf(format, strings.Trim(t, "`*_"))
		out = append(out, needle{line: i + 1, kind: "line", text: text, or: value})
	}
	return out
}

// textOf is what a page shows of a line of a text format. SpecStory
// writes Cursor's tool blocks with HTML escapes, which a page shows as
// the characters they stand for, and a tool's parameters as JSON, one
// member a line, of which a page may show the line as written (a JSON
// result) or the value under a name of its own (a tool's input).
func textOf(format, line string) (text, value string) {
	if format != "specstory" {
		return line, ""
	}
	line = html.UnescapeString(line)
	if m := jsonMember.FindStringSubmatch(line); m != nil && json.Unmarshal([]byte(m[1]), &value) == nil {
		return line, value
	}
	return line, ""
}

var jsonMember = regexp.MustCompile(`^"[\w.-]+": ("(?:[^"\\]|\\.)*"),?$`)

var (
	// Lines that are only markup: rules and comments, once tags are gone.
	markupLine = regexp.MustCompile(`^(---+|\*\*\*+|<!--.*-->)$`)
	htmlTag    = regexp.MustCompile(`</?[a-zA-Z][\w-]*(\s[^>]*)?>`)
	// What opens a line of Markdown: heading and quote marks, and the
	// markers text transcripts put before a part.
	markupPrefix = regexp.MustCompile(`^(#{1,6}|>|\[(Thinking|Tool call|Tool result)\])( |$)`)
)

// textSyntax are the lines each text format writes around messages, with
// no text of their own.
var textSyntax = map[string]*regexp.Regexp{
	"aider": regexp.MustCompile(`^(-\*- mode: .* -\*-|aider chat started at .*|<<<<<<< SEARCH|=======|>>>>>>> REPLACE|` +
		`Tokens: .* sent, .* received\..*|Use /help for help, run "aider --help" to see cmd line args)$`),
	"domarkx": regexp.MustCompile(`^(system_message|User|Assistant|Tool|System)$`),
	// SpecStory's headers, and the lines its Markdown writes around a
	// tool's input and result: summaries, labels, a diff's chunk headers.
	"specstory": regexp.MustCompile(`^((User|Agent|Assistant)( - sidechain)?( \(.*\))?|\d{4}-\d\d-\d\d \S+|Tool use: .*|` +
		`(Read file|Edit file|Run command): .*|(Path|Add|Update|Delete|Move): \x60.*|Searched (codebase|web) .*|Grep (search )?for .*|` +
		`Listed (current )?directory.*|Read lints for .*|MCP tool call|Called tool\*: .*|` +
		`(Parameters|Result|Input|Output|Error|Additional data)\*?:|Chunk \d+|Lines added: \S+, lines removed: \S+|Todo List:?|Agent task list:)$`),
	"cursor": regexp.MustCompile(`^(user|assistant):$`),
}

// linePrefix is what a text format writes before a line of its own: the
// parameter names of a Cursor transcript's tool calls.
var linePrefix = map[string]*regexp.Regexp{
	"cursor": regexp.MustCompile(`^[a-z_]+: `),
	// SpecStory's thinking tags around a line, and the date after a title.
	"specstory": regexp.MustCompile(`^<think><details><summary>Thought Process</summary>|</details></think>$|` +
		` \(\d{4}-\d\d-\d\d[ _][\d:-]+Z?\)$`),
}

func jsonLines(data []byte) bool {
	first, _, _ := bytes.Cut(bytes.TrimSpace(data), []byte("\n"))
	return json.Valid(first) && bytes.HasPrefix(first, []byte("{"))
}

func walkRecords(data []byte, line int, out *[]needle) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return
	}
	kind := recordKind(v)
	walk(v, "", false, func(p, s string) { *out = append(*out, needle{line: line, kind: kind, path: p, text: s}) })
}

// recordKind is a record's "type", with its subtype where records of one
// type hold several: progress and attachments (Claude Code), event_msg
// and response_item (Codex).
func recordKind(v any) string {
	m, _ := v.(map[string]any)
	typ, _ := m["type"].(string)
	for _, k := range []string{"data", "attachment", "payload"} {
		if sub, ok := m[k].(map[string]any); ok {
			if st, ok := sub["type"].(string); ok {
				return typ + "/" + st
			}
		}
	}
	if st, ok := m["subtype"].(string); ok {
		return typ + "/" + st
	}
	return typ
}

// walk calls f with every string in v and its path. A string that holds
// JSON (a tool's input, a cell) is walked in turn; whole, too, when raw.
func walk(v any, p string, raw bool, f func(p, s string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			walk(e, p+"."+k, raw, f)
		}
	case []any:
		for _, e := range x {
			walk(e, p+"[]", raw, f)
		}
	case string:
		if t := strings.TrimSpace(x); len(t) > 1 && (t[0] == '{' || t[0] == '[') {
			var inner any
			if json.Unmarshal([]byte(t), &inner) == nil {
				walk(inner, p+">", raw, f)
				if !raw {
					return
				}
			}
		}
		f(p, x)
	}
}

// dbNeedles lists every text value of every table of a SQLite database.
func dbNeedles(t *testing.T, p string) []needle {
	db, err := sql.Open("sqlite", "file:"+p+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		_ = rows.Scan(&name)
		tables = append(tables, name)
	}
	var out []needle
	for _, table := range tables {
		rs, err := db.Query(`SELECT * FROM "` + table + `"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rs.Columns()
		for n := 1; rs.Next(); n++ {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			_ = rs.Scan(ptrs...)
			for i, v := range vals {
				var s string
				switch x := v.(type) {
				case string:
					s = x
				case []byte:
					if strs := protoStrings(x, 0); len(strs) > 0 && !json.Valid(x) {
						// A protocol buffer (Cursor's store): its strings.
						for _, str := range strs {
							out = append(out, needle{line: n, kind: table + "." + cols[i], path: ".proto", text: str})
						}
						continue
					}
					if !utf8.Valid(x) {
						continue // binary: hashes, images
					}
					s = string(x)
				}
				kind := table + "." + cols[i]
				if json.Valid([]byte(s)) && strings.ContainsAny(s[:1], "{[") {
					var j any
					_ = json.Unmarshal([]byte(s), &j)
					walk(j, "", false, func(p, str string) { out = append(out, needle{line: n, kind: kind, path: p, text: str}) })
				} else if s != "" {
					out = append(out, needle{line: n, kind: kind, text: s})
				}
			}
		}
		rs.Close()
	}
	return out
}

// protoStrings returns the text fields of a protocol buffer message, and
// of the messages nested in it.
func protoStrings(b []byte, depth int) []string {
	var out []string
	for len(b) > 0 {
		_, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil
		}
		b = b[n:]
		if typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(0, typ, b); n < 0 {
				return nil
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return nil
		}
		b = b[n:]
		if inner := protoStrings(v, depth+1); depth < 8 && inner != nil {
			out = append(out, inner...)
		} else if utf8.Valid(v) && printable.Match(v) {
			out = append(out, string(v))
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

var printable = regexp.MustCompile(`^[^\x00-\x08\x0e-\x1f]*$`)

// skippedKind reports whether one of the sessions lists kind as skipped.
func skippedKind(ss []*transcript.Session, kind string) bool {
	for _, s := range ss {
		for _, k := range s.Skipped {
			if k.Reason != "" && (k.Kind == kind || strings.HasPrefix(k.Kind, kind+"/") || strings.HasPrefix(kind, k.Kind+"/")) {
				return true
			}
		}
	}
	return false
}

var (
	// A line number that a file read prefixes (cat -n, Claude Code's Read),
	// and markup tags that wrap what agents inject: the page shows neither,
	// so text is compared line by line, between tags, spaces collapsed.
	lineNumber = regexp.MustCompile(`^\s*\d+(→|\t)`)
	// "[image]" and the like stand for a part of another kind.
	placeholder = regexp.MustCompile(`\[(image|document)\]`)
	// Cursor's <timestamp>: "Tuesday, Mar 3, 2026, 10:15 AM (UTC+1)".
	timeLine = regexp.MustCompile(`^[A-Z][a-z]+, [A-Z][a-z]+ \d{1,2}, \d{4}, \d{1,2}:\d\d(:\d\d)? [AP]M \(UTC[^)]*\)$`)
)

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, cleanLines(l)...)
	}
	return out
}

// cleanLines is a line of text without the tags in it, cut where they
// were, each piece normalised.
func cleanLines(line string) []string {
	var out []string
	for _, l := range strings.Split(htmlTag.ReplaceAllString(line, "\n"), "\n") {
		l = strings.Join(strings.Fields(lineNumber.ReplaceAllString(l, "")), " ")
		if strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") {
			l = l[1 : len(l)-1] // "[Request interrupted by user]" is shown as an event
		}
		// A preview cut short is the start of its text; a placeholder of
		// an image is the image.
		l = strings.TrimSpace(placeholder.ReplaceAllString(strings.TrimRight(l, ".…"), ""))
		if timeLine.MatchString(l) {
			l = "" // a time the reader takes as the message's time
		}
		out = append(out, l)
	}
	return out
}

// textKeys hold what a person or a model wrote, whatever it looks like:
// a one-word prompt is a prompt.
var textKeys = map[string]bool{
	"text": true, "content": true, "thinking": true, "prompt": true, "message": true, "output": true,
	"stdout": true, "stderr": true, "summary": true, "display": true, "query": true, "command": true,
	"lastPrompt": true, "value": true, "result": true,
}

var (
	// Keys whose values are ids, times, hashes or settings, not text.
	metaKey = regexp.MustCompile(`(?i)(^|_)(uu)?ids?$|[a-z](Id|ID|Ids|Uuid|UUID)$|^(timestamp|ts|time|date)$|(_at|At|Time|_time|Updated)$|` +
		`signature|^hash$|^snapshot$|encrypted_content|^version$`)
	// A value that is one token (a type, a status, a model, a path) is not
	// prose unless its key holds text.
	token = regexp.MustCompile(`^\S{1,80}$`)
	// Images are checked by count; their data is not text.
	imageData = regexp.MustCompile(`^data:[a-z]+/[\w.+-]+;base64,|^[A-Za-z0-9+/=\s]{400,}$`)
)

// harnessLine is what an agent's harness writes into a tool's output, not
// the tool: Codex's header of a command's or a patch's output (the exit
// code is read). And the lines a web search's results start with, which
// name the query its view shows and list, as JSON, the pages it links;
// and the heading the IDE puts between
// its context and the user's request, which is shown as the prompt.
var harnessLine = regexp.MustCompile(`^(Web search results for query: .*|Links: \[\{.*|Chunk ID: \w+|Wall time: [\d.]+ seconds|Process exited with code \d+|Exit code: \d+|` +
	`Process running with session ID \d+|Original token count: \d+|Total output lines: \d+|Output:|## My request for Codex:)$`)

// diffHeader is the header of a diff or of a hunk: a patch keeps it as its
// path and line numbers. Codex's apply_patch names each file so.
var diffHeader = regexp.MustCompile(`^(@@ .* @@.*|Index: .*|={10,}|(---|\+\+\+) .*|\*\*\* (Begin|End) Patch|\*\*\* (Add|Update|Delete) File: .*|\*\*\* Move to: .*)$`)

// addedPrefix is what a format writes before a copy of a text: Claude Code
// writes an error's text again as its toolUseResult, after "Error: ".
var addedPrefix = map[string]string{"claude-code .toolUseResult": "Error: "}

// gutter is what a format writes before each line of a copy of a text:
// Pi's edit results number the lines of the diff they report, and a page
// numbers them in a gutter of its own (from the file after the edit).
var gutter = map[string]*regexp.Regexp{"pi .message.details.diff": regexp.MustCompile(`(?m)^[ +-] *\d+ `)}

// status is what an agent writes into a copy of what a person wrote,
// not the person: Claude Code's "init is analyzing your codebase…" beside
// a slash command, which the page shows as the command.
var status = map[string]*regexp.Regexp{"claude-code .message.content": regexp.MustCompile(`<command-message>[\w:.-]+ is [^<]*</command-message>`)}

// notWrittenPaths are what is not text a person or a model wrote in
// each format, as "format kind path" patterns, each with why.
var notWrittenPaths = []struct{ pattern, why string }{
	{`^claude-code user/?\S* \.toolUseResult\.originalFile(Contents)?$`, "the whole file before an edit: the edit's diff shows the change"},
	{`^claude-code \S+ \.toolUseResult\.usage\.`, "a subagent's token counts"},
	{`^\S+ \S* \S*\.(activeForm|active_form)$`, "a todo's text in the -ing form the agent shows while on it"},
	{`^cursor \S* \.annotations\[\]\.value$`, "a status Cursor attaches to a message"},
	{`^claude-code \S+ \.message\.usage\.`, "token counts"},
	{`\.(source\.data|file\.base64|inlineData\.data)$`, "an image's bytes: the page shows the image, and images are checked by count"},
	{`^codex turn_context \.payload\.`, "a turn's settings: sandbox, approvals, model, effort"},
	{`^codex session_meta \.payload\.(base_instructions|instructions)`, "the agent's own system prompt, the same in every session"},
	{`^codelia (header|llm\.request) \.(tools|input\.tools)`, "tool schemas the harness sends the model"},
	{`^codex response_item/tool_search_output \.payload\.tools\[\]\.(tools\[\]\.)?parameters\.`, "the parameter schemas of the tools a tool search found (their names and descriptions are shown)"},
	{`^gemini-cli \S* \.(messages\[\]\.)?toolCalls\[\]\.(description|displayName)$`, "a tool's description and name for people, from its schema"},
	{`^gemini-cli \S* \.(messages\[\]\.)?toolCalls\[\]\.resultDisplay$`, "what the CLI displayed of a result, as text: a copy of the result's output, which the page shows"},
	{`^gemini-cli \S* \.(messages\[\]\.)?toolCalls\[\]\.resultDisplay\.(originalContent|newContent)$`, "the whole file before and after an edit: the edit's diff shows the change"},
	{`^pi session \.(branchedFrom|parentSession)$`, "the file of the session this one was forked from: the page links that session when the site has it"},
	{`^codex event_msg/task_complete \.payload\.last_agent_message$`, "a copy of the turn's last agent message, which the page shows where it was said"},
	{`^codex compacted \.payload\.replacement_history\[\]\.`, "the history a compaction keeps: copies of earlier messages, which the page shows where they were said"},
	{`^pi message \.message\.content\[\]\.partialJson$`, "a call's arguments as they streamed in, cut where the stream stopped: its arguments hold them whole"},
}

var notWrittenRE = sync.OnceValue(func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, n := range notWrittenPaths {
		out = append(out, regexp.MustCompile(n.pattern))
	}
	return out
})

// notWritten reports whether n is not text a person or a model wrote.
func notWritten(format string, n needle) bool {
	key := n.path[strings.LastIndexAny(n.path, ".>]")+1:]
	if n.kind == "line" {
		return false
	}
	if metaKey.MatchString(key) || imageData.MatchString(n.text) {
		return true
	}
	if !textKeys[key] && token.MatchString(strings.TrimSpace(n.text)) {
		return true
	}
	at := fmt.Sprintf("%s %s %s", format, n.kind, n.path)
	return slices.ContainsFunc(notWrittenRE(), func(re *regexp.Regexp) bool { return re.MatchString(at) })
}
