// Package synth generates realistic synthetic agent sessions at any scale,
// for benchmarks of the build, the search index and the page size, the way
// Hugo benchmarks generated sites.
//
// Sessions are written in the agents' own on-disk layouts and record shapes
// (see shared/reference/formats.md), with a vocabulary of tens of thousands
// of made-up word forms drawn with a Zipf distribution, code in several
// languages, tool calls of every kind with their results, long outputs and
// small PNG images. The same Options give byte-identical files: every
// session draws from its own PCG stream, seeded from Seed and its index, so
// sessions can be written in parallel.
package synth

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options say what to generate. Zero values take the defaults.
type Options struct {
	Sessions int // sessions in all; formats take turns (default 10)
	// Messages is the average number of messages per session, as the
	// transcript model counts them for Claude Code (prompts, assistant
	// responses, tool results, system events). Each session has between
	// half and one and a half times as many (default 60, at least 2).
	Messages    int
	Seed        int64
	Formats     []string // "claude-code", "codex", "gemini-cli" (default claude-code)
	Projects    int      // working directories sessions are spread over (default Sessions/10, at least 1)
	OutputLines int      // lines of a typical long tool output (default 300)
	Images      bool     // paste small PNG screenshots into prompts and read PNG files
}

// newWriter makes a session's writer and names its file, by format:
// claude/projects/<encoded cwd>/<session id>.jsonl,
// codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid v7>.jsonl and
// gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl.
var newWriter = map[string]func(g *gen) (writer, string){
	"claude-code": newClaude,
	"codex":       newCodex,
	"gemini-cli":  newGemini,
}

// Stats count what Generate wrote.
type Stats struct {
	Files     int
	Sessions  int
	Messages  int
	ToolCalls int
	Images    int
	Records   int // JSONL lines
	Bytes     int64
}

func (s *Stats) add(o Stats) {
	s.Files += o.Files
	s.Sessions += o.Sessions
	s.Messages += o.Messages
	s.ToolCalls += o.ToolCalls
	s.Images += o.Images
	s.Records += o.Records
	s.Bytes += o.Bytes
}

func (s Stats) String() string {
	return fmt.Sprintf("files=%d sessions=%d messages=%d tool_calls=%d images=%d records=%d bytes=%d (%.1f MB)",
		s.Files, s.Sessions, s.Messages, s.ToolCalls, s.Images, s.Records, s.Bytes, float64(s.Bytes)/1e6)
}

func (o *Options) defaults() error {
	if o.Sessions <= 0 {
		o.Sessions = 10
	}
	if o.Messages <= 0 {
		o.Messages = 60
	}
	if len(o.Formats) == 0 {
		o.Formats = []string{"claude-code"}
	}
	for _, f := range o.Formats {
		if newWriter[f] == nil {
			known := make([]string, 0, len(newWriter))
			for k := range newWriter {
				known = append(known, k)
			}
			sort.Strings(known)
			return fmt.Errorf("unknown format %q: use one of %s", f, strings.Join(known, ", "))
		}
	}
	o.Formats = slices.Clone(o.Formats)
	if o.Projects <= 0 {
		o.Projects = max(1, o.Sessions/10)
	}
	if o.OutputLines <= 0 {
		o.OutputLines = 300
	}
	return nil
}

// epoch is when the generated history begins; sessions start within the
// following eight months.
var epoch = time.Date(2025, 9, 1, 7, 0, 0, 0, time.UTC).UnixMilli()

// Generate writes the sessions under dir, which should be empty, in
// parallel, and reports what it wrote. Each session is streamed to its file
// record by record.
func Generate(dir string, opts Options) (Stats, error) {
	if err := opts.defaults(); err != nil {
		return Stats{}, err
	}
	projects := newProjects(opts.Seed, opts.Projects)
	var (
		mu     sync.Mutex
		total  Stats
		failed error
		next   atomic.Int64
		stop   atomic.Bool
		wg     sync.WaitGroup
	)
	for range min(runtime.GOMAXPROCS(0), opts.Sessions) {
		wg.Go(func() {
			var st Stats
			var err error
			for !stop.Load() {
				i := int(next.Add(1) - 1)
				if i >= opts.Sessions {
					break
				}
				if err = writeSession(dir, &opts, projects, i, &st); err != nil {
					stop.Store(true)
					break
				}
			}
			mu.Lock()
			total.add(st)
			if failed == nil {
				failed = err
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	return total, failed
}

// countWriter counts the bytes that reach the file.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeSession writes session i.
func writeSession(dir string, o *Options, projects []*project, i int, st *Stats) error {
	r := rand.New(rand.NewPCG(uint64(o.Seed), uint64(i)))
	g := &gen{r: r, opts: o, st: st}
	g.zipf = rand.NewZipf(r, 1.1, 2, uint64(len(vocabulary)-1))
	x := r.Float64() // a few projects have most sessions
	g.proj = projects[int(x*x*float64(len(projects)))]
	for range 6 {
		g.topic = append(g.topic, vocabulary[len(common)+r.IntN(20000)])
	}
	g.now = epoch + r.Int64N(240*24*3600*1000)
	n := max(2, int(math.Round(float64(o.Messages)*(0.5+r.Float64()))))

	w, rel := newWriter[o.Formats[i%len(o.Formats)]](g)
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	cw := &countWriter{w: f}
	bw := bufio.NewWriterSize(cw, 256<<10)
	w.setOutput(bw)
	g.session(w, n)
	err = bw.Flush()
	if e := f.Close(); err == nil {
		err = e
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	st.Files++
	st.Sessions++
	st.Messages += n
	st.Bytes += cw.n
	return nil
}
