package site_test

// The site's tests build every output, as the command does: the table is
// set by package outputs, which imports site, so only an external test
// file may import it; the build of package site's own tests then has it.
import _ "github.com/transcriptsite/transcriptsite/site/outputs"
