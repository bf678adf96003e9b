package cache

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// The build ID read from the executable is the one the Go tool reports,
// and it names this program in the cache's keys.
func TestBuildID(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the ID is read from ELF executables")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	want, err := exec.Command("go", "tool", "buildid", exe).Output()
	if err != nil {
		t.Skipf("go tool buildid: %v", err)
	}
	id := goBuildID(exe)
	if id == "" || id != strings.TrimSpace(string(want)) {
		t.Fatalf("build ID %q, the Go tool says %q", id, want)
	}
	if got := BuildID(); got != Key("go build id", id)[:24] {
		t.Errorf("BuildID() = %q", got)
	}
	if goBuildID("/nonexistent") != "" || goBuildID("keys.go") != "" {
		t.Error("a build ID read from no executable")
	}
}
