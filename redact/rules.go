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

	ahocorasick "github.com/BobuSumisu/aho-corasick"
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
	trie   *ahocorasick.Trie
	byKw   [][]int // the trie's keyword number → rules
	always []int   // rules without keywords run on every string
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
	for _, id := range cfg.OrderedRules {
		r := cfg.Rules[id]
		if r.Regex == nil || r.Path != nil || r.SkipReport || superseded[id] {
			continue // rules about file names, a composite rule's helpers, and ours
		}
		prio := int8(gitleaks)
		if id == "generic-api-key" || strings.HasPrefix(id, "curl-") {
			prio = gitleaksLoose
		}
		rs.rules = append(rs.rules, &rule{
			id: id, group: r.SecretGroup, entropy: r.Entropy,
			keywords: r.Keywords, allow: r.Allowlists, prio: prio,
			src: strings.ReplaceAll(r.Regex.String(), secretEnd, secretEndInText),
		})
	}
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
	// A rule's expressions are made the first time a text holds one of its
	// keywords (ready): most rules' keywords are in no session, and making
	// them all cost a cold build tens of ms before its first session could
	// be read. Those run on every text are made now, beside the trie.
	var wg sync.WaitGroup
	wg.Go(func() { rs.trie = ahocorasick.NewTrieBuilder().AddStrings(kws).Build() })
	for _, i := range rs.always {
		rs.rules[i].ready()
	}
	wg.Wait()
	return rs, nil
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
	}
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
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return 1
			}
		}
	case syntax.OpAnyChar:
		return 1
	case syntax.OpCapture, syntax.OpQuest:
		return newlines(re.Sub[0])
	case syntax.OpConcat:
		t := 0
		for _, s := range re.Sub {
			t = min(unbounded, t+newlines(s))
		}
		return t
	case syntax.OpAlternate:
		t := 0
		for _, s := range re.Sub {
			t = max(t, newlines(s))
		}
		return t
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		n := newlines(re.Sub[0])
		if n == 0 {
			return 0
		}
		if re.Op != syntax.OpRepeat || re.Max < 0 {
			return unbounded
		}
		return min(unbounded, n*re.Max)
	}
	return 0
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
	buf := lowerBufs.Get().(*[]byte)
	*buf = lowerInto((*buf)[:0], s)
	hits := map[int][]int{} // rule → where its keywords are
	rs.trie.Walk(*buf, func(end, n, kw int64) bool {
		for _, i := range rs.byKw[kw] {
			hits[i] = append(hits[i], int(end-n+1))
		}
		return true
	})
	lowerBufs.Put(buf)
	for _, i := range rs.always {
		out = rs.run(rs.rules[i], s, 0, len(s), out)
	}
	// In rule order, so that the output does not depend on map order.
	for i, r := range rs.rules {
		ps := hits[i]
		if len(ps) == 0 {
			continue
		}
		r.ready()
		if r.at != nil {
			out = rs.runAt(r, s, ps, out)
			continue
		}
		if r.span < 0 {
			out = rs.run(r, s, lineStart(s, slices.Min(ps), 0), len(s), out)
			continue
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
		out = rs.run(r, s, lo, hi, out)
	}
	return out
}

