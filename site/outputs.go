package site

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/transcriptsite/transcriptsite/internal/memo"

	"github.com/transcriptsite/transcriptsite/ingest"
	"github.com/transcriptsite/transcriptsite/internal/parallel"
	"github.com/transcriptsite/transcriptsite/site/output"
	"github.com/transcriptsite/transcriptsite/transcript"
)

// The outputs of a site, as package output has them for its view and its
// sessions.
type (
	Output  = output.Output[*Site, *Session]
	Job     = output.Job[*Session]
	Context = output.Context[*Site]
	Base    = output.Base[*Site, *Session]

	out    = Output
	job    = Job
	outCtx = Context
	base   = Base
)

// outputs are what a build writes, in order, as Use sets them: each makes
// the output a build runs, which may hold what it writes over the rounds.
var outputs []func() Output

// Use sets the outputs a site has, in the order a build runs them. The
// command chooses them, as it chooses the agents compiled in: package
// site/outputs has the table, and sets it when it is imported.
func Use(table ...func() Output) { outputs = table }

// MarkdownExport and JSONExport are the exports of a session beside its
// page, for the outputs table.
func MarkdownExport() Output { return markdown }
func JSONExport() Output     { return jsonOutput }

// write runs the site's outputs.
func (b *builder) write(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx) // ends what an output left running
	defer cancel()
	if len(outputs) == 0 {
		return errors.New("the site has no outputs: a program that builds sites imports site/outputs (or sets its own with site.Use)")
	}
	var outs []out
	for _, make := range outputs {
		if o := make(); o.On(b.site) {
			outs = append(outs, o)
		}
	}
	for _, o := range outs {
		if err := o.Start(ctx, b); err != nil {
			return err
		}
	}
	if err := b.sessions(ctx, outs); err != nil {
		return err
	}
	// The sessions are done: what follows needs their headers only, and
	// the index's sort is the build's peak of memory.
	b.res.Drop()
	memo.Drop()
	for _, o := range outs {
		if err := o.Finish(b); err != nil {
			return err
		}
	}
	return nil
}

// sessions runs the outputs' session round on every core. Sessions read
// together are made together, their turns loaded once for all of them and
// only if the cache lacks something one of them needs.
func (b *builder) sessions(ctx context.Context, outs []out) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	failed := make([]error, len(b.site.Sessions))
	// The biggest first, then in the site's order, which the search index
	// appends in; a session's size is its tool calls and messages, which
	// is what its page costs.
	order, first, sizes := make([]int, len(b.units)), make([]int, len(b.units)), make([]int64, len(b.units))
	for u, un := range b.units {
		order[u], first[u] = u, slices.Min(un.sessions) // its first in the site's order
		for _, i := range un.sessions {
			st := b.site.Sessions[i].Stats
			sizes[u] += int64(st.Messages + st.ToolCalls)
		}
	}
	slices.SortFunc(order, func(u, v int) int { return cmp.Compare(first[u], first[v]) })
	size := func(u int) int64 { return sizes[u] }
	order = parallel.BigFirst(order, size, workers())
	// Units that start at one time with as many messages and calls are
	// likely one session twice (a copy, a backup, one synced from another
	// machine): made one after the other, the second finds the first's
	// code highlighted, where made at once one core waits on the other.
	type likeness struct {
		started int64
		size    int64
	}
	like := func(u int) likeness {
		return likeness{b.site.Sessions[first[u]].Started.UnixNano(), size(u)}
	}
	parallel.RunApart(ctx, workers(), order, like, func(u int) {
		un := b.units[u]
		load := b.loader(ctx, un)
		for _, i := range un.sessions {
			s := b.site.Sessions[i]
			failed[i] = b.session(outs, &job{Index: i, Session: s, Digest: b.digs[i], Body: func() (*transcript.Session, error) { return load(s) }})
		}
		if un.left != nil && un.left.Add(-1) == 0 {
			b.res.Release(un.group)
		}
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.failed(failed)
}

// session runs the outputs' session round for one session, up to the first
// that fails.
func (b *builder) session(outs []out, j *job) error {
	for _, o := range outs {
		if err := o.Session(b, j); err != nil {
			return err
		}
	}
	return nil
}

// failed gives each session whose files could not be made a page that
// says why, and a warning. One session that the theme cannot render must
// not sink the others; when none renders, the theme is broken and the
// build fails.
func (b *builder) failed(errs []error) error {
	n := 0
	for i, err := range errs {
		if err == nil {
			continue
		}
		n++
		s := b.site.Sessions[i]
		// A warning, which --strict counts: the site lacks what it should hold.
		b.warnings = append(b.warnings, ingest.Warning{File: s.Source,
			Msg: fmt.Sprintf("the page of session %s could not be made, and says so in its place: %v", s.ID, err)})
		if err := b.fallback(s, err); err != nil {
			return err
		}
	}
	if n > 0 && n == len(errs) {
		return slices.DeleteFunc(slices.Clone(errs), func(e error) bool { return e == nil })[0]
	}
	return nil
}

// workers is how many sessions are made at once: one more than the cores,
// so that a core whose worker waits on the disk (creating a file is slow
// on some) has another to run.
func workers() int { return runtime.GOMAXPROCS(0) + 1 }
