package synth

import (
	"bufio"
	"math/rand/v2"
	"path"
	"strconv"
	"strings"
)

// gen generates one session. Everything it makes is drawn from r, so a
// session depends only on the seed and its index.
type gen struct {
	r     *rand.Rand
	zipf  *rand.Zipf
	opts  *Options
	st    *Stats // the worker's counts: writers add calls, images, records
	proj  *project
	topic []string // words this session is about
	focus []string // files the current turn works on
	todos []todo
	now   int64 // the session clock, Unix milliseconds
}

// A session is planned one turn at a time and handed to a format writer
// step by step, so nothing larger than one step is ever held.
type writer interface {
	setOutput(w *bufio.Writer) // write errors surface at its Flush
	begin()
	command(c *command) // a slash command: three meta records
	prompt(p *prompt)
	step(s *step)
	endTurn(ms int64, record bool) // record: write a turn-duration message
	end()
}

type command struct{ name, args, output string }

type prompt struct {
	text   string
	images [][]byte // PNGs pasted with the prompt
}

// step is one model response and the results of the tools it called.
type step struct {
	retry     bool // an API error and a retry came first
	thinking  string
	subject   string // the thinking's headline
	text      string
	calls     []*call
	interrupt bool  // the user rejected the last call and stopped the turn
	final     bool  // the turn's answer
	tokens    int   // output tokens
	at        int64 // when the response began, ms
}

type todo struct{ content, active, status string }

type toolKind uint8

const (
	bashTool toolKind = iota
	readTool
	editTool
	writeTool
	grepTool
	globTool
	fetchTool
	searchTool
	todoTool
	taskTool
	mcpTool
	askTool
	numTools
)

// call is a tool call with its result, in terms every format can render.
type call struct {
	kind       toolKind
	start, dur int64 // ms

	path                string // project-relative file
	command, desc       string // shell
	pattern, glob, mode string // search
	url, query, prompt  string // web, task
	oldStr, newStr      string // edit
	server, tool, args  string // MCP: args is JSON
	agentType, agentID  string
	question, header    string
	options             []string

	output     string // what the tool gave back: stdout, text, matches, report
	stderr     string
	exit       int
	isError    bool
	errText    string // why a failed call failed
	rejected   bool   // the user refused the call
	ansi       bool
	content    string // Read: the lines read; Write: the file; Edit: the file before
	startLine  int    // Read: first line read, Edit: first line of oldStr (1-based)
	numLines   int
	totalLines int
	files      []string    // Grep / Glob matches, project-relative
	links      [][2]string // WebSearch: title, URL
	image      []byte      // Read of a picture
	oldTodos   []todo
	newTodos   []todo
	answer     string
	tokens     int // Task: tokens the subagent used
	toolUses   int
}

// hunkLines appends the lines of a Write ("+") or an Edit ("-" then "+").
func hunkLines(b []byte, c *call) []byte {
	add := c.newStr
	if c.kind == writeTool {
		add = c.content
	} else {
		for _, l := range strings.Split(c.oldStr, "\n") {
			b = ap(b, "-", l, "\n")
		}
	}
	for _, l := range strings.Split(add, "\n") {
		b = ap(b, "+", l, "\n")
	}
	return b
}

// edited is the file after an Edit.
func (c *call) edited() string { return strings.Replace(c.content, c.oldStr, c.newStr, 1) }

// session plans n messages and writes them through w.
func (g *gen) session(w writer, n int) {
	w.begin()
	for left, first := n, true; left > 0; first = false {
		left -= g.turn(w, left, first)
	}
	w.end()
}

