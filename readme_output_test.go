package transcriptsite_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/site"
	"github.com/transcriptsite/transcriptsite/site/redactreport"
)

// TestReadmeShowsWhatTheProgramPrints checks that the lines the README shows
// a build and a publish printing are what they print.
func TestReadmeShowsWhatTheProgramPrints(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	build := (&site.Report{Sessions: 4, Files: 4, Redacted: map[string]int{"openai-project-key": 1}, Elapsed: 40 * time.Millisecond}).String()
	redacted := map[string]int{"env-secret": 2, "openai-project-key": 1}
	publish := "Redacted " + render.Plural(site.Sum(redacted), "secret") + ": " + redactreport.ByKind(redacted)
	for _, want := range []string{build, publish} {
		if !strings.Contains(string(readme), "\n"+want+"\n") {
			t.Errorf("README does not show the line %q as printed", want)
		}
	}
}
