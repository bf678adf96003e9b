package search

// Size is about the bytes p holds in memory.
func (p *Prepared) Size() int {
	n := len(p.terms) + len(p.docs) + len(p.pos) + 4*(len(p.ends)+len(p.docEnds)+len(p.posEnds)+len(p.last))
	for _, f := range p.frags {
		n += len(f.text) + len(f.path) + 48
	}
	return n
}