// turn writes one turn of at most left messages and returns how many it
// wrote. Costs are in messages as the transcript model counts them.
func (g *gen) turn(w writer, left int, first bool) int {
	if left == 1 && !first {
		g.tick(500, 3000)
		w.endTurn(int64(1000+g.r.IntN(60000)), true)
		return 1
	}
	used := g.turnStart(w, left, first)
	w.prompt(g.prompt(first))
	used++
	started := g.now

	avail := left - used - 1 // one is kept for the answer
	steps := g.stepCount()
	for i := 0; i < steps && avail >= 2; i++ {
		cost, interrupted := g.toolStep(w, i, avail)
		avail -= cost
		used += cost
		if interrupted {
			used++ // the interruption takes the answer's place
			w.endTurn(g.now-started, false)
			return used
		}
	}
	w.step(g.answer(steps == 0))
	used++
	record := used < left && g.r.IntN(3) == 0
	if record {
		used++
	}
	w.endTurn(g.now-started, record)
	return used
}

// turnStart lets the time pass before a turn's prompt, writes the slash
// command the user may run first, and picks the files the turn is about.
// It returns the messages it wrote.
func (g *gen) turnStart(w writer, left int, first bool) int {
	used := 0
	if first {
		g.tick(2000, 60_000)
	} else {
		g.tick(15_000, 20*60_000) // the user reads, thinks, types
	}
	if left >= 7 && g.r.IntN(14) == 0 {
		w.command(g.command())
		used += 3
		g.tick(2000, 30_000)
	}
	g.focus = g.focus[:0]
	for range 1 + g.r.IntN(4) {
		g.focus = append(g.focus, g.proj.files[g.r.IntN(len(g.proj.files))])
	}
	return used
}

// stepCount is how many steps of tool calls a turn takes: none for a
// question, answered without tools.
func (g *gen) stepCount() int {
	steps := 2 + g.r.IntN(14)
	if g.r.IntN(5) == 0 {
		return 0
	}
	return steps
}

// toolStep writes step i of a turn with avail messages left, and returns
// the messages it cost and whether the user interrupted it.
func (g *gen) toolStep(w writer, i, avail int) (int, bool) {
	k := min(g.callsInStep(), avail-1)
	s := &step{}
	if avail >= k+2 && g.r.IntN(40) == 0 {
		s.retry = true
	}
	g.fill(s, k, i)
	if k == 1 && g.r.IntN(40) == 0 {
		g.reject(s.calls[0])
		s.interrupt = true
	}
	w.step(s)
	cost := 1 + k
	if s.retry {
		cost++
	}
	return cost, s.interrupt
}

// callsInStep is how many calls a step makes at once, mostly one.
func (g *gen) callsInStep() int {
	switch x := g.r.IntN(20); {
	case x == 0:
		return 3
	case x < 4:
		return 2
	}
	return 1
}

// tick advances the clock by a random time in [lo, hi) ms.
func (g *gen) tick(lo, hi int) { g.now += int64(lo + g.r.IntN(hi-lo)) }

var slashCommands = []command{
	{"model", "", "Set model to claude-opus-4-7"},
	{"clear", "", ""},
	{"cost", "", "Total cost:            $%d.%d\nTotal duration (API):  %dm %ds"},
	{"context", "", "Context Usage\n  ⛁ System prompt: 3.1k tokens (1.6%)\n  ⛁ Messages: %d.%dk tokens"},
	{"mcp", "", "Reconnected to %s."},
	{"review", "%s", ""},
}

func (g *gen) command() *command {
	c := slashCommands[g.r.IntN(len(slashCommands))]
	if strings.Contains(c.output, "%d") {
		c.output = strings.Replace(c.output, "%d", strconv.Itoa(g.r.IntN(40)), -1)
	}
	c.output = strings.ReplaceAll(c.output, "%s", g.noun())
	c.args = strings.ReplaceAll(c.args, "%s", g.file())
	return &c
}

