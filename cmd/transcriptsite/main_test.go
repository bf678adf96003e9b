package main

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"go.yaml.in/yaml/v3"

	transcriptsite "github.com/transcriptsite/transcriptsite"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"transcriptsite":       main,
		"workflow-permissions": workflowPermissions,
		"badfiles":             badFiles,
	})
}

// TestScripts runs the CLI scripts in testdata/script: each runs commands
// and checks their output and the files they write.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script"})
}

// workflowPermissions prints the permissions a GitHub Actions workflow
// grants, at the top and in each job, one line each.
func workflowPermissions() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var wf struct {
		Permissions map[string]string
		Jobs        map[string]struct{ Permissions map[string]string }
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	show := func(p map[string]string) string {
		if len(p) == 0 {
			return "none"
		}
		var out []string
		for _, k := range slices.Sorted(maps.Keys(p)) {
			out = append(out, k+": "+p[k])
		}
		return strings.Join(out, ", ")
	}
	fmt.Println("top:", show(wf.Permissions))
	for _, j := range slices.Sorted(maps.Keys(wf.Jobs)) {
		fmt.Printf("%s: %s\n", j, show(wf.Jobs[j].Permissions))
	}
}

// badFiles writes hostile session files into the folder os.Args[1]: each
// good Claude Code session (its id named after the file) with a bad line
// after its first, and files that are no session at all.
func badFiles() {
	dir := os.Args[1]
	good := func(id string) string {
		return `{"parentUuid":null,"sessionId":"` + id + `","type":"user","message":{"role":"user","content":"hello from ` + id + `"},"uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}` + "\n"
	}
	files := map[string]string{
		"empty.jsonl":     "",
		"binary.jsonl":    "\x00\x01\x02\xff\xfe PK\x03\x04" + strings.Repeat("\x00\x9c", 5000),
		"utf8.jsonl":      good("utf8") + `{"parentUuid":"u1","sessionId":"utf8","type":"user","message":{"role":"user","content":"bad ` + "\xff\xfe" + ` bytes"},"uuid":"u2","timestamp":"2026-01-01T00:00:01Z"}` + "\n",
		"deep.jsonl":      good("deep") + `{"type":"user","x":` + strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + "}\n",
		"truncated.jsonl": good("truncated") + `{"parentUuid":"u1","sessionId":"truncated","type":"assist`,
		"unknown.jsonl":   good("unknown") + `{"type":"hologram","sessionId":"unknown","uuid":"u9","timestamp":"2026-01-01T00:00:02Z"}` + "\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	// A 300 MB line, past the longest a reader takes, written as it goes.
	f, err := os.Create(filepath.Join(dir, "huge.jsonl"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w := bufio.NewWriter(f)
	w.WriteString(good("huge") + `{"type":"user","x":"`)
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for range 300 {
		w.Write(chunk)
	}
	w.WriteString("\"}\n" + strings.Replace(good("huge"), `"u1"`, `"u3"`, 1))
	if err := w.Flush(); err != nil || f.Close() != nil {
		fmt.Fprintln(os.Stderr, "huge.jsonl:", err)
		os.Exit(1)
	}
}

// TestPinnedRelease checks which release a new site's workflow installs:
// the one that wrote it, or the first when a build is no release.
func TestPinnedRelease(t *testing.T) {
	defer func(v string) { transcriptsite.Version = v }(transcriptsite.Version)
	for v, want := range map[string]string{"1.2.3": "v1.2.3", "v0.4.0": "v0.4.0", "dev": firstRelease, "0.1.1-next": firstRelease, "": firstRelease} {
		transcriptsite.Version = v
		if got := pinnedRelease(); got != want {
			t.Errorf("version %q pins %q, want %q", v, got, want)
		}
	}
}
