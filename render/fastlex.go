package render

import (
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/dlclark/regexp2/v2"
	"github.com/dlclark/regexp2/v2/syntax"
)

// A chroma lexer tries the rules of its state one by one at each token,
// and regexp2 runs each rule's program in full at that position: its
// rules are anchored (\G), and for an anchored pattern regexp2 does not
// look first at the characters a match could start with. Most rules
// cannot start with the character at hand, and those failed attempts were
// most of a build's CPU on code it had never seen. A quick lexer is the
// same lexer, compiled by chroma from the same rules, run by a loop that
// is chroma's own (LexerState.Iterator) but for one thing: it skips a
// rule whose first character, or literal prefix, as regexp2's own search
// works it out for the rule unanchored, is not at the position. The
// tokens are the same; docs/chroma-anchored-prefilter.patch makes chroma
// do this itself, and this file can go once it lands.

// quickLexer tokenises as its lexer does, skipping rules that cannot match.
type quickLexer struct {
	*chroma.RegexLexer
	rules  chroma.CompiledRules
	known  map[*chroma.CompiledRule]*ruleInfo
	states map[string]*stateInfo // of each state the rules compiled with
}

// ruleInfo is what the quick loop knows of a rule before it runs it.
type ruleInfo struct {
	can    startTest // nil when it may match anywhere
	first  firstChars
	groups []int          // its groups' numbers, in the order of Match.Groups
	names  []string       // and their names, when NamedGroups must be filled
	plain  bool           // it emits a token, or none, and reads no groups
	own    bool           // its mutator, if any, is chroma's: it changes no rules
	direct *directMatcher // nil when regexp2 runs the rule
	// types are the token types of ByGroups(t1, t2, …) of token types,
	// chroma.Ignore for a nil one, when the rule emits that and its
	// mutator is chroma's: its tokens are the groups, queued with no
	// iterator (chroma makes four objects a group).
	types []chroma.TokenType
}

// stateInfo is a state's rules, and by the character at the position the
// rules that can match there, in their order: most of a state's rules
// cannot start with a given character, and skipping them without a look
// is the quick loop's main saving.
type stateInfo struct {
	rules []*ruleInfo
	ascii [128][]int // indexes of the rules that may match at an ASCII character
	other []int      // at any other character
}

// startTest says whether a rule can match at text[pos:]; nil when it may.
type startTest func(text []rune, pos int) bool

// quick returns l run by a quick loop, or l itself when it is not a
// regular-expression lexer or its rules do not compile.
func quick(l chroma.Lexer) chroma.Lexer {
	rl, ok := l.(*chroma.RegexLexer)
	if !ok {
		return l
	}
	twin, rules := compiled(rl)
	if twin == nil {
		return l
	}
	q := &quickLexer{RegexLexer: twin, rules: rules, known: map[*chroma.CompiledRule]*ruleInfo{}, states: map[string]*stateInfo{}}
	flags := ruleFlags(rl.Config())
	for state, rules := range rules {
		st := &stateInfo{}
		for i, r := range rules {
			info := q.known[r]
			if info == nil {
				info = newRuleInfo(r, flags)
				q.known[r] = info
				r.Regexp.MatchTimeout = matchTimeout
			}
			st.rules = append(st.rules, info)
			st.add(i, info.first)
		}
		q.states[state] = st
	}
	return q
}

// newRuleInfo works out what the quick loop needs of a compiled rule.
func newRuleInfo(r *chroma.CompiledRule, flags string) *ruleInfo {
	info := groupsOf(r)
	info.can, info.first = startOf(r, flags)
	info.direct = newDirect(rulePattern(r, flags))
	return info
}

// groupsOf is what reading a rule's match needs: its groups, and their
// names when the rule may read them. With no start test, it is all a rule
// a mutator made as the lexer ran gets: parsing its pattern there, at
// every position, would cost more than running it.
func groupsOf(r *chroma.CompiledRule) *ruleInfo {
	info := &ruleInfo{groups: r.Regexp.GetGroupNumbers(), first: firstChars{all: true}}
	_, token := r.Type.(chroma.TokenType)
	info.own = r.Mutator == nil || chromasMutator(r.Mutator)
	info.plain = (r.Type == nil || token) && info.own
	if info.own {
		info.types = groupTypes(r.Type, len(info.groups)-1)
	}
	if readsNames(r) {
		for _, n := range info.groups {
			info.names = append(info.names, r.Regexp.GroupNameFromNumber(n))
		}
	}
	return info
}

