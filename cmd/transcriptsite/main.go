// Command transcriptsite builds a static site from AI coding-agent sessions.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	transcriptsite "github.com/transcriptsite/transcriptsite"
	"github.com/transcriptsite/transcriptsite/ingest"
	_ "github.com/transcriptsite/transcriptsite/ingest/agents" // the agents whose sessions it reads
	"github.com/transcriptsite/transcriptsite/internal/heap"
	"github.com/transcriptsite/transcriptsite/internal/suggest"
	"github.com/transcriptsite/transcriptsite/render"
	"github.com/transcriptsite/transcriptsite/site"
	_ "github.com/transcriptsite/transcriptsite/site/outputs" // the outputs its sites have
	"github.com/transcriptsite/transcriptsite/site/server"
)

func main() {
	heap.Pace()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// The first signal ends the build cleanly; a second one, as
		// signals do by default, ends the program at once.
		<-ctx.Done()
		stop()
	}()
	if err := newRoot().ExecuteContext(ctx); err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			err = errors.New("interrupted: nothing was replaced")
		}
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "transcriptsite",
		Short: "Build a browsable, searchable static site from AI coding-agent sessions",
		Long: `transcriptsite reads the session logs that coding agents leave on disk
(Claude Code, Codex CLI, Gemini CLI and more), detects each file's format from
its content, and writes a static site with a page per session and per project.

Run "transcriptsite build" in a site directory (one with config.yaml and
content/), or anywhere to build the embedded demo site into public/.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionLine(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newBuild(), newServe(), newExport(), newShare(), newStats(), newVersion(), newFormats(), newPublish(), newNew())
	var prof profiling
	prof.register(root.PersistentFlags())
	root.PersistentPreRunE = prof.start
	root.PersistentPostRunE = prof.stop
	return root
}

// profiling is the hidden flags that profile a command, and the files
// they write to while it runs.
type profiling struct {
	cpu, mem, trace    string
	cpuFile, traceFile *os.File
}

func (p *profiling) register(fl *pflag.FlagSet) {
	fl.StringVar(&p.cpu, "profile-cpu", "", "write a CPU profile to this file")
	fl.StringVar(&p.mem, "profile-mem", "", "write a heap profile to this file when the command ends")
	fl.StringVar(&p.trace, "profile-trace", "", "write an execution trace (go tool trace) to this file")
	for _, f := range []string{"profile-cpu", "profile-mem", "profile-trace"} {
		_ = fl.MarkHidden(f)
	}
}

// start starts the trace and the CPU profile asked for. Without a heap
// profile to write, it stops the sampling of allocations that Go does for
// one by default: a stack walked for every 512 KB allocated, through the
// deep stacks of templates, was a hundredth of a build's instructions.
func (p *profiling) start(*cobra.Command, []string) error {
	if p.mem == "" {
		runtime.MemProfileRate = 0
	}
	if err := startInto(p.trace, &p.traceFile, trace.Start); err != nil {
		return err
	}
	return startInto(p.cpu, &p.cpuFile, pprof.StartCPUProfile)
}

// startInto creates the file at path into *f, when a path is given, and
// starts start writing to it.
func startInto(path string, f **os.File, start func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	var err error
	if *f, err = os.Create(path); err != nil {
		return err
	}
	return start(*f)
}

// stop ends what start started and writes the heap profile asked for.
func (p *profiling) stop(*cobra.Command, []string) error {
	if p.cpuFile != nil {
		pprof.StopCPUProfile()
		p.cpuFile.Close()
	}
	if p.traceFile != nil {
		trace.Stop()
		p.traceFile.Close()
	}
	return p.writeHeap()
}

func (p *profiling) writeHeap() error {
	if p.mem == "" {
		return nil
	}
	f, err := os.Create(p.mem)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.WriteHeapProfile(f)
}

// flagError adds to an unknown flag's error the flag meant, when the
// name is a slip of one, and where to see them all.
func flagError(c *cobra.Command, err error) error {
	typed, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return fmt.Errorf("%w\nRun '%s --help' for its flags", err, c.CommandPath())
	}
	if near := suggest.Closest(typed, visibleFlags(c)); near != "" {
		return fmt.Errorf("%w (did you mean --%s?)", err, near)
	}
	return fmt.Errorf("%w\nRun '%s --help' for its flags", err, c.CommandPath())
}

// visibleFlags are the names of the flags c takes that its help shows:
// its own, then those it inherits.
func visibleFlags(c *cobra.Command) []string {
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	c.Flags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	return names
}

// buildFlags are the flags that select and override a site's config, shared
// by every command that builds.
type buildFlags struct {
	source, config, contentDir, destination, baseURL, cacheDir string
	quiet, agents, ignoreCache, gc, strict                     bool
	redactions                                                 string
}

// registerRedactions adds --redactions to a command that builds once.
func (f *buildFlags) registerRedactions(c *cobra.Command) {
	c.Flags().StringVar(&f.redactions, "redactions", "", "write what was redacted where (session, message, kind; never the secret) to this file, outside the destination, to review before publishing")
}

// registerStrict adds --strict to a command that builds once.
func (f *buildFlags) registerStrict(c *cobra.Command) {
	c.Flags().BoolVar(&f.strict, "strict", false, "fail (exit 1) when a session file gave a warning, and list them")
}

func (f *buildFlags) register(c *cobra.Command) {
	f.registerLoad(c)
	fl := c.Flags()
	fl.StringVarP(&f.destination, "destination", "d", "", "folder to write the site to (default: public)")
	fl.StringVarP(&f.baseURL, "baseURL", "b", "", "URL the site is served from, e.g. https://user.github.io/repo/")
	fl.BoolVar(&f.gc, "gc", false, "remove build cache entries this build did not use")
}

// registerLoad adds the flags that say which sessions to read, and how:
// those of a command that reads sessions without writing a site.
func (f *buildFlags) registerLoad(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVarP(&f.source, "source", "s", "", "site directory: where config.yaml and content/ are (default: current directory)")
	fl.StringVar(&f.config, "config", "", "config file (default: config.yaml, .yml, .toml or .json in the site directory)")
	fl.StringVarP(&f.contentDir, "contentDir", "c", "", "folder of session files to read")
	// No backticks: pflag would show the quoted words as the flag's argument.
	fl.BoolVar(&f.agents, "agents", false, "also read every installed agent's session folders (see \"transcriptsite formats\")")
	fl.StringVar(&f.cacheDir, "cacheDir", "", "folder of the build cache (default: under the user cache dir)")
	fl.BoolVar(&f.ignoreCache, "ignoreCache", false, "rebuild everything: do not read the build cache")
	fl.BoolVar(&f.quiet, "quiet", false, "print nothing but errors")
}

// options turns the flags the user set into config overrides.
func (f *buildFlags) options(c *cobra.Command) site.Options {
	o := site.Options{Source: f.source, ConfigFile: f.config, Overrides: map[string]any{}}
	for _, key := range overriding {
		if c.Flags().Changed(key) {
			v, _ := c.Flags().GetString(key)
			o.Overrides[key] = overrideValue(key, v)
		}
	}
	if c.Flags().Changed("agents") {
		o.Overrides["agents"] = f.agents
	}
	return o
}

// overriding are the flags that override the config key of their name.
var overriding = []string{"contentDir", "destination", "baseURL", "cacheDir"}

// overrideValue is the config value of flag key set to v: paths given on
// the command line are relative to where it runs.
func overrideValue(key, v string) string {
	if key == "baseURL" {
		return v
	}
	abs, _ := filepath.Abs(v)
	return abs
}

func newBuild() *cobra.Command {
	var f buildFlags
	c := &cobra.Command{
		Use:   "build",
		Short: "Build the site",
		Long: `Build reads every session file under the content directory and writes the
