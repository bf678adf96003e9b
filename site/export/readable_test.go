package export

import (
	"strings"
	"testing"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// TestMarkdownShowsWhatThePageShows: session.md shows a call's summary
// and view as its agent wrote them, an input of several lines as lines,
// and the title in full when the site's is cut short.
func TestMarkdownShowsWhatThePageShows(t *testing.T) {
	s := &transcript.Session{ID: "rd", Format: "specstory", Title: "A long title the site cuts"}
	s.Append(&transcript.Message{Role: transcript.Assistant, Parts: []*transcript.Part{
		{Kind: transcript.CallPart, Name: "Read droid_exec.go", Call: &transcript.ToolCall{ID: "c1", Name: "SendMessage", Kind: transcript.OtherTool,
			Input: `{"to":"alice","message":"First line\nsecond line"}`}}}})
	s.Finish()
	md := string(markdown(t, s, Options{Title: "A long title…"}))
	for _, want := range []string{"\nRead droid_exec.go\n", "message: |-\n  First line\n  second line\n", `full_title: "A long title the site cuts"`} {
		if !strings.Contains(md, want) {
			t.Errorf("session.md lacks %q:\n%s", want, md)
		}
	}
}
