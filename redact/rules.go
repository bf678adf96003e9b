package redact

import (
	"fmt"
	"hash/maphash"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/coregx/ahocorasick"
	"github.com/zricethezav/gitleaks/v8/config"

	siteconfig "github.com/transcriptsite/transcriptsite/config"
	"github.com/transcriptsite/transcriptsite/internal/memo"
)

// The built-in rules are gitleaks' default rule set
// (github.com/zricethezav/gitleaks/v8/config, MIT licence, Copyright (c)
// 2019 Zachary Rice), read from the module so that upgrading it upgrades
// them, and run as gitleaks runs them on a fragment: keywords first, then the
// rule's regex, the secret picked from its groups, its entropy, then the
// global and the rule's allowlists. What differs is for speed and for
// transcripts: a rule runs on the lines around its keywords rather than on
// the whole string; escape sequences (a tool's input is JSON) are read as
// what they stand for; a secret group shorter than 8 bytes means the whole
// match (it only structures the pattern); and rules that need a file path,
// and the helpers of composite rules, are left out.

// rule is one detector.
type rule struct {
	id string
	re *regexp.Regexp
	// group is the group that holds the secret; 0: the first non-empty one
	// of 8 bytes or more, else the whole match.
	group    int
	entropy  float64 // the secret's Shannon entropy must exceed it
	keywords []string
	allow    []*config.Allowlist
	// span is how many lines either side of a keyword's line a match can
	// reach: 0 for a match within one line, -1 for any (a PEM block).
	span int
	// fast is re without its leading run of up to 50 name characters, when
	// it has one (gitleaks' rules for key = value): Go's regexp runs it
	// several times faster, and re then only has to confirm each match.
	fast *regexp.Regexp
	// at is set when every match (of fast, when there is fast) starts
	// with one of the keywords: it is that regex anchored, tried only where
	// the keywords are rather than scanned along their lines. wordStart
	// says the match opens with \b, which at cannot see: the byte before
	// the keyword must not be a word character.
	at        *regexp.Regexp
	wordStart bool
	// needs are literals every match of fast, or of re, holds; win, of a
	// rule tried where its keywords are, bytes one of which a match holds
	// near its start (needs.go).
	needs []needed
	win   window
	// skip, when set, keeps a secret the regex and entropy let through:
	// a placeholder, an identifier.
	skip func(secret string) bool
	prio int8
	src  string    // a gitleaks rule's expression, which ready compiles into re
	once sync.Once // makes the expressions, once
}

// ready makes r's expressions, if they are not made yet, and returns r.
// The rules are part of the program: one that does not compile is a bug,
// which TestRulesCompile shows, not an error of the build.
func (r *rule) ready() *rule {
	r.once.Do(func() {
		if err := r.compile(r.src); err != nil {
			panic(err)
		}
	})
	return r
}

// namePrefix opens the regexes gitleaks makes for key = value assignments.
const namePrefix = `(?i)[\w.-]{0,50}?`

// ruleSet is the built-in rules, ready to run.
type ruleSet struct {
	rules  []*rule
	global []*config.Allowlist
	trie   *ahocorasick.Automaton // the keywords, lower case
	byKw   [][]int                // the trie's keyword number → rules
	always []int                  // rules without keywords run on every string
	// founds is what the rules found in the texts they searched before:
	// sessions repeat their long texts (the instructions injected into
	// each, a file read again, a conversation copied whole into the
	// session that resumes it), and the rules cost more than a hash.
	// Most texts hold nothing: those are kept apart, in maps with no
	// pointers, which the collector need not scan (the memo of them all
	// was 20 MB of it at 10,000 sessions).
	founds *memo.Memo[foundKey, []found]
	clean  *memo.Memo[foundKey, struct{}]
}

// Priorities of rules: when secrets found by several overlap, the kind
// reported is that of the most specific.
const (
	specific      = iota // a key format of our own
	gitleaks             // one of gitleaks' rules
	generic              // found by its name or its place: a header, a flag, a setting
	gitleaksLoose        // generic-api-key and gitleaks' curl rules
)