func (g *gen) prompt(first bool) *prompt {
	b := make([]byte, 0, 512)
	switch x := g.r.IntN(12); {
	case x < 2 && !first:
		short := []string{"yes", "go ahead", "continue", "commit this", "run the tests again", "looks good, push it",
			"ok", "do it", "try again", "what about the other one?", "revert that", "keep going"}
		b = append(b, short[g.r.IntN(len(short))]...)
		if g.r.IntN(2) == 0 {
			b = append(b, ". "...)
			b = g.sentence(b)
		}
	case x < 4:
		b = append(b, "I get this when I run `"...)
		b = append(b, g.toolchain().test...)
		b = append(b, "`:\n\n```\n"...)
		b = append(b, g.failure(3+g.r.IntN(10))...)
		b = append(b, "\n```\n\n"...)
		b = g.paragraph(b, 1+g.r.IntN(2))
	case x < 7:
		b = appendTitle(b, g.verb())
		b = append(b, " the "...)
		b = append(b, g.noun()...)
		b = append(b, " in `"...)
		b = append(b, g.file()...)
		b = append(b, "` so that "...)
		b = g.paragraph(b, 1+g.r.IntN(3))
	case x < 9:
		b = append(b, "Why does `"...)
		b = g.ident(b, g.proj.lang.style)
		b = append(b, "` "...)
		b = g.phrase(b, 3+g.r.IntN(5))
		b = append(b, "? "...)
		b = g.paragraph(b, g.r.IntN(3))
	default:
		b = g.paragraph(b, 2+g.r.IntN(4))
		b = append(b, "\n\n"...)
		for range 2 + g.r.IntN(4) {
			b = append(b, "- "...)
			b = g.sentence(b)
			b = append(b, '\n')
		}
	}
	p := &prompt{}
	if g.opts.Images && g.proj.usePNGs && g.r.IntN(10) == 0 {
		for i := range 1 + g.r.IntN(2) {
			p.images = append(p.images, g.png())
			b = append(b, " [Image #"...)
			b = strconv.AppendInt(b, int64(i+1), 10)
			b = append(b, ']')
		}
	}
	p.text = strings.TrimSpace(string(b))
	return p
}

// fill makes step i of a turn with k tool calls.
func (g *gen) fill(s *step, k, i int) {
	g.tick(1500, 25_000)
	if g.r.IntN(10) < 6 {
		b := append(make([]byte, 0, 600), "The user wants me to "...)
		b = append(b, g.verb()...)
		b = append(b, ' ')
		b = g.paragraph(b, 1+g.r.IntN(5))
		s.thinking, s.subject = string(b), g.title()
	}
	if g.r.IntN(2) == 0 {
		leads := []string{"Let me ", "I'll ", "Now let me ", "First, I'll ", "Next I'll "}
		b := append(make([]byte, 0, 200), leads[g.r.IntN(len(leads))]...)
		b = append(b, g.verb()...)
		b = append(b, " `"...)
		b = append(b, g.file()...)
		b = append(b, "` "...)
		b = g.phrase(b, 2+g.r.IntN(6))
		b = append(b, '.')
		if g.r.IntN(3) == 0 {
			b = append(b, ' ')
			b = g.sentence(b)
		}
		s.text = string(b)
	}
	s.at = g.now
	g.tick(300*(k+2), 900*(k+2)) // the response streams in before tools run
	for range k {
		s.calls = append(s.calls, g.call(g.kind(i)))
	}
	s.tokens = 40 + len(s.thinking)/4 + len(s.text)/4 + 60*k + g.r.IntN(200)
}

func (g *gen) answer(long bool) *step {
	g.tick(2000, 40_000)
	s := &step{final: true, at: g.now}
	if g.r.IntN(2) == 0 {
		s.thinking, s.subject = string(g.paragraph(nil, 1+g.r.IntN(4))), g.title()
	}
	n := 2 + g.r.IntN(6)
	if long {
		n += 4 + g.r.IntN(8)
	}
	b := make([]byte, 0, 4096)
	if g.r.IntN(3) == 0 {
		b = append(b, "Done. "...)
	}
	s.text = string(g.markdown(b, n))
	s.tokens = 50 + len(s.thinking)/4 + len(s.text)/4
	g.tick(400, 1500)
	return s
}

// toolWeights are how often each tool is called early in a turn
// (exploring) and later (changing things).
var toolWeights = [2][numTools]int{
	{bashTool: 20, readTool: 26, editTool: 4, writeTool: 1, grepTool: 14, globTool: 6, fetchTool: 3, searchTool: 3, todoTool: 8, taskTool: 5, mcpTool: 6, askTool: 2},
	{bashTool: 30, readTool: 15, editTool: 25, writeTool: 6, grepTool: 6, globTool: 2, fetchTool: 2, searchTool: 2, todoTool: 6, taskTool: 1, mcpTool: 4, askTool: 1},
}

