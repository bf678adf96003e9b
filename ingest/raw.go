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

// StringOr is a value that is mostly a string, decoded in the pass that
// reads its record: a string (or null) is S, anything else is kept in Raw.
// IsString is whether Unmarshal would decode the value into a string.
type StringOr struct {
	S        string
	IsString bool
	Raw      Raw
}

func (v *StringOr) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*v = StringOr{} // a repeated key's value replaces the first's
	if k := dec.PeekKind(); k != '"' && k != 'n' {
		return v.Raw.UnmarshalJSONFrom(dec)
	}
	// Should json/v2 fail on the string, Unmarshal decodes the record
	// again with encoding/json, which calls UnmarshalJSON.
	v.IsString = true
	return jsonv2.UnmarshalDecode(dec, &v.S)
}

func (v *StringOr) UnmarshalJSON(b []byte) error {
	*v = StringOr{}
	if v.IsString = Unmarshal(b, &v.S) == nil; !v.IsString {
		v.Raw = b
	}
	return nil
}

// UnmarshalFrom decodes data into v with json/v2 alone, with the options
// of Unmarshal: for the UnmarshalJSON method of a type whose
// UnmarshalJSONFrom does the work.
func UnmarshalFrom(data []byte, v jsonv2.UnmarshalerFrom) error {
	return jsonv2.Unmarshal(data, v, jsonOptions)
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