// secretEnd is how most gitleaks rules end a secret: a quote, a space, a
// semicolon, an escaped line break or the end. In a transcript a secret
// also ends in Markdown's marks (**key**, ~~key~~, (key), <key>, a table's
// |), where the rules would miss it; secretEndInText lets them. Not in a
// comma or a full stop: s.readUint8LengthPrefixed, would be a Vault token.
const (
	secretEnd       = `(?:[\x60'"\s;]|\\[nr]|$`
	secretEndInText = `(?:[\x60'"\s;~*)\]}>|]|\\[nr]|$`
)

// rules returns the built-in rules. They are part of the program, so a
// failure to compile them is a bug, which the tests show; not an error of
// the build.
func rules() *ruleSet {
	rs, err := builtin()
	if err != nil {
		panic(err)
	}
	return rs
}

// Warm compiles the built-in rules in the background, unless they are
// compiled or being compiled: a build calls it as it starts parsing, so
// that another core makes them while the first files are read.
func Warm() { go rules() }

// builtin loads the built-in rules once: compiling them takes tens of ms.
var builtin = sync.OnceValues(compileBuiltin)

func compileBuiltin() (*ruleSet, error) {
	var vc config.ViperConfig
	if err := siteconfig.DecodeTOML(config.DefaultConfig, &vc); err != nil {
		return nil, fmt.Errorf("gitleaks rules: %w", err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		return nil, fmt.Errorf("gitleaks rules: %w", err)
	}
	rs := &ruleSet{global: cfg.Allowlists, founds: memo.New[foundKey](4<<20, func(fs []found) int { return 64 + 32*len(fs) }),
		clean: memo.New[foundKey](16<<20, func(struct{}) int { return 64 })}
	// Ours first: of two finds of one secret with the same priority, the
	// first rule's kind is reported.
	for _, k := range keyFormats {
		rs.rules = append(rs.rules, k.rule())
	}
	rs.rules = append(rs.rules, credentials()...)
	rs.rules = append(rs.rules, gitleaksRules(cfg)...)
	kws := rs.index()
	// A rule's expressions are made the first time a text holds one of its
	// keywords (ready): most rules' keywords are in no session, and making
	// them all cost a cold build tens of ms before its first session could
	// be read. Those run on every text are made now, beside the trie.
	var wg sync.WaitGroup
	var trieErr error
	wg.Go(func() { rs.trie, trieErr = ahocorasick.NewBuilder().AddStrings(kws).Build() })
	for _, i := range rs.always {
		rs.rules[i].ready()
	}
	wg.Wait()
	if trieErr != nil {
		return nil, fmt.Errorf("keywords: %w", trieErr)
	}
	return rs, nil
}

// gitleaksRules are the rules of cfg that run on a fragment of text, in
// its order.
func gitleaksRules(cfg config.Config) []*rule {
	var rules []*rule
	for _, id := range cfg.OrderedRules {
		r := cfg.Rules[id]
		if !forText(id, r) {
			continue
		}
		rules = append(rules, &rule{
			id: id, group: r.SecretGroup, entropy: r.Entropy,
			keywords: r.Keywords, allow: r.Allowlists, prio: gitleaksPrio(id),
			src: strings.ReplaceAll(r.Regex.String(), secretEnd, secretEndInText),
		})
	}
	return rules
}

// forText reports whether the gitleaks rule r runs on text: not a rule
// about file names, a composite rule's helper, nor one ours supersede.
func forText(id string, r config.Rule) bool {
	return r.Regex != nil && r.Path == nil && !r.SkipReport && !superseded[id]
}

// gitleaksPrio is the priority of the gitleaks rule id: its loose rules
// yield to every other.
func gitleaksPrio(id string) int8 {
	if id == "generic-api-key" || strings.HasPrefix(id, "curl-") {
		return gitleaksLoose
	}
	return gitleaks
}

// index files the rules by their keywords (byKw, always) and returns the
// keywords, in the order of their numbers.
func (rs *ruleSet) index() []string {
	kwNum := map[string]int{}
	var kws []string
	for i, r := range rs.rules {
		if len(r.keywords) == 0 {
			rs.always = append(rs.always, i)
		}
		for _, k := range r.keywords {
			n, ok := kwNum[k]
			if !ok {
				n = len(kws)
				kwNum[k] = n
				kws = append(kws, k)
				rs.byKw = append(rs.byKw, nil)
			}
			rs.byKw[n] = append(rs.byKw[n], i)
		}
	}
	return kws
}

// compile makes r's expressions: re from src, for a gitleaks rule (gitleaks'
// regexp package is the standard library's unless it is built with the
// gore2regex tag; compiling the source again keeps this package
// independent of that choice), and what find runs in its stead.
func (r *rule) compile(src string) error {
	if src != "" {
		re, err := regexp.Compile(src)
		if err != nil {
			return fmt.Errorf("gitleaks rule %s: %w", r.id, err)
		}
		r.re = re
	}
	r.span = span(r.re)
	expr := r.re.String()
	if rest, ok := strings.CutPrefix(expr, namePrefix); ok {
		expr = "(?i)" + rest
		r.fast = regexp.MustCompile(expr)
	}
	if ok, word := keywordLed(expr, r.keywords); ok {
		r.at, r.wordStart = regexp.MustCompile("^(?:"+expr+")"), word
		r.win = windowOf(expr)
	}
	r.needs = needsOf(expr)
	return nil
}

// span says how far from its keyword's line a match of re can reach: 0
// when no match holds a newline, 1 when a bounded number of them, -1 when
// any number.
func span(re *regexp.Regexp) int {
	p, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return -1
	}
	switch n := newlines(p.Simplify()); {
	case n == 0:
		return 0
	case n < unbounded:
		return 1
	}
	return -1
}

