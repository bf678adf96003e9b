package ingest

import "github.com/transcriptsite/transcriptsite/transcript"

// Tools is what a reader knows of its agent's tools.
type Tools struct {
	// Args names the input fields its tools say what views show in; nil
	// is CommonArgs.
	Args *ArgNames
}

// fill sets the Args of every tool call of s. It runs once s is merged,
// redacted and its results paired: what a call's Args hold is what its
// redacted input says, and a question's answers are in its result.
func (t *Tools) fill(s *transcript.Session) {
	names := t.Args
	if names == nil {
		names = CommonArgs
	}
	s.Parts(func(_ *transcript.Message, p *transcript.Part) {
		if p.Call != nil {
			names.Fill(p.Call)
		}
	})
}
