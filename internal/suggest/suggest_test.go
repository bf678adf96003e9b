package suggest

import "testing"

func TestClosest(t *testing.T) {
	names := []string{"title", "baseURL", "contentDir", "destination", "redact", "search"}
	for typed, want := range map[string]string{
		"titel":       "title",   // two letters swapped
		"baseurl":     "baseURL", // case
		"contentdirs": "contentDir",
		"destinaton":  "destination",
		"reduct":      "redact",
		"xyz":         "", // nothing near
		"sea":         "", // too far for a short word
		"":            "",
	} {
		if got := Closest(typed, names); got != want {
			t.Errorf("Closest(%q) = %q, want %q", typed, got, want)
		}
	}
}
