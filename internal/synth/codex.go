package synth

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"
)

// Codex CLI writes ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid v7>.jsonl:
// {timestamp, type, payload} envelopes holding the model-visible history
// (response_item) and UI events (event_msg), per formats.md §3.1. Builds
// from about 0.100 call unified exec (exec_command, whose output starts with
// a header); older ones call shell and get JSON back.
type codexWriter struct {
	out
	id      string
	version string
	model   string
	exec    bool // unified exec rather than the shell tool
	turn    string
	total   [4]int // input, cached, output, reasoning tokens so far
	context int
}

var (
	codexVersions = []string{"0.98.0", "0.104.0", "0.118.0", "0.130.0"}
	codexModels   = []string{"gpt-5.3-codex", "gpt-5.2-codex", "gpt-5.4", "gpt-5.5"}
)

func newCodex(g *gen) (writer, string) {
	cw := &codexWriter{out: out{g: g}, id: g.uuid7(g.now)}
	v := g.r.IntN(len(codexVersions))
	cw.version, cw.exec = codexVersions[v], v > 0
	cw.model = codexModels[g.r.IntN(len(codexModels))]
	t := time.UnixMilli(g.now).UTC()
	return cw, "codex/sessions/" + t.Format("2006/01/02") + "/rollout-" + t.Format("2006-01-02T15-04-05") + "-" + cw.id + ".jsonl"
}

// item starts an envelope of the given type at ms; its payload is open.
func (cw *codexWriter) item(typ string, ms int64) *jw {
	j := cw.record()
	cw.time("timestamp", ms)
	j.ks("type", typ)
	j.kobj("payload")
	return j
}

// done closes the payload and the envelope and writes the line.
func (cw *codexWriter) done() {
	cw.j.close('}')
	cw.j.close('}')
	cw.flush()
}

func (cw *codexWriter) begin() {
	g := cw.g
	j := cw.item("session_meta", g.now)
	j.ks("id", cw.id)
	cw.time("timestamp", g.now)
	j.ks("cwd", g.proj.path)
	j.ks("originator", "codex_cli_rs")
	j.ks("cli_version", cw.version)
	j.ks("source", []string{"cli", "cli", "vscode", "exec"}[g.r.IntN(4)])
	j.ks("model_provider", "openai")
	j.kobj("base_instructions")
	j.ks("text", "You are Codex, a coding agent. "+string(g.paragraph(nil, 8+g.r.IntN(12))))
	j.close('}')
	j.kobj("git")
	j.ks("commit_hash", g.sha())
	j.ks("branch", g.proj.branch)
	j.ks("repository_url", g.proj.remote)
	j.close('}')
	cw.done()

	// The harness's injected context: sandbox rules, AGENTS.md, environment.
	cw.input("developer", g.now+1, []string{"<permissions instructions>\nFilesystem sandboxing: workspace-write. " + string(g.paragraph(nil, 2)) + "\n</permissions instructions>"}, nil)
	cw.input("user", g.now+2, []string{
		"# AGENTS.md instructions for " + g.proj.path + "\n\n<INSTRUCTIONS>\n" + string(g.markdown(nil, 3+g.r.IntN(4))) + "\n</INSTRUCTIONS>",
		"<environment_context>\n  <cwd>" + g.proj.path + "</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <shell>bash</shell>\n</environment_context>",
	}, nil)
}

// input writes a model-visible user or developer message.
func (cw *codexWriter) input(role string, ms int64, texts []string, images []string) {
	j := cw.item("response_item", ms)
	j.ks("type", "message")
	j.ks("role", role)
	j.karr("content")
	for _, t := range texts {
		j.text("input_text", t)
	}
	for _, u := range images {
		j.open('{')
		j.ks("type", "input_image")
		j.ks("image_url", u)
		j.close('}')
	}
	j.close(']')
	cw.done()
}

// Codex does not log slash commands.
func (cw *codexWriter) command(*command) {}

func (cw *codexWriter) prompt(p *prompt) {
	g := cw.g
	cw.turn = g.uuid7(g.now)
	j := cw.item("event_msg", g.now)
	j.ks("type", "task_started")
	j.ks("turn_id", cw.turn)
	j.ki("model_context_window", 258400)
	cw.done()
	cw.turnContext(g.now)

	urls := make([]string, len(p.images))
	for i, img := range p.images {
		urls[i] = "data:image/png;base64," + base64.StdEncoding.EncodeToString(img)
		g.st.Images++
	}
	cw.input("user", g.now+10, []string{p.text}, urls)
	j = cw.item("event_msg", g.now+11)
	j.ks("type", "user_message")
	j.ks("message", p.text)
	j.key("images")
	j.strs(urls)
	j.karr("local_images")
	j.close(']')
	j.karr("text_elements")
	j.close(']')
	cw.done()
	cw.context += len(p.text) / 4
}

