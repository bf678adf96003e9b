package ingest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// Todo is an item of a task list as jido_code and opencode save it.
type Todo struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"active_form"`
}

// Todos reads the todos array that comes next as lines of a GFM task list.
func (d *JSONDoc) Todos(lines *[]string) error {
	return d.Array("todos", func(i, line int, raw json.RawMessage) error {
		var t Todo
		if DecodeAt(d.File, line, fmt.Sprintf("todos[%d]", i), raw, &t) {
			*lines = append(*lines, TodoLine(d.File, line, i, t))
		}
		return nil
	})
}

// TodoLine renders a todo as a GFM task list item, which the page shows as a
// checkbox.
func TodoLine(f *File, line, i int, t Todo) string {
	item := strings.Join(strings.Fields(FirstNonEmpty(t.Content, t.ActiveForm)), " ") // one line
	switch t.Status {
	case "completed":
		return "- [x] " + item
	case "pending":
		return "- [ ] " + item
	case "in_progress":
		return "- [ ] " + item + " *(in progress)*"
	case "cancelled": // opencode
		return "- [ ] ~~" + item + "~~ *(cancelled)*"
	}
	f.Warn(line, "todos[%d]: unknown status %q", i, t.Status)
	return "- [ ] " + item + " *(" + strings.Join(strings.Fields(t.Status), " ") + ")*"
}

// TodoMessage shows a todo list, the session's state when it was saved, as a
// checklist at the end of the session.
func TodoMessage(lines []string) *transcript.Message {
	return &transcript.Message{Role: transcript.System, Meta: true, Parts: []*transcript.Part{{
		Kind: transcript.TextPart, Text: "**Todos**\n\n" + strings.Join(lines, "\n"),
	}}}
}
