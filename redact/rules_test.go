package redact

import (
	"slices"
	"testing"
)

func TestKeywordLed(t *testing.T) {
	for _, c := range []struct {
		expr       string
		kws        []string
		want, word bool
	}{
		{`(?i)(?:access|(?-i:[Aa]pi|API)|passw(?:or)?d)[ =]+(\w+)`, []string{"access", "api", "passwd", "password"}, true, false},
		{`(?i)(?:access|auth)=(\w+)`, []string{"access"}, false, false}, // auth is no keyword
		{`(?i)(?:linked[_-]?in)=(\w+)`, []string{"linkedin", "linked_in", "linked-in"}, true, false},
		{`(?i)(?:linked[_-]?in)=(\w+)`, []string{"linkedin"}, false, false},
		{`(?i)\w*token=(\w+)`, []string{"token"}, false, false},
		{`(?i)\b((?:hvs\.[\w-]{90,120}|s\.(?i:[a-z0-9]{24})))(?:['"\s;]|$)`, []string{"hvs.", "s."}, true, true},
		{`\b(ghp_[0-9a-zA-Z]{36})`, []string{"ghp_"}, true, true},
		{`\b(ghp_[0-9a-zA-Z]{36})`, []string{"ghp_x"}, false, false},
		{`\b(-----BEGIN)`, []string{"-----begin"}, false, false}, // \b before a non-word byte
		{`(?:^|\s)(token\w+)`, []string{"token"}, false, false},
	} {
		if got, word := keywordLed(c.expr, c.kws); got != c.want || word != c.word {
			t.Errorf("keywordLed(%q, %q) = %v, %v, want %v, %v", c.expr, c.kws, got, word, c.want, c.word)
		}
	}
	rs, err := builtin()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rs.rules, func(r *rule) bool { return r.id == "generic-api-key" && r.at != nil }) {
		t.Error("generic-api-key is not anchored at its keywords")
	}
}
