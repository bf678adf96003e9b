// Package redacttest makes secrets for tests: for every rule of gitleaks'
// default set, a string that gitleaks' own detector reports under that rule.
// They are made when the tests run, from each rule's regular expression, as
// gitleaks' rule tests make theirs, so no secret-shaped string is committed.
package redacttest

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"

	"github.com/lucasjones/reggen"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// Sample is a string with a secret in it.
type Sample struct {
	Rule   string // the gitleaks rule that reports it
	Text   string // the string
	Secret string // the part gitleaks calls the secret
}

// Samples returns a sample for every rule that one can be made for, in rule
// order, and the ids of the rules it could make none for. The same build
// gives the same samples.
var Samples = sync.OnceValues(func() ([]Sample, []string) {
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		panic(err)
	}
	var out []Sample
	var missed []string
	for _, r := range d.Config.GetOrderedRules() {
		if r.Regex == nil || r.Path != nil || r.SkipReport || len(r.RequiredRules) > 0 {
			continue
		}
		if s, ok := sample(d, r.RuleID, r.Regex.String(), append(r.Keywords, "")[0]); ok {
			out = append(out, s)
		} else {
			missed = append(missed, r.RuleID)
		}
	}
	return out, missed
})

func sample(d *detect.Detector, id, re, keyword string) (Sample, bool) {
	g, err := reggen.NewGenerator(dots(re))
	if err != nil {
		return Sample{}, false
	}
	// A rule whose keyword is not part of its match (airtable,
	// facebook) needs it nearby.
	for _, context := range []string{"", keyword + " "} {
		for seed := range int64(100) {
			g.SetSeed(seed)
			// Some rules want the secret to stand apart from what follows.
			text := context + g.Generate(3) + " "
			if strings.ContainsAny(text, "\x00\r") {
				continue
			}
			for _, f := range d.DetectString(text) {
				secret := f.Secret
				if len(secret) < 8 {
					secret = f.Match // a group that only structures the pattern
				}
				if f.RuleID == id && !strings.Contains(secret, "\n") {
					return Sample{Rule: id, Text: text, Secret: secret}, true
				}
			}
		}
	}
	return Sample{}, false
}

// dots makes every "any character" of re a literal dot: a string that
// matches the result matches re, and unescaped dots in host names
// (hooks.slack.com) then come out as dots.
func dots(re string) string {
	p, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return re
	}
	var walk func(*syntax.Regexp)
	walk = func(r *syntax.Regexp) {
		if r.Op == syntax.OpAnyChar || r.Op == syntax.OpAnyCharNotNL {
			r.Op, r.Rune, r.Flags = syntax.OpLiteral, []rune{'.'}, 0
		}
		for _, s := range r.Sub {
			walk(s)
		}
	}
	walk(p)
	return p.String()
}

func (s Sample) String() string { return fmt.Sprintf("%s: %q", s.Rule, s.Text) }

// alnumRun is a run of letters and digits that a search index keeps as a
// word.
var alnumRun = regexp.MustCompile(`[A-Za-z0-9]{12,}`)

// Needles are what a test looks for to find the secrets leaked: each
// secret, and each long run of letters and digits in it, in lower case.
func Needles(secrets ...string) []string {
	var out []string
	for _, s := range secrets {
		out = append(out, strings.ToLower(s))
		for _, r := range alnumRun.FindAllString(s, -1) {
			out = append(out, strings.ToLower(r))
		}
	}
	return out
}
