package render

import (
	"github.com/dlclark/regexp2/v2/syntax"
)

// regexp2 runs a rule's program through an interpreter that costs about
// half a microsecond before it looks at the text: most tokens of code are
// a run of spaces, a name, a newline or a keyword, and that fixed cost was
// most of what lexing them cost. A direct matcher walks the rule's tree,
// as regexp2 parses and reduces it, with the same backtracking semantics
// (leftmost branch first, greedy loops longest first and lazy ones
// shortest, atomic groups and loops never given back), for the kinds of
// node chroma's rules are made of. A pattern with any other kind (back
// references, conditionals, renumbered groups, case folding left to the
// runner, lookarounds that capture) keeps regexp2, and so does a match
// that outruns the budget (directBudget). The tests in direct_test.go
// hold the two to the same groups on patterns made to backtrack and on
// every rule of the lexers chroma has samples for.

// directMatcher is a rule's pattern, ready to be walked.
type directMatcher struct {
	root   *dnode
	groups int // capture slots: the pattern's groups, numbered 0 to groups-1
}

// dnode is a node of the tree, with what matching it needs at hand.
type dnode struct {
	t        syntax.NodeType
	kids     []*dnode
	str      []rune    // a string's characters
	set      *charTest // what a one-character node, or loop of one, takes
	min, max int
	group    int
	fixed    bool // it matches one way or not at all: no choice to go back to
	captures bool // a group is captured inside it
	behind   bool // a lookaround that looks behind
	// first is, for an alternation of many branches, the branches that may
	// start with each ASCII character, in their order; nil otherwise.
	first *[128][]int
}

// maxGroups is the most capture slots a direct matcher takes: its choice
// points save and restore them on the stack.
const maxGroups = 8

// newDirect returns the direct matcher of a pattern as chroma compiles it
// (flags and all, without its \G), or nil when its tree holds a node the
// matcher does not know.
func newDirect(pattern string) *directMatcher {
	tree, err := syntax.Parse(pattern, syntax.ParseOptions{CodeGen: true})
	// Groups numbered with gaps fill slots of other numbers.
	sparse := err == nil && tree.Capnumlist != nil && tree.Captop != len(tree.Capnumlist)
	if err != nil || sparse || tree.Captop > maxGroups || tree.Options&(syntax.RightToLeft|syntax.ECMAScript|syntax.RE2) != 0 {
		return nil
	}
	root := directNode(tree.Root, false)
	if root == nil {
		return nil
	}
	return &directMatcher{root: root, groups: tree.Captop}
}

// directNode converts n, or returns nil when the matcher cannot run it;
// behind says n is inside a lookbehind.
func directNode(n *syntax.RegexNode, behind bool) *dnode {
	behind = behind || lookBehind(n)
	if n.Options&syntax.IgnoreCase != 0 || n.Options&syntax.RightToLeft != 0 != behind {
		return nil
	}
	d := &dnode{t: n.T, str: n.Str, min: n.M, max: n.N}
	switch {
	case n.Set != nil:
		t := newCharTest(n.Set, 0)
		d.set = &t
	case oneKinds[n.T]:
		d.set = oneChar(n.Ch, false)
	case notoneKinds[n.T]:
		d.set = oneChar(n.Ch, true)
	}
	if !directKinds[n.T] {
		return nil
	}
	for _, c := range n.Children {
		k := directNode(c, behind)
		if k == nil {
			return nil
		}
		d.kids = append(d.kids, k)
		d.captures = d.captures || k.captures
	}
	switch n.T {
	case syntax.NtCapture:
		d.group, d.captures = n.M, true
	case syntax.NtPosLook, syntax.NtNegLook:
		d.behind = lookBehind(n)
		// A lookaround that captures keeps or drops its groups by rules
		// this matcher does not follow; behind, only a fixed run of
		// characters is read backwards here.
		if d.captures || d.behind && !readsBackwards(d.kids[0]) {
			return nil
		}
	case syntax.NtLoop, syntax.NtLazyloop:
		// A loop whose body can match nothing ends by rules of its own.
		if minLength(d.kids[0]) == 0 {
			return nil
		}
		charLoop(d)
	case syntax.NtAlternate:
		if !charBranches(d) {
			d.first = branchesByFirst(d.kids)
		}
	}
	d.fixed = isFixed(d)
	return d
}

