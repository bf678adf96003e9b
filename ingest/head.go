package ingest

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/klauspost/compress/zstd"
)

// HeadSize is how much of a file detection sees.
const HeadSize = 64 << 10

// maxRecords is how many leading JSON values detection looks at.
const maxRecords = 20

// Head is the start of a file, as detection sees it.
type Head struct {
	Path string // slash path relative to the content dir: a hint only
	Data []byte // up to HeadSize bytes
	EOF  bool   // Data is the whole file
	Zstd bool   // the file is compressed, and Data is of what it holds

	once    sync.Once
	records []Record
	array   bool
}

// Record holds the top-level keys of one JSON object. A string value is kept
// as is, a number, boolean or null as its JSON text, an object as "{" and an
// array as "[". Keys of an object cut off by the end of the head are kept.
type Record map[string]string

// Has reports whether every key is present.
func (r Record) Has(keys ...string) bool {
	for _, k := range keys {
		if _, ok := r[k]; !ok {
			return false
		}
	}
	return true
}

// Records returns the top-level keys of the first JSON objects in the head:
// one per line of JSONL, one for a JSON document, or, for a document that is
// an array, one per element.
func (h *Head) Records() []Record {
	h.once.Do(h.scan)
	return h.records
}

// IsArray reports whether the head is a JSON array.
func (h *Head) IsArray() bool {
	h.once.Do(h.scan)
	return h.array
}

func (h *Head) scan() {
	dec := h.decoder()
	if dec == nil {
		return
	}
	for len(h.records) < maxRecords {
		if !h.next(dec) {
			return
		}
	}
}

// decoder is a decoder of the head's records, past the array's opening
// when they are in one; nil when the head is no JSON object or array.
func (h *Head) decoder() *jsontext.Decoder {
	data := bytes.TrimLeft(h.Data, " \t\r\n\ufeff")
	if !jsonContainer(data) {
		return nil
	}
	// A head is cut off anywhere and may hold anything: take what parses.
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if data[0] == '[' {
		h.array = true
		if _, err := dec.ReadToken(); err != nil {
			return nil
		}
	}
	return dec
}

// jsonContainer says whether data starts a JSON object or array.
func jsonContainer(data []byte) bool {
	return len(data) > 0 && (data[0] == '{' || data[0] == '[')
}

// next reads the next value of the head, a record when it is an object;
// it reports whether there may be more.
func (h *Head) next(dec *jsontext.Decoder) bool {
	switch dec.PeekKind() {
	case 0, ']': // the end, or what does not parse
		return false
	case '{':
		rec := Record{}
		h.records = append(h.records, rec)
		return readRecord(dec, rec)
	}
	return dec.SkipValue() == nil
}

// readRecord reads an object's top-level keys into rec; nested values are
// skipped, not parsed. It reports whether the object was read to its end.
func readRecord(dec *jsontext.Decoder, rec Record) bool {
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	for dec.PeekKind() != '}' {
		k, err := dec.ReadToken()
		if err != nil {
			return false
		}
		key := k.String()
		switch kind := dec.PeekKind(); kind {
		case 0:
			return false
		case '{', '[':
			rec[key] = string(kind)
			if dec.SkipValue() != nil {
				return false
			}
		default:
			v, err := dec.ReadToken()
			if err != nil {
				return false
			}
			rec[key] = v.String() // a string unquoted, anything else as written
		}
	}
	_, err := dec.ReadToken()
	return err == nil
}

// Text returns the head as a string, or "" if it is not UTF-8 text.
func (h *Head) Text() string {
	d := h.Data
	if !h.EOF {
		// The head may end inside a multi-byte rune.
		for i := 0; i < utf8.UTFMax && len(d) > 0 && !utf8.Valid(d); i++ {
			d = d[:len(d)-1]
		}
	}
	if !utf8.Valid(d) || bytes.IndexByte(d, 0) >= 0 {
		return ""
	}
	return string(d)
}

// zstdMagic opens a zstd stream: Codex can compress its rollouts.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// Sniff reads the head of r and returns it with a reader of the whole
// content, decompressed when it is zstd. done releases the decompressor.
func Sniff(rel string, r io.Reader) (h *Head, body io.Reader, done func(), err error) {
	h, body, err = readHead(rel, r)
	if err != nil || !bytes.HasPrefix(h.Data, zstdMagic) {
		return h, body, func() {}, err
	}
	dec, err := zstd.NewReader(body, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<30))
	if err != nil {
		return nil, nil, nil, err
	}
	h, body, err = readHead(rel, dec)
	if err != nil {
		dec.Close()
		return nil, nil, nil, fmt.Errorf("zstd: %w", err)
	}
	h.Zstd = true
	return h, body, dec.Close, nil
}

func readHead(rel string, r io.Reader) (*Head, io.Reader, error) {
	buf := make([]byte, HeadSize)
	n, err := io.ReadFull(r, buf)
	h := &Head{Path: rel, Data: buf[:n]}
	switch err {
	case nil:
	case io.EOF, io.ErrUnexpectedEOF:
		h.EOF = true
	default:
		return nil, nil, err
	}
	return h, io.MultiReader(bytes.NewReader(h.Data), r), nil
}
