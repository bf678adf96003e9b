package synth

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// Gemini CLI (2026) writes ~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl:
// a metadata line, then message records that are appended again, whole,
// each time they change (the last write of an id wins), and $set updates of
// the metadata (formats.md §3.2). A model message carries its tool calls
// with their results.
type geminiWriter struct {
	out
	id      string
	model   string
	context int
}

var geminiModels = []string{"gemini-3-pro-preview", "gemini-3-flash-preview", "gemini-2.5-pro"}

func newGemini(g *gen) (writer, string) {
	gw := &geminiWriter{out: out{g: g}, id: g.uuid(), model: geminiModels[g.r.IntN(len(geminiModels))]}
	// The project folder is a short name from ~/.gemini/projects.json.
	project := strings.ToLower(strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' {
			return c
		}
		return '-'
	}, g.proj.name))
	t := time.UnixMilli(g.now).UTC()
	return gw, "gemini/tmp/" + project + "/chats/session-" + t.Format("2006-01-02T15-04") + "-" + gw.id[:8] + ".jsonl"
}

func (gw *geminiWriter) begin() {
	g := gw.g
	j := gw.record()
	j.ks("sessionId", gw.id)
	sum := sha256.Sum256([]byte(g.proj.path))
	j.ks("projectHash", hex.EncodeToString(sum[:]))
	gw.time("startTime", g.now)
	gw.time("lastUpdated", g.now)
	j.ks("kind", "main")
	j.close('}')
	gw.flush()

	// The bootstrap context the CLI sends first, recorded as a user message.
	j = gw.message("user", g.now+300)
	j.karr("content")
	j.open('{')
	j.ks("text", "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nToday's date is "+
		time.UnixMilli(g.now).UTC().Format("Monday, January 2, 2006")+".\nMy operating system is: linux\nI'm currently working in the directory: "+
		g.proj.path+"\n"+string(g.markdown(nil, 2))+"\n</session_context>")
	j.close('}')
	j.close(']')
	j.close('}')
	gw.flush()
}

// message starts a message record; its fields follow.
func (gw *geminiWriter) message(typ string, ms int64) *jw {
	j := gw.record()
	j.ks("id", gw.g.uuid())
	gw.time("timestamp", ms)
	j.ks("type", typ)
	return j
}

func (gw *geminiWriter) set(ms int64, summary string) {
	j := gw.record()
	j.kobj("$set")
	gw.time("lastUpdated", ms)
	if summary != "" {
		j.ks("summary", summary)
	}
	j.close('}')
	j.close('}')
	gw.flush()
}

// Gemini CLI does not log slash commands.
func (gw *geminiWriter) command(*command) {}

func (gw *geminiWriter) prompt(p *prompt) {
	g := gw.g
	j := gw.message("user", g.now)
	j.karr("content")
	j.open('{')
	j.ks("text", p.text)
	j.close('}')
	for _, img := range p.images {
		j.open('{')
		j.kobj("inlineData")
		j.ks("mimeType", "image/png")
		j.ks("data", base64.StdEncoding.EncodeToString(img))
		j.close('}')
		j.close('}')
		g.st.Images++
	}
	j.close(']')
	j.close('}')
	gw.flush()
	gw.set(g.now+1, "")
	gw.context += len(p.text) / 4
}

// geminiTools are Gemini CLI's tool names and display names by kind.
var geminiTools = [numTools][2]string{
	bashTool: {"run_shell_command", "Shell"}, readTool: {"read_file", "ReadFile"}, editTool: {"replace", "Edit"},
	writeTool: {"write_file", "WriteFile"}, grepTool: {"search_file_content", "SearchText"}, globTool: {"glob", "FindFiles"},
	fetchTool: {"web_fetch", "WebFetch"}, searchTool: {"google_web_search", "GoogleSearch"}, todoTool: {"write_todos", "WriteTodos"},
	taskTool: {"codebase_investigator", "Codebase Investigator Agent"}, askTool: {"ask_user", "Ask User"},
}

func (gw *geminiWriter) step(s *step) {
	g := gw.g
	if s.retry {
		j := gw.message("info", s.at-1000)
		j.ks("content", "Attempt 1 failed with status 429. Retrying with backoff... ApiError: Resource has been exhausted (e.g. check quota).")
		j.close('}')
		gw.flush()
	}
	id := g.uuid()
	// A response with tool calls is written when it arrives and again,
	// whole, once its tools have run.
	if len(s.calls) > 0 && g.r.IntN(2) == 0 {
		gw.gemini(s, id, nil, false)
	}
	ids := make([]string, len(s.calls))
	for i, c := range s.calls {
		name := geminiTools[c.kind][0]
		if c.kind == mcpTool {
			name = "mcp_" + c.server + "_" + c.tool
		}
		ids[i] = name + "-" + strconv.FormatInt(c.start, 10) + "-" + g.hexString(6)
		g.st.ToolCalls++
	}
	gw.gemini(s, id, ids, true)
	gw.set(g.now, "")
	if s.interrupt {
		j := gw.message("info", g.now+5)
		j.ks("content", "Request cancelled.")
		j.close('}')
		gw.flush()
	}
	gw.context += s.tokens
}