// readsNames says whether the rule's emitter or mutator may read the
// state's NamedGroups: anything but chroma's token types, ByGroups of
// them, and its own mutators (push, pop, include, combined) may.
func readsNames(r *chroma.CompiledRule) bool {
	return r.Mutator != nil && !chromasMutator(r.Mutator) || !plainEmitter(r.Type)
}

// chromasMutator: push, pop, include, combined, or several of those,
// which read no groups.
func chromasMutator(m chroma.Mutator) bool {
	sm, ok := m.(chroma.SerialisableMutator)
	if !ok {
		return false
	}
	switch sm.MutatorKind() {
	case "push", "pop", "include", "combined":
		return true
	case "mutators":
		// Mutators keeps them in an exported field of an unexported type.
		subs, ok := reflect.Indirect(reflect.ValueOf(m)).FieldByName("Mutators").Interface().([]chroma.Mutator)
		return ok && !slices.ContainsFunc(subs, func(m chroma.Mutator) bool { return !chromasMutator(m) })
	}
	return false
}

// groupTypes are the token types of e when it is ByGroups of n token
// types or nils (chroma.Ignore for a nil: nothing is emitted for it);
// nil for any other emitter. With other than n, chroma emits an error
// token, which the rule's iterator is left to do.
func groupTypes(e chroma.Emitter, n int) []chroma.TokenType {
	se, ok := e.(chroma.SerialisableEmitter)
	if !ok || se.EmitterKind() != "bygroups" {
		return nil
	}
	subs, ok := reflect.Indirect(reflect.ValueOf(e)).FieldByName("Emitters").Interface().(chroma.Emitters)
	if !ok || len(subs) != n || n == 0 {
		return nil
	}
	types := make([]chroma.TokenType, n)
	for i, sub := range subs {
		switch t := sub.(type) {
		case nil:
			types[i] = chroma.Ignore
		case chroma.TokenType:
			types[i] = t
		default:
			return nil
		}
	}
	return types
}

// plainEmitter: nil, a token type, or ByGroups of those.
func plainEmitter(e chroma.Emitter) bool {
	switch e := e.(type) {
	case nil, chroma.TokenType:
		return true
	case chroma.SerialisableEmitter:
		if e.EmitterKind() != "bygroups" {
			return false
		}
		// ByGroups keeps its emitters in an exported field of an unexported type.
		subs, ok := reflect.Indirect(reflect.ValueOf(e)).FieldByName("Emitters").Interface().(chroma.Emitters)
		return ok && !slices.ContainsFunc(subs, func(e chroma.Emitter) bool { return !plainEmitter(e) })
	}
	return false
}

// add files rule i under the characters it can start with.
func (st *stateInfo) add(i int, first firstChars) {
	for c := range st.ascii {
		if first.all || first.ascii[c] {
			st.ascii[c] = append(st.ascii[c], i)
		}
	}
	if first.all || first.other {
		st.other = append(st.other, i)
	}
}

// matchTimeout guards against a rule that backtracks without end on some
// text. chroma's 250 ms is wall time, which a loaded machine spends on one
// ordinary match (measured: a build beside other builds at a load of 14
// on 2 cores lexed "import" and "=>" as plain text now and then), and the
// build cache kept those pages: a page's tokens must not depend on the
// machine's load.
const matchTimeout = 5 * time.Second

// compiled is a lexer of the rules of rl, and its rules as chroma
// compiles them; nil when they do not compile.
func compiled(rl *chroma.RegexLexer) (*chroma.RegexLexer, chroma.CompiledRules) {
	raw, err := rl.Rules()
	if err != nil {
		return nil, nil
	}
	g := &grab{}
	twin, err := chroma.NewLexer(rl.Config(), func() chroma.Rules {
		rules := raw.Clone()
		rules["root"] = append([]chroma.Rule{{Pattern: `(?!)`, Mutator: g}}, rules["root"]...)
		return rules
	})
	if err != nil {
		return nil, nil
	}
	twin.SetRegistry(lexers.GlobalLexerRegistry)
	if _, err := twin.Rules(); err != nil || g.rules == nil { // compiles them, and g takes them
		return nil, nil
	}
	return twin, g.rules
}