const unbounded = 1 << 20

// newlines is the most newlines a match of re can hold.
func newlines(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return strings.Count(string(re.Rune), "\n")
	case syntax.OpCharClass:
		return classNewlines(re.Rune)
	case syntax.OpAnyChar:
		return 1
	case syntax.OpCapture, syntax.OpQuest:
		return newlines(re.Sub[0])
	case syntax.OpConcat:
		return concatNewlines(re.Sub)
	case syntax.OpAlternate:
		return altNewlines(re.Sub)
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		return repeatNewlines(re)
	}
	return 0
}

// classNewlines is 1 when the character class of the ranges rs holds a
// newline.
func classNewlines(rs []rune) int {
	for i := 0; i+1 < len(rs); i += 2 {
		if rs[i] <= '\n' && '\n' <= rs[i+1] {
			return 1
		}
	}
	return 0
}

// concatNewlines is the most newlines the sequence subs can match.
func concatNewlines(subs []*syntax.Regexp) int {
	t := 0
	for _, s := range subs {
		t = min(unbounded, t+newlines(s))
	}
	return t
}

// altNewlines is the most newlines one of subs can match.
func altNewlines(subs []*syntax.Regexp) int {
	t := 0
	for _, s := range subs {
		t = max(t, newlines(s))
	}
	return t
}

// repeatNewlines is the most newlines a repetition can match: unbounded
// unless it repeats something without any or a bounded number of times.
func repeatNewlines(re *syntax.Regexp) int {
	n := newlines(re.Sub[0])
	if n == 0 {
		return 0
	}
	if re.Op != syntax.OpRepeat || re.Max < 0 {
		return unbounded
	}
	return min(unbounded, n*re.Max)
}

// found is a secret found in a string s: s[lo:hi].
type found struct {
	lo, hi int
	kind   string
	prio   int8
}

// foundKey is a text the rules searched: its hash, with a seed of this
// process so that no input can be made to collide on purpose, its length,
// and what it holds.
type foundKey struct {
	hash uint64
	n    int
	h    holds
}

var foundSeed = maphash.MakeSeed()

// memoFrom is the shortest text whose findings are kept: below it, the
// lookup costs about what the search does.
const memoFrom = 128

// find returns the secrets the built-in rules find in s, which holds h,
// appended to out.
func (rs *ruleSet) find(s string, h holds, out []found) []found {
	if len(s) < memoFrom {
		return rs.search(s, h, out)
	}
	k := foundKey{maphash.String(foundSeed, s), len(s), h}
	if _, ok := rs.clean.Get(k); ok {
		return out
	}
	fs, ok := rs.founds.Get(k)
	if !ok {
		fs = slices.Clip(rs.search(s, h, nil))
		if len(fs) == 0 {
			rs.clean.Put(k, struct{}{})
		} else {
			rs.founds.Put(k, fs)
		}
	}
	return append(out, fs...)
}

// search runs the built-in rules on s, which holds h.
func (rs *ruleSet) search(s string, h holds, out []found) []found {
	d := decode(s)
	n := len(out)
	out = rs.findDecoded(d.text, out)
	if h != 0 {
		out = settingsIn(d.text, h, out)
	}
	if d.at != nil {
		for i := n; i < len(out); i++ {
			out[i].lo, out[i].hi = d.orig(out[i].lo), d.orig(out[i].hi)
		}
	}
	return out
}