// gemini writes a model message; done adds its tool calls and usage.
func (gw *geminiWriter) gemini(s *step, id string, ids []string, done bool) {
	j := gw.record()
	j.ks("id", id)
	gw.time("timestamp", s.at)
	j.ks("type", "gemini")
	j.ks("content", s.text)
	j.ks("model", gw.model)
	j.karr("thoughts")
	if s.thinking != "" {
		j.open('{')
		j.ks("subject", s.subject)
		j.ks("description", s.thinking)
		gw.time("timestamp", s.at-400)
		j.close('}')
	}
	j.close(']')
	if !done {
		j.kn("tokens")
		j.close('}')
		gw.flush()
		return
	}
	j.kobj("tokens")
	in := gw.context + 3000
	cached := in * 3 / 4
	j.ki("input", in)
	j.ki("output", s.tokens)
	j.ki("cached", cached)
	j.ki("thoughts", len(s.thinking)/4)
	j.ki("tool", 0)
	j.ki("total", in+s.tokens+len(s.thinking)/4)
	j.close('}')
	if len(s.calls) > 0 {
		j.karr("toolCalls")
		for i, c := range s.calls {
			gw.toolCall(c, ids[i])
		}
		j.close(']')
	}
	j.close('}')
	gw.flush()
}

func (gw *geminiWriter) toolCall(c *call, id string) {
	g, j := gw.g, &gw.j
	name, display := geminiTools[c.kind][0], geminiTools[c.kind][1]
	if c.kind == mcpTool {
		name, display = "mcp_"+c.server+"_"+c.tool, c.tool+" ("+c.server+" MCP Server)"
	}
	abs := g.proj.abs(c.path)
	j.open('{')
	j.ks("id", id)
	j.ks("name", name)
	if c.kind == mcpTool {
		j.kr("args", c.args)
	} else {
		j.kobj("args")
		gw.args(c, abs)
		j.close('}')
	}
	output, display2 := gw.output(c, abs)
	status := "success"
	switch {
	case c.rejected:
		status = "cancelled"
	case c.isError:
		status = "error"
	}
	j.karr("result")
	j.open('{')
	j.kobj("functionResponse")
	j.ks("id", id)
	j.ks("name", name)
	j.kobj("response")
	if status == "success" {
		j.ks("output", output)
	} else {
		j.ks("error", output)
	}
	j.close('}')
	j.close('}')
	j.close('}')
	j.close(']')
	j.ks("status", status)
	gw.time("timestamp", c.start+c.dur)
	j.ks("displayName", display)
	j.ks("description", firstLine(cmpOr(c.desc, string(g.phrase(nil, 4)))))
	j.kb("renderOutputAsMarkdown", c.kind != bashTool)
	j.key("resultDisplay")
	if display2 != nil {
		display2()
	} else {
		j.str(firstLine(output))
	}
	j.close('}')
	gw.context += len(output) / 4
}

func (gw *geminiWriter) args(c *call, abs string) {
	j := &gw.j
	switch c.kind {
	case bashTool:
		j.ks("command", c.command)
		j.ks("description", c.desc)
	case readTool:
		j.ks("file_path", abs)
		if c.startLine > 1 {
			j.ki("offset", c.startLine-1)
			j.ki("limit", c.numLines)
		}
	case editTool:
		j.ks("file_path", abs)
		j.ks("old_string", c.oldStr)
		j.ks("new_string", c.newStr)
	case writeTool:
		j.ks("file_path", abs)
		j.ks("content", c.content)
	case grepTool:
		j.ks("pattern", c.pattern)
		if c.glob != "" {
			j.ks("include", c.glob)
		}
	case globTool:
		j.ks("pattern", c.pattern)
	case fetchTool:
		j.ks("prompt", c.prompt+" from "+c.url)
	case searchTool:
		j.ks("query", c.query)
	case todoTool:
		j.key("todos")
		j.todos(c.newTodos, "description", false)
	case taskTool:
		j.ks("objective", c.prompt)
	case askTool:
		j.ks("question", c.question)
		j.key("options")
		j.strs(c.options)
	}
}

// output is the tool's response to the model and, for file changes, a
// writer of the diff the CLI displays.
func (gw *geminiWriter) output(c *call, abs string) (string, func()) {
	if msg, failed := geminiFailure(c, abs); failed {
		return msg, nil
	}
	if out := geminiOutputs[c.kind]; out != nil {
		return out(gw, c, abs)
	}
	return c.output, nil
}

