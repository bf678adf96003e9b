package ingest

import (
	"bytes"
	"errors"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Raw is a JSON value as the input has it, for a reader to decode later,
// when it knows what the value is. Unlike json.RawMessage it is not
// copied: it is the input's own bytes, valid as long as the line (or
// document) being decoded is, and a reader that keeps one longer clones
// it. (json/v2 decodes a []byte in place, and encoding/json hands an
// UnmarshalJSON method a slice of its input.)
type Raw []byte

func (r *Raw) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	v, err := dec.ReadValue()
	*r = Raw(v)
	return err
}

func (r *Raw) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

// DecodeRaw decodes the value dec is at into v with json/v2, in dec's own
// pass, and returns the value's bytes as well, as the input has them (see
// Raw). dec must decode a []byte: the value is found in its buffer.
func DecodeRaw(dec *jsontext.Decoder, v any) (Raw, error) {
	rest, off := dec.UnreadBuffer(), dec.InputOffset()
	if err := jsonv2.UnmarshalDecode(dec, v); err != nil {
		return nil, err
	}
	n := dec.InputOffset() - off
	if n > int64(len(rest)) {
		return nil, errNotInBuffer
	}
	return Raw(bytes.TrimLeft(rest[:n], ", \t\r\n")), nil
}

var errNotInBuffer = errors.New("json: a value read past the decoder's buffer")