// run runs r on s[lo:hi] and appends what it finds.
func (rs *ruleSet) run(r *rule, s string, lo, hi int, out []found) []found {
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
		if p < next || r.wordStart && p > 0 && isWordByte(s[p-1]) {
			continue
		}
		end := len(s)
		if r.span >= 0 {
			end = lineEnd(s, p, r.span)
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

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// keywordLed says whether every match of the regex expr starts with one of
// keywords (lower case), after a \b when word is true: it does when each
// string a match can open with has a keyword as its prefix.
func keywordLed(expr string, keywords []string) (ok, word bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return false, false
	}
	re = re.Simplify()
	if re.Op == syntax.OpConcat && len(re.Sub) > 1 && re.Sub[0].Op == syntax.OpWordBoundary {
		re, word = &syntax.Regexp{Op: syntax.OpConcat, Sub: re.Sub[1:]}, true
	}
	heads, ok := openings(re)
	for _, h := range heads {
		if h == "" || word && !isWordByte(h[0]) ||
			!slices.ContainsFunc(keywords, func(k string) bool { return k != "" && strings.HasPrefix(h, k) }) {
			return false, false
		}
	}
	return ok && len(heads) > 0, word
}

// most bounds the strings openings and strs list.
const most = 256

// openings lists, in lower case, strings one of which opens every match
// of re: as long as re's elements allow.
func openings(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return openings(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min > 0 {
			return openings(re.Sub[0])
		}
	case syntax.OpAlternate:
		return union(re.Sub, openings)
	case syntax.OpConcat:
		out := []string{""}
		for i, sub := range re.Sub {
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
	return strs(re)
}

// strs lists, in lower case, the strings re matches, when there are few.
func strs(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpLiteral:
		return []string{asciiLower(string(re.Rune))}, true
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1]-re.Rune[i] > most {
				return nil, false
			}
			for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
				out = append(out, asciiLower(string(c)))
			}
		}
		return out, len(out) <= most
	case syntax.OpCapture:
		return strs(re.Sub[0])
	case syntax.OpQuest:
		out, ok := strs(re.Sub[0])
		return append(out, ""), ok
	case syntax.OpAlternate:
		out, ok := union(re.Sub, strs)
		return out, ok && len(out) <= most
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			ss, ok := strs(sub)
			if !ok || len(out)*len(ss) > most {
				return nil, false
			}
			out = product(out, ss)
		}
		return out, true
	}
	return nil, false
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
	sa, sb := 0, len(match)
	if g := r.re.FindStringSubmatchIndex(match); len(g) >= 4 {
		if r.group > 0 && 2*r.group+1 < len(g) {
			sa, sb = g[2*r.group], g[2*r.group+1]
		} else if r.group == 0 {
			for j := 2; j+1 < len(g); j += 2 {
				if g[j] >= 0 && g[j+1] > g[j] {
					sa, sb = g[j], g[j+1]
					break
				}
			}
		}
	}
	if sb-sa < 8 && r.group == 0 {
		sa, sb = 0, len(match) // a group that only structures the pattern
	}
	if sa < 0 || sb <= sa {
		return out
	}
	secret := match[sa:sb]
	if r.entropy != 0 && entropy(secret) <= r.entropy || r.skip != nil && r.skip(secret) {
		return out
	}
	line := s[lineStart(s, a, 0):lineEnd(s, a+len(match), 0)]
	if allowed(rs.global, secret, match, line) || allowed(r.allow, secret, match, line) || digest.MatchString(s[max(0, a+sa-8):a+sa]) {
		return out
	}
	return append(out, found{a + sa, a + sb, r.id, r.prio})
}

// digest ends the text before a hash named by its algorithm
// (sha256:…, sha512-…, go.sum's h1:…): an image digest or a lockfile's
// integrity, not a secret.
var digest = regexp.MustCompile(`(?i)(?:sha1|sha224|sha256|sha384|sha512|md5|blake2b|h1)[:=-]$`)

// allowed reports whether an allowlist lets a finding through, as gitleaks
// decides it for a fragment that has no path or commit.
func allowed(lists []*config.Allowlist, secret, match, line string) bool {
	for _, a := range lists {
		target := secret
		switch a.RegexTarget {
		case "match":
			target = match
		case "line":
			target = line
		}
		regex := a.RegexAllowed(target)
		stop, _ := a.ContainsStopWord(secret)
		if a.MatchCondition == config.AllowlistMatchAnd {
			if len(a.Commits) > 0 || len(a.Paths) > 0 || (len(a.Regexes) > 0 && !regex) || (len(a.StopWords) > 0 && !stop) {
				continue
			}
			return true
		}
		if regex || stop {
			return true
		}
	}
	return false
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
		if s[i] != '\\' {
			b = append(b, s[i])
			i++
			continue
		}
		j := i + 1 // after the run of backslashes
		for j < len(s) && s[j] == '\\' {
			j++
		}
		n := j - i + 1
		c := byte(0)
		if j < len(s) {
			c = s[j]
		}
		switch c {
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'f':
			b = append(b, '\f')
		case 'b':
			b = append(b, '\b')
		case '"', '\'', '/':
			b = append(b, c)
		case 'u':
			r, err := strconv.ParseUint(s[j+1:min(len(s), j+5)], 16, 32)
			if err != nil || j+5 > len(s) {
				b = append(b, '\\')
				n = j - i
				break
			}
			b = utf8.AppendRune(b, rune(r))
			n = j - i + 5
		default:
			b = append(b, '\\')
			n = j - i
		}
		i += n
		if extra := i - len(b); extra != 0 {
			d.at = append(d.at, len(b))
			d.extra = append(d.extra, extra)
		}
	}
	d.text = string(b)
	return d
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