// geminiFailure is what the CLI says of a call that failed or was
// rejected.
func geminiFailure(c *call, abs string) (string, bool) {
	switch {
	case c.rejected:
		return "User cancelled the tool call.", true
	case !c.isError:
		return "", false
	case c.kind == bashTool:
		return "Command exited with code " + itoa(c.exit) + ": " + joinOut(c.output, c.stderr), true
	case c.kind == editTool:
		return "Failed to edit, 0 occurrences found for old_string in " + abs + ". No edits made. The exact text in old_string was not found.", true
	case c.kind == readTool:
		return "File not found: " + abs, true
	}
	return c.errText, true
}

// geminiOutputs write what each kind of tool returns; the func, if any,
// writes the result's display.
var geminiOutputs = map[toolKind]func(gw *geminiWriter, c *call, abs string) (string, func()){
	bashTool: func(gw *geminiWriter, c *call, _ string) (string, func()) {
		return "Output: " + cmpOr(joinOut(c.output, c.stderr), "(empty)") + "\nProcess Group PGID: " + itoa(1000+gw.g.r.IntN(60000)), nil
	},
	readTool: func(_ *geminiWriter, c *call, _ string) (string, func()) {
		if c.image != nil {
			return "Binary content provided (1 item(s)).", nil
		}
		return c.content, nil
	},
	editTool:  (*geminiWriter).fileChange,
	writeTool: (*geminiWriter).fileChange,
	grepTool: func(_ *geminiWriter, c *call, _ string) (string, func()) {
		if len(c.files) == 0 {
			return "No matches found for pattern \"" + c.pattern + "\" in the workspace directory.", nil
		}
		b := ap(nil, "Found ", itoa(max(c.numLines, len(c.files))), " matches for pattern \"", c.pattern, "\" in the workspace directory:\n---\n")
		if c.mode == "content" {
			b = append(b, c.output...)
		} else {
			for _, f := range c.files {
				b = ap(b, "File: ", f, "\n")
			}
		}
		return string(append(b, "\n---"...)), nil
	},
	globTool: func(gw *geminiWriter, c *call, _ string) (string, func()) {
		b := ap(nil, "Found ", itoa(len(c.files)), " file(s) matching \"", c.pattern, "\" within ", gw.g.proj.path, ", sorted by modification time (newest first):")
		for _, f := range c.files {
			b = ap(b, "\n", gw.g.proj.abs(f))
		}
		return string(b), nil
	},
	searchTool: func(_ *geminiWriter, c *call, _ string) (string, func()) {
		b := ap(nil, "Web search results for \"", c.query, "\":\n\n", c.output, "\n\nSources:")
		for i, l := range c.links {
			b = ap(b, "\n[", itoa(i+1), "] ", l[0], " (", l[1], ")")
		}
		return string(b), nil
	},
	todoTool: func(_ *geminiWriter, c *call, _ string) (string, func()) {
		b := ap(nil, "Successfully updated the todo list. The current list is now:")
		for i, t := range c.newTodos {
			b = ap(b, "\n", itoa(i+1), ". [", t.status, "] ", t.content)
		}
		return string(b), nil
	},
	askTool: func(_ *geminiWriter, c *call, _ string) (string, func()) { return "User answered: " + c.answer, nil },
}

// fileChange is an edit's or a write's message, and the display of its
// diff and its file before and after.
func (gw *geminiWriter) fileChange(c *call, abs string) (string, func()) {
	j := &gw.j
	before, after := c.content, c.edited()
	msg := "Successfully modified file: " + abs + " (1 replacements)."
	if c.kind == writeTool {
		before, after = "", c.content
		msg = "Successfully created and wrote to new file: " + abs + "."
	}
	name := c.path[strings.LastIndexByte(c.path, '/')+1:]
	return msg, func() {
		j.open('{')
		j.ks("fileDiff", "Index: "+name+"\n===================================================================\n--- "+name+"\tCurrent\n+++ "+name+"\tProposed\n"+unified(c))
		j.ks("fileName", name)
		j.ks("originalContent", before)
		j.ks("newContent", after)
		j.close('}')
	}
}

// unified is the hunk of an edit or a new file.
func unified(c *call) string {
	var b []byte
	if c.kind == writeTool {
		b = ap(b, "@@ -0,0 +1,", itoa(strings.Count(c.content, "\n")+1), " @@\n")
	} else {
		b = ap(b, "@@ -", itoa(c.startLine), ",", itoa(strings.Count(c.oldStr, "\n")+1), " +", itoa(c.startLine), ",", itoa(strings.Count(c.newStr, "\n")+1), " @@\n")
	}
	return string(hunkLines(b, c))
}

// Gemini CLI records no turn durations.
func (gw *geminiWriter) endTurn(int64, bool) {}

func (gw *geminiWriter) end() {
	gw.set(gw.g.now+200, gw.g.title())
}
