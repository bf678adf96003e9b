package claude

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// Prompts Claude Code records in forms other than a plain user message:
// slash commands, the output of local commands, and prompts typed while
// the agent was working.

// tagged returns what s holds between <tag> and </tag>.
func tagged(s, tag string) (string, bool) {
	_, rest, ok := strings.Cut(s, "<"+tag+">")
	if !ok {
		return "", false
	}
	inner, _, _ := strings.Cut(rest, "</"+tag+">")
	return inner, true
}

// command reads a slash command the user typed, which Claude Code
// records as <command-name>/x</command-name><command-message>…
// <command-args>…: the prompt is "/x args". Extra is what else the record
// holds (a description, the command's contents), which is context.
func command(s string) (cmd string, extra []string, ok bool) {
	name, ok := tagged(s, "command-name")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return "", nil, false
	}
	cmd = name
	if !strings.HasPrefix(cmd, "/") {
		cmd = "/" + cmd
	}
	args, _ := tagged(s, "command-args")
	if args = strings.TrimSpace(args); args != "" {
		cmd += " " + args
	}
	return cmd, commandExtra(s, strings.TrimPrefix(name, "/")), true
}

// commandExtra is what a command's tags say beyond its name (bare, with
// no slash): a message that is not the name again, and its contents.
func commandExtra(s, bare string) (extra []string) {
	// The message is usually the name again, or "x is running…".
	if m, _ := tagged(s, "command-message"); !sameCommand(strings.TrimSpace(m), bare) {
		extra = append(extra, strings.TrimSpace(m))
	}
	if c, _ := tagged(s, "command-contents"); strings.TrimSpace(c) != "" {
		extra = append(extra, c)
	}
	return extra
}

// sameCommand tells whether a command's message m says no more than its
// name: empty, the name, or "name is running…".
func sameCommand(m, bare string) bool {
	return m == "" || m == bare || strings.HasPrefix(m, bare+" is ")
}

// commandOutput reads what a local command (/cost, /model, /context)
// printed: <local-command-stdout>…</local-command-stdout>, and stderr.
func commandOutput(s string) (out string, isErr, ok bool) {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "<local-command-stdout>") && !strings.HasPrefix(t, "<local-command-stderr>") {
		return "", false, false
	}
	stdout, _ := tagged(t, "local-command-stdout")
	stderr, isErr := tagged(t, "local-command-stderr")
	isErr = isErr && strings.TrimSpace(stderr) != ""
	return strings.Trim(strings.TrimSpace(stdout)+"\n"+strings.TrimSpace(stderr), "\n"), isErr, true
}

// wrappers are the tags Claude Code wraps what it injects in: a page
// shows what they hold.
var wrappers = strings.NewReplacer(tagPairs(
	"system-reminder", "local-command-caveat", "local-command-stdout", "local-command-stderr",
	"command-name", "command-message", "command-args", "command-contents",
	"bash-input", "bash-stdout", "bash-stderr", "user-prompt-submit-hook", "ide_opened_file", "ide_selection")...)

func tagPairs(tags ...string) []string {
	var out []string
	for _, t := range tags {
		out = append(out, "<"+t+">", "", "</"+t+">", "")
	}
	return out
}

// userPart is the part of a user's text block; text Claude Code injected
// is shown without the tags it wraps it in.
func userPart(text string) *transcript.Part {
	p := ingest.UserPart(text)
	if p != nil && p.Kind == transcript.TextPart && Tools.IsInjected(text) {
		p.Text = strings.TrimSpace(wrappers.Replace(p.Text))
	}
	return p
}

// userShell reads a command the user ran in Claude Code's shell mode
// ("!git status") and what it printed: <bash-input>, then <bash-stdout>
// and <bash-stderr>, in the same record or the next. It is the user's own
// tool call, shown as one message with its result, as Pi's bashExecution
// is.
func (cs *session) userShell(rec *record, text string) bool {
	t := strings.TrimSpace(text)
	cmd, isInput := tagged(t, "bash-input")
	_, isOut := tagged(t, "bash-stdout")
	_, isErr := tagged(t, "bash-stderr")
	switch {
	case isInput && strings.HasPrefix(t, "<bash-input>"):
		cs.shellInput(rec, cmd)
		if isOut || isErr {
			cs.shellOutput(rec, t)
		}
		return true
	case (isOut || isErr) && (strings.HasPrefix(t, "<bash-stdout>") || strings.HasPrefix(t, "<bash-stderr>")):
		cs.shellOutput(rec, t)
		return true
	}
	return false
}

// shellOutput adds what the user's command printed to the command, or,
// with no command before it, as a result of its own.
// shellInput adds a shell command the user ran (with "!") as a call.
func (cs *session) shellInput(rec *record, cmd string) {
	id := "!" + ingest.FirstNonEmpty(rec.UUID, cmd)
	input, _ := json.Marshal(map[string]string{"command": strings.TrimSpace(cmd)})
	m := &transcript.Message{ID: rec.UUID, Role: transcript.User, Time: rec.Timestamp.Time, Meta: true, Sidechain: rec.IsSidechain,
		Parts: []*transcript.Part{{Kind: transcript.CallPart, Call: &transcript.ToolCall{ID: id, Name: "bash", Kind: transcript.ShellTool, Input: string(input)}}}}
	cs.add(m)
	cs.shell = m
}

