package ingest

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// timeLayouts are the textual timestamp forms agents write. A form without a
// zone is read as UTC so output does not depend on the build machine.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02",
}

// ParseTime reads every timestamp form the formats use: ISO 8601 with or
// without a zone, and epoch seconds or milliseconds.
func ParseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	if !strings.ContainsAny(s, "-:") { // a date is no number: ParseFloat is not tried on one
		if n, err := strconv.ParseFloat(s, 64); err == nil {
			return epoch(n), n > 0
		}
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// epoch reads n as seconds, or as milliseconds when it is too large to be
// seconds (any ms time after 1970-04-26 is).
func epoch(n float64) time.Time {
	if n > 1e10 {
		return time.UnixMilli(int64(n)).UTC()
	}
	sec := int64(n)
	return time.Unix(sec, int64((n-float64(sec))*1e9)).UTC()
}

// JSONTime is a timestamp field that may be a string or a number.
type JSONTime struct{ time.Time }

func (t *JSONTime) UnmarshalJSON(b []byte) error {
	if len(b) > 1 && b[0] == '"' {
		if in := b[1 : len(b)-1]; bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
			t.Set(string(in)) // what decoding would give, without a decoder
			return nil
		}
		var s string
		if err := Unmarshal(b, &s); err != nil {
			return err
		}
		t.Set(s)
		return nil
	}
	t.Set(string(b))
	return nil
}

// Set keeps only a time ParseTime accepts: 0, which some agents write for
// "not yet", stays the zero time rather than 1970.
func (t *JSONTime) Set(s string) {
	if v, ok := ParseTime(s); ok {
		t.Time = v
	}
}

// imageTypes maps magic bytes to media types.
var imageTypes = []struct {
	magic string
	mime  string
}{
	{"\x89PNG\r\n\x1a\n", "image/png"},
	{"\xff\xd8\xff", "image/jpeg"},
	{"GIF87a", "image/gif"},
	{"GIF89a", "image/gif"},
}

// sniffImage returns the media type the bytes really are, or "" when they
// are not an image a browser may be trusted to show.
func sniffImage(b []byte) string {
	for _, t := range imageTypes {
		if bytes.HasPrefix(b, []byte(t.magic)) {
			return t.mime
		}
	}
	if len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP" {
		return "image/webp"
	}
	return ""
}

// DecodeImage decodes base64 image data, bare or as a data: URL. The media
// type comes from the bytes, not from the label beside them: labels are
// sometimes wrong, and a non-image must never become an <img>. ok is false
// when the data is not base64. A large image goes to f's blob store, when
// it has one, rather than staying in memory: a session may hold hundreds
// of megabytes of screenshots.
func DecodeImage(f *File, data string) (img *transcript.Image, ok bool) {
	b, ok := decodeBase64(data)
	if !ok {
		return nil, false
	}
	mt := cmp.Or(sniffImage(b), "application/octet-stream")
	if key := f.putBlob(b); key != "" {
		return &transcript.Image{MediaType: mt, Blob: key, Size: len(b)}, true
	}
	return &transcript.Image{MediaType: mt, Data: b, Size: len(b)}, true
}

// decodeBase64 decodes data, base64 with or without padding, or a data:
// URL of it.
func decodeBase64(data string) ([]byte, bool) {
	if i := strings.Index(data, ";base64,"); strings.HasPrefix(data, "data:") && i > 0 {
		data = data[i+len(";base64,"):]
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(data)
	}
	return b, err == nil
}

// putBlob puts an image's bytes b in f's blob store, when it has one and
// they are big enough to be worth a file, and returns their key; "" when
// they stay in memory.
func (f *File) putBlob(b []byte) string {
	if f == nil || f.blobs == nil || len(b) < minBlob {
		return ""
	}
	return f.blobs.PutBlob(b)
}

// minBlob is the smallest image put in the blob store: smaller ones cost
// less in memory than a file each.
const minBlob = 32 << 10

// Text returns a JSON value that should be a string as a string. Formats
// drift: a field that was a string becomes an object or an array of blocks,
// so anything else is returned as compact JSON rather than dropped.
func Text(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if Unmarshal(raw, &s) == nil {
			return s
		}
	}
	if isCompact(raw) {
		return string(raw) // what json.Compact would give, without its scanner
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String()
	}
	return string(raw)
}

// jsonSpace are the bytes JSON allows as white space.
const jsonSpace = " \t\n\r"

