package render

import (
	"crypto/sha256"
	"sync"

	"golang.org/x/sync/singleflight"
)

// Highlighting is most of what a page costs, and sessions show the same
// code and text again and again: a file read, edited and read again, the
// same command's output, the same instructions injected into every
// session, one session copied into many. A memo keeps what chroma or
// goldmark made, keyed by a hash of what made it (the use and the lexer's
// name) and of the input. The HTML names classes, not colours, so the
// style is not part of the key: a change of style changes only the
// stylesheet.
//
// A memo holds at most limit bytes of values in two generations: when the
// new one fills, the old one is dropped, and a hit in the old one moves to
// the new, so what is used often stays and memory stays bounded.
type memo struct {
	limit    int
	mu       sync.Mutex
	cur, old map[memoKey][]string
	size     int // bytes of values in cur
	// making shares a value being made with whoever asks for it meanwhile:
	// sessions rendered at once on every core often show the same files or
	// are copies of one another (a third of what chroma highlighted in the
	// real Claude sessions x20 was made twice at once).
	making singleflight.Group
}

type memoKey [sha256.Size]byte

// Highlighted code and rendered Markdown have a memo each, so that a flood
// of text never evicts code, which costs far more to make again.
var (
	highlighted = newMemo(64 << 20)
	markdowns   = newMemo(16 << 20)
)

func newMemo(limit int) *memo { return &memo{limit: limit, cur: map[memoKey][]string{}} }

func keyOf(use, name, input string) memoKey {
	h := sha256.New()
	h.Write([]byte(use))
	h.Write([]byte{0})
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write([]byte(input))
	var k memoKey
	h.Sum(k[:0])
	return k
}

func (c *memo) get(k memoKey) ([]string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.cur[k]; ok {
		return v, true
	}
	v, ok := c.old[k]
	if ok {
		c.addLocked(k, v)
	}
	return v, ok
}

func (c *memo) put(k memoKey, v []string) {
	c.mu.Lock()
	c.addLocked(k, v)
	c.mu.Unlock()
}

func (c *memo) addLocked(k memoKey, v []string) {
	n := len(k)
	for _, s := range v {
		n += len(s) + 16
	}
	if n > c.limit/8 {
		return // one huge value would evict everything else
	}
	if c.size+n > c.limit/2 {
		c.old, c.cur, c.size = c.cur, map[memoKey][]string{}, 0
	}
	c.cur[k] = v
	c.size += n
}

// do returns what produce returns for (use, name, input), from the memo when
// it has it, or when another caller is making it, once that one is done.
// produce's result must not depend on anything else.
func (c *memo) do(use, name, input string, produce func() ([]string, bool)) ([]string, bool) {
	k := keyOf(use, name, input)
	if v, ok := c.get(k); ok {
		return v, true
	}
	type made struct {
		v  []string
		ok bool
	}
	r, _, _ := c.making.Do(string(k[:]), func() (any, error) {
		if v, ok := c.get(k); ok { // made while this caller looked
			return made{v, true}, nil
		}
		v, ok := produce()
		if ok {
			c.put(k, v)
		}
		return made{v, ok}, nil
	})
	m := r.(made)
	return m.v, m.ok
}