func (rs *ruleSet) findDecoded(s string, out []found) []found {
	hits := rs.keywordsIn(s)
	for _, i := range rs.always {
		out = rs.run(rs.rules[i], s, 0, len(s), out)
	}
	// In rule order, so that the output does not depend on the order the
	// keywords are in; most texts hold none, and no rule is looked at.
	slices.SortStableFunc(hits, func(a, b hit) int { return a.rule - b.rule })
	var ps []int
	for k, h := range hits {
		ps = append(ps, h.at)
		if k == len(hits)-1 || hits[k+1].rule != h.rule {
			out = rs.runNear(rs.rules[h.rule].ready(), s, ps, out)
			ps = nil
		}
	}
	return out
}

// hit is where a keyword of a rule is.
type hit struct{ rule, at int }

// keywordsIn returns where in s the rules' keywords are.
func (rs *ruleSet) keywordsIn(s string) []hit {
	buf := lowerBufs.Get().(*[]byte)
	*buf = lowerInto((*buf)[:0], s)
	var hits []hit
	// Every keyword where it is, overlapping others: "api_key" holds
	// "api" and "key". The automaton is a DFA, a table lookup a byte,
	// where a trie's walk follows failure links: a third of the time.
	for _, m := range rs.trie.FindAllOverlapping(*buf) {
		for _, i := range rs.byKw[m.PatternID] {
			hits = append(hits, hit{i, m.Start})
		}
	}
	lowerBufs.Put(buf)
	return hits
}

// runNear runs r where its keywords, at ps, are: at each, when its
// matches start with them; else on the lines a match around them can
// reach, or from the first one's line on when a match can reach any.
func (rs *ruleSet) runNear(r *rule, s string, ps []int, out []found) []found {
	switch {
	case r.at != nil:
		return rs.runAt(r, s, ps, out)
	case r.span < 0:
		return rs.run(r, s, lineStart(s, slices.Min(ps), 0), len(s), out)
	}
	slices.Sort(ps)
	lo, hi := -1, -1
	for _, p := range ps {
		a, b := lineStart(s, p, r.span), lineEnd(s, p, r.span)
		if a <= hi {
			hi = max(hi, b)
			continue
		}
		if lo >= 0 {
			out = rs.run(r, s, lo, hi, out)
		}
		lo, hi = a, b
	}
	return rs.run(r, s, lo, hi, out)
}

// run runs r on s[lo:hi] and appends what it finds.
func (rs *ruleSet) run(r *rule, s string, lo, hi int, out []found) []found {
	if !holdsAll(s[lo:hi], r.needs) {
		return out
	}
	if r.fast == nil {
		for _, m := range r.re.FindAllStringIndex(s[lo:hi], -1) {
			out = rs.check(r, s, lo+m[0], lo+m[1], out)
		}
		return out
	}
	// Each match of fast ends a match of re that starts at most 50 bytes
	// before it.
	next := lo
	for _, m := range r.fast.FindAllStringIndex(s[lo:hi], -1) {
		if lo+m[0] < next {
			continue
		}
		out, next = rs.confirm(r, s, max(next, lo+m[0]-50), hi, next, out)
	}
	return out
}

// runAt tries r at each of its keywords' positions ps.
func (rs *ruleSet) runAt(r *rule, s string, ps []int, out []found) []found {
	slices.Sort(ps)
	next := 0
	for _, p := range ps {
		if p < next || r.midWord(s, p) {
			continue
		}
		end := r.reach(s, p)
		if !holdsAll(s[p:end], r.needs) || !r.win.holds(s[p:end]) {
			continue
		}
		m := r.at.FindStringIndex(s[p:end])
		if m == nil {
			continue
		}
		if r.fast == nil {
			out = rs.check(r, s, p, p+m[1], out)
			next = p + m[1]
			continue
		}
		out, next = rs.confirm(r, s, max(next, lineStart(s, p, 0), p-50), end, next, out)
	}
	return out
}

// midWord reports whether the keyword at s[p] is inside a word where r's
// matches open with \b.
func (r *rule) midWord(s string, p int) bool {
	return r.wordStart && p > 0 && isWordByte(s[p-1])
}