func (cs *session) shellOutput(rec *record, t string) {
	stdout, _ := tagged(t, "bash-stdout")
	stderr, _ := tagged(t, "bash-stderr")
	r := &transcript.ToolResult{Output: strings.Trim(strings.TrimRight(stdout, "\n")+"\n"+stderr, "\n"), IsError: strings.TrimSpace(stderr) != ""}
	part := &transcript.Part{Kind: transcript.ResultPart, Result: r}
	if m := cs.shell; m != nil && cs.last() == m {
		r.CallID = m.Parts[0].Call.ID
		m.Parts = append(m.Parts, part)
		cs.shell = nil
		return
	}
	cs.add(&transcript.Message{ID: rec.UUID, Role: transcript.User, Time: rec.Timestamp.Time, Meta: true, Sidechain: rec.IsSidechain,
		Parts: []*transcript.Part{part}})
}

// last is the session's last message.
func (cs *session) last() *transcript.Message {
	ts := cs.s.Turns
	if len(ts) == 0 || len(ts[len(ts)-1].Messages) == 0 {
		return nil
	}
	ms := ts[len(ts)-1].Messages
	return ms[len(ms)-1]
}

// commandOutput adds a local command's output as a result of its own.
func (cs *session) commandOutput(rec *record, out string, isErr bool) {
	cs.add(&transcript.Message{ID: rec.UUID, Role: transcript.System, Time: rec.Timestamp.Time, Sidechain: rec.IsSidechain,
		Parts: []*transcript.Part{{Kind: transcript.ResultPart, Result: &transcript.ToolResult{Output: out, IsError: isErr}}}})
}

// queued is a prompt typed while the agent was working. Claude Code
// queues it (enqueue), and takes it in when the agent is ready (dequeue,
// or remove when it is absorbed mid-turn). A user record or a
// queued_command attachment usually carries the prompt too, and is shown
// instead; a prompt nothing carries is shown where it was taken.
type queued struct {
	key     string    // its text, to match the record that carries it
	content []byte    // as queued: a string or content blocks
	at      time.Time // when it was queued, then taken
	taken   bool
	carried bool
	pos     int // the number of messages before it: where it was queued, then taken
}

// queueOp reads a queue-operation record.
func (cs *session) queueOp(cf *file, rec *record) {
	key := ""
	if len(rec.Content) > 0 {
		key = promptKey(cf.blocks(contentOf(rec.Content)))
	}
	if op := queueOps[rec.Operation]; op != nil {
		op(cs, rec, key)
	}
}

// queueOps read each operation on the queue of prompts typed while the
// agent worked; key is the prompt's text, or "" for none.
var queueOps = map[string]func(cs *session, rec *record, key string){
	"enqueue": (*session).enqueue,
	"dequeue": (*session).dequeue,
	"remove":  (*session).dequeue,
	"popAll":  (*session).popAll,
}

func (cs *session) enqueue(rec *record, key string) {
	if key != "" {
		cs.queue = append(cs.queue, &queued{key: key, content: bytes.Clone(rec.Content), at: rec.Timestamp.Time, pos: cs.count})
	}
}

// dequeue takes the first prompt not taken with key, or the first of any
// key when key is "".
func (cs *session) dequeue(rec *record, key string) {
	for _, e := range cs.queue {
		if !e.taken && (key == "" || e.key == key) {
			cs.take(e, rec.Timestamp.Time)
			return
		}
	}
}

func (cs *session) popAll(rec *record, _ string) {
	for _, e := range cs.queue {
		if !e.taken {
			cs.take(e, rec.Timestamp.Time)
		}
	}
}

func (cs *session) take(e *queued, t time.Time) {
	e.taken, e.pos = true, cs.count
	if !t.IsZero() {
		e.at = t
	}
}

// queued adds a prompt a queued_command attachment carries.
func (cs *session) queued(cf *file, rec *record, raw []byte) {
	cs.userParts(cf, rec, cf.blocks(contentOf(raw)), &structured{}, false)
}

// carry notes that a record shows the prompt blocks hold, so the queued
// copy of it is not shown too.
func (cs *session) carry(blocks []block) {
	i := slices.IndexFunc(cs.queue, func(e *queued) bool { return !e.carried })
	if i < 0 {
		return // nothing to carry: the key is not worth making
	}
	key := promptKey(blocks)
	if key == "" {
		return
	}
	for _, e := range cs.queue[i:] {
		if !e.carried && e.key == key {
			e.carried = true
			return
		}
	}
}

// promptKey is the text a person typed in blocks, spaces collapsed.
func promptKey(blocks []block) string {
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" && !Tools.IsInjected(bl.Text) {
			b.WriteString(bl.Text)
			b.WriteByte(' ')
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// unqueue shows the queued prompts no record carried: each where it was
// taken, or where it was queued when it never was.
func (cs *session) unqueue(cf *file) {
	late := slices.DeleteFunc(slices.Clone(cs.queue), func(e *queued) bool { return e.carried })
	if len(late) == 0 {
		return
	}
	slices.SortStableFunc(late, func(a, b *queued) int { return a.pos - b.pos })
	ms := cs.s.Messages()
	cs.s.Turns = nil
	next := 0
	for i := 0; i <= len(ms); i++ {
		for ; next < len(late) && late[next].pos <= i; next++ {
			cs.appendQueued(cf, late[next])
		}
		if i < len(ms) {
			cs.s.Append(ms[i])
		}
	}
}

// appendQueued appends a queued prompt: what the harness injected with
// it, then what the person typed.
func (cs *session) appendQueued(cf *file, e *queued) {
	typed := &transcript.Message{Role: transcript.User, Time: e.at}
	injected := &transcript.Message{Role: transcript.User, Time: e.at, Meta: true}
	for _, b := range cf.blocks(contentOf(e.content)) {
		if p := userPart(b.Text); b.Type == "text" && p != nil {
			m := typed
			if Tools.IsInjected(b.Text) {
				m = injected
			}
			m.Parts = append(m.Parts, p)
		}
	}
	for _, m := range []*transcript.Message{injected, typed} {
		if len(m.Parts) > 0 {
			cs.s.Append(m)
		}
	}
}