func (g *gen) kind(i int) toolKind {
	w := &toolWeights[min(i/2, 1)]
	total := 0
	for _, x := range w {
		total += x
	}
	for {
		x := g.r.IntN(total)
		for k, n := range w {
			if x < n {
				if toolKind(k) == mcpTool && len(g.proj.mcp) == 0 {
					break // no MCP server here: draw again
				}
				return toolKind(k)
			}
			x -= n
		}
	}
}

// lines is how many lines a tool prints: usually a few, sometimes the
// corpus' typical long output, rarely thousands.
func (g *gen) lines(few int) int {
	switch x := g.r.IntN(1000); {
	case x < 5:
		return 2001 + g.r.IntN(2000)
	case x < 45:
		n := g.opts.OutputLines
		return n/2 + g.r.IntN(n+1)
	}
	return few
}

func (g *gen) call(k toolKind) *call {
	c := &call{kind: k, start: g.now}
	if fill := callFillers[k]; fill != nil {
		fill(g, c)
	}
	g.now += c.dur + int64(g.r.IntN(300))
	return c
}

// callFillers make up the input and output of a call of each kind.
var callFillers = map[toolKind]func(*gen, *call){
	bashTool:   (*gen).bash,
	readTool:   (*gen).read,
	editTool:   (*gen).edit,
	writeTool:  (*gen).write,
	grepTool:   (*gen).grep,
	globTool:   (*gen).glob,
	fetchTool:  (*gen).fetch,
	searchTool: (*gen).search,
	todoTool:   (*gen).todo,
	taskTool:   (*gen).task,
	mcpTool:    (*gen).mcp,
	askTool:    (*gen).ask,
}

// write makes a call that writes a new file.
func (g *gen) write(c *call) {
	c.path = g.newFile()
	c.content = string(g.fileContent(nil, c.path, 15+g.r.IntN(150)))
	c.dur = 5 + int64(g.r.IntN(40))
}

// glob makes a call that lists the project's files of one extension.
func (g *gen) glob(c *call) {
	ext := path.Ext(g.codeFile())
	c.pattern = "**/*" + ext
	for _, f := range g.proj.files {
		if strings.HasSuffix(f, ext) && len(c.files) < 100 {
			c.files = append(c.files, f)
		}
	}
	c.dur = 2 + int64(g.r.IntN(30))
}

// ask makes a question to the user, with options and the one chosen.
func (g *gen) ask(c *call) {
	c.question = string(g.sentence(nil))
	c.question = c.question[:len(c.question)-1] + "?"
	c.header = string(appendTitle(nil, g.noun()))
	for range 2 + g.r.IntN(3) {
		c.options = append(c.options, string(appendTitle(nil, string(g.phrase(nil, 1+g.r.IntN(4))))))
	}
	c.answer = c.options[g.r.IntN(len(c.options))]
	c.dur = 5000 + int64(g.r.IntN(120_000))
}

// reject turns c into a call the user refused.
func (g *gen) reject(c *call) {
	c.isError, c.rejected = true, true
	c.errText = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."
	c.output, c.stderr = "", ""
}

func (g *gen) read(c *call) {
	c.dur = 3 + int64(g.r.IntN(60))
	if g.opts.Images && g.proj.usePNGs && g.r.IntN(12) == 0 {
		c.path = "docs/screenshots/" + g.noun() + "-" + g.noun() + ".png"
		c.image = g.png()
		return
	}
	c.path = g.file()
	if g.r.IntN(30) == 0 {
		c.isError = true
		c.errText = "File does not exist."
		return
	}
	c.totalLines = g.lines(20 + g.r.IntN(380))
	c.startLine, c.numLines = 1, min(c.totalLines, 2000)
	if c.totalLines > 60 && g.r.IntN(5) == 0 {
		c.startLine = 1 + g.r.IntN(c.totalLines/2)
		c.numLines = min(c.totalLines-c.startLine+1, 20+g.r.IntN(120))
	}
	c.content = string(g.fileContent(nil, c.path, c.numLines))
}

