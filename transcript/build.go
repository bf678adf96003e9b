package transcript

import (
	"path"
	"strings"
)

// StartsTurn reports whether m is a real user prompt: injected context and
// messages that only carry tool results do not start a turn.
func (m *Message) StartsTurn() bool {
	if m.Role != User || m.Meta {
		return false
	}
	for _, p := range m.Parts {
		if p.Kind == TextPart || p.Kind == ImagePart || p.Kind == CodePart {
			return true
		}
	}
	return false
}

// UserShell reports whether m is a command the user ran in the agent's
// shell themselves (Claude Code's "!", Pi's bashExecution): a user
// message of shell calls and their results. It is not context the agent
// injected, though readers mark it Meta, since it is no prompt.
func (m *Message) UserShell() bool {
	if m.Role != User {
		return false
	}
	calls := 0
	for _, p := range m.Parts {
		switch {
		case p.Call != nil && p.Call.Kind == ShellTool:
			calls++
		case p.Kind != ResultPart:
			return false
		}
	}
	return calls > 0
}

// Append adds m to the session, opening a new turn at each real prompt.
func (s *Session) Append(m *Message) {
	if len(s.Turns) == 0 || m.StartsTurn() {
		s.Turns = append(s.Turns, Turn{})
	}
	t := &s.Turns[len(s.Turns)-1]
	t.Messages = append(t.Messages, m)
}

// Finish derives what readers need not set themselves: it pairs tool results
// with their calls, fills the time range from message times, collects models
// and sums usage when the reader did not.
func (s *Session) Finish() {
	s.Pair()
	var usage Usage
	for _, m := range s.Messages() {
		if !m.Time.IsZero() {
			if s.Started.IsZero() || m.Time.Before(s.Started) {
				s.Started = m.Time
			}
			if m.Time.After(s.Ended) {
				s.Ended = m.Time
			}
		}
		s.AddModel(m.Model)
		usage.Add(m.Usage)
	}
	if s.Usage.IsZero() {
		s.Usage = usage
	}
}

// Pair links each tool result to the call with the same id. A result with no
// matching call stays where it is and is shown on its own.
func (s *Session) Pair() {
	calls := map[string]*ToolCall{}
	s.Parts(func(_ *Message, p *Part) {
		if p.Call != nil && p.Call.ID != "" {
			calls[p.Call.ID] = p.Call
		}
	})
	s.Parts(func(_ *Message, p *Part) {
		r := p.Result
		if r == nil || r.CallID == "" {
			return
		}
		if c := calls[r.CallID]; c != nil && c.Result == nil {
			c.Result = r
			r.Paired = true
		}
	})
}

// ProjectName is the project a session is listed under: its Project, or
// the last element of its working directory, or, without one, the folder
// its file is in.
func (s *Session) ProjectName() string {
	if s.Project != "" {
		return s.Project
	}
	if cwd := strings.TrimRight(strings.ReplaceAll(s.CWD, `\`, "/"), "/"); cwd != "" {
		return path.Base(cwd)
	}
	if dir := path.Dir(s.Source); dir != "." {
		return path.Base(dir)
	}
	return "sessions"
}
