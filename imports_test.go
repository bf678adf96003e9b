package transcriptsite

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/transcriptsite/transcriptsite/"

// TestImportsKeepTheShape checks the package graph's rules: no agent's
// reader imports another's (what two share lives in ingest); nothing
// under internal/, which holds libraries, imports site; and the command,
// not the library, chooses the agents compiled in and the outputs; what
// a build writes with (site/output, site/sink, site/siteconfig,
// site/searchdoc, site/theme), the figures it computes (site/stats) and its report
// of redactions (site/redactreport) know nothing of the site above them.
func TestImportsKeepTheShape(t *testing.T) {
	_ = filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(p))
		for _, imp := range imports(t, p) {
			switch {
			case strings.HasPrefix(dir, "ingest/") && dir != "ingest/agents" && strings.HasPrefix(imp, "ingest/") &&
				imp != "ingest/"+path.Base(dir) && imp != "ingest/agents":
				t.Errorf("%s: the agent package %s imports another agent's, %s", p, dir, imp)
			case strings.HasPrefix(dir, "internal/") && (imp == "site" || strings.HasPrefix(imp, "site/")):
				t.Errorf("%s: a library under internal/ imports %s", p, imp)
			case (dir == "site" || strings.HasPrefix(dir, "site/")) && imp == "ingest/agents":
				t.Errorf("%s: the library site chooses the agents compiled in; the command does", p)
			case (dir == "site" || strings.HasPrefix(dir, "site/")) && imp == "site/outputs":
				t.Errorf("%s: the library site chooses the outputs its sites have; the command does", p)
			case (dir == "site/output" || dir == "site/sink" || dir == "site/siteconfig" || dir == "site/searchdoc" || dir == "site/stats" || dir == "site/redactreport" || dir == "site/theme") && (imp == "site" || imp == "site/output" && dir != "site/output"):
				t.Errorf("%s: %s, which site builds with, imports %s", p, dir, imp)
			}
		}
		return nil
	})
}

// imports lists the module's packages the file p imports, as paths in
// the module.
func imports(t *testing.T, p string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range f.Imports {
		if imp := strings.Trim(s.Path.Value, `"`); strings.HasPrefix(imp, module) {
			out = append(out, strings.TrimPrefix(imp, module))
		}
	}
	return out
}