// reach returns how far a match of r from s[p] can reach.
func (r *rule) reach(s string, p int) int {
	if r.span < 0 {
		return len(s)
	}
	return lineEnd(s, p, r.span)
}

// confirm runs re on s[from:to], where fast matched at most 50 bytes after
// from: re adds the name before what fast matched. It returns where the
// next match may start.
func (rs *ruleSet) confirm(r *rule, s string, from, to, next int, out []found) ([]found, int) {
	if full := r.re.FindStringIndex(s[from:to]); full != nil {
		out = rs.check(r, s, from+full[0], from+full[1], out)
		next = from + full[1]
	}
	return out, next
}

func isWordByte(c byte) bool { return wordBytes[c] }

// wordBytes are the bytes \w matches.
var wordBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	return t
}()

// keywordLed says whether every match of the regex expr starts with one of
// keywords (lower case), after a \b when word is true: it does when each
// string a match can open with has a keyword as its prefix.
func keywordLed(expr string, keywords []string) (ok, word bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return false, false
	}
	re, word = afterWordBoundary(re.Simplify())
	heads, ok := openings(re)
	if !allLed(heads, keywords, word) {
		return false, false
	}
	return ok && len(heads) > 0, word
}

// afterWordBoundary returns re without the \b it opens with, and whether
// it had one.
func afterWordBoundary(re *syntax.Regexp) (*syntax.Regexp, bool) {
	if re.Op == syntax.OpConcat && len(re.Sub) > 1 && re.Sub[0].Op == syntax.OpWordBoundary {
		return &syntax.Regexp{Op: syntax.OpConcat, Sub: re.Sub[1:]}, true
	}
	return re, false
}

// allLed reports whether each of heads has a keyword as its prefix, and
// starts with a word character when word says the match opens with \b.
func allLed(heads, keywords []string, word bool) bool {
	for _, h := range heads {
		if h == "" || word && !isWordByte(h[0]) || !slices.ContainsFunc(keywords, prefixOf(h)) {
			return false
		}
	}
	return true
}

// prefixOf returns a test whether a keyword is a prefix of h.
func prefixOf(h string) func(string) bool {
	return func(k string) bool { return k != "" && strings.HasPrefix(h, k) }
}

// most bounds the strings openings and strs list.
const most = 256

// openings lists, in lower case, strings one of which opens every match
// of re: as long as re's elements allow.
func openings(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus, syntax.OpRepeat:
		if sub, ok := inner(re); ok {
			return openings(sub)
		}
	case syntax.OpAlternate:
		return union(re.Sub, openings)
	case syntax.OpConcat:
		return concatOpenings(re.Sub)
	}
	return strs(re)
}

// concatOpenings lists, in lower case, strings one of which opens every
// match of the sequence subs: the strings of its leading elements that
// match few, as many of them as keep the list short.
func concatOpenings(subs []*syntax.Regexp) ([]string, bool) {
	out := []string{""}
	for i, sub := range subs {
		ss, ok := strs(sub)
		if !ok && i == 0 {
			return openings(sub)
		}
		if !ok || len(out)*len(ss) > most {
			break
		}
		out = product(out, ss)
	}
	return out, true
}

// strs lists, in lower case, the strings re matches, when there are few.
func strs(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpLiteral:
		return []string{asciiLower(string(re.Rune))}, true
	case syntax.OpCharClass:
		return classStrs(re.Rune)
	case syntax.OpCapture:
		return strs(re.Sub[0])
	case syntax.OpQuest:
		out, ok := strs(re.Sub[0])
		return append(out, ""), ok
	case syntax.OpAlternate:
		out, ok := union(re.Sub, strs)
		return out, ok && len(out) <= most
	case syntax.OpConcat:
		return concatStrs(re.Sub)
	}
	return nil, false
}

// classStrs lists, in lower case, the characters of the class of the
// ranges rs, when there are few.
func classStrs(rs []rune) ([]string, bool) {
	var out []string
	for i := 0; i+1 < len(rs); i += 2 {
		if rs[i+1]-rs[i] > most {
			return nil, false
		}
		for c := rs[i]; c <= rs[i+1]; c++ {
			out = append(out, asciiLower(string(c)))
		}
	}
	return out, len(out) <= most
}

