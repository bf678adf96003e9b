package render

import (
	"crypto/sha256"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

// Highlighting is most of what a page costs, and sessions show the same
// code again and again: a file read, edited and read again, the same
// command's output, one session copied into many. hlCache keeps what chroma
// made, keyed by a hash of the lexer, the use and the code. The HTML names
// classes, not colours, so the style is not part of the key: a change of
// style changes only the stylesheet.
//
// It holds at most hlCacheBytes of values in two generations: when the new
// one fills, the old one is dropped, and a hit in the old one moves to the
// new, so what is used often stays and memory stays bounded.
const hlCacheBytes = 64 << 20

type hlKey [sha256.Size]byte

type hlCache struct {
	mu       sync.Mutex
	cur, old map[hlKey][]string
	size     int // bytes of values in cur
}

var highlighted = &hlCache{cur: map[hlKey][]string{}}

func keyOf(use string, l chroma.Lexer, code string) hlKey {
	h := sha256.New()
	h.Write([]byte(use))
	h.Write([]byte{0})
	h.Write([]byte(l.Config().Name))
	h.Write([]byte{0})
	h.Write([]byte(code))
	var k hlKey
	h.Sum(k[:0])
	return k
}

func (c *hlCache) get(k hlKey) ([]string, bool) {
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

func (c *hlCache) put(k hlKey, v []string) {
	c.mu.Lock()
	c.addLocked(k, v)
	c.mu.Unlock()
}

func (c *hlCache) addLocked(k hlKey, v []string) {
	n := len(k)
	for _, s := range v {
		n += len(s) + 16
	}
	if n > hlCacheBytes/8 {
		return // one huge block would evict everything else
	}
	if c.size+n > hlCacheBytes/2 {
		c.old, c.cur, c.size = c.cur, map[hlKey][]string{}, 0
	}
	c.cur[k] = v
	c.size += n
}

// cached returns what highlight returns for (use, l, code), from the cache
// when it has it. highlight's result must not depend on anything else.
func cached(use string, l chroma.Lexer, code string, highlight func() ([]string, bool)) ([]string, bool) {
	k := keyOf(use, l, code)
	if v, ok := highlighted.get(k); ok {
		return v, true
	}
	v, ok := highlight()
	if ok {
		highlighted.put(k, v)
	}
	return v, ok
}