var (
	oneKinds    = map[syntax.NodeType]bool{syntax.NtOne: true, syntax.NtOneloop: true, syntax.NtOnelazy: true, syntax.NtOneloopatomic: true}
	notoneKinds = map[syntax.NodeType]bool{syntax.NtNotone: true, syntax.NtNotoneloop: true, syntax.NtNotonelazy: true, syntax.NtNotoneloopatomic: true}
)

// oneCharNode: d matches one character, by its test alone.
func oneCharNode(d *dnode) bool {
	return d.t == syntax.NtOne || d.t == syntax.NtNotone || d.t == syntax.NtSet
}

// charBranches makes an alternation of one-character branches ((?:.|\n))
// a set, and says whether it did: whichever branch matches, it takes the
// one character and the rest goes on from the same place, so trying the
// others changes nothing.
func charBranches(d *dnode) bool {
	var ts []*charTest
	for _, k := range d.kids {
		if !oneCharNode(k) {
			return false
		}
		ts = append(ts, k.set)
	}
	*d = dnode{t: syntax.NtSet, set: unionOf(ts)}
	return true
}

// charLoop makes a loop of one character a loop of its set: a character
// per turn, as regexp2's own set loops go, and no choice per turn for the
// budget to count (a comment of (?:.|\n)*? as long as the file).
func charLoop(d *dnode) {
	if k := d.kids[0]; oneCharNode(k) {
		t := syntax.NtSetloop
		if d.t == syntax.NtLazyloop {
			t = syntax.NtSetlazy
		}
		*d = dnode{t: t, set: k.set, min: d.min, max: d.max}
	}
}

// directKinds are the nodes the matcher runs.
var directKinds = map[syntax.NodeType]bool{
	syntax.NtOne: true, syntax.NtNotone: true, syntax.NtSet: true, syntax.NtMulti: true,
	syntax.NtOneloop: true, syntax.NtNotoneloop: true, syntax.NtSetloop: true,
	syntax.NtOnelazy: true, syntax.NtNotonelazy: true, syntax.NtSetlazy: true,
	syntax.NtOneloopatomic: true, syntax.NtNotoneloopatomic: true, syntax.NtSetloopatomic: true,
	syntax.NtBol: true, syntax.NtEol: true, syntax.NtBoundary: true, syntax.NtNonboundary: true,
	syntax.NtBeginning: true, syntax.NtEndZ: true, syntax.NtEnd: true,
	syntax.NtNothing: true, syntax.NtEmpty: true, syntax.NtUpdateBumpalong: true,
	syntax.NtAlternate: true, syntax.NtConcatenate: true, syntax.NtLoop: true, syntax.NtLazyloop: true,
	syntax.NtCapture: true, syntax.NtGroup: true, syntax.NtPosLook: true, syntax.NtNegLook: true,
	syntax.NtAtomic: true,
}

func lookBehind(n *syntax.RegexNode) bool {
	return (n.T == syntax.NtPosLook || n.T == syntax.NtNegLook) && n.Options&syntax.RightToLeft != 0
}

// readsBackwards: a node a lookbehind checks by reading the characters
// before the position, one way: a character, a set or a string.
func readsBackwards(d *dnode) bool {
	switch d.t {
	case syntax.NtOne, syntax.NtNotone, syntax.NtSet, syntax.NtMulti:
		return true
	}
	return false
}

// isFixed: d matches in one way or not at all, so a sequence can step
// over it with no choice to come back to.
func isFixed(d *dnode) bool {
	switch d.t {
	case syntax.NtAlternate, syntax.NtLoop, syntax.NtLazyloop:
		return false
	case syntax.NtOneloop, syntax.NtNotoneloop, syntax.NtSetloop,
		syntax.NtOnelazy, syntax.NtNotonelazy, syntax.NtSetlazy:
		return d.min == d.max
	case syntax.NtCapture, syntax.NtGroup, syntax.NtConcatenate:
		for _, k := range d.kids {
			if !k.fixed {
				return false
			}
		}
	}
	return true
}