site to the destination. Files it cannot read are reported as warnings with
their path and line; the build goes on and every good session gets its page.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, warns, err := site.LoadConfig(f.options(c))
			if err != nil {
				return err
			}
			_, err = f.build(c, cfg, warns)
			return err
		},
	}
	f.register(c)
	f.registerStrict(c)
	f.registerRedactions(c)
	return c
}

// build builds the site and reports what it did: warnings on stderr, the
// summary on stdout.
func (f *buildFlags) build(c *cobra.Command, cfg *site.Config, warns []string) (*site.Report, error) {
	stderr := f.stderr(c)
	warn(stderr, warns)
	b, err := site.NewBuilder(cfg, site.BuildOptions{IgnoreCache: f.ignoreCache, GC: f.gc, Redactions: f.redactions, Waiting: waiting(stderr)})
	if err != nil {
		return nil, err
	}
	rep, err := b.Build(c.Context())
	if err != nil {
		return nil, err
	}
	printWarnings(stderr, cfg, rep)
	f.summary(c.OutOrStdout(), rep)
	return rep, f.strictErr(cfg, rep)
}

// stderr is where warnings go: nowhere with --quiet.
func (f *buildFlags) stderr(c *cobra.Command) io.Writer {
	if f.quiet {
		return io.Discard
	}
	return c.ErrOrStderr()
}

