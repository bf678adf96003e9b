package theme

import (
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/transcriptsite/transcriptsite"
	"github.com/transcriptsite/transcriptsite/site/siteconfig"
)

// TestToolViewTemplate: the template that picks a view is made from the
// theme's files, so a file name that is no template literal must still
// load, and the kinds' views come first, the commonest compared first.
func TestToolViewTemplate(t *testing.T) {
	site := fstest.MapFS{"templates/partials/tools/we\"ird\\.html": {Data: []byte(`odd`)}}
	tpl, err := Load(siteconfig.Overlay{Upper: site, Lower: transcriptsite.FS})
	if err != nil {
		t.Fatal(err)
	}
	text := toolViewTemplate(tpl["session"])
	shell, read, generic := strings.Index(text, `"partials/tools/shell.html"`), strings.Index(text, `"partials/tools/read.html"`), strings.Index(text, `"partials/tools/generic.html"`)
	if shell < 0 || read < shell || generic < read || !strings.Contains(text, strconv.Quote("partials/tools/we\"ird\\.html")) {
		t.Errorf("views out of order or missing:\n%s", text)
	}
}