// minLength is the fewest characters d can match.
func minLength(d *dnode) int {
	switch d.t {
	case syntax.NtOne, syntax.NtNotone, syntax.NtSet:
		return 1
	case syntax.NtMulti:
		return len(d.str)
	case syntax.NtOneloop, syntax.NtNotoneloop, syntax.NtSetloop,
		syntax.NtOnelazy, syntax.NtNotonelazy, syntax.NtSetlazy,
		syntax.NtOneloopatomic, syntax.NtNotoneloopatomic, syntax.NtSetloopatomic:
		return d.min
	case syntax.NtLoop, syntax.NtLazyloop:
		return d.min * minLength(d.kids[0])
	case syntax.NtConcatenate:
		n := 0
		for _, k := range d.kids {
			n += minLength(k)
		}
		return n
	case syntax.NtAlternate:
		n := -1
		for _, k := range d.kids {
			if m := minLength(k); n < 0 || m < n {
				n = m
			}
		}
		return max(n, 0)
	case syntax.NtCapture, syntax.NtGroup, syntax.NtAtomic:
		return minLength(d.kids[0])
	}
	return 0
}

// branchesByFirst files an alternation's branches under the ASCII
// characters each may start with, keeping their order; nil for a few
// branches, which are as quick to try.
func branchesByFirst(kids []*dnode) *[128][]int {
	if len(kids) < 5 {
		return nil
	}
	var by [128][]int
	for i, k := range kids {
		first := firstOfNode(k)
		for c := range by {
			if first == nil || first[c] {
				by[c] = append(by[c], i)
			}
		}
	}
	return &by
}

// firstOfNode is the ASCII characters d's match must start with, nil when
// it may start with anything or match nothing.
func firstOfNode(d *dnode) *[128]bool {
	var first [128]bool
	switch d.t {
	case syntax.NtMulti:
		if d.str[0] < 128 {
			first[d.str[0]] = true
		}
	case syntax.NtOne, syntax.NtNotone, syntax.NtSet:
		first = d.set.ascii
	case syntax.NtOneloop, syntax.NtNotoneloop, syntax.NtSetloop,
		syntax.NtOnelazy, syntax.NtNotonelazy, syntax.NtSetlazy,
		syntax.NtOneloopatomic, syntax.NtNotoneloopatomic, syntax.NtSetloopatomic:
		if d.min == 0 {
			return nil
		}
		first = d.set.ascii
	case syntax.NtCapture, syntax.NtGroup, syntax.NtAtomic:
		return firstOfNode(d.kids[0])
	case syntax.NtConcatenate:
		for _, k := range d.kids {
			if minLength(k) > 0 {
				return firstOfNode(k)
			}
			if !zeroWidth(k) {
				return nil
			}
		}
		return nil
	default:
		return nil
	}
	return &first
}

// zeroWidth: d only tests the position, and a match past it starts with
// what follows.
func zeroWidth(d *dnode) bool {
	switch d.t {
	case syntax.NtBol, syntax.NtEol, syntax.NtBoundary, syntax.NtNonboundary,
		syntax.NtBeginning, syntax.NtEndZ, syntax.NtEnd, syntax.NtEmpty, syntax.NtUpdateBumpalong,
		syntax.NtPosLook, syntax.NtNegLook:
		return true
	}
	return false
}

// directRun is one match of a direct matcher: the text and the groups'
// bounds, start and end of each, -1 when not captured.
type directRun struct {
	text []rune
	caps [2 * maxGroups]int
	// keep says a failed choice must restore the groups: the pattern has
	// groups past group 0, which is set only once the match is whole.
	keep bool
	// budget is how many more choices the match may make; past it the
	// match gives up and says so (spent), for regexp2 to run the rule.
	budget int
	spent  bool
}

// directBudget bounds a direct match's choices, and so its depth: each
// nests a call. regexp2 gives up on a match whose backtracking outgrows
// 100,000 slots (a JSON string of 25,000 characters, one turn of a loop
// each), and the rule does not match; the direct matcher would go on, and
// find a match chroma's lexer does not. A match of more choices than this
// is left to regexp2, whose result it is, however it ends.
const directBudget = 1000