// concatStrs lists, in lower case, the strings the sequence subs
// matches, when there are few.
func concatStrs(subs []*syntax.Regexp) ([]string, bool) {
	out := []string{""}
	for _, sub := range subs {
		ss, ok := strs(sub)
		if !ok || len(out)*len(ss) > most {
			return nil, false
		}
		out = product(out, ss)
	}
	return out, true
}

// union is what list says of each of subs, together.
func union(subs []*syntax.Regexp, list func(*syntax.Regexp) ([]string, bool)) ([]string, bool) {
	var out []string
	for _, sub := range subs {
		ss, ok := list(sub)
		if !ok {
			return nil, false
		}
		out = append(out, ss...)
	}
	return out, true
}

// product is every string of a followed by every string of b.
func product(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

// check picks the secret out of the match s[a:b] and appends it unless its
// entropy is too low or an allowlist lets it through.
func (rs *ruleSet) check(r *rule, s string, a, b int, out []found) []found {
	match := strings.TrimRight(s[a:b], "\n")
	sa, sb := r.secretIn(match)
	if sa < 0 || sb <= sa {
		return out
	}
	secret := match[sa:sb]
	if r.dismisses(secret) || rs.allows(r, s, a, match, sa, secret) {
		return out
	}
	return append(out, found{a + sa, a + sb, r.id, r.prio})
}

// secretIn returns where the secret is in match: the rule's group, or
// the whole match when the group is too short to be one (a group that
// only structures the pattern).
func (r *rule) secretIn(match string) (int, int) {
	sa, sb := 0, len(match)
	if g := r.re.FindStringSubmatchIndex(match); len(g) >= 4 {
		sa, sb = r.groupIn(g, sa, sb)
	}
	if sb-sa < 8 && r.group == 0 {
		return 0, len(match)
	}
	return sa, sb
}

// groupIn returns the span of r's secret group in the submatches g, or
// sa, sb when g does not have it.
func (r *rule) groupIn(g []int, sa, sb int) (int, int) {
	switch {
	case r.group > 0 && 2*r.group+1 < len(g):
		return g[2*r.group], g[2*r.group+1]
	case r.group == 0:
		return firstGroup(g, sa, sb)
	}
	return sa, sb
}

// firstGroup returns the span of the first non-empty group in the
// submatches g, or sa, sb when all are empty.
func firstGroup(g []int, sa, sb int) (int, int) {
	for j := 2; j+1 < len(g); j += 2 {
		if g[j] >= 0 && g[j+1] > g[j] {
			return g[j], g[j+1]
		}
	}
	return sa, sb
}

// dismisses reports whether r lets a secret it matched go: its entropy
// is too low for the rule, or it is a placeholder the rule knows.
func (r *rule) dismisses(secret string) bool {
	return r.entropy != 0 && entropy(secret) <= r.entropy || r.skip != nil && r.skip(secret)
}

// allows reports whether the global allowlists or r's let secret, found
// at s[a+sa:] in match (s[a:]), through, or whether it is the digest of a
// named hash.
func (rs *ruleSet) allows(r *rule, s string, a int, match string, sa int, secret string) bool {
	line := s[lineStart(s, a, 0):lineEnd(s, a+len(match), 0)]
	return allowed(rs.global, secret, match, line) || allowed(r.allow, secret, match, line) || digest.MatchString(s[max(0, a+sa-8):a+sa])
}

// digest ends the text before a hash named by its algorithm
// (sha256:…, sha512-…, go.sum's h1:…): an image digest or a lockfile's
// integrity, not a secret.
var digest = regexp.MustCompile(`(?i)(?:sha1|sha224|sha256|sha384|sha512|md5|blake2b|h1)[:=-]$`)

// allowed reports whether an allowlist lets a finding through, as gitleaks
// decides it for a fragment that has no path or commit.
func allowed(lists []*config.Allowlist, secret, match, line string) bool {
	for _, a := range lists {
		regex := a.RegexAllowed(allowTarget(a, secret, match, line))
		stop, _ := a.ContainsStopWord(secret)
		if a.MatchCondition == config.AllowlistMatchAnd {
			if allowsAll(a, regex, stop) {
				return true
			}
			continue
		}
		if regex || stop {
			return true
		}
	}
	return false
}

// allowTarget is the text a's regexes test: the secret, the match or
// its line.
func allowTarget(a *config.Allowlist, secret, match, line string) string {
	switch a.RegexTarget {
	case "match":
		return match
	case "line":
		return line
	}
	return secret
}

// allowsAll reports whether an allowlist whose conditions must all hold
// lets a finding through: one that names commits or paths never does, as
// a fragment has neither.
func allowsAll(a *config.Allowlist, regex, stop bool) bool {
	if len(a.Commits) > 0 || len(a.Paths) > 0 {
		return false
	}
	return (len(a.Regexes) == 0 || regex) && (len(a.StopWords) == 0 || stop)
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	e := 0.0
	for _, n := range counts {
		if n > 0 {
			p := float64(n) / float64(len(s))
			e -= p * math.Log2(p)
		}
	}
	return e
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay those of s.
// lowerBufs holds the buffers findDecoded lowers strings into.
var lowerBufs = sync.Pool{New: func() any { return new([]byte) }}

// lowerInto appends s to dst with ASCII letters in lower case.
func lowerInto(dst []byte, s string) []byte {
	n := len(dst)
	dst = append(dst, s...)
	for i := n; i < len(dst); i++ {
		if c := dst[i]; 'A' <= c && c <= 'Z' {
			dst[i] = c + 'a' - 'A'
		}
	}
	return dst
}

func asciiLower(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' })
	if i < 0 {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}

// decoded is a string with the escape sequences of JSON and quoted strings
// decoded, so that rules see the text they stand for (a tool's input is
// JSON: quotes, line breaks and tabs in it are escaped), and what it takes
// to find a byte's place in the original.
type decoded struct {
	text  string
	at    []int // where in text each run after an escape starts
	extra []int // how many more bytes the original has before at[i]
}

// decode decodes \n, \r, \t, \f, \b, \", \', \\, \/ and \uXXXX in s, also
// when escaped again (\\n, \\\"), as a JSON string inside a JSON string
// writes them; other backslashes stay, one for a run of them.
func decode(s string) decoded {
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return decoded{text: s}
	}
	var d decoded
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for i < len(s) {
		var n int
		b, n = unescape(b, s, i)
		i += n
		if extra := i - len(b); extra != 0 {
			d.at = append(d.at, len(b))
			d.extra = append(d.extra, extra)
		}
		n = strings.IndexByte(s[i:], '\\')
		if n < 0 {
			n = len(s) - i
		}
		b = append(b, s[i:i+n]...)
		i += n
	}
	d.text = string(b)
	return d
}

// unescape appends to b what the run of backslashes at s[i] and the byte
// after it stand for, and returns how many bytes of s that was.
func unescape(b []byte, s string, i int) ([]byte, int) {
	j := i + 1 // after the run of backslashes
	for j < len(s) && s[j] == '\\' {
		j++
	}
	if j == len(s) {
		return append(b, '\\'), j - i
	}
	if c := unescaped[s[j]]; c != 0 {
		return append(b, c), j - i + 1
	}
	if r, ok := hexRune(s, j); ok {
		return utf8.AppendRune(b, r), j - i + 5
	}
	return append(b, '\\'), j - i
}

// unescaped is the byte each one-letter escape stands for; 0 for others.
var unescaped = [256]byte{'n': '\n', 'r': '\r', 't': '\t', 'f': '\f', 'b': '\b', '"': '"', '\'': '\'', '/': '/'}

// hexRune reads the \uXXXX escape whose u is s[j].
func hexRune(s string, j int) (rune, bool) {
	if s[j] != 'u' || j+5 > len(s) {
		return 0, false
	}
	r, err := strconv.ParseUint(s[j+1:j+5], 16, 32)
	return rune(r), err == nil
}

// orig returns where byte p of the decoded text is, or ends, in the original.
func (d *decoded) orig(p int) int {
	i := sort.SearchInts(d.at, p+1) - 1
	if i < 0 {
		return p
	}
	return p + d.extra[i]
}

// lineStart returns where the line n lines before the one holding s[i]
// starts.
func lineStart(s string, i, n int) int {
	for {
		j := strings.LastIndexByte(s[:i], '\n')
		if j < 0 {
			return 0
		}
		if n == 0 {
			return j + 1
		}
		i, n = j, n-1
	}
}

// lineEnd returns where the line n lines after the one holding s[i] ends,
// with its newline.
func lineEnd(s string, i, n int) int {
	for {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return len(s)
		}
		if n == 0 {
			return i + j + 1
		}
		i, n = i+j+1, n-1
	}
}