func (g *gen) edit(c *call) {
	c.dur = 5 + int64(g.r.IntN(80))
	c.path = g.codeFile()
	lines := strings.Split(string(g.fileContent(nil, c.path, 30+g.r.IntN(250))), "\n")
	i := g.r.IntN(len(lines))
	for tries := 0; tries < len(lines) && (strings.TrimSpace(lines[i]) == "" || strings.TrimSpace(lines[i]) == "}"); tries++ {
		i = (i + 1) % len(lines)
	}
	k := min(1+g.r.IntN(6), len(lines)-i)
	c.content = strings.Join(lines, "\n")
	c.oldStr = strings.Join(lines[i:i+k], "\n")
	c.startLine = i + 1
	indent := lines[i][:len(lines[i])-len(strings.TrimLeft(lines[i], " \t"))]
	l := langOf(c.path)
	if l == nil || l == langJSON {
		l = g.proj.lang
	}
	repl := string(g.expand([]byte(indent), l.stmts[g.r.IntN(len(l.stmts))], l, nil, indent))
	newLines := append([]string{}, lines[i:i+k]...)
	if g.r.IntN(2) == 0 {
		newLines[len(newLines)-1] = repl
	} else {
		newLines = append(newLines, repl)
	}
	c.newStr = strings.Join(newLines, "\n")
	if c.newStr == c.oldStr {
		c.newStr += "\n" + indent + "// " + string(g.sentence(nil))
	}
	if g.r.IntN(25) == 0 {
		c.isError = true
		c.errText = "String to replace not found in file.\nString: " + c.oldStr
		if g.r.IntN(2) == 0 {
			c.errText = "File has not been read yet. Read it first before writing to it."
		}
	}
}

func (g *gen) grep(c *call) {
	c.dur = 10 + int64(g.r.IntN(400))
	switch x := g.r.IntN(4); {
	case x == 0:
		c.pattern = "TODO|FIXME"
	case x == 1:
		c.pattern = string(g.ident(nil, pascal))
	default:
		c.pattern = string(g.ident(nil, g.proj.lang.style))
	}
	if g.r.IntN(3) == 0 {
		ext := langExt(g.proj.lang)
		c.glob = "*." + ext
	}
	if g.r.IntN(10) == 0 {
		return // no matches
	}
	c.mode = "files_with_matches"
	if g.r.IntN(5) < 2 {
		c.mode = "content"
		n := g.lines(2 + g.r.IntN(25))
		b := make([]byte, 0, 80*n)
		l := g.proj.lang
		for i := range n {
			if i > 0 {
				b = append(b, '\n')
			}
			f := g.file()
			if i == 0 || g.r.IntN(4) == 0 {
				c.files = append(c.files, f)
			}
			b = append(b, f...)
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(1+g.r.IntN(900)), 10)
			b = append(b, ':')
			mark := len(b)
			b = g.expand(b, l.stmts[g.r.IntN(len(l.stmts))], l, nil, "")
			if j := strings.IndexByte(string(b[mark:]), '\n'); j >= 0 {
				b = b[:mark+j]
			}
		}
		c.output = string(b)
		c.numLines = n
		return
	}
	for range 1 + g.r.IntN(12) {
		c.files = append(c.files, g.proj.files[g.r.IntN(len(g.proj.files))])
	}
}

func langExt(l *lang) string {
	switch l {
	case langGo:
		return "go"
	case langPython:
		return "py"
	case langRust:
		return "rs"
	}
	return "ts"
}

var docHosts = []string{"https://docs.%s.dev/%s/%s", "https://github.com/%s/%s/issues/%d", "https://pkg.go.dev/github.com/%s/%s",
	"https://developer.mozilla.org/en-US/docs/Web/API/%s", "https://www.postgresql.org/docs/16/%s-%s.html",
	"https://doc.rust-lang.org/std/%s/struct.%s.html", "https://stackoverflow.com/questions/%d/%s-%s", "https://%s.readthedocs.io/en/latest/%s.html"}