// warn prints each of warns on a line of its own after WARN.
func warn[T any](w io.Writer, warns []T) {
	for _, x := range warns {
		fmt.Fprintln(w, "WARN", x)
	}
}

// summary prints what a build did, unless --quiet.
func (f *buildFlags) summary(out io.Writer, rep *site.Report) {
	if f.quiet {
		return
	}
	rep.Elapsed = time.Since(started)
	fmt.Fprintln(out, rep)
	if f.redactions != "" {
		fmt.Fprintln(out, "What was redacted, where:", f.redactions)
	}
}

// strictErr is the error of a build that gave warnings about session
// files, with --strict.
func (f *buildFlags) strictErr(cfg *site.Config, rep *site.Report) error {
	if !f.strict || len(rep.Warnings) == 0 {
		return nil
	}
	var list strings.Builder
	for _, w := range rep.Warnings {
		list.WriteString("\n  " + warningPath(cfg, w))
	}
	return fmt.Errorf("--strict: %s about session files:%s", render.Plural(len(rep.Warnings), "warning"), list.String())
}

// waiting says that a build waits for another to end.
func waiting(w io.Writer) func(string) {
	return func(what string) { fmt.Fprintf(w, "waiting for another build of the %s to end\n", what) }
}

// warningPath names the file of a warning as the user can open it.
func warningPath(cfg *site.Config, w ingest.Warning) string {
	w.File = cfg.DiskPath(w.File)
	if wd, err := os.Getwd(); err == nil && filepath.IsAbs(w.File) {
		if r, err := filepath.Rel(wd, w.File); err == nil && len(r) < len(w.File) {
			w.File = r
		}
	}
	return w.String()
}

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(c *cobra.Command, _ []string) {
			fmt.Fprintln(c.OutOrStdout(), versionLine())
		},
	}
}

// versionLine is what version and --version print.
func versionLine() string {
	return fmt.Sprintf("transcriptsite %s %s/%s %s", transcriptsite.Version, runtime.GOOS, runtime.GOARCH, runtime.Version())
}

func newFormats() *cobra.Command {
	return &cobra.Command{
		Use:   "formats",
		Short: "List the session formats transcriptsite reads, and where agents keep them here",
		Long: `Formats lists every reader: its format name, the files it reads, and how it
recognises them from their content. Then it lists the folders where installed
agents keep their sessions on this machine: "build --agents" reads those that
exist (config key agentDirs moves them).`,
		Args: cobra.NoArgs,
		Run: func(c *cobra.Command, _ []string) {
			out := c.OutOrStdout()
			printFormats(out, termWidth(out))
			printAgentDirs(out)
		},
	}
}

// printFormats lists every reader. A format read by several readers
// (SpecStory's JSON and its Markdown) is listed once, with what each reads.
func printFormats(out io.Writer, width int) {
	done := map[string]bool{}
	for _, r := range ingest.Readers {
		if !done[r.Name] {
			done[r.Name] = true
			printFormat(out, r, width)
		}
	}
}

