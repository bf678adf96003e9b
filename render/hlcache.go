package render

import (
	"crypto/sha256"
	"hash"
	"sync"

	"golang.org/x/sync/singleflight"

	"github.com/transcriptsite/transcriptsite/internal/memo"
)

// Highlighting is most of what a page costs, and sessions show the same
// code and text again and again. A memo keeps what chroma or goldmark
// made, keyed by a hash of what made it (the use and the lexer's name) and
// of the input. The HTML names classes, not colours, so the style is not
// part of the key: a change of style changes only the stylesheet.
type htmlMemo struct {
	*memo.Memo[memoKey, html]
	// making shares a value being made with whoever asks for it meanwhile:
	// sessions rendered at once on every core often show the same files or
	// are copies of one another (a third of what chroma highlighted in the
	// real Claude sessions x20 was made twice at once).
	making singleflight.Group
}

type memoKey [sha256.Size]byte

// html is what a memo keeps: HTML, and of highlighted rows where each row
// ends in it. One string, not a string a row: a full memo of rows was
// hundreds of thousands of small objects that the collector marked at
// every cycle, and at 10,000 sessions it ran every 200 MB allocated.
type html struct {
	s    string
	ends []uint32
}

// rows is how many rows h holds.
func (h html) rows() int { return len(h.ends) }

// row is row i of h.
func (h html) row(i int) string {
	from := uint32(0)
	if i > 0 {
		from = h.ends[i-1]
	}
	return h.s[from:h.ends[i]]
}

// Highlighted code and rendered Markdown have a memo each, so that a flood
// of text never evicts code, which costs far more to make again.
var (
	highlighted = newMemo(64 << 20)
	markdowns   = newMemo(16 << 20)
)

func newMemo(limit int) *htmlMemo {
	return &htmlMemo{Memo: memo.New[memoKey](limit, func(v html) int {
		return sha256.Size + 48 + len(v.s) + 4*len(v.ends)
	})}
}

// hashers are sha256 states to reuse, with a buffer to copy a string
// through in pieces: a state made and the input copied whole for each key
// were 1.5% of what a build allocated.
var hashers = sync.Pool{New: func() any { return &hasher{h: sha256.New()} }}

type hasher struct {
	h   hash.Hash
	buf [4 << 10]byte
}

func (x *hasher) writeString(s string) {
	for len(s) > 0 {
		n := copy(x.buf[:], s)
		x.h.Write(x.buf[:n])
		s = s[n:]
	}
}

func keyOf(use, name, input string) memoKey {
	x := hashers.Get().(*hasher)
	defer hashers.Put(x)
	x.h.Reset()
	x.writeString(use)
	x.writeString("\x00")
	x.writeString(name)
	x.writeString("\x00")
	x.writeString(input)
	var k memoKey
	copy(k[:], x.h.Sum(x.buf[:0])) // k passed to Sum would escape
	return k
}

// do returns what produce returns for (use, name, input), from the memo when
// it has it, or when another caller is making it, once that one is done.
// produce's result must not depend on anything else.
func (c *htmlMemo) do(use, name, input string, produce func() (html, bool)) (html, bool) {
	k := keyOf(use, name, input)
	if v, ok := c.Get(k); ok {
		return v, true
	}
	type made struct {
		v  html
		ok bool
	}
	r, _, _ := c.making.Do(string(k[:]), func() (any, error) {
		if v, ok := c.Get(k); ok { // made while this caller looked
			return made{v, true}, nil
		}
		v, ok := produce()
		if ok {
			c.Put(k, v)
		}
		return made{v, ok}, nil
	})
	m := r.(made)
	return m.v, m.ok
}
