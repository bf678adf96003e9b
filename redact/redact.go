// Package redact replaces the secrets in sessions (API keys, tokens, private
// keys, passwords) with [REDACTED:<kind>] before anything is rendered,
// indexed or exported. It finds them by gitleaks' maintained rule set, by a
// rule of its own for passwords in URLs, and by the site's own patterns and
// literals; it can also shorten home directories to ~.
package redact

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// Config is what to redact besides the built-in rules.
type Config struct {
	Patterns []Pattern `config:"patterns,strict"` // regular expressions, each with the kind it reports
	Literals []string  `config:"literals"`        // exact strings, reported as kind "literal"
	Paths    bool      `config:"paths"`           // shorten /home/<user>, /Users/<user> and C:\Users\<user> to ~
}

// Pattern is a rule of the site's own. When the expression has a capture
// group, the first group that matched is the secret; else the whole match.
type Pattern struct {
	Kind  string `config:"kind"`
	Regex string `config:"regex"`
}

// Settings is the redact section of a site's config: what to redact, and
// whether to redact at all, which it does unless told not to.
type Settings struct {
	Enabled bool `config:"enabled"`
	Config  `config:",squash"`
}

// DefaultSettings redacts with the built-in rules alone.
func DefaultSettings() Settings { return Settings{Enabled: true} }

// Check checks the site's own rules: their shape always, their
// expressions when redaction is on.
func (s Settings) Check() error {
	for i, p := range s.Patterns {
		if err := p.check(i); err != nil {
			return err
		}
	}
	if !s.Enabled {
		return nil
	}
	_, err := s.Config.patterns()
	return err
}

// check checks the i'th pattern has a kind and an expression.
func (p Pattern) check(i int) error {
	if p.Kind == "" || strings.ContainsAny(p.Kind, "[]:\n") {
		return fmt.Errorf("redact.patterns[%d]: kind %q: want a short name such as internal-token", i, p.Kind)
	}
	if p.Regex == "" {
		return fmt.Errorf("redact.patterns[%d] (%s): want a regex, such as 'itk_[a-z0-9]{32}'", i, p.Kind)
	}
	return nil
}

// Redactor redacts strings and sessions. It is safe for concurrent use.
type Redactor struct {
	patterns []*rule
	literals []string
	paths    bool
}

// New returns a redactor with the built-in rules and cfg's. The built-in
// rules are compiled when it first redacts: a build that finds every
// session in its cache redacts nothing, and compiling them takes tens of
// ms.
func New(cfg Config) (*Redactor, error) {
	ps, err := cfg.patterns()
	if err != nil {
		return nil, err
	}
	r := &Redactor{patterns: ps, paths: cfg.Paths}
	for _, l := range cfg.Literals {
		if l != "" {
			r.literals = append(r.literals, l)
		}
	}
	return r, nil
}

// patterns compiles the site's own patterns.
func (cfg Config) patterns() ([]*rule, error) {
	var ps []*rule
	for i, p := range cfg.Patterns {
		if err := p.check(i); err != nil {
			return nil, err
		}
		re, err := regexp.Compile(p.Regex)
		if err != nil {
			return nil, fmt.Errorf("redact.patterns[%d] (%s): %w", i, p.Kind, err)
		}
		ps = append(ps, &rule{id: p.Kind, re: re})
	}
	return ps, nil
}

// String returns s with its secrets replaced, and adds what it replaced to
// counts, by kind.
func (r *Redactor) String(s string, counts map[string]int) string {
	return r.redact(s, 0, counts, nil)
}

// redact redacts s, which holds h, and, when learned is not nil, adds
// each secret it found to it.
func (r *Redactor) redact(s string, h holds, counts map[string]int, learned map[string]found) string {
	if s == "" {
		return s
	}
	fs := r.find(s, h)
	if learned != nil {
		learn(learned, s, fs)
	}
	if len(fs) > 0 {
		s = replace(s, fs, counts)
	}
	if r.paths {
		s = shortenHome(s)
	}
	return s
}

// find returns the secrets in s, which holds h: those of the built-in
// rules, the site's patterns and its literals.
func (r *Redactor) find(s string, h holds) []found {
	fs := rules().find(s, h, nil)
	for _, p := range r.patterns {
		fs = p.matchAll(s, fs)
	}
	for _, l := range r.literals {
		fs = literal(s, l, "literal", fs)
	}
	return fs
}