func (g *gen) link() string {
	t := docHosts[g.r.IntN(len(docHosts))]
	var b []byte
	for i := 0; i < len(t); i++ {
		if t[i] == '%' && i+1 < len(t) {
			if t[i+1] == 'd' {
				b = strconv.AppendInt(b, int64(1000+g.r.IntN(70_000_000)), 10)
			} else {
				b = append(b, g.noun()...)
			}
			i++
			continue
		}
		b = append(b, t[i])
	}
	return string(b)
}

func (g *gen) fetch(c *call) {
	c.url = g.link()
	c.prompt = "Extract " + string(g.phrase(nil, 3+g.r.IntN(8)))
	c.dur = 800 + int64(g.r.IntN(9000))
	if g.r.IntN(12) == 0 {
		c.isError = true
		c.exit = []int{403, 404, 429, 500, 503}[g.r.IntN(5)]
		c.errText = "Request failed with status code " + strconv.Itoa(c.exit)
		return
	}
	c.exit = 200
	c.output = string(g.markdown(nil, 3+g.r.IntN(10)))
}

func (g *gen) search(c *call) {
	b := g.ident(nil, g.proj.lang.style)
	b = append(b, ' ')
	b = g.phrase(b, 2+g.r.IntN(4))
	if g.r.IntN(3) == 0 {
		b = append(b, ' ')
		b = append(b, g.errorCode()...)
	}
	c.query = string(b)
	c.dur = 2000 + int64(g.r.IntN(20_000))
	for range 4 + g.r.IntN(7) {
		c.links = append(c.links, [2]string{string(appendTitle(nil, string(g.phrase(nil, 3+g.r.IntN(7))))), g.link()})
	}
	c.output = string(g.markdown(nil, 2+g.r.IntN(5)))
}

func (g *gen) todo(c *call) {
	c.dur = 2 + int64(g.r.IntN(10))
	c.oldTodos = append([]todo(nil), g.todos...)
	if len(g.todos) == 0 || g.r.IntN(6) == 0 {
		g.todos = g.todos[:0]
		for range 3 + g.r.IntN(5) {
			v, rest := g.verb(), g.phrase(nil, 2+g.r.IntN(5))
			g.todos = append(g.todos, todo{
				content: string(append(appendTitle(nil, v), append([]byte{' '}, rest...)...)),
				active:  string(append(appendTitle(nil, gerund(v)), append([]byte{' '}, rest...)...)),
				status:  "pending",
			})
		}
	}
	for i := range g.todos {
		if g.todos[i].status == "in_progress" {
			g.todos[i].status = "completed"
			if i+1 < len(g.todos) {
				g.todos[i+1].status = "in_progress"
			}
			break
		}
		if g.todos[i].status == "pending" {
			g.todos[i].status = "in_progress"
			break
		}
	}
	c.newTodos = append([]todo(nil), g.todos...)
}

// gerund is "-ing" English for the verbs in verbs.
func gerund(v string) string {
	switch {
	case strings.HasSuffix(v, "e") && !strings.HasSuffix(v, "ee"):
		return v[:len(v)-1] + "ing"
	case v == "get" || v == "set" || v == "run" || v == "stop" || v == "scan" || v == "split" || v == "emit" || v == "wrap":
		return v + v[len(v)-1:] + "ing"
	}
	return v + "ing"
}

func (g *gen) task(c *call) {
	c.agentType = []string{"Explore", "general-purpose", "Plan", "Explore"}[g.r.IntN(4)]
	c.desc = string(appendTitle(nil, string(g.phrase(nil, 2+g.r.IntN(4)))))
	c.prompt = string(g.paragraph(nil, 3+g.r.IntN(6)))
	c.agentID = g.hexString(17)
	c.output = string(g.markdown(nil, 4+g.r.IntN(10)))
	c.tokens = 8000 + g.r.IntN(90_000)
	c.toolUses = 3 + g.r.IntN(40)
	c.dur = 20_000 + int64(g.r.IntN(300_000))
}

