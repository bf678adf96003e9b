package ingest

import (
	"cmp"
	"time"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// Node is a record with an id in a session's conversation tree, linked to
// its parent's: Claude Code's uuid and parentUuid, Pi's id and parentId.
// Harness records take part too, so that their children are not taken for
// roots.
type Node struct {
	ID     string
	Parent string
	Time   time.Time
	Live   bool                  // it holds a prompt or a reply
	Msgs   []*transcript.Message // the messages read from it
}

// Tree is a session's conversation as its records link it: where the user
// rewound or edited a prompt, it branches (MarkBranches).
type Tree struct {
	nodes map[string]*Node
	order []*Node
}

// Has reports whether the tree has a node of the id.
func (d *Tree) Has(id string) bool { return d.nodes[id] != nil }

// Add adds the record id, whose parent is parent, written at t.
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
	parent := d.parents()
	below := map[*Node]bool{} // a prompt or a reply is at or under it
	for _, n := range d.order {
		for c := n; n.Live && c != nil && !below[c]; c = parent[c] {
			below[c] = true
		}
	}
	active := activeLines(d.order, parent, below)
	fork := map[*Node]string{}
	for _, n := range d.order {
		if _, ok := fork[n]; !ok && !active[n] {
			markFork(n, parent, active, below, fork)
		}
	}
}

// parents links each node to its parent. A malformed file may link in a
// cycle: it is cut where it closes.
func (d *Tree) parents() map[*Node]*Node {
	parent := map[*Node]*Node{}
	for _, n := range d.order {
		if p := d.nodes[n.Parent]; p != nil && p != n {
			parent[n] = p
		}
	}
	done, seen := map[*Node]bool{}, map[*Node]bool{}
	for _, n := range d.order {
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
	return parent
}

// activeLines returns the nodes on the conversation's line: each tree (a
// session resumed without a link starts a new one) keeps the line to its
// latest leaf that holds a prompt or a reply.
func activeLines(nodes []*Node, parent map[*Node]*Node, below map[*Node]bool) map[*Node]bool {
	liveChild := map[*Node]bool{}
	for n, p := range parent {
		liveChild[p] = liveChild[p] || below[n]
	}
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
	return active
}

// markFork walks up from n, off the active line, to the line: the child
// met there decides where the branch left from, which every node on the
// way, and its messages, gets.
func markFork(n *Node, parent map[*Node]*Node, active, below map[*Node]bool, fork map[*Node]string) {
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