// learn adds to learned each secret of fs, found in s, that is worth
// looking for again, with the most specific find of it.
func learn(learned map[string]found, s string, fs []found) {
	for _, f := range fs {
		sec := s[f.lo:f.hi]
		if old, ok := learned[sec]; learnable(sec, f) && (!ok || f.prio < old.prio) {
			learned[sec] = f
		}
	}
}

// learnable reports whether the secret sec, found as f, is looked for
// again: a secret found by its place (DB_PASSWORD=postgres) only when it
// could not be an ordinary word.
func learnable(sec string, f found) bool {
	return len(sec) >= minLearned && (f.prio < generic || mixed(sec))
}

// minLearned is the shortest secret that is looked for again in the rest
// of its session: a shorter one could be an ordinary word.
const minLearned = 8

// literal finds every l in s.
func literal(s, l, kind string, out []found) []found {
	for i := 0; ; {
		j := strings.Index(s[i:], l)
		if j < 0 {
			return out
		}
		out = append(out, found{i + j, i + j + len(l), kind, gitleaks})
		i += j + len(l)
	}
}

// matchAll finds the secrets of a site pattern, which has no keywords,
// entropy or allowlists: the site's author knows what they want gone.
func (p *rule) matchAll(s string, out []found) []found {
	for _, m := range p.re.FindAllStringSubmatchIndex(s, -1) {
		if lo, hi := firstGroup(m, m[0], m[1]); hi > lo {
			out = append(out, found{lo, hi, p.id, gitleaks})
		}
	}
	return out
}

// replace puts [REDACTED:<kind>] in place of every secret; secrets that
// overlap are replaced once, as the kind of the most specific rule (the
// first of those, in the order they were found).
func replace(s string, fs []found, counts map[string]int) string {
	slices.SortStableFunc(fs, func(a, b found) int { return cmp.Or(a.lo-b.lo, b.hi-a.hi) })
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for i := 0; i < len(fs); {
		var f found
		f, i = merged(fs, i)
		// A secret cut before an escaped character must not leave its
		// backslash behind, or JSON around it would no longer parse.
		for f.hi > f.lo+1 && s[f.hi-1] == '\\' {
			f.hi--
		}
		b.WriteString(s[at:f.lo])
		b.WriteString("[REDACTED:" + f.kind + "]")
		at = f.hi
		counts[f.kind]++
	}
	b.WriteString(s[at:])
	return b.String()
}

// merged is the secret fs[i] with those after it that overlap it, as the
// kind of the most specific; and the index after them.
func merged(fs []found, i int) (found, int) {
	f := fs[i]
	for i++; i < len(fs) && fs[i].lo < f.hi; i++ {
		f.hi = max(f.hi, fs[i].hi)
		if fs[i].prio < f.prio {
			f.kind, f.prio = fs[i].kind, fs[i].prio
		}
	}
	return f, i
}

// homeDirs are home directories with the user's name: /home/<user>,
// /Users/<user>, C:\Users\<user> (also with escaped or forward slashes).
var homeDirs = regexp.MustCompile(`(^|[^\w./~-])(?:/home/|/Users/|(?i:[a-z]):(?:\\\\|\\|/)(?i:users)(?:\\\\|\\|/))[^/\\\s"'\x60:;,()<>\[\]{}|*?]+`)

func shortenHome(s string) string {
	if !strings.Contains(s, "/home/") && !strings.Contains(s, "/Users/") && !strings.Contains(asciiLower(s), "users") {
		return s
	}
	return homeDirs.ReplaceAllString(s, "$1~")
}

// Session redacts every string of a session that is shown or written:
// titles, directories, agents and models, message text, code and its
// language, tool names, call ids, inputs and outputs, events and their raw
// records, metadata and warnings. Session and message ids, roles and
// source paths are kept: URLs and links are made from them. The output of a tool call that read a
// file of secrets (.env, .netrc, a private key) or printed the environment
// has the values of its settings redacted too, as has a command's
// KEY=VALUE whose key names a credential. A secret found anywhere in the
// session is then also replaced wherever else it appears in it, where the
// text around it hid it from the rules (in a path, after an escape). It
// returns the counts by kind.
func (r *Redactor) Session(s *transcript.Session) map[string]int {
	counts := map[string]int{}
	learned := map[string]found{}
	fields, done := sessionFields(s, true)
	defer release(fields)
	defer done()
	for _, f := range fields {
		*f.p = r.redact(*f.p, f.holds, counts, learned)
	}
	if len(learned) > 0 {
		replaceLearned(fields, learned, counts)
	}
	return counts
}

