// Command gensessions writes a corpus of synthetic agent sessions for
// benchmarks, in the agents' own layouts, and prints what it wrote:
//
//	go run ./cmd/gensessions -out /tmp/s1k -n 1000 -images
//	go run ./cmd/gensessions -out /tmp/s500mb -n 1 -messages 88000
//
// Sessions take turns over -formats; -messages is an average that each
// session varies by up to ±50%, one session too. The same flags give the
// same bytes. Build a site from the output with
// transcriptsite build --contentDir DIR.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/transcriptsite/transcriptsite/internal/synth"
)

func main() {
	var o synth.Options
	out := flag.String("out", "", "directory to write the sessions into (should be empty)")
	formats := flag.String("formats", "claude-code", "comma-separated formats: claude-code, codex, gemini-cli")
	flag.IntVar(&o.Sessions, "n", 100, "number of sessions")
	flag.IntVar(&o.Messages, "messages", 60, "average messages per session (each varies ±50%)")
	flag.Int64Var(&o.Seed, "seed", 1, "random seed: the same flags give the same bytes")
	flag.IntVar(&o.Projects, "projects", 0, "number of projects (default: one per 10 sessions)")
	flag.IntVar(&o.OutputLines, "output-lines", 300, "lines of a typical long tool output")
	flag.BoolVar(&o.Images, "images", false, "include small PNG images")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gensessions -out DIR [-n SESSIONS] [-messages M] [-seed S] [-formats LIST] [-projects P] [-output-lines N] [-images]")
		os.Exit(2)
	}
	o.Formats = strings.Split(*formats, ",")
	start := time.Now()
	st, err := synth.Generate(*out, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gensessions:", err)
		os.Exit(1)
	}
	d := time.Since(start)
	fmt.Printf("%s in %.2fs (%.0f MB/s)\n", st, d.Seconds(), float64(st.Bytes)/1e6/d.Seconds())
}