// grab is a rule that chroma's compilation hands the compiled rules to,
// and that takes itself out of them.
type grab struct{ rules chroma.CompiledRules }

func (g *grab) Mutate(*chroma.LexerState) error { return nil }

func (g *grab) MutateLexer(rules chroma.CompiledRules, state string, i int) error {
	g.rules = rules
	rules[state] = append(rules[state][:i:i], rules[state][i+1:]...)
	return nil
}

// startOf is the test of where the rule r can match, from what regexp2
// works out for its pattern searched unanchored (for its own search, so
// every match passes it), and the characters a match can start with; a
// nil test when it can match anywhere or nothing useful is known.
func startOf(r *chroma.CompiledRule, flags string) (startTest, firstChars) {
	anything := firstChars{all: true}
	pattern := rulePattern(r, flags)
	// CodeGen: the analysis regexp2 makes for generated code, which finds
	// sets at more than the first character (0[xX] is two, not one).
	tree, err := syntax.Parse(pattern, syntax.ParseOptions{CodeGen: true})
	if err != nil || tree.FindOptimizations == nil {
		return nil, anything
	}
	f := tree.FindOptimizations
	var test startTest
	first := anything
	if t := startTests[f.FindMode]; t != nil {
		if test = t(f); test != nil {
			first = firstOf(f)
		}
	}
	return both(anchorTests[f.LeadingAnchor], test), first
}

// rulePattern is a rule's pattern as chroma compiles it
// (RegexLexer.maybeCompile), without its \G.
func rulePattern(r *chroma.CompiledRule, flags string) string {
	pattern := "(?:" + r.Pattern + ")"
	if flags != "" {
		pattern = "(?" + flags + ")" + pattern
	}
	return pattern
}

// anchorTests are the tests of a pattern that starts with an anchor: \A
// matches at the start of the text only, and ^ (chroma's rules are
// multi-line) at the start of a line.
var anchorTests = map[syntax.NodeType]startTest{
	syntax.NtBeginning: func(_ []rune, pos int) bool { return pos == 0 },
	syntax.NtBol:       func(text []rune, pos int) bool { return pos == 0 || text[pos-1] == '\n' },
}

// both is a test that a and b pass; either may be nil.
func both(a, b startTest) startTest {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(text []rune, pos int) bool { return a(text, pos) && b(text, pos) }
}

// startTests make the test of a rule from what regexp2 found, by the kind
// of search it chose.
var startTests = map[syntax.FindNextStartingPositionMode]func(*syntax.FindOptimizations) startTest{
	syntax.LeadingString_LeftToRight: func(f *syntax.FindOptimizations) startTest {
		prefix := []rune(f.LeadingPrefix)
		return func(text []rune, pos int) bool { return hasPrefix(text[pos:], prefix) }
	},
	syntax.LeadingStrings_LeftToRight: func(f *syntax.FindOptimizations) startTest {
		prefixes := f.LeadingPrefixesRunes
		return func(text []rune, pos int) bool {
			for _, p := range prefixes {
				if hasPrefix(text[pos:], p) {
					return true
				}
			}
			return false
		}
	},
	syntax.FixedDistanceChar_LeftToRight: func(f *syntax.FindOptimizations) startTest {
		c, d := f.FixedDistanceLiteral.C, f.FixedDistanceLiteral.Distance
		return func(text []rune, pos int) bool { return pos+d < len(text) && text[pos+d] == c }
	},
	syntax.FixedDistanceString_LeftToRight: func(f *syntax.FindOptimizations) startTest {
		s, d := []rune(f.FixedDistanceLiteral.S), f.FixedDistanceLiteral.Distance
		return func(text []rune, pos int) bool { return pos+d <= len(text) && hasPrefix(text[pos+d:], s) }
	},
	syntax.LeadingString_OrdinalIgnoreCase_LeftToRight: func(f *syntax.FindOptimizations) startTest {
		return foldedPrefixesTest([]string{f.LeadingPrefix})
	},
	syntax.LeadingStrings_OrdinalIgnoreCase_LeftToRight: func(f *syntax.FindOptimizations) startTest {
		return foldedPrefixesTest(f.LeadingPrefixes)
	},
	syntax.LeadingSet_LeftToRight:        setsTest,
	syntax.FixedDistanceSets_LeftToRight: setsTest,
}