func (cw *codexWriter) turnContext(ms int64) {
	j := cw.item("turn_context", ms)
	j.ks("turn_id", cw.turn)
	j.ks("cwd", cw.g.proj.path)
	j.ks("approval_policy", "on-request")
	j.kobj("sandbox_policy")
	j.ks("type", "workspace-write")
	j.karr("writable_roots")
	j.close(']')
	j.kb("network_access", false)
	j.kb("exclude_tmpdir_env_var", false)
	j.kb("exclude_slash_tmp", false)
	j.close('}')
	j.ks("model", cw.model)
	j.ks("effort", "high")
	j.ks("summary", "auto")
	cw.done()
}

func (cw *codexWriter) message(role, text, phase string, ms int64) {
	j := cw.item("event_msg", ms)
	j.ks("type", "agent_message")
	j.ks("message", text)
	j.ks("phase", phase)
	cw.done()
	j = cw.item("response_item", ms+1)
	j.ks("type", "message")
	j.ks("role", role)
	j.karr("content")
	j.text("output_text", text)
	j.close(']')
	j.ks("phase", phase)
	cw.done()
}

func (cw *codexWriter) step(s *step) {
	g := cw.g
	t := s.at
	if s.thinking != "" {
		summary := "**" + s.subject + "**\n\n" + s.thinking
		j := cw.item("event_msg", t)
		j.ks("type", "agent_reasoning")
		j.ks("text", summary)
		cw.done()
		j = cw.item("response_item", t+1)
		j.ks("type", "reasoning")
		j.karr("summary")
		j.text("summary_text", summary)
		j.close(']')
		j.kn("content")
		j.ks("encrypted_content", "gAAAAAB"+g.blob(200+g.r.IntN(900)))
		cw.done()
		t += int64(200 + g.r.IntN(800))
	}
	if s.text != "" {
		phase := "commentary"
		if s.final {
			phase = "final_answer"
		}
		cw.message("assistant", s.text, phase, t)
		t += 2
	}
	for _, c := range s.calls {
		id := g.token("call_", 24)
		g.st.ToolCalls++
		cw.call(c, id, t, max(t+1, c.start+c.dur))
		t = max(t+2, c.start+c.dur+1)
	}
	cw.tokens(s.tokens, t)
	if s.interrupt {
		j := cw.item("event_msg", g.now)
		j.ks("type", "turn_aborted")
		j.ks("turn_id", cw.turn)
		j.ks("reason", "interrupted")
		cw.done()
		return
	}
	if s.final {
		j := cw.item("event_msg", t+1)
		j.ks("type", "task_complete")
		j.ks("turn_id", cw.turn)
		j.ks("last_agent_message", s.text)
		cw.done()
	} else if g.r.IntN(3) == 0 {
		cw.turnContext(t + 1)
	}
}

// tokens writes the token_count event that follows each model response.
func (cw *codexWriter) tokens(out int, ms int64) {
	g := cw.g
	in := cw.context + 2000
	cached := in * (70 + g.r.IntN(25)) / 100
	reasoning := out / 3
	cw.total[0] += in
	cw.total[1] += cached
	cw.total[2] += out
	cw.total[3] += reasoning
	j := cw.item("event_msg", ms)
	j.ks("type", "token_count")
	j.kobj("info")
	usage := func(k string, in, cached, out, reasoning int) {
		j.kobj(k)
		j.ki("input_tokens", in)
		j.ki("cached_input_tokens", cached)
		j.ki("output_tokens", out)
		j.ki("reasoning_output_tokens", reasoning)
		j.ki("total_tokens", in+out)
		j.close('}')
	}
	usage("total_token_usage", cw.total[0], cw.total[1], cw.total[2], cw.total[3])
	usage("last_token_usage", in, cached, out, reasoning)
	j.ki("model_context_window", 258400)
	j.close('}')
	j.kobj("rate_limits")
	j.kobj("primary")
	j.key("used_percent")
	j.float(float64(g.r.IntN(900))/10, 1)
	j.ki("window_minutes", 300)
	j.ki("resets_at", int(ms/1000)+g.r.IntN(18000))
	j.close('}')
	j.kn("secondary")
	j.close('}')
	cw.done()
	cw.context += out
}