// match runs m at pos: whether it matches there, with r.caps its groups;
// when r.spent, it gave up and the answer is regexp2's to give.
func (m *directMatcher) match(r *directRun, pos int) bool {
	for i := range r.caps {
		r.caps[i] = -1
	}
	r.keep, r.budget, r.spent = m.groups > 1, directBudget, false
	// Once spent, a choice tried after the one that gave up may match,
	// where regexp2 would have gone on with the one given up on.
	return r.match(m.root, pos, accept) && !r.spent
}

func accept(int) bool { return true }

// GroupRange is group n's start and length, as regexp2's MatchView gives
// them; ok is false when it was not captured.
func (r *directRun) GroupRange(n int) (at, length int, ok bool) {
	at, end := r.caps[2*n], r.caps[2*n+1]
	return at, end - at, at >= 0
}

// match matches d at pos, then the rest of the pattern (k) from where d
// ended, trying d's choices in regexp2's order until k accepts one. A
// false return may leave groups set: whatever goes on to another choice
// restores them first.
func (r *directRun) match(d *dnode, pos int, k func(int) bool) bool {
	if d.fixed {
		end, ok := r.step(d, pos)
		return ok && k(end)
	}
	if r.budget--; r.budget < 0 {
		r.spent = true
		return false
	}
	switch d.t {
	case syntax.NtConcatenate:
		return r.seq(d.kids, pos, k)
	case syntax.NtCapture, syntax.NtGroup:
		if d.t == syntax.NtGroup {
			return r.match(d.kids[0], pos, k)
		}
		return r.match(d.kids[0], pos, func(end int) bool {
			r.caps[2*d.group], r.caps[2*d.group+1] = pos, end
			return k(end)
		})
	case syntax.NtAlternate:
		return r.alternate(d, pos, k)
	case syntax.NtLoop:
		return r.loop(d, pos, 0, k)
	case syntax.NtLazyloop:
		return r.lazy(d, pos, 0, k)
	case syntax.NtOneloop, syntax.NtNotoneloop, syntax.NtSetloop:
		n := r.run(d, pos, d.max)
		for ; n >= d.min; n-- {
			if r.choose(func() bool { return k(pos + n) }) {
				return true
			}
		}
		return false
	case syntax.NtOnelazy, syntax.NtNotonelazy, syntax.NtSetlazy:
		// A character more at each turn, not the whole run first: a
		// comment's (?:.|\n)*? would read to the end of the text at
		// every start.
		for n := r.run(d, pos, d.min); n >= d.min; n++ {
			if r.choose(func() bool { return k(pos + n) }) {
				return true
			}
			if n == d.max || pos+n == len(r.text) || !d.set.has(r.text[pos+n]) {
				break
			}
		}
		return false
	}
	panic("direct matcher: unexpected node")
}

// choose tries one choice, and restores the groups if it fails.
func (r *directRun) choose(try func() bool) bool {
	if !r.keep {
		return try()
	}
	saved := r.caps
	if try() {
		return true
	}
	r.caps = saved
	return false
}

// seq matches the nodes one after another, then k.
func (r *directRun) seq(kids []*dnode, pos int, k func(int) bool) bool {
	for len(kids) > 0 && kids[0].fixed {
		end, ok := r.step(kids[0], pos)
		if !ok {
			return false
		}
		pos, kids = end, kids[1:]
	}
	switch len(kids) {
	case 0:
		return k(pos)
	case 1:
		return r.match(kids[0], pos, k)
	}
	return r.match(kids[0], pos, func(end int) bool { return r.seq(kids[1:], end, k) })
}

// alternate tries the branches in order, those that can start here only.
func (r *directRun) alternate(d *dnode, pos int, k func(int) bool) bool {
	try := func(b *dnode) bool {
		return r.choose(func() bool { return r.match(b, pos, k) })
	}
	if d.first != nil && pos < len(r.text) && r.text[pos] < 128 {
		for _, i := range d.first[r.text[pos]] {
			if try(d.kids[i]) {
				return true
			}
		}
		return false
	}
	for _, b := range d.kids {
		if try(b) {
			return true
		}
	}
	return false
}

