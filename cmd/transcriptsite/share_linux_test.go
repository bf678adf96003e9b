package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// terminal opens a pseudo-terminal: share reads its answer from tty, and
// the test types it into pty.
func terminal(t *testing.T) (pty, tty *os.File) {
	t.Helper()
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { pty.Close() })
	fd := int(pty.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return pty, tty
}

// TestShareAsks asks on the terminal before it uploads: no is nothing
// sent, yes is the gist created.
func TestShareAsks(t *testing.T) {
	site := shareSite(t, "title: Mine\n")
	file := filepath.Join(t.TempDir(), "s.jsonl")
	claudeSession(t, file, []string{"Hello there"}, nil)
	a := newAPI(t, http.StatusCreated, created)
	for _, c := range []struct {
		answer string
		sent   int
		out    string
	}{{"n\n", 0, ""}, {"\n", 0, ""}, {"yes\n", 1, "Shared: https://gisthost.github.io/?5e55a1/"}} {
		pty, tty := terminal(t)
		if _, err := pty.WriteString(c.answer); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, err := share(t, site, tty, file)
		if err != nil || len(a.requests()) != c.sent || !strings.HasPrefix(stdout, c.out) || c.out == "" && stdout != "" {
			t.Errorf("answer %q: %v, %d requests, stdout %q", c.answer, err, len(a.requests()), stdout)
		}
		if !strings.Contains(stderr, "\nUpload it? [y/N] ") || c.sent == 0 && !strings.HasSuffix(stderr, "Nothing was shared.\n") {
			t.Errorf("answer %q: stderr:\n%s", c.answer, stderr)
		}
	}
}
