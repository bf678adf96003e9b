package transcriptsite

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The repository says its licence, and its README links only to what the
// repository holds: a clone, or a copy of it anywhere, has every page.
func TestLicenseAndReadmeLinks(t *testing.T) {
	license, err := os.ReadFile("LICENSE")
	if err != nil || !strings.HasPrefix(string(license), "MIT License\n") {
		t.Errorf("LICENSE: %v, want the MIT licence", err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`\]\(([^)#]+)`).FindAllStringSubmatch(string(readme), -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "..") || strings.HasPrefix(target, "/") {
			t.Errorf("README links outside the repository: %s", target)
		} else if _, err := os.Stat(target); err != nil {
			t.Errorf("README links to a missing file: %s", target)
		}
	}
}