// foldedPrefixesTest: the text starts with one of the ASCII prefixes, in
// any case; nil when a prefix is not ASCII (folding past ASCII has more
// cases than this test should know).
func foldedPrefixesTest(prefixes []string) startTest {
	var lower [][]rune
	for _, p := range prefixes {
		if p == "" || !isASCII(p) {
			return nil
		}
		lower = append(lower, []rune(strings.ToLower(p)))
	}
	return func(text []rune, pos int) bool {
		for _, p := range lower {
			if hasFoldedPrefix(text[pos:], p) {
				return true
			}
		}
		return false
	}
}

// hasFoldedPrefix: s starts with the lower-case ASCII prefix, in any case.
func hasFoldedPrefix(s, prefix []rune) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i, c := range prefix {
		if d := s[i]; d != c && (d >= utf8.RuneSelf || unicode.ToLower(d) != c) {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// firstChars is what a rule's match can start with.
type firstChars struct {
	all   bool // anything: nothing is known
	ascii [128]bool
	other bool // some characters past ASCII
}

// firstOf is the characters a match can start with, from the facts
// startTests makes its test of: every match passes that test, so its
// first character is among these.
func firstOf(f *syntax.FindOptimizations) firstChars {
	var fc firstChars
	switch f.FindMode {
	case syntax.LeadingString_LeftToRight:
		fc.addPrefix(f.LeadingPrefix)
	case syntax.LeadingString_OrdinalIgnoreCase_LeftToRight, syntax.LeadingStrings_OrdinalIgnoreCase_LeftToRight:
		for _, p := range f.LeadingPrefixes {
			fc.addFolded(p)
		}
		if f.LeadingPrefix != "" {
			fc.addFolded(f.LeadingPrefix)
		}
	case syntax.LeadingStrings_LeftToRight:
		for _, p := range f.LeadingPrefixesRunes {
			fc.addPrefix(string(p))
		}
	case syntax.FixedDistanceChar_LeftToRight:
		fc.all = f.FixedDistanceLiteral.Distance != 0
		fc.add(f.FixedDistanceLiteral.C)
	case syntax.FixedDistanceString_LeftToRight:
		fc.all = f.FixedDistanceLiteral.Distance != 0
		fc.addPrefix(f.FixedDistanceLiteral.S)
	default: // the sets
		fc.all = true
		for _, s := range f.FixedDistanceSets {
			if s.Distance == 0 && s.Set != nil {
				fc = firstChars{other: true} // CharSet cannot list what it holds past ASCII
				for c := range rune(128) {
					fc.ascii[c] = s.Set.Contains(c)
				}
			}
		}
	}
	return fc
}

func (fc *firstChars) add(c rune) {
	if c < 128 {
		fc.ascii[c] = true
	} else {
		fc.other = true
	}
}

func (fc *firstChars) addPrefix(p string) {
	c, n := utf8.DecodeRuneInString(p)
	if n == 0 {
		fc.all = true
		return
	}
	fc.add(c)
}

// addFolded adds the first character of p in either case.
func (fc *firstChars) addFolded(p string) {
	fc.addPrefix(strings.ToLower(p))
	fc.addPrefix(strings.ToUpper(p))
}

// setsTest: each set holds the character at its distance from the start.
func setsTest(f *syntax.FindOptimizations) startTest {
	sets := make([]charTest, len(f.FixedDistanceSets))
	for i, s := range f.FixedDistanceSets {
		if s.Set == nil {
			return nil
		}
		sets[i] = newCharTest(s.Set, s.Distance)
	}
	return func(text []rune, pos int) bool {
		for _, s := range sets {
			if !s.holds(text, pos+s.distance) {
				return false
			}
		}
		return true
	}
}

// charTest says whether a character at a distance is in a set: from a
// table for ASCII, since CharSet.Contains is slow for most sets. A direct
// matcher's tests of one character are charTests too: a character, any
// but one, a set, or any of several of those.
type charTest struct {
	set      *syntax.CharSet
	ascii    [128]bool
	distance int
	// Past ASCII, when set is nil: the character is ch (not ch, with
	// not), or passes one of union.
	ch    rune
	not   bool
	union []*charTest
}

func newCharTest(set *syntax.CharSet, distance int) charTest {
	t := charTest{set: set, distance: distance}
	for c := range rune(128) {
		t.ascii[c] = set.Contains(c)
	}
	return t
}

// oneChar tests for the character ch, or for any but ch.
func oneChar(ch rune, not bool) *charTest {
	t := &charTest{ch: ch, not: not}
	for c := range rune(128) {
		t.ascii[c] = (c == ch) != not
	}
	return t
}

// unionOf tests for a character any of ts holds.
func unionOf(ts []*charTest) *charTest {
	u := &charTest{union: ts}
	for _, t := range ts {
		for c := range u.ascii {
			u.ascii[c] = u.ascii[c] || t.ascii[c]
		}
	}
	return u
}

func (t *charTest) holds(text []rune, i int) bool {
	return i < len(text) && t.has(text[i])
}

func (t *charTest) has(c rune) bool {
	switch {
	case c < 128:
		return t.ascii[c]
	case t.set != nil:
		return t.set.Contains(c)
	case t.union != nil:
		return slices.ContainsFunc(t.union, func(u *charTest) bool { return u.has(c) })
	}
	return (c == t.ch) != t.not
}

// ruleFlags are the flags chroma compiles every rule of a lexer with
// (RegexLexer.fetchRules).
func ruleFlags(c *chroma.Config) string {
	flags := ""
	if !c.NotMultiline {
		flags += "m"
	}
	if c.CaseInsensitive {
		flags += "i"
	}
	if c.DotAll {
		flags += "s"
	}
	return flags
}

func hasPrefix(s, prefix []rune) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i, c := range prefix {
		if s[i] != c {
			return false
		}
	}
	return true
}

// Tokenise is chroma's RegexLexer.Tokenise, with the quick loop.
func (q *quickLexer) Tokenise(options *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	it, _, err := q.tokeniseFrom(options, text)
	return it, err
}

// tokeniseFrom is Tokenise, and the text its tokens are cut from.
func (q *quickLexer) tokeniseFrom(options *chroma.TokeniseOptions, text string) (chroma.Iterator, string, error) {
	if options == nil {
		options = &chroma.TokeniseOptions{State: "root", EnsureLF: true}
	}
	if options.EnsureLF {
		text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	}
	added := false
	if !options.Nested && q.Config().EnsureNL && !strings.HasSuffix(text, "\n") {
		text += "\n"
		added = true
	}
	s := &quickState{q: q, start: options.State, added: added, src: text, LexerState: chroma.LexerState{
		Registry:       lexers.GlobalLexerRegistry,
		Lexer:          q.RegexLexer,
		Text:           []rune(text),
		Stack:          []string{options.State},
		Rules:          q.rules,
		MutatorContext: map[any]any{},
	}}
	if len(s.Text) != len(text) {
		s.offsets = runeOffsets(text, len(s.Text))
	}
	s.take = s.view
	return s.next, text, nil
}

// runeOffsets is the byte offset in text of each of its n characters,
// and of its end.
func runeOffsets(text string, n int) []int32 {
	offsets := make([]int32, 0, n+1)
	for i := range text {
		offsets = append(offsets, int32(i))
	}
	return append(offsets, int32(len(text)))
}

// quickState is a lexer's state while it tokenises, as chroma keeps it.
type quickState struct {
	chroma.LexerState
	q       *quickLexer
	start   string
	added   bool
	src     string  // the text, which tokens are cut from
	offsets []int32 // of each character in src; nil when each is a byte
	stack   []chroma.Iterator
	one     chroma.Token // a rule's one token, before the stack
	hasOne  bool
	queue   []chroma.Token // the tokens of a rule's groups (ruleInfo.types), before the stack
	queued  int            // how many of them were taken
	groups  []string       // the groups of a rule whose types are known, reused
	stuck   int            // empty matches in a row
	at      struct {       // the state the last rules were of
		name  string
		rules []*chroma.CompiledRule
		info  *stateInfo
	}

	take   func(regexp2.MatchView) bool // s.view as a method value, made once
	info   *ruleInfo                    // the rule being tried
	end    int                          // where its match ended
	found  []string                     // its groups, when it matched and they are read
	named  map[string]string
	direct directRun // a direct matcher's run
}

// stuckAt is how many empty matches in a row end the lexing: a lexer
// that matches nothing and stays where it is never ends (chroma's jsonata
// after a non-ASCII character emits empty tokens for ever), and a build
// must.
const stuckAt = 1000

// next is chroma's LexerState.Iterator.
func (s *quickState) next() chroma.Token {
	end := len(s.Text)
	if s.added {
		end--
	}
	for s.Pos < end && len(s.Stack) > 0 {
		if t, ok := s.drain(); ok {
			return t
		}
		if s.State = s.Stack[len(s.Stack)-1]; s.State != s.at.name {
			s.at.name, s.at.rules, s.at.info = s.State, s.Rules[s.State], s.q.states[s.State]
			if s.at.rules == nil {
				panic("unknown state " + s.State)
			}
		}
		if i, rule := s.match(s.at.rules, s.at.info); rule != nil {
			s.apply(i, rule)
		} else if t, ok := s.unmatched(); ok {
			return t
		}
		if s.stuck >= stuckAt {
			s.Stack = s.Stack[:0] // last gives the rest of the text as an error
		}
	}
	return s.last()
}

// last is what is left when the text is lexed or the stack is empty: the
// tokens still stacked, then any text left, as an error.
func (s *quickState) last() chroma.Token {
	if t, ok := s.drain(); ok {
		return t
	}
	if s.Pos != len(s.Text) && len(s.Stack) == 0 {
		v := s.cut(s.Pos, len(s.Text))
		s.Pos = len(s.Text)
		return chroma.Token{Type: chroma.Error, Value: v}
	}
	return chroma.EOF
}

// cut is the text from character at to character end.
func (s *quickState) cut(at, end int) string {
	if s.offsets == nil {
		return s.src[at:end]
	}
	return s.src[s.offsets[at]:s.offsets[end]]
}

// unmatched is what chroma does where no rule matches: at a newline
// outside the first state, Pygments' recovery, which resets the stack
// (no token); elsewhere, the character as an error.
func (s *quickState) unmatched() (chroma.Token, bool) {
	if s.Text[s.Pos] == '\n' && s.State != s.start {
		s.Stack = []string{s.start}
		return chroma.Token{}, false
	}
	s.Pos++
	return chroma.Token{Type: chroma.Error, Value: s.cut(s.Pos-1, s.Pos)}, true
}

// apply moves past what rule i matched, runs its mutator and stacks the
// tokens it emits. A rule that emits one token and reads no groups
// (most of them) has it kept as it is, with no iterator and no groups.
func (s *quickState) apply(i int, rule *chroma.CompiledRule) {
	s.Rule, s.Groups, s.NamedGroups = i, s.found, s.named
	start := s.Pos
	s.Pos = s.end
	s.stuck++
	if s.end != start {
		s.stuck = 0
	}
	if rule.Mutator != nil {
		if err := rule.Mutator.Mutate(&s.LexerState); err != nil {
			panic(err)
		}
		if !s.info.own {
			s.at.name = "" // its rules may have changed
		}
	}
	switch t := rule.Type.(type) {
	case nil:
	case chroma.TokenType:
		s.one, s.hasOne = chroma.Token{Type: t, Value: s.cut(start, s.end)}, true
	default:
		if types := s.info.types; types != nil {
			s.queue, s.queued = s.queue[:0], 0
			for k, t := range types {
				s.queue = append(s.queue, chroma.Token{Type: t, Value: s.Groups[k+1]})
			}
			return
		}
		s.stack = append(s.stack, rule.Type.Emit(s.Groups, &s.LexerState))
	}
}

// drain returns the next token of the emitters' iterators, if any is left.
func (s *quickState) drain() (chroma.Token, bool) {
	if s.hasOne {
		s.hasOne = false
		if s.one.Type != chroma.Ignore {
			return s.one, true
		}
	}
	for s.queued < len(s.queue) {
		t := s.queue[s.queued]
		s.queued++
		// As chroma's iterators end at a token equal to EOF (an empty
		// group of type 0), and its lexer drops those of type Ignore.
		if t.Type != chroma.Ignore && t != chroma.EOF {
			return t, true
		}
	}
	for len(s.stack) > 0 {
		n := len(s.stack) - 1
		t := s.stack[n]()
		if t.Type == chroma.Ignore {
			continue
		}
		if t == chroma.EOF {
			s.stack = s.stack[:n]
			continue
		}
		return t, true
	}
	return chroma.Token{}, false
}

// match is chroma's matchRules, skipping the rules that cannot match
// here: the rule that matched and its index, or a nil rule.
func (s *quickState) match(rules []*chroma.CompiledRule, st *stateInfo) (int, *chroma.CompiledRule) {
	if st == nil || len(st.rules) != len(rules) { // a state a mutator made as the lexer ran
		for i, rule := range rules {
			info := s.q.known[rule]
			if info == nil {
				info = groupsOf(rule)
			}
			if s.try(rule, info) {
				return i, rule
			}
		}
		return 0, nil
	}
	candidates := st.other
	if c := s.Text[s.Pos]; c < 128 {
		candidates = st.ascii[c]
	}
	for _, i := range candidates {
		if s.try(rules[i], st.rules[i]) {
			return i, rules[i]
		}
	}
	return 0, nil
}

// try runs a rule at the position and says whether it matched: then
// s.end is where, and s.found and s.named its groups as Match.Groups and
// NamedGroups give them, where the rule may read them.
func (s *quickState) try(rule *chroma.CompiledRule, info *ruleInfo) bool {
	if info.can != nil && !info.can(s.Text, s.Pos) {
		return false
	}
	s.info, s.found, s.named = info, nil, nil
	if !s.run(rule, info) {
		return false
	}
	if info.names != nil {
		s.named = make(map[string]string, len(s.found))
		for k, name := range info.names {
			s.named[name] = s.found[k]
		}
	}
	return true
}

// run runs a rule at the position, by its direct matcher or by regexp2.
func (s *quickState) run(rule *chroma.CompiledRule, info *ruleInfo) bool {
	if m := info.direct; m != nil {
		s.direct.text = s.Text
		if m.match(&s.direct, s.Pos) {
			read(s, &s.direct)
			return true
		}
		if !s.direct.spent {
			return false
		}
	}
	s.end = -1
	err := rule.Regexp.FindRunesMatches(s.Text, s.Pos, s.take)
	return err == nil && s.end >= 0
}

// view takes the groups of the first match, if it starts at the position.
func (s *quickState) view(v regexp2.MatchView) bool {
	if at, _, ok := v.GroupRange(0); ok && at == s.Pos {
		read(s, v)
	}
	return false
}

// read takes where a match ended and, when the rule reads them, its
// groups.
func read[M interface{ GroupRange(int) (int, int, bool) }](s *quickState, m M) {
	at, length, _ := m.GroupRange(0)
	s.end = at + length
	if s.info.plain {
		return
	}
	if s.info.types != nil {
		// Nothing keeps them past the rule's tokens: they are copied into
		// the queue before the next match.
		s.groups = slices.Grow(s.groups[:0], len(s.info.groups))[:len(s.info.groups)]
		clear(s.groups)
		s.found = s.groups
	} else {
		s.found = make([]string, len(s.info.groups))
	}
	for k, n := range s.info.groups {
		if at, length, ok := m.GroupRange(n); ok {
			s.found[k] = s.cut(at, at+length)
		}
	}
}
