//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/internal/synth"
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

// bigSite writes a site dir whose build takes a while (a second or two):
// generated sessions.
func bigSite(t *testing.T, sessions int) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("title: Faults\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := synth.Generate(filepath.Join(dir, "content"), synth.Options{Sessions: sessions, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// wholeSite checks that dest is a whole site: every session that
// sessions.json lists has its page.
func wholeSite(t *testing.T, dest string, sessions int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dest, "sessions.json"))
	if err != nil {
		t.Fatalf("no site: %v", err)
	}
	var list []struct{ URL string }
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != sessions {
		t.Errorf("%d sessions in the site, want %d", len(list), sessions)
	}
	for _, s := range list {
		if _, err := os.Stat(filepath.Join(dest, s.URL, "index.html")); err != nil {
			t.Error(err)
		}
	}
}

// A build killed with SIGKILL at any moment leaves the previous site
// whole, and the next build removes what the killed one left: killed
// builds left their temporary sites beside the destination forever.
func TestKilledBuildsLeaveNothing(t *testing.T) {
	const sessions = 30
	dir := bigSite(t, sessions)
	parent := t.TempDir()
	dest, cache := filepath.Join(parent, "public"), filepath.Join(t.TempDir(), "cache")
	args := []string{"build", "--quiet", "-s", dir, "-d", dest, "--cacheDir", cache}
	run := func() {
		t.Helper()
		if out, err := exec.Command("transcriptsite", args...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	run()
	start := time.Now()
	run() // warm
	warm := time.Since(start)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 8 {
		// Half the kills cold (--ignoreCache: seconds of rendering), half
		// warm, at a moment anywhere in the build.
		a := args
		d := time.Duration(rng.Int64N(int64(warm)))
		if i%2 == 0 {
			a = append(slices.Clone(args), "--ignoreCache")
			d = time.Duration(rng.Int64N(int64(4 * warm)))
		}
		cmd := exec.Command("transcriptsite", a...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(d)
		cmd.Process.Kill()
		cmd.Wait()
		wholeSite(t, dest, sessions)
	}
	run()
	wholeSite(t, dest, sessions)
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("beside the site after the next build: %v", names)
	}
}

// Two builds of one destination at once take turns: the second waits for
// the first, says so, and both succeed.
func TestBuildsOfOneDestinationTakeTurns(t *testing.T) {
	dir := bigSite(t, 30)
	parent := t.TempDir()
	dest := filepath.Join(parent, "public")
	args := []string{"build", "-s", dir, "-d", dest, "--ignoreCache", "--cacheDir", filepath.Join(t.TempDir(), "cache")}
	first, firstOut := command(t, args...)
	time.Sleep(300 * time.Millisecond) // the first has the lock
	second, secondOut := command(t, args...)
	if err := first.Wait(); err != nil {
		t.Fatalf("first: %v\n%s", err, firstOut)
	}
	firstEnd := time.Now()
	if err := second.Wait(); err != nil {
		t.Fatalf("second: %v\n%s", err, secondOut)
	}
	if !strings.Contains(secondOut.String(), "waiting for another build of the destination") {
		t.Errorf("the second build did not wait:\n%s", secondOut)
	}
	if time.Since(firstEnd) < 200*time.Millisecond {
		t.Errorf("the second build ended %v after the first: it did not wait to start", time.Since(firstEnd))
	}
	wholeSite(t, dest, 30)
}
