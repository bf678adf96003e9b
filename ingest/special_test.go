//go:build unix

package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/ingest"
)

// Only regular files are read, links resolved: a named pipe with no
// writer, or a link to one, blocked the build forever, and a link to
// /dev/zero or /dev/urandom never ended (the hash read it to its end).
// Each is a warning now, and the sessions beside them are read.
func TestSpecialFilesAreSkipped(t *testing.T) {
	dir := t.TempDir()
	claude := `{"parentUuid":null,"sessionId":"s1","type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "good.jsonl"), []byte(claude), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"to-pipe.jsonl": fifo, "zero.jsonl": "/dev/zero", "random.jsonl": "/dev/urandom", "folder.jsonl": dir} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, opts := range []ingest.Options{{}, {Cache: &memCache{}}} { // with a cache, every file is hashed first
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		done := make(chan *ingest.Result, 1)
		go func() {
			res, err := ingest.LoadCached(ctx, opts, ingest.Root{FS: os.DirFS(dir)})
			if err != nil {
				t.Error(err)
			}
			done <- res
		}()
		var res *ingest.Result
		select {
		case res = <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("Load still reading after 30 s") // it hangs: the goroutine stays blocked
		}
		cancel()
		if res == nil {
			continue
		}
		if len(res.Sessions) != 1 {
			t.Errorf("%d sessions, want the one of good.jsonl", len(res.Sessions))
		}
		var got []string
		for _, w := range res.Warnings {
			got = append(got, w.String())
		}
		all := strings.Join(got, "\n")
		for _, want := range []string{
			"pipe.jsonl: skipped: a named pipe, not a regular file",
			"to-pipe.jsonl: skipped: a named pipe, not a regular file",
			"zero.jsonl: skipped: a device, not a regular file",
			"random.jsonl: skipped: a device, not a regular file",
			"folder.jsonl: skipped: a link to a folder, not a regular file",
		} {
			if !strings.Contains(all, want) {
				t.Errorf("no warning %q in:\n%s", want, all)
			}
		}
	}
}

// A read ends when the build is cancelled, whatever the file: hashing a
// terabyte of zeros (a sparse file) took minutes and ignored Ctrl-C.
func TestReadEndsOnCancel(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "huge.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil {
		t.Skip("no sparse files here:", err)
	}
	f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := ingest.LoadCached(ctx, ingest.Options{Cache: &memCache{}}, ingest.Root{FS: os.DirFS(dir)})
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a cancelled load gave no error")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Load did not end within 20 s of being cancelled")
	}
}

// A folder whose name is not UTF-8 (an older system's encoding) is read
// like any other: os.DirFS refused its path and its sessions were lost.
// Its name, and control characters in a file's name, reach the terminal
// escaped in warnings, never raw.
func TestOddNames(t *testing.T) {
	dir := t.TempDir()
	claude := `{"parentUuid":null,"sessionId":"s1","type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}` + "\n"
	latin1 := filepath.Join(dir, "caf\xe9")
	if err := os.Mkdir(latin1, 0o755); err != nil {
		t.Skip("this file system takes only UTF-8 names:", err)
	}
	for p, data := range map[string]string{
		filepath.Join(latin1, "s.jsonl"):             claude,
		filepath.Join(latin1, "bad\xff.jsonl"):       "not a session\n",
		filepath.Join(dir, "a\x1b[31mred\x07.jsonl"): "not a session\n",
	} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := ingest.Load(context.Background(), ingest.Root{FS: ingest.DirFS(dir)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 1 || res.Sessions[0].Source != "caf\xe9/s.jsonl" {
		t.Errorf("sessions: %v", res.Sessions)
	}
	var got []string
	for _, w := range res.Warnings {
		got = append(got, w.String())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{`caf\xe9/bad\xff.jsonl: not a session file`, `a\x1b[31mred\a.jsonl: not a session file`} {
		if !strings.Contains(all, want) {
			t.Errorf("no warning %q in:\n%s", want, all)
		}
	}
	if strings.ContainsAny(all, "\x1b\x07\xe9\xff") {
		t.Errorf("raw bytes in the warnings: %q", all)
	}
	for _, bad := range []string{"..", "a/../b", "/etc", ""} {
		if _, err := ingest.DirFS(dir).Open(bad); err == nil {
			t.Errorf("DirFS opened %q", bad)
		}
	}
}