// loop is a greedy loop, at its count'th turn: another turn first.
func (r *directRun) loop(d *dnode, pos, count int, k func(int) bool) bool {
	if count < d.max && r.choose(func() bool {
		return r.match(d.kids[0], pos, func(end int) bool { return r.loop(d, end, count+1, k) })
	}) {
		return true
	}
	return count >= d.min && k(pos)
}

// lazy is a lazy loop, at its count'th turn: the rest first.
func (r *directRun) lazy(d *dnode, pos, count int, k func(int) bool) bool {
	if count >= d.min && r.choose(func() bool { return k(pos) }) {
		return true
	}
	return count < d.max && r.match(d.kids[0], pos, func(end int) bool { return r.lazy(d, end, count+1, k) })
}

// step matches a fixed node at pos: where it ends, and whether it matched.
func (r *directRun) step(d *dnode, pos int) (int, bool) {
	text := r.text
	switch d.t {
	case syntax.NtOne, syntax.NtNotone, syntax.NtSet:
		return pos + 1, pos < len(text) && d.set.has(text[pos])
	case syntax.NtMulti:
		return pos + len(d.str), hasPrefix(text[pos:], d.str)
	case syntax.NtOneloop, syntax.NtNotoneloop, syntax.NtSetloop,
		syntax.NtOnelazy, syntax.NtNotonelazy, syntax.NtSetlazy,
		syntax.NtOneloopatomic, syntax.NtNotoneloopatomic, syntax.NtSetloopatomic:
		n := r.run(d, pos, d.max)
		return pos + n, n >= d.min
	case syntax.NtCapture, syntax.NtGroup, syntax.NtConcatenate:
		start := pos
		for _, k := range d.kids {
			end, ok := r.step(k, pos)
			if !ok {
				return 0, false
			}
			pos = end
		}
		if d.t == syntax.NtCapture {
			r.caps[2*d.group], r.caps[2*d.group+1] = start, pos
		}
		return pos, true
	case syntax.NtAtomic:
		end := -1
		ok := r.match(d.kids[0], pos, func(e int) bool { end = e; return true })
		return end, ok
	case syntax.NtPosLook, syntax.NtNegLook:
		return pos, r.look(d, pos) == (d.t == syntax.NtPosLook)
	case syntax.NtEmpty, syntax.NtUpdateBumpalong:
		return pos, true
	case syntax.NtNothing:
		return pos, false
	}
	return pos, r.at(d.t, pos)
}

// look says whether a lookaround's body matches at pos: ahead, from pos;
// behind, ending at pos.
func (r *directRun) look(d *dnode, pos int) bool {
	if !d.behind {
		return r.match(d.kids[0], pos, accept)
	}
	b := d.kids[0]
	if b.t == syntax.NtMulti {
		n := len(b.str)
		return pos >= n && hasPrefix(r.text[pos-n:pos], b.str)
	}
	return pos > 0 && b.set.has(r.text[pos-1])
}

// at tests an anchor at pos, as regexp2's runner does.
func (r *directRun) at(t syntax.NodeType, pos int) bool {
	text := r.text
	switch t {
	case syntax.NtBol:
		return pos == 0 || text[pos-1] == '\n'
	case syntax.NtEol:
		return pos == len(text) || text[pos] == '\n'
	case syntax.NtBeginning:
		return pos == 0
	case syntax.NtEnd:
		return pos == len(text)
	case syntax.NtEndZ:
		return pos == len(text) || pos == len(text)-1 && text[pos] == '\n'
	case syntax.NtBoundary:
		return r.boundary(pos)
	case syntax.NtNonboundary:
		return !r.boundary(pos)
	}
	return false
}

func (r *directRun) boundary(pos int) bool {
	return (pos > 0 && syntax.IsWordChar(r.text[pos-1])) != (pos < len(r.text) && syntax.IsWordChar(r.text[pos]))
}

// run is how many characters from pos, at most most, a one-character
// loop takes.
func (r *directRun) run(d *dnode, pos, most int) int {
	n := 0
	for pos+n < len(r.text) && n < most && d.set.has(r.text[pos+n]) {
		n++
	}
	return n
}