// call writes a tool call and its output. Codex has no file tools: it reads
// and searches with the shell, and edits with apply_patch.
func (cw *codexWriter) call(c *call, id string, at, end int64) {
	switch c.kind {
	case editTool, writeTool:
		cw.patch(c, id, at, end)
		return
	case searchTool:
		cw.webSearch(c, id, at, end)
		return
	}
	name, cmd, output, exit := cw.shell(c)
	name, arguments, output := cw.function(c, name, cmd, output)

	j := cw.item("response_item", at)
	j.ks("type", "function_call")
	j.ks("name", name)
	j.ks("arguments", arguments)
	j.ks("call_id", id)
	cw.done()

	if c.kind == mcpTool {
		output = cw.mcpEnd(c, id, end)
	}
	if c.rejected {
		output = "aborted by user"
	} else if name == "exec_command" || name == "shell" {
		output = cw.execOutput(c, output, exit)
	}
	j = cw.item("response_item", end)
	j.ks("type", "function_call_output")
	j.ks("call_id", id)
	j.ks("output", output)
	cw.done()
	cw.context += len(output) / 4
}

// webSearch writes a web search call and its end event.
func (cw *codexWriter) webSearch(c *call, id string, at, end int64) {
	j := cw.item("response_item", at)
	j.ks("type", "web_search_call")
	j.ks("status", "completed")
	j.kobj("action")
	j.ks("type", "search")
	j.ks("query", c.query)
	j.close('}')
	cw.done()
	j = cw.item("event_msg", end)
	j.ks("type", "web_search_end")
	j.ks("call_id", "ws_"+id[5:])
	j.ks("query", c.query)
	cw.done()
}

// function returns the name and arguments of the function call Codex
// makes for c, and its output: a plan, a question, an MCP tool's or a
// shell's.
func (cw *codexWriter) function(c *call, name, cmd, output string) (string, string, string) {
	g := cw.g
	var aj jw
	aj.open('{')
	switch c.kind {
	case todoTool, taskTool:
		name, output = "update_plan", "Plan updated"
		aj.ks("explanation", cmpOr(c.desc, g.title()))
		aj.key("plan")
		aj.todos(cmpTodos(c.newTodos, c.desc), "step", false)
	case askTool:
		name = "request_user_input"
		aj.ks("question", c.question)
		aj.key("options")
		aj.strs(c.options)
		output = `{"answer":` + string(appendQuoted(nil, c.answer)) + `}`
	case mcpTool:
		name = "mcp__" + c.server + "__" + c.tool
	case bashTool, readTool, grepTool, globTool, fetchTool:
		if cw.exec {
			aj.ks("cmd", cmd)
		} else {
			aj.key("command")
			aj.strs([]string{"bash", "-lc", cmd})
		}
		aj.ks("workdir", g.proj.path)
		if !cw.exec {
			aj.ki("timeout_ms", 120000)
		}
	}
	aj.close('}')
	if c.kind == mcpTool {
		return name, c.args, output
	}
	return name, string(aj.b), output
}

// mcpEnd writes the end event of an MCP call, and returns the call's
// output.
func (cw *codexWriter) mcpEnd(c *call, id string, end int64) string {
	j := cw.item("event_msg", end-1)
	j.ks("type", "mcp_tool_call_end")
	j.ks("call_id", id)
	j.kobj("invocation")
	j.ks("server", c.server)
	j.ks("tool", c.tool)
	j.kr("arguments", c.args)
	j.close('}')
	j.kobj("duration")
	j.ki("secs", int(c.dur/1000))
	j.ki("nanos", int(c.dur%1000)*1_000_000)
	j.close('}')
	j.kobj("result")
	if c.isError {
		j.ks("Err", c.errText)
	} else {
		j.kobj("Ok")
		j.key("content")
		j.textList(c.output)
		j.kb("isError", false)
		j.close('}')
	}
	j.close('}')
	cw.done()
	if c.isError {
		return "err: " + c.errText
	}
	var oj jw
	oj.textList(c.output)
	return string(oj.b)
}

// cmpTodos is the plan a todo or task call shows.
func cmpTodos(ts []todo, desc string) []todo {
	if len(ts) > 0 {
		return ts
	}
	return []todo{{content: desc, status: "in_progress"}}
}