// mcpTools are tools of the MCP servers projects configure, with the
// arguments they take.
var mcpTools = map[string][][]string{
	"github":     {{"search_issues", "query", "repo"}, {"get_pull_request", "owner", "repo", "pullNumber"}, {"create_issue", "owner", "repo", "title", "body"}},
	"linear":     {{"list_issues", "team", "state"}, {"get_issue", "id"}},
	"postgres":   {{"query", "sql"}},
	"playwright": {{"browser_navigate", "url"}, {"browser_snapshot"}, {"browser_click", "element", "ref"}},
	"sentry":     {{"get_issue_details", "issueId"}},
	"context7":   {{"resolve-library-id", "libraryName"}, {"get-library-docs", "context7CompatibleLibraryID", "topic"}},
	"slack":      {{"post_message", "channel", "text"}},
	"notion":     {{"search", "query"}},
}

func (g *gen) mcp(c *call) {
	c.server = g.proj.mcp[g.r.IntN(len(g.proj.mcp))]
	tools := mcpTools[c.server]
	t := tools[g.r.IntN(len(tools))]
	c.tool = t[0]
	var j jw
	j.open('{')
	for _, a := range t[1:] {
		switch a {
		case "pullNumber":
			j.ki(a, 1+g.r.IntN(4000))
		case "sql":
			j.ks(a, string(g.code(nil, langSQL, 3)))
		case "url":
			j.ks(a, "http://localhost:5173/"+g.noun())
		default:
			j.ks(a, string(g.phrase(nil, 1+g.r.IntN(4))))
		}
	}
	j.close('}')
	c.args = string(j.b)
	c.dur = 200 + int64(g.r.IntN(5000))
	if g.r.IntN(15) == 0 {
		c.isError = true
		c.errText = "MCP error -32603: " + string(g.sentence(nil))
		return
	}
	// Results are JSON lists of records, as most servers return.
	j.reset()
	j.open('[')
	for range 1 + g.r.IntN(g.lines(6)) {
		j.open('{')
		j.ks("id", g.token("", 8))
		j.ks("title", g.title())
		j.ks("state", []string{"open", "closed", "in_progress"}[g.r.IntN(3)])
		j.ks("body", string(g.sentence(nil)))
		j.close('}')
	}
	j.close(']')
	c.output = string(j.b)
}

// newFile is a path for a file the agent creates.
func (g *gen) newFile() string {
	f := g.file()
	dir := f[:strings.LastIndexByte(f, '/')+1]
	ext := path.Ext(f)
	if langOf(f) == nil || ext == ".json" || ext == ".yml" || ext == ".sql" || ext == ".sh" {
		ext = "." + langExt(g.proj.lang)
	}
	return dir + g.noun() + "_" + g.noun() + ext
}

// fileContent appends n lines of the file at path.
func (g *gen) fileContent(b []byte, file string, n int) []byte {
	start := len(b)
	switch l := langOf(file); {
	case l != nil:
		b = g.code(b, l, n)
	case strings.HasSuffix(file, ".md"):
		b = append(b, "# "...)
		b = appendTitle(b, g.proj.name)
		b = append(b, "\n\n"...)
		for countLines(b[start:]) < n {
			b = g.markdown(b, 3)
			b = append(b, "\n\n"...)
		}
	default: // Makefile, TOML, lock files
		for i := range n {
			if i > 0 {
				b = append(b, '\n')
			}
			switch i % 7 {
			case 0:
				b = append(b, '[')
				b = append(b, g.noun()...)
				b = append(b, ']')
			default:
				b = append(b, g.noun()...)
				b = append(b, " = \""...)
				b = g.phrase(b, 1+g.r.IntN(3))
				b = append(b, '"')
			}
		}
	}
	return cutLines(b, start, n)
}

// cutLines keeps the first n lines of b[start:].
func cutLines(b []byte, start, n int) []byte {
	seen := 0
	for i := start; i < len(b); i++ {
		if b[i] == '\n' {
			seen++
			if seen == n {
				return b[:i]
			}
		}
	}
	return b
}