// replaceLearned replaces the secrets learned wherever they are left in
// fields.
func replaceLearned(fields []field, learned map[string]found, counts map[string]int) {
	secrets := slices.Sorted(maps.Keys(learned))
	for _, f := range fields {
		var fs []found
		for _, sec := range secrets {
			fs = literal(*f.p, sec, learned[sec].kind, fs)
		}
		if len(fs) > 0 {
			*f.p = replace(*f.p, fs, counts)
		}
	}
}

// field is a string of a session that is redacted: where it is, what it
// holds, and, for a report, which message and which part of it it is.
type field struct {
	p     *string
	holds holds
	msg   int    // the message's number in the session, from 1; 0 for the session's own fields
	what  string // title, text, tool input, …
}

// sessionFields returns the strings of s that Session redacts, with what
// they hold when withHolds is set, and a func that stores the metadata
// values back in their map. Once done with them, release the fields.
func sessionFields(s *transcript.Session, withHolds bool) (_ []field, done func()) {
	c := &collector{fields: fieldLists.Get().(*fieldList), seen: map[*transcript.ToolResult]bool{}}
	done = c.session(s)
	if withHolds {
		c.holds(s)
	}
	for _, t := range s.Turns {
		for _, m := range t.Messages {
			c.n++
			c.fields.add(&m.Model, 0, c.n, "model")
			for _, p := range m.Parts {
				c.part(p)
			}
		}
	}
	return *c.fields, done
}

// A collector lists the fields of one session, in order.
type collector struct {
	fields *fieldList
	// What each call's input and output hold, the output by its result
	// and by its id (a result may not be paired yet).
	ins      map[*transcript.ToolCall]holds
	outs     map[*transcript.ToolResult]holds
	byID     map[string]holds
	seen     map[*transcript.ToolResult]bool
	n        int   // the message's number
	shellOut holds // what the last command the user ran in the prompt prints
}

// session adds the session's own fields; done stores the metadata
// values back in their map.
func (c *collector) session(s *transcript.Session) (done func()) {
	add := c.fields.add
	add(&s.Title, 0, 0, "title")
	add(&s.Project, 0, 0, "project")
	add(&s.CWD, 0, 0, "directory")
	add(&s.Branch, 0, 0, "branch")
	add(&s.Agent, 0, 0, "agent")
	add(&s.AgentVersion, 0, 0, "agent")
	for i := range s.Models {
		add(&s.Models[i], 0, 0, "model")
	}
	keys := slices.Sorted(maps.Keys(s.Meta))
	meta := make([]string, len(keys))
	for i, k := range keys {
		meta[i] = s.Meta[k]
		add(&meta[i], 0, 0, "metadata")
	}
	for i := range s.Warnings {
		add(&s.Warnings[i], 0, 0, "warning")
	}
	for i := range s.Skipped {
		add(&s.Skipped[i].Kind, 0, 0, "skipped")
		add(&s.Skipped[i].Reason, 0, 0, "skipped")
	}
	return func() {
		for i, k := range keys {
			s.Meta[k] = meta[i]
		}
	}
}

// holds works out what each call's input and output hold.
func (c *collector) holds(s *transcript.Session) {
	c.ins, c.outs, c.byID = map[*transcript.ToolCall]holds{}, map[*transcript.ToolResult]holds{}, map[string]holds{}
	s.Parts(func(_ *transcript.Message, p *transcript.Part) {
		call := p.Call
		if call == nil {
			return
		}
		in, out := callHolds(call.Kind, call.Input)
		c.ins[call] = in
		if call.Result != nil {
			c.outs[call.Result] = out
		}
		if call.ID != "" {
			c.byID[call.ID] |= out
		}
	})
}

// part adds the fields of one part of message c.n.
func (c *collector) part(p *transcript.Part) {
	add, n := c.fields.add, c.n
	add(&p.Text, c.textHolds(p), n, string(p.Kind))
	add(&p.Name, 0, n, "name")
	add(&p.Lang, 0, n, "language")
	if call := p.Call; call != nil {
		add(&call.ID, 0, n, "tool call id") // some readers make it of the name
		add(&call.Name, 0, n, "tool name")
		add(&call.Input, c.ins[call], n, "tool input")
		c.result(call.Result)
	}
	c.result(p.Result)
	if p.Event != nil {
		add(&p.Event.Kind, 0, n, "event")
		add(&p.Event.Raw, 0, n, "event")
	}
	if p.Image != nil {
		add(&p.Image.URL, 0, n, "image")
	}
}