// shell is the command a shell-only agent runs for c, and what it prints.
func (cw *codexWriter) shell(c *call) (name, cmd, output string, exit int) {
	name = "shell"
	if cw.exec {
		name = "exec_command"
	}
	switch c.kind {
	case readTool:
		if c.image != nil {
			return name, "file " + c.path, c.path + ": PNG image data, " + strconv.Itoa(len(c.image)) + " bytes", 0
		}
		if c.isError {
			return name, "sed -n '1,200p' " + c.path, "sed: can't read " + c.path + ": No such file or directory", 2
		}
		return name, "sed -n '" + itoa(c.startLine) + "," + itoa(c.startLine+c.numLines-1) + "p' " + c.path, c.content, 0
	case grepTool:
		if c.mode == "content" {
			return name, "rg -n \"" + c.pattern + "\"", c.output, 0
		}
		if len(c.files) == 0 {
			return name, "rg -l \"" + c.pattern + "\"", "", 1
		}
		return name, "rg -l \"" + c.pattern + "\"", strings.Join(c.files, "\n"), 0
	case globTool:
		return name, "rg --files -g '" + c.pattern + "'", strings.Join(c.files, "\n"), 0
	case fetchTool:
		if c.isError {
			return name, "curl -fsSL " + c.url, "curl: (22) The requested URL returned error: " + itoa(c.exit), 22
		}
		return name, "curl -fsSL " + c.url + " | head -n 200", c.output, 0
	}
	return name, c.command, joinOut(c.output, c.stderr), c.exit
}

// execOutput formats a shell result as the build's shell tool returns it.
func (cw *codexWriter) execOutput(c *call, output string, exit int) string {
	g := cw.g
	secs := float64(c.dur) / 1000
	if cw.exec {
		return "Chunk ID: " + g.hexString(4) + "\nWall time: " + strconv.FormatFloat(secs, 'f', 4, 64) + " seconds\nProcess exited with code " +
			itoa(exit) + "\nOriginal token count: " + itoa(len(output)/4) + "\nOutput:\n" + output
	}
	return shellJSON(output, exit, secs)
}

// patch writes an apply_patch call, the patch event and its output.
func (cw *codexWriter) patch(c *call, id string, at, end int64) {
	g := cw.g
	var b []byte
	b = append(b, "*** Begin Patch\n"...)
	if c.kind == writeTool {
		b = ap(b, "*** Add File: ", c.path, "\n")
	} else {
		b = ap(b, "*** Update File: ", c.path, "\n@@\n")
	}
	b = append(hunkLines(b, c), "*** End Patch"...)
	j := cw.item("response_item", at)
	j.ks("type", "custom_tool_call")
	j.ks("status", "completed")
	j.ks("call_id", id)
	j.ks("name", "apply_patch")
	j.ks("input", string(b))
	cw.done()

	ok := !c.isError
	letter, change := "M", "update"
	if c.kind == writeTool {
		letter, change = "A", "add"
	}
	stdout := "Success. Updated the following files:\n" + letter + " " + c.path + "\n"
	if !ok {
		stdout = ""
	}
	if !c.rejected {
		j = cw.item("event_msg", end-1)
		j.ks("type", "patch_apply_end")
		j.ks("call_id", id)
		j.ks("turn_id", cw.turn)
		j.ks("stdout", stdout)
		if ok {
			j.ks("stderr", "")
		} else {
			j.ks("stderr", "apply_patch verification failed: "+firstLine(c.errText))
		}
		j.kb("success", ok)
		j.kobj("changes")
		j.kobj(g.proj.abs(c.path))
		j.kobj(change)
		if c.kind == writeTool {
			j.ks("content", c.content)
		} else {
			j.ks("unified_diff", unified(c))
			j.kn("move_path")
		}
		j.close('}')
		j.close('}')
		j.close('}')
		cw.done()
	}
	output := "aborted by user"
	if !c.rejected {
		exit := 0
		if !ok {
			exit, stdout = 1, "apply_patch verification failed: "+c.errText
		}
		output = shellJSON(stdout, exit, 0)
	}
	j = cw.item("response_item", end)
	j.ks("type", "custom_tool_call_output")
	j.ks("call_id", id)
	j.ks("output", output)
	cw.done()
}

// shellJSON is a shell result as older builds and apply_patch return it.
func shellJSON(output string, exit int, secs float64) string {
	var j jw
	j.open('{')
	j.ks("output", output)
	j.kobj("metadata")
	j.ki("exit_code", exit)
	j.key("duration_seconds")
	j.float(secs, 1)
	j.close('}')
	j.close('}')
	return string(j.b)
}

// Codex records no turn-duration message: task_complete closes the turn.
func (cw *codexWriter) endTurn(int64, bool) {}

func (cw *codexWriter) end() {}
