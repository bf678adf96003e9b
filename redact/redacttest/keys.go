package redacttest

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/lucasjones/reggen"

	"github.com/transcriptsite/transcriptsite/redact"
)

// Keys returns n keys of every key format of transcriptsite's own rules
// (redact.Keys), each made from the format's pattern by a seeded
// generator and found by a redactor as its kind: alone, or given the name
// it needs (MISTRAL_API_KEY=…). It also returns the kinds it could make
// none for. The same build gives the same keys.
func Keys(n int) (samples []Sample, missed []string) {
	r, err := redact.New(redact.Config{})
	if err != nil {
		panic(err)
	}
	for i, k := range redact.Keys() {
		g, err := reggen.NewGenerator(k.Pattern)
		if err != nil {
			panic(fmt.Sprintf("%s: %v", k.Kind, err))
		}
		got := 0
		for seed := int64(0); seed < 200 && got < n; seed++ {
			g.SetSeed(int64(i)<<16 | seed)
			key := g.Generate(1000)
			text := key
			if k.Name != "" {
				text = strings.ToUpper(nameOf(k.Name)) + "_API_KEY=" + key
			}
			if found(r, text, key, k.Kind) {
				samples = append(samples, Sample{Rule: k.Kind, Text: text, Secret: key})
				got++
			}
		}
		if got < n {
			missed = append(missed, k.Kind)
		}
	}
	return samples, missed
}

// nameOf is a name that the name pattern of a key format matches.
func nameOf(pattern string) string {
	g, err := reggen.NewGenerator(pattern)
	if err != nil {
		panic(err)
	}
	g.SetSeed(1)
	return g.Generate(1)
}

// found reports whether r replaces secret in text, and as kind.
func found(r *redact.Redactor, text, secret, kind string) bool {
	counts := map[string]int{}
	out := r.String(text, counts)
	return !strings.Contains(out, secret) && counts[kind] > 0 && strings.Contains(out, "[REDACTED:"+kind+"]")
}

// Shapes are the ways a secret stands in a session's text: a sample's
// Text in each, with SECRET standing for it. A shape that escapes
// the secret (JSON) says so with ESCAPED.
var Shapes = []string{
	"SECRET", // alone, at the end of the string
	"Here is the key: SECRET\nand the next line.",                 // at the end of a line
	`client = Client(api_key="SECRET")`,                           // in double quotes
	"set it with `SECRET` in your shell",                          // in Markdown code
	"```sh\nexport API_TOKEN='SECRET'\n```",                       // in a Markdown code block, in single quotes
	"curl 'https://api.example.com/v1/models?key=SECRET&limit=5'", // in a URL's query
	`{"headers": {"x-note": "ESCAPED"}}`,                          // in JSON, a character escaped
	"Authorization: Bearer SECRET",
}

// Place puts text, a sample's Text, in shape.
func Place(shape, text string) string {
	if strings.Contains(shape, "ESCAPED") {
		return strings.Replace(shape, "ESCAPED", escapeOne(text), 1)
	}
	return strings.Replace(shape, "SECRET", text, 1)
}

// escapeOne writes s as JSON string content with one of its characters
// (the first - or _, else the middle one) as a \u escape, as some
// encoders write them, so that a key is split across an escape.
func escapeOne(s string) string {
	i := strings.IndexAny(s, "-_")
	if i < 0 {
		i = len(s) / 2
	}
	q := func(s string) string { return strings.Trim(fmt.Sprintf("%q", s), `"`) }
	return q(s[:i]) + fmt.Sprintf(`\u%04x`, s[i]) + q(s[i+1:])
}

// random makes a secret of n characters of the alphabet that mixes letters
// and digits and has no run a placeholder test would take for a word.
func random(rng *rand.Rand, n int, alphabet string) string {
	for {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		if s := string(b); mixedCase.MatchString(s) && !strings.ContainsAny(strings.ToLower(s), "x") {
			return s
		}
	}
}

var mixedCase = regexp.MustCompile(`^(?:.*[0-9].*[a-zA-Z]|.*[a-zA-Z].*[0-9])`)