// isCompact reports whether raw has no white space outside its strings:
// json.Compact would return it as it is, or fail on it.
func isCompact(raw []byte) bool {
	in := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && strings.IndexByte(jsonSpace, c) >= 0:
			return false
		}
	}
	return true
}

// UserText turns a user's text into parts for any reader: an interruption
// notice becomes an event, and text the harness injected (by t's markers)
// marks the message as meta.
func UserText(t *Tools, s string, meta *bool) []*transcript.Part {
	if t.IsInjected(s) {
		*meta = true
	}
	if p := UserPart(s); p != nil {
		return []*transcript.Part{p}
	}
	return nil
}

// ExitCode reads the exit code a shell tool's output starts with
// ("Exit code 2", "Error: Exit code 1"), if any.
func ExitCode(output string) *int {
	if m := exitCodeRE.FindStringSubmatch(output); m != nil {
		if code, err := strconv.Atoi(m[1]); err == nil {
			return &code
		}
	}
	return nil
}

// jsonOptions make the fast decoder as forgiving as encoding/json: session
// files have invalid UTF-8, repeated keys and drifting key case, and one
// odd value must not cost the record.
var jsonOptions = jsonv2.JoinOptions(
	jsontext.AllowInvalidUTF8(true),
	jsontext.AllowDuplicateNames(true),
	jsonv2.MatchCaseInsensitiveNames(true),
)

// Unmarshal decodes JSON with the json/v2 implementation, about three
// times faster than encoding/json on session records, which dominate the
// time a build spends reading. On any error it decodes again with
// encoding/json, whose partial results (a record kept without the field
// that failed) and messages the readers rely on.
func Unmarshal(data []byte, v any) error {
	return UnmarshalFast(data, v, nil)
}

// UnmarshalFast is Unmarshal for a type holding values whose
// UnmarshalJSONFrom methods decode them in the pass that reads the record,
// and fail on what they cannot decode so. Should that pass fail, v is
// decoded again with json/v2 and careful, options whose unmarshalers
// (Apart) read each such value raw and decode it alone, as a reader did
// with a json.RawMessage; and only should that fail too, with
// encoding/json. A record gets what Unmarshal over raw values gave it,
// json/v2's reading and encoding/json's alike.
func UnmarshalFast(data []byte, v any, careful jsonv2.Options) error {
	if err := kindMismatch(data, v); err != nil {
		return err // readers try a string, then an array: neither decoder need parse it
	}
	if jsonv2.Unmarshal(data, v, jsonOptions) == nil {
		return nil
	}
	if careful != nil {
		reflect.ValueOf(v).Elem().SetZero()
		if jsonv2.Unmarshal(data, v, jsonOptions, careful) == nil {
			return nil
		}
	}
	return json.Unmarshal(data, v)
}

// Apart is the unmarshaler of UnmarshalFast's careful pass for values of
// type T: each is read raw and handed to its UnmarshalJSON method.
func Apart[T json.Unmarshaler]() *jsonv2.Unmarshalers {
	return jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, v T) error {
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		return v.UnmarshalJSON(raw)
	})
}

// kindMismatch returns the error encoding/json gives when data's value is
// of another kind than v can hold (an array for a string, say), or nil when
// it may fit.
func kindMismatch(data []byte, v any) error {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 {
		return nil // let the decoders say what is wrong
	}
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer || t.Implements(unmarshalerType) {
		return nil
	}
	want := opening[t.Elem().Kind()]
	c := data[0]
	switch {
	case want == 0, c == want, c == 'n', t.Elem() == rawMessageType:
		return nil
	case want == '[' && t.Elem().Elem().Kind() == reflect.Uint8 && c == '"':
		return nil // []byte decodes from base64 text
	}
	return &json.UnmarshalTypeError{Value: cmp.Or(jsonKinds[c], "number"), Type: t.Elem(), Offset: 1}
}

// opening is the character a JSON value of each kind of Go value opens
// with; kinds not listed are left to the decoders.
var opening = [reflect.UnsafePointer + 1]byte{reflect.String: '"', reflect.Slice: '[', reflect.Map: '{', reflect.Struct: '{'}

// jsonKinds name a JSON value by the character it opens with; others are
// numbers.
var jsonKinds = [256]string{'"': "string", '[': "array", '{': "object", 't': "bool", 'f': "bool"}

