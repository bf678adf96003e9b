//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// faultSite writes a site dir with one good session, and returns it.
func faultSite(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for rel, data := range map[string]string{
		"config.yaml":         "title: Faults\n",
		"content/app/s.jsonl": serveSession,
	} {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// command runs the real program (this test binary, as testscript installs
// it on the PATH), in the background.
func command(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command("transcriptsite", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(os.Environ(), "TRANSCRIPTSITE_SASS=/no/sass")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

// exited waits for cmd, at most d; false when it is still running (it is
// then killed).
func exited(cmd *exec.Cmd, d time.Duration) bool {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		return false
	}
}

// Ctrl-C ends a build at once, whatever it is reading, and leaves the
// site as it was: reading a terabyte of zeros (a sparse file) ignored
// SIGINT and SIGTERM for minutes.
func TestInterruptEndsBuild(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		dir := faultSite(t)
		dest := filepath.Join(dir, "public")
		if out, err := exec.Command("transcriptsite", "build", "-s", dir, "--cacheDir", filepath.Join(dir, "cache")).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		before, _ := os.ReadFile(filepath.Join(dest, "sessions.json"))
		f, _ := os.Create(filepath.Join(dir, "content", "huge.jsonl"))
		if err := f.Truncate(1 << 40); err != nil {
			t.Skip("no sparse files here:", err)
		}
		f.Close()
		cmd, out := command(t, "build", "-s", dir, "--cacheDir", filepath.Join(dir, "cache"))
		time.Sleep(time.Second) // into the terabyte
		cmd.Process.Signal(sig)
		if !exited(cmd, 10*time.Second) {
			t.Fatalf("%v: the build still ran 10 s later:\n%s", sig, out)
		}
		if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(out.String(), "interrupted") {
			t.Errorf("%v: exit %d:\n%s", sig, cmd.ProcessState.ExitCode(), out)
		}
		if after, _ := os.ReadFile(filepath.Join(dest, "sessions.json")); !bytes.Equal(before, after) || len(after) == 0 {
			t.Errorf("%v: the site changed", sig)
		}
	}
}
