package synth

import (
	"bufio"
	"strconv"
)

// jw builds one JSON record at a time, keys in the order the agent writes
// them (encoding/json cannot keep an order for maps, and structs built only
// to be written once would cost more than the text). Strings are escaped as
// Node's JSON.stringify does: only quotes, backslashes and control bytes.
type jw struct {
	b     []byte
	comma bool // a value was written: the next key or element needs a comma
}

func (j *jw) reset() { j.b, j.comma = j.b[:0], false }

func (j *jw) sep() {
	if j.comma {
		j.b = append(j.b, ',')
	}
}

// open starts an object or array ('{' or '[').
func (j *jw) open(c byte) { j.sep(); j.b = append(j.b, c); j.comma = false }

// close ends an object or array ('}' or ']').
func (j *jw) close(c byte) { j.b = append(j.b, c); j.comma = true }

func (j *jw) key(k string) {
	j.sep()
	j.b = append(j.b, '"')
	j.b = append(j.b, k...)
	j.b = append(j.b, '"', ':')
	j.comma = false
}

func (j *jw) str(s string) { j.sep(); j.b = appendQuoted(j.b, s); j.comma = true }
func (j *jw) int(n int)    { j.sep(); j.b = strconv.AppendInt(j.b, int64(n), 10); j.comma = true }
func (j *jw) bool(v bool)  { j.sep(); j.b = strconv.AppendBool(j.b, v); j.comma = true }
func (j *jw) null()        { j.sep(); j.b = append(j.b, "null"...); j.comma = true }
func (j *jw) raw(v string) { j.sep(); j.b = append(j.b, v...); j.comma = true }
func (j *jw) float(f float64, prec int) {
	j.sep()
	j.b = strconv.AppendFloat(j.b, f, 'f', prec, 64)
	j.comma = true
}

func (j *jw) ks(k, s string)      { j.key(k); j.str(s) }
func (j *jw) ki(k string, n int)  { j.key(k); j.int(n) }
func (j *jw) kb(k string, v bool) { j.key(k); j.bool(v) }
func (j *jw) kn(k string)         { j.key(k); j.null() }
func (j *jw) kr(k, v string)      { j.key(k); j.raw(v) }

// kobj and karr open an object or array under a key.
func (j *jw) kobj(k string) { j.key(k); j.open('{') }
func (j *jw) karr(k string) { j.key(k); j.open('[') }

// strs writes an array of strings.
func (j *jw) strs(ss []string) {
	j.open('[')
	for _, s := range ss {
		j.str(s)
	}
	j.close(']')
}

// text writes a content block {"type": typ, "text": s}.
func (j *jw) text(typ, s string) {
	j.open('{')
	j.ks("type", typ)
	j.ks("text", s)
	j.close('}')
}

// textList writes an array of one text block, as tool results are.
func (j *jw) textList(s string) {
	j.open('[')
	j.text("text", s)
	j.close(']')
}

// links writes search results: [{title, url}].
func (j *jw) links(ls [][2]string) {
	j.open('[')
	for _, l := range ls {
		j.open('{')
		j.ks("title", l[0])
		j.ks("url", l[1])
		j.close('}')
	}
	j.close(']')
}

// todos writes a todo list, each item's text under key; active adds the
// present-tense form Claude Code shows while an item runs.
func (j *jw) todos(ts []todo, key string, active bool) {
	j.open('[')
	for _, t := range ts {
		j.open('{')
		j.ks(key, t.content)
		j.ks("status", t.status)
		if active {
			j.ks("activeForm", t.active)
		}
		j.close('}')
	}
	j.close(']')
}

const hexDigits = "0123456789abcdef"

// appendQuoted appends s as a JSON string.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// out writes the records of one session file, one JSON object a line.
type out struct {
	g *gen
	w *bufio.Writer
	j jw
}

func (o *out) setOutput(w *bufio.Writer) { o.w = w }

// flush writes the record built in j as a line. Write errors stay in the
// bufio.Writer until its Flush, which reports them.
func (o *out) flush() {
	o.j.b = append(o.j.b, '\n')
	o.w.Write(o.j.b)
	o.g.st.Records++
}

// time writes a timestamp as agents write them: UTC with milliseconds.
func (o *out) time(k string, ms int64) {
	o.j.key(k)
	o.j.sep()
	o.j.b = append(appendTime(append(o.j.b, '"'), ms), '"')
	o.j.comma = true
}

// record starts a new record.
func (o *out) record() *jw {
	o.j.reset()
	o.j.open('{')
	return &o.j
}