var (
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// UnifiedHunks reads a unified diff ("--- a/p", "+++ b/p", "@@ -12,5 +13,6 @@"
// and its lines) into hunks, each with the path of its file and the heading
// a hunk's line may name after its numbers. Text before the first hunk of
// a file is its header.
func UnifiedHunks(diff string) []transcript.Hunk {
	var out []transcript.Hunk
	file := ""
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "):
			file = strings.TrimPrefix(strings.Fields(l + " ")[1], "b/")
		case strings.HasPrefix(l, "@@"):
			out = append(out, hunkHead(l, file))
		case len(out) > 0 && hunkLine(l):
			out[len(out)-1].Lines = append(out[len(out)-1].Lines, l)
		}
	}
	return out
}

// hunkHead is the hunk a line "@@ -12,5 +13,6 @@ heading" starts, of file.
func hunkHead(l, file string) transcript.Hunk {
	h := transcript.Hunk{Path: file}
	h.OldStart, h.NewStart = hunkStarts(l)
	if _, heading, ok := strings.Cut(l[2:], "@@"); ok {
		h.Heading = strings.TrimSpace(heading)
	}
	return h
}

// hunkStarts are the first lines of a hunk in the old and the new file,
// read from its head's numbers.
func hunkStarts(l string) (oldStart, newStart int) {
	for _, f := range strings.Fields(l)[1:] {
		n, _ := strconv.Atoi(strings.SplitN(f[1:], ",", 2)[0])
		switch f[0] {
		case '-':
			oldStart = n
		case '+':
			newStart = n
		}
		if f == "@@" {
			break
		}
	}
	return oldStart, newStart
}

// hunkLine says whether l is a line of a hunk: context, added, removed,
// or a "\ No newline" note.
func hunkLine(l string) bool {
	return l == "" || strings.ContainsRune(" +-\\", rune(l[0]))
}

// exitCodeRE reads the exit code a shell tool's output starts with; Cursor
// writes "Exit code: 2".
var exitCodeRE = regexp.MustCompile(`^(?:Error: )?Exit code:? (\d+)`)

func EventPart(kind, desc string, raw []byte) *transcript.Part {
	return &transcript.Part{Kind: transcript.EventPart, Text: desc, Event: &transcript.Event{Kind: kind, Raw: string(raw)}}
}

func FirstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

// IsDrift reports whether err is nil or only says that a field held
// another type than expected: formats drift, and Unmarshal still fills the
// other fields. A value that is not an object at all, or one of the fields
// the record cannot do without, is a real error.
func IsDrift(err error, vital ...string) bool {
	var te *json.UnmarshalTypeError
	if err == nil {
		return true
	}
	return errors.As(err, &te) && te.Field != "" && !slices.Contains(vital, te.Field)
}

// UserPart turns typed or injected text into a part: nil when blank, an
// event when it is Claude Code's interruption notice.
func UserPart(s string) *transcript.Part {
	if strings.HasPrefix(s, "[Request interrupted by user") {
		return EventPart(transcript.Interrupt, strings.Trim(s, "[]"), nil)
	}
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return &transcript.Part{Kind: transcript.TextPart, Text: s}
}

func JoinNonEmpty(sep string, ss ...string) string {
	return strings.Join(slices.DeleteFunc(ss, func(s string) bool { return strings.TrimSpace(s) == "" }), sep)
}

// LinkParents lists each session among the children of the session it
// names as its parent, when both were read: Cursor's subagents, Pi's forks.
func LinkParents(ss []*transcript.Session) []*transcript.Session {
	byID := map[string]*transcript.Session{}
	for _, s := range ss {
		byID[s.ID] = s
	}
	for _, s := range ss {
		if p := byID[s.ParentID]; p != nil && p != s {
			AddChild(p, s.ID)
		}
	}
	return ss
}

func AddChild(s *transcript.Session, id string) {
	if id != "" && id != s.ID && !slices.Contains(s.ChildIDs, id) {
		s.ChildIDs = append(s.ChildIDs, id)
	}
}

func ErrorMessage(raw []byte) string {
	var e struct {
		Message string `json:"message"`
	}
	if Unmarshal(raw, &e) == nil && e.Message != "" {
		return e.Message
	}
	return Text(raw)
}

// FenceState follows the code fences of Markdown: it returns the fence open
// after line t, given the one open before it.
func FenceState(open, t string) string {
	switch {
	case open == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
		return t[:len(t)-len(strings.TrimLeft(t, t[:1]))]
	case open != "" && strings.HasPrefix(t, open) && strings.Trim(t, open[:1]) == "":
		return ""
	}
	return open
}
