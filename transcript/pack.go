package transcript

import (
	"slices"
	"strings"
)

// Pack moves the header's strings into one string, in slices and maps of
// the header's own (the session's are left as they were). A build holds
// the header of every session to its end, and the collector marks each
// object it holds at every cycle: decoded from the cache, each string was
// one, about twenty-five a session, the largest share of what 10,000
// sessions kept.
func (h *Header) Pack() {
	s, sum := h.Session, &h.Summary
	s.Sources, s.Models, s.ChildIDs, s.Warnings = slices.Clone(s.Sources), slices.Clone(s.Models), slices.Clone(s.ChildIDs), slices.Clone(s.Warnings)
	s.Skipped, sum.Models, sum.Subagents = slices.Clone(s.Skipped), slices.Clone(sum.Models), slices.Clone(sum.Subagents)
	meta, redacted, usage := entriesOf(s.Meta), entriesOf(s.Redacted), entriesOf(sum.Usage)
	byKind, failed := entriesOf(sum.Stats.ByKind), entriesOf(sum.Stats.Failed)

	ps := []*string{&s.ID, &s.Format, &s.Agent, &s.AgentVersion, &s.Source, &s.Title, &s.Project, &s.CWD, &s.Branch, &s.ParentID, &sum.FirstPrompt}
	for _, l := range [][]string{s.Sources, s.Models, s.ChildIDs, s.Warnings, sum.Models} {
		ps = appendEach(ps, l, func(p *string) []*string { return []*string{p} })
	}
	ps = appendEach(ps, s.Skipped, func(k *Skip) []*string { return []*string{&k.Kind, &k.Reason} })
	ps = appendEach(ps, sum.Subagents, func(l *Link) []*string { return []*string{&l.CallID, &l.Session} })
	ps = appendEach(ps, meta, func(e *entry[string, string]) []*string { return []*string{&e.k, &e.v} })
	ps = appendEach(ps, redacted, func(e *entry[string, int]) []*string { return []*string{&e.k} })
	ps = appendEach(ps, usage, func(e *entry[string, Usage]) []*string { return []*string{&e.k} })
	for _, es := range [][]entry[ToolKind, int]{byKind, failed} {
		ps = appendEach(ps, es, func(e *entry[ToolKind, int]) []*string { return []*string{(*string)(&e.k)} })
	}
	packStrings(ps)
	s.Meta, s.Redacted, sum.Usage = mapOf(s.Meta, meta), mapOf(s.Redacted, redacted), mapOf(sum.Usage, usage)
	sum.Stats.ByKind, sum.Stats.Failed = mapOf(sum.Stats.ByKind, byKind), mapOf(sum.Stats.Failed, failed)
}

// appendEach appends to ps the strings of each element of es, in order,
// as strs points to them.
func appendEach[E any](ps []*string, es []E, strs func(*E) []*string) []*string {
	for i := range es {
		ps = append(ps, strs(&es[i])...)
	}
	return ps
}

// packStrings moves the strings ps point to into one string.
func packStrings(ps []*string) {
	n := 0
	for _, p := range ps {
		n += len(*p)
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range ps {
		b.WriteString(*p)
	}
	all := b.String()
	for _, p := range ps {
		*p, all = all[:len(*p)], all[len(*p):]
	}
}

type entry[K comparable, V any] struct {
	k K
	v V
}

// entriesOf is m's entries.
func entriesOf[K comparable, V any](m map[K]V) []entry[K, V] {
	es := make([]entry[K, V], 0, len(m))
	for k, v := range m {
		es = append(es, entry[K, V]{k, v})
	}
	return es
}

// mapOf is a map of es, or nil where was is.
func mapOf[K comparable, V any](was map[K]V, es []entry[K, V]) map[K]V {
	if was == nil {
		return nil
	}
	m := make(map[K]V, len(es))
	for _, e := range es {
		m[e.k] = e.v
	}
	return m
}
