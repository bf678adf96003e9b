package ingest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestTextCompacts checks that Text gives what json.Compact gives, with or
// without its scanner: spaces in strings stay, the others go.
func TestTextCompacts(t *testing.T) {
	for _, raw := range []string{
		`{"command":"ls -la","n":1}`,
		`{ "command": "ls -la" }`,
		`{"q":"a \"quoted\" \\ word","x":[1, 2]}`,
		`{"q":"tab\there"}` + "\n",
		`[{"a":"\\"}, {"b":"c"}]`,
		`{"broken": `,
		`{"broken":"x y}`,
		`12`,
	} {
		want := strings.TrimSpace(raw)
		var buf bytes.Buffer
		if json.Compact(&buf, []byte(want)) == nil {
			want = buf.String()
		}
		if got := Text([]byte(raw)); got != want {
			t.Errorf("Text(%s) = %s, want %s", raw, got, want)
		}
	}
}