// printFormat lists what each reader of r's format reads and detects.
func printFormat(out io.Writer, r *ingest.Reader, width int) {
	fmt.Fprintf(out, "%s (%s)\n", r.Name, r.Agent)
	for _, same := range ingest.Readers {
		if same.Name == r.Name {
			fmt.Fprint(out, wrap("  reads:    ", same.Files, width))
			fmt.Fprint(out, wrap("  detects:  ", same.Detects, width))
		}
	}
}

// printAgentDirs lists the folders where installed agents keep their
// sessions on this machine.
func printAgentDirs(out io.Writer) {
	fmt.Fprintln(out, "\nAgent session folders on this machine (build --agents):")
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	home, _ := os.UserHomeDir()
	for _, l := range ingest.AgentLocations(home, os.Getenv) {
		fmt.Fprintf(w, "%s\t%s\t%s\n", l.Format, l.Dir, countFiles(l.Dir))
	}
	w.Flush()
}

// termWidth is the width of the terminal out writes to, or 80 when it is
// not one.
func termWidth(out io.Writer) int {
	if f, ok := out.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 40 {
			return w
		}
	}
	return 80
}

// wrap writes text after label, in lines no wider than width, each line
// after the first indented as far as the label.
func wrap(label, text string, width int) string {
	var b strings.Builder
	b.WriteString(label)
	indent := strings.Repeat(" ", len(label))
	col := len(label)
	for i, word := range strings.Fields(text) {
		n := utf8.RuneCountInString(word)
		if i > 0 && col+1+n > width {
			b.WriteString("\n" + indent)
			col = len(indent)
		} else if i > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
	}
	b.WriteByte('\n')
	return b.String()
}

// countFiles says how many files are under dir, or that it does not exist.
func countFiles(dir string) string {
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "not found"
	case err != nil:
		return err.Error()
	}
	return render.Plural(n, "file")
}

func newServe() *cobra.Command {
	var (
		f                 buildFlags
		port              int
		bind              string
		disableLiveReload bool
		o                 server.Options
	)
	c := &cobra.Command{
		Use:     "serve",
		Aliases: []string{"server"},
		Short:   "Serve the site, rebuilding it as sessions, templates and config change",
		Long: `Serve builds the site into memory and serves it at http://localhost:1313/.
It watches the content, the site's templates and assets and its config, rebuilds
what changed, and reloads open pages (a stylesheet change applies in place). A
build that fails keeps the last good site and shows the error on the page.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ln, err := net.Listen("tcp", net.JoinHostPort(bind, strconv.Itoa(port)))
			if errors.Is(err, syscall.EADDRINUSE) {
				return fmt.Errorf("port %d is in use (another serve?): pick another with --port N, or --port 0 for a free one", port)
			}
			if err != nil {
				return err
			}
			defer ln.Close()
			o.Site = f.options(c)
			if !c.Flags().Changed("baseURL") {
				o.Site.Overrides["baseURL"] = fmt.Sprintf("http://localhost:%d/", ln.Addr().(*net.TCPAddr).Port)
			}
			errOut := c.ErrOrStderr()
			o.Build = site.BuildOptions{IgnoreCache: f.ignoreCache, Waiting: waiting(errOut)}
			o.Out, o.Err, o.Quiet, o.Warning = c.OutOrStdout(), errOut, f.quiet, warningPath
			o.LiveReload = !disableLiveReload
			return server.Serve(c.Context(), ln, o)
		},
	}
	f.register(c)
	_ = c.Flags().MarkHidden("destination") // serve keeps the site in memory: it writes no folder
	c.Flags().IntVarP(&port, "port", "p", 1313, "port to listen on (0 picks a free one)")
	c.Flags().StringVar(&bind, "bind", "127.0.0.1", "interface to listen on")
	c.Flags().BoolVar(&disableLiveReload, "disableLiveReload", false, "do not reload pages when the site changes")
	c.Flags().BoolVarP(&o.OpenBrowser, "openBrowser", "O", false, "open the site in the browser ($BROWSER, or the system's) once it is built")
	c.Flags().BoolVarP(&o.NavigateToChanged, "navigateToChanged", "N", false, "when a session file changes, take open pages to that session's page")
	return c
}
