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
	mark                         // MarkBranches' state
}

// mark is what MarkBranches knows of a node while it works: fields of the
// node rather than maps keyed by it, which cost more than the rest of the
// walk.
type mark struct {
	parent    *Node // nil at a root, and where a cycle closes
	walk      int   // the last walk up from a node that met it
	done      bool  // a walk up from it has been made
	below     bool  // a prompt or a reply is at or under it
	liveChild bool  // one of its children is below
	root      *Node // the root of its tree
	latest    *Node // at a root: the latest leaf with a prompt or a reply
	active    bool  // it is on the conversation's line
	forked    bool  // fork is set
	fork      string
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
	d.parents()
	for _, n := range d.order {
		for c := n; n.Live && c != nil && !c.below; c = c.parent {
			c.below = true
		}
	}
	activeLines(d.order)
	for _, n := range d.order {
		if !n.forked && !n.active {
			markFork(n)
		}
	}
}

// parents links each node to its parent. A malformed file may link in a
// cycle: it is cut where it closes.
func (d *Tree) parents() {
	for _, n := range d.order {
		n.mark = mark{}
		if p := d.nodes[n.Parent]; p != nil && p != n {
			n.parent = p
		}
	}
	var seen []*Node
	for i, n := range d.order {
		seen = seen[:0]
		for c := n; c != nil && !c.done; c = c.parent {
			if c.walk == i+1 {
				c.parent = nil
				break
			}
			c.walk = i + 1
			seen = append(seen, c)
		}
		for _, c := range seen {
			c.done = true
		}
	}
}

// activeLines marks the nodes on the conversation's line: each tree (a
// session resumed without a link starts a new one) keeps the line to its
// latest leaf that holds a prompt or a reply.
func activeLines(nodes []*Node) {
	markLiveChildren(nodes)
	for _, r := range latestLeaves(nodes) {
		for c := r.latest; c != nil && !c.active; c = c.parent {
			c.active = true
		}
	}
}

// markLiveChildren marks the nodes with a child that has a live node
// below it.
func markLiveChildren(nodes []*Node) {
	for _, n := range nodes {
		if n.parent != nil && n.below {
			n.parent.liveChild = true
		}
	}
}

// latestLeaves offers each live leaf to the root of its tree, and returns
// the roots whose latest leaf changed, each once it is first offered one.
func latestLeaves(nodes []*Node) []*Node {
	var roots []*Node
	for _, n := range nodes {
		r := rootOf(n)
		if n.Live && !n.liveChild && r.offer(n) {
			roots = append(roots, r)
		}
	}
	return roots
}

// rootOf is the root of n's tree, which n and the nodes on its way up
// remember, so that the next walk up stops where this one went.
func rootOf(n *Node) *Node {
	c := n
	for c.parent != nil && c.root == nil {
		c = c.parent
	}
	r := cmp.Or(c.root, c)
	for x := n; x != c; x = x.parent {
		x.root = r
	}
	c.root = r
	return r
}

// offer makes the leaf n the latest of the root r's tree unless the
// latest is later; true when it is the tree's first.
func (r *Node) offer(n *Node) bool {
	if r.latest == nil {
		r.latest = n
		return true
	}
	if !n.Time.Before(r.latest.Time) {
		r.latest = n
	}
	return false
}

// markFork walks up from n, off the active line, to the line: the child
// met there decides where the branch left from, which every node on the
// way, and its messages, gets.
func markFork(n *Node) {
	var path []*Node
	at, c := "", n
	for {
		path = append(path, c)
		p := c.parent
		if p == nil {
			break
		}
		if p.active {
			if c.below {
				at = forkID(p)
			}
			break
		}
		if p.forked {
			at = p.fork
			break
		}
		c = p
	}
	for _, x := range path {
		x.fork, x.forked = at, true
		for _, m := range x.Msgs {
			m.Branch = at
		}
	}
}

// forkID returns the id of the message at or before the fork point n:
// a branch may leave from a harness record, which shows no message.
func forkID(n *Node) string {
	for c := n; c != nil; c = c.parent {
		if len(c.Msgs) > 0 {
			return c.Msgs[len(c.Msgs)-1].ID
		}
	}
	return n.ID
}
