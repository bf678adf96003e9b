package ingest

import (
	"cmp"
	"time"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// Node is a record with a uuid in a session's conversation graph, which
// Claude Code writes as parentUuid links. Harness records take part too,
// so that their children are not taken for roots.
type Node struct {
	ID     string
	Parent string
	Time   time.Time
	Live   bool // it holds a prompt or a reply
	Msgs   []*transcript.Message
}

type Tree struct {
	nodes map[string]*Node
	order []*Node
}

// Has reports whether the tree has a node of the id.
func (d *Tree) Has(id string) bool { return d.nodes[id] != nil }

func (d *Tree) Add(uuid, parent string, t time.Time) *Node {
	n := &Node{ID: uuid, Parent: parent, Time: t}
	if d.nodes == nil {
		d.nodes = map[string]*Node{}
	}
	d.nodes[uuid] = n
	d.order = append(d.order, n)
	return n
}

// MarkBranches finds where the user rewound or edited a prompt: a node with
// two children that each lead to a prompt or a reply. The line leading to
// the latest such leaf is the conversation; messages only on the others
// keep their place in file order and get Branch, the uuid they left from.
// Parallel tool calls fork too (each result hangs off the line of its own
// call), but only one of their children goes on, so they are not branches.
func (d *Tree) MarkBranches() {
	nodes := d.order
	parent := map[*Node]*Node{}
	for _, n := range nodes {
		if p := d.nodes[n.Parent]; p != nil && p != n {
			parent[n] = p
		}
	}
	// A malformed file may link in a cycle: cut it where it closes.
	done, seen := map[*Node]bool{}, map[*Node]bool{}
	for _, n := range nodes {
		clear(seen)
		for c := n; c != nil && !done[c]; c = parent[c] {
			if seen[c] {
				delete(parent, c)
				break
			}
			seen[c] = true
		}
		for c := range seen {
			done[c] = true
		}
	}

	below := map[*Node]bool{} // a prompt or a reply is at or under it
	for _, n := range nodes {
		for c := n; n.Live && c != nil && !below[c]; c = parent[c] {
			below[c] = true
		}
	}
	liveChild := map[*Node]bool{}
	for n, p := range parent {
		liveChild[p] = liveChild[p] || below[n]
	}
	// Each tree (a session resumed without a link starts a new one) keeps
	// the line to its latest leaf.
	rootOf := map[*Node]*Node{}
	latest := map[*Node]*Node{}
	var roots []*Node
	for _, n := range nodes {
		var path []*Node
		c := n
		for ; parent[c] != nil && rootOf[c] == nil; c = parent[c] {
			path = append(path, c)
		}
		r := cmp.Or(rootOf[c], c)
		for _, x := range append(path, c) {
			rootOf[x] = r
		}
		if !n.Live || liveChild[n] {
			continue
		}
		if l := latest[r]; l == nil {
			roots = append(roots, r)
			latest[r] = n
		} else if !n.Time.Before(l.Time) {
			latest[r] = n
		}
	}
	active := map[*Node]bool{}
	for _, r := range roots {
		for c := latest[r]; c != nil && !active[c]; c = parent[c] {
			active[c] = true
		}
	}

	fork := map[*Node]string{}
	for _, n := range nodes {
		if active[n] {
			continue
		}
		if _, ok := fork[n]; ok {
			continue
		}
		// Walk up to the active line: the child met there decides.
		var path []*Node
		at, c := "", n
		for {
			path = append(path, c)
			p := parent[c]
			if p == nil {
				break
			}
			if active[p] {
				if below[c] {
					at = forkID(p, parent)
				}
				break
			}
			if f, ok := fork[p]; ok {
				at = f
				break
			}
			c = p
		}
		for _, x := range path {
			fork[x] = at
			for _, m := range x.Msgs {
				m.Branch = at
			}
		}
	}
}

// forkID returns the id of the message at or before the fork point n:
// a branch may leave from a harness record, which shows no message.
func forkID(n *Node, parent map[*Node]*Node) string {
	for c := n; c != nil; c = parent[c] {
		if len(c.Msgs) > 0 {
			return c.Msgs[len(c.Msgs)-1].ID
		}
	}
	return n.ID
}
