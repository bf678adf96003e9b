// Package memo holds bounded memos: maps from what made a value to the
// value, for work a build repeats on the same input (code highlighted,
// Markdown rendered, text searched for secrets). Sessions repeat
// themselves: the same instructions injected into every session, a file
// read, edited and read again, a conversation copied whole into the
// session that resumes it.
package memo

import "sync"

// Memo holds values of at most limit in all (as size counts them) in two
// generations: when the new one fills, the old one is dropped, and a hit
// in the old one moves to the new, so that what is used often stays and
// memory stays bounded. It is safe for concurrent use.
type Memo[K comparable, V any] struct {
	limit    int
	size     func(V) int
	mu       sync.Mutex
	cur, old map[K]V
	n        int // size of the values in cur
}

// New returns a memo of at most limit, each value counted by size.
func New[K comparable, V any](limit int, size func(V) int) *Memo[K, V] {
	m := &Memo[K, V]{limit: limit, size: size, cur: map[K]V{}}
	all.Lock()
	all.memos = append(all.memos, m)
	all.Unlock()
	return m
}

// all is every memo made, for Drop.
var all struct {
	sync.Mutex
	memos []interface{ drop() }
}

// Drop empties every memo. A build calls it when its sessions are done:
// what it does next, sorting the search index, is its peak of memory, and
// the memos hold 100 MB that nothing after uses.
func Drop() {
	all.Lock()
	defer all.Unlock()
	for _, m := range all.memos {
		m.drop()
	}
}

func (m *Memo[K, V]) drop() {
	m.mu.Lock()
	m.cur, m.old, m.n = map[K]V{}, nil, 0
	m.mu.Unlock()
}

// Get returns the value of k, if the memo holds it.
func (m *Memo[K, V]) Get(k K) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.cur[k]; ok {
		return v, true
	}
	v, ok := m.old[k]
	if ok {
		m.add(k, v)
	}
	return v, ok
}

// Put makes v the value of k. A value of more than an eighth of the limit
// is not kept: it would evict most of the rest.
func (m *Memo[K, V]) Put(k K, v V) {
	m.mu.Lock()
	m.add(k, v)
	m.mu.Unlock()
}

func (m *Memo[K, V]) add(k K, v V) {
	n := m.size(v)
	if n > m.limit/8 {
		return
	}
	if m.n+n > m.limit/2 {
		m.old, m.cur, m.n = m.cur, map[K]V{}, 0
	}
	m.cur[k] = v
	m.n += n
}