// textHolds is what a text part holds: a command the user ran in the
// prompt, and what it printed.
func (c *collector) textHolds(p *transcript.Part) holds {
	var h holds
	if p.Kind != transcript.TextPart {
		return h
	}
	if cmd, ok := between(p.Text, "<bash-input>", "</bash-input>"); ok {
		h, c.shellOut = command, commandHolds(cmd)
	}
	if strings.Contains(p.Text, "<bash-stdout>") {
		h |= c.shellOut
	}
	return h
}

// result adds the fields of a call's result, once.
func (c *collector) result(res *transcript.ToolResult) {
	if res == nil || c.seen[res] {
		return
	}
	c.seen[res] = true
	add, n := c.fields.add, c.n
	add(&res.CallID, 0, n, "tool call id")
	h, ok := c.outs[res]
	if !ok {
		h = c.byID[res.CallID]
	}
	add(&res.Output, h, n, "tool output")
	for i := range res.Patch {
		c.hunk(&res.Patch[i], h)
	}
	for _, img := range res.Images {
		add(&img.URL, 0, n, "image")
	}
}

// hunk adds the fields of a hunk of a result's patch, whose lines hold
// what the output holds.
func (c *collector) hunk(hk *transcript.Hunk, h holds) {
	add, n := c.fields.add, c.n
	add(&hk.Path, 0, n, "tool output")
	add(&hk.Heading, h, n, "tool output")
	for j := range hk.Lines {
		add(&hk.Lines[j], h, n, "tool output")
	}
}

type fieldList []field

// fieldLists are lists of fields to reuse: grown anew for each session,
// they were 3.6% of what a build of the real sessions x20 allocated.
var fieldLists = sync.Pool{New: func() any { return new(fieldList) }}

// release gives fields back to be reused, holding no session's strings.
func release(fields []field) {
	clear(fields)
	fields = fields[:0]
	fieldLists.Put((*fieldList)(&fields))
}

// add adds the string at p, unless it is empty: most names, languages and
// ids are, 45% of the fields of the real sessions.
func (fs *fieldList) add(p *string, h holds, msg int, what string) {
	if *p != "" {
		*fs = append(*fs, field{p, h, msg, what})
	}
}

// Finding is a secret that was replaced in a session: where, and its
// kind; never the secret.
type Finding struct {
	// Message is the number of the message in the session, from 1, as
	// its page numbers them (anchor m-N); 0 for the session's own fields.
	Message int
	Field   string // title, directory, text, thinking, tool input, tool output, …
	Kind    string
}

// Count counts the secrets replaced in s, by kind, from the marks in its
// strings: the counts of a session merged from several files, each
// redacted on its own.
func Count(s *transcript.Session) map[string]int {
	counts := map[string]int{}
	for _, f := range Findings(s) {
		counts[f.Kind]++
	}
	return counts
}

// Findings lists the secrets replaced in s, from the [REDACTED:<kind>]
// marks in its strings, in order.
func Findings(s *transcript.Session) []Finding {
	fields, _ := sessionFields(s, false)
	defer release(fields)
	var out []Finding
	for _, f := range fields {
		for _, kind := range marks(*f.p) {
			out = append(out, Finding{f.msg, f.what, kind})
		}
	}
	return out
}

// marks lists the kinds of the [REDACTED:<kind>] marks in text, in order.
func marks(text string) []string {
	var kinds []string
	for rest := text; ; {
		i := strings.Index(rest, "[REDACTED:")
		if i < 0 {
			return kinds
		}
		rest = rest[i+len("[REDACTED:"):]
		if j := strings.IndexByte(rest, ']'); isKind(rest, j) {
			kinds = append(kinds, rest[:j])
		}
	}
}

// isKind reports whether rest[:j] is the kind of a mark: short, one word.
func isKind(rest string, j int) bool {
	return j >= 0 && j <= 64 && !strings.ContainsAny(rest[:j], " \n[")
}

// between returns the text of s between open and the close after it.
func between(s, open, close string) (string, bool) {
	i := strings.Index(s, open)
	if i < 0 {
		return "", false
	}
	s = s[i+len(open):]
	if j := strings.Index(s, close); j >= 0 {
		s = s[:j]
	}
	return s, true
}
