package cache

import (
	"encoding/gob"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// The cache holds sessions as a stream of gob values: each session without
// its turns, the number of its turns, each turn without its messages, the
// number of its messages, and each message. gob buffers a whole value
// before writing it, so a session of hundreds of megabytes written as one
// value would be held twice.

// WriteSessions writes ss to enc, a value at a time.
func WriteSessions(enc *gob.Encoder, ss []*transcript.Session) error {
	for _, s := range ss {
		head := *s
		head.Turns = nil
		if err := enc.Encode(&head); err != nil {
			return err
		}
		if err := enc.Encode(len(s.Turns)); err != nil {
			return err
		}
		for _, t := range s.Turns {
			if err := writeTurn(enc, t); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeTurn(enc *gob.Encoder, t transcript.Turn) error {
	msgs := t.Messages
	t.Messages = nil
	if err := enc.Encode(&t); err != nil {
		return err
	}
	if err := enc.Encode(len(msgs)); err != nil {
		return err
	}
	for _, m := range msgs {
		if err := enc.Encode(toWire(m)); err != nil {
			return err
		}
	}
	return nil
}

// ReadSessions reads n sessions that WriteSessions wrote from dec.
func ReadSessions(dec *gob.Decoder, n int) ([]*transcript.Session, error) {
	ss := make([]*transcript.Session, 0, n)
	for range n {
		s := new(transcript.Session)
		if err := dec.Decode(s); err != nil {
			return nil, err
		}
		var turns int
		if err := dec.Decode(&turns); err != nil {
			return nil, err
		}
		s.Turns = make([]transcript.Turn, turns)
		for i := range s.Turns {
			if err := readTurn(dec, &s.Turns[i]); err != nil {
				return nil, err
			}
		}
		ss = append(ss, s)
	}
	return ss, nil
}

func readTurn(dec *gob.Decoder, t *transcript.Turn) error {
	if err := dec.Decode(t); err != nil {
		return err
	}
	var n int
	if err := dec.Decode(&n); err != nil {
		return err
	}
	t.Messages = make([]*transcript.Message, n)
	for j := range t.Messages {
		var w wireMessage
		if err := dec.Decode(&w); err != nil {
			return err
		}
		t.Messages[j] = w.message()
	}
	return nil
}

// wireMessage is a message as the cache keeps it. gob sends a pointer to
// zero as nothing, so the parts whose exit code is 0 are listed beside it.
// A part's own result is listed by its index, a call's result by -1-index.
type wireMessage struct {
	M        *transcript.Message
	ExitZero []int
}

func toWire(m *transcript.Message) wireMessage {
	w := wireMessage{M: m}
	zero := func(r *transcript.ToolResult) bool { return r != nil && r.ExitCode != nil && *r.ExitCode == 0 }
	for i, p := range m.Parts {
		if zero(p.Result) {
			w.ExitZero = append(w.ExitZero, i)
		}
		if p.Call != nil && zero(p.Call.Result) {
			w.ExitZero = append(w.ExitZero, -1-i)
		}
	}
	return w
}

func (w wireMessage) message() *transcript.Message {
	m := w.M
	if m == nil {
		m = new(transcript.Message) // gob sent a message with nothing set as nothing
	}
	for _, i := range w.ExitZero {
		var r *transcript.ToolResult
		switch {
		case i >= 0 && i < len(m.Parts):
			r = m.Parts[i].Result
		case i < 0 && -1-i < len(m.Parts) && m.Parts[-1-i].Call != nil:
			r = m.Parts[-1-i].Call.Result
		}
		if r != nil {
			r.ExitCode = new(int)
		}
	}
	return m
}
