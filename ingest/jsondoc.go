package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// JSONDoc streams one JSON document, the container of the snapshot formats
// (SpecStory SessionData, jido_code): an object key by key and an array
// element by element, so a long session is never decoded whole, and with
// the line each element starts on, so warnings can name it.
type JSONDoc struct {
	File *File
	dec  *json.Decoder
	lc   *lineCounter
}

// NewJSONDoc reads the document in r, whose first byte is on line first.
func NewJSONDoc(f *File, r io.Reader, first int) *JSONDoc {
	br := bufio.NewReader(r)
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\ufeff")) {
		_, _ = br.Discard(3)
	}
	lc := &lineCounter{r: br, lines: first}
	return &JSONDoc{File: f, dec: json.NewDecoder(lc), lc: lc}
}

// Object calls fn with each key of the object that comes next and the line
// of the key; fn must read the key's value (value, array or skip). Any other
// value is skipped with a warning naming path, and ok is false.
func (d *JSONDoc) Object(path string, fn func(key string, line int) error) (ok bool, err error) {
	if ok, err := d.open('{', path, "an object"); !ok {
		return false, err
	}
	for d.dec.More() {
		t, err := d.dec.Token()
		if err != nil {
			return true, err
		}
		key, _ := t.(string)
		if err := fn(key, d.line()); err != nil {
			return true, err
		}
	}
	_, err = d.dec.Token()
	return true, err
}

// Array calls fn with each element of the array that comes next, as raw
// JSON, and the line it starts on. Any other value is skipped with a warning
// naming path.
func (d *JSONDoc) Array(path string, fn func(i, line int, raw json.RawMessage) error) error {
	if ok, err := d.open('[', path, "an array"); !ok {
		return err
	}
	for i := 0; d.dec.More(); i++ {
		var raw json.RawMessage
		if err := d.dec.Decode(&raw); err != nil {
			return err
		}
		line := d.lc.line(d.dec.InputOffset() - int64(len(raw)))
		d.File.at = line
		d.File.checkUTF8(line, raw)
		if err := fn(i, line, raw); err != nil {
			return err
		}
	}
	_, err := d.dec.Token()
	return err
}

// open reads the delimiter that starts the next value. When the value is of
// another kind, it is skipped and reported, and ok is false.
func (d *JSONDoc) open(delim json.Delim, path, want string) (ok bool, err error) {
	t, err := d.dec.Token()
	if err != nil || t == delim {
		return err == nil, err
	}
	d.File.Warn(d.line(), "%s: expected %s, found %s; skipped", path, want, tokenKind(t))
	if t == json.Delim('{') || t == json.Delim('[') {
		return false, d.skipRest(1)
	}
	return false, nil
}

// Value decodes the next value into v. A value of the wrong type is reported
// under path and the rest of v is still filled: only a broken document
// stops the walk.
func (d *JSONDoc) Value(path string, line int, v any) error {
	err := d.dec.Decode(v)
	if warnType(d.File, line, path, err) {
		return nil
	}
	return err
}

// Skip reads the next value without keeping it.
func (d *JSONDoc) Skip() error { return d.skipRest(0) }

func (d *JSONDoc) skipRest(depth int) error {
	for {
		t, err := d.dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth <= 0 {
			return nil
		}
	}
}

// line is the line the decoder has read up to: the line of the last token.
func (d *JSONDoc) line() int { return d.lc.line(d.dec.InputOffset()) }

// End reports how the walk of the document ended: a cancelled context is
// returned, another error becomes a warning. complete is true when the whole
// document was read.
func (d *JSONDoc) End(ctx context.Context, err error) (complete bool, cerr error) {
	if cerr = ctx.Err(); cerr == nil && err != nil {
		d.Fail(err)
	}
	return err == nil, cerr
}

// Snapshot returns the one session of a snapshot file, named after the file
// when it has no id, or nothing when it has no message.
func Snapshot(f *File, s *transcript.Session) []*transcript.Session {
	if len(s.Turns) == 0 {
		return nil
	}
	s.ID = FirstNonEmpty(s.ID, Stem(f.Rel))
	if len(s.Meta) == 0 {
		s.Meta = nil
	}
	return []*transcript.Session{s}
}

// Fail reports the error that stopped the walk; what was read before it is kept.
func (d *JSONDoc) Fail(err error) {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		d.File.Warn(d.lc.line(se.Offset), "JSON syntax error: %v; the rest of the file is skipped", se)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		d.File.Warn(d.line(), "the file ends in the middle of the document (the agent may still be writing it): read up to this line")
	default:
		d.File.Warn(0, "%v; the rest of the file is skipped", err)
	}
}

// DecodeAt unmarshals the object raw, found at path on line, into v. A field
// of the wrong type is reported and the rest of v is still filled; ok is
// false when raw is not an object.
func DecodeAt(f *File, line int, path string, raw json.RawMessage, v any) (ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		f.Warn(line, "%s: expected an object, found %s; skipped", path, RawKind(raw))
		return false
	}
	err := Unmarshal(raw, v)
	if err == nil || warnType(f, line, path, err) {
		return true
	}
	f.Warn(line, "%s: skipped: %v", path, err)
	return false
}

// warnType reports err if it is a JSON value of the wrong type.
func warnType(f *File, line int, path string, err error) bool {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return false
	}
	if te.Field != "" {
		path += "." + te.Field
	}
	f.Warn(line, "%s: %s; ignored", path, mismatch(te))
	return true
}

// mismatch says what a value of the wrong type was, in JSON's terms:
// "expected an object, found a string".
func mismatch(te *json.UnmarshalTypeError) string {
	found, _, _ := strings.Cut(te.Value, " ") // "number 7": the kind, then the value
	if found != "" && strings.ContainsRune("aeiou", rune(found[0])) {
		found = "an " + found
	} else {
		found = "a " + found
	}
	return fmt.Sprintf("expected %s, found %s", jsonKind(te.Type), found)
}

// jsonKind names the JSON kind a Go type is decoded from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	default:
		return "a number"
	}
}

// RawKind names the kind of the JSON value raw.
func RawKind(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return string(raw)
	}
	return "a number"
}

// tokenKind names the kind of the value a token starts.
func tokenKind(t json.Token) string {
	if d, ok := t.(json.Delim); ok {
		return RawKind([]byte(d.String()))
	}
	b, _ := json.Marshal(t)
	return RawKind(b)
}

// lineCounter tells the line of an offset of what it has read. Offsets are
// asked for in increasing order, so it keeps only the bytes read since the
// last one asked.
type lineCounter struct {
	r     io.Reader
	pend  []byte // bytes read and not counted yet, from offset base
	base  int64
	lines int // the line of offset base
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.pend = append(c.pend, p[:n]...)
	return n, err
}

func (c *lineCounter) line(off int64) int {
	k := min(max(off-c.base, 0), int64(len(c.pend)))
	c.lines += bytes.Count(c.pend[:k], []byte{'\n'})
	c.pend = c.pend[k:]
	c.base += k
	return c.lines
}
