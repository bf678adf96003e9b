package ingest_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/transcriptsite/transcriptsite/ingest"
)

// TestDetectionIsUnambiguous checks that every test and corpus file is
// claimed by one reader surer than any other: a file two readers claim
// alike would be read by the first by name, which says nothing about it.
func TestDetectionIsUnambiguous(t *testing.T) {
	for _, root := range []string{"testdata", corpusDir} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			fh, err := os.Open(p)
			if err != nil {
				return nil
			}
			defer fh.Close()
			h, _, done, err := ingest.Sniff(p, fh)
			if err != nil {
				return nil
			}
			defer done()
			var top float64
			var sure []string
			for _, r := range ingest.Readers {
				switch c := r.Detect(h); {
				case c > top:
					top, sure = c, []string{r.Name}
				case c == top && c > 0:
					sure = append(sure, r.Name)
				}
			}
			if len(sure) > 1 {
				t.Errorf("%s: %v are equally sure (%v)", p, sure, top)
			}
			return nil
		})
	}
}
