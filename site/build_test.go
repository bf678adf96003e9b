package site

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/transcriptsite/transcriptsite/cache"
	"github.com/transcriptsite/transcriptsite/internal/treetest"
	"github.com/transcriptsite/transcriptsite/sass"
)

var update = flag.Bool("update", false, "rewrite golden files")

func build(t *testing.T, dir string, overrides map[string]any) (*Config, *Report, error) {
	t.Helper()
	cfg, _, err := LoadConfig(Options{Source: dir, Overrides: overrides})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(context.Background(), cfg)
	return cfg, rep, err
}

func readSessions(t *testing.T, dest string) []SessionEntry {
	t.Helper()
	var list []SessionEntry
	data, err := os.ReadFile(filepath.Join(dest, "sessions.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	return list
}

func TestBuildSite(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	cfg, rep, err := build(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 5 || rep.Files != 6 || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0].String(), "notes.txt") {
		t.Errorf("report %s, warnings %v", rep, rep.Warnings)
	}
	list := readSessions(t, cfg.Destination)
	byID := checkEntries(t, cfg.Destination, list)
	// Newest first.
	if list[0].ID != "22222222-bbbb-4000-8000-000000000002" {
		t.Errorf("first session is %s, want the newest", list[0].ID)
	}
	one := byID["11111111-aaaa-4000-8000-000000000001"][0]
	if one.URL != "sessions/alpha/2026-05-01-parser-script-alert-1-script-walkthrough-11111111/" ||
		one.Format != "claude-code" || one.Source != "alpha/one.jsonl" || one.Messages != 3 || one.ToolCalls != 1 ||
		one.Project != "alpha" || len(one.Models) != 1 {
		t.Errorf("session entry %+v", one)
	}
	if d := byID["33333333-cccc-4000-8000-000000000003"]; len(d) != 2 || d[0].URL == d[1].URL {
		t.Errorf("same id in two files: %+v", d)
	}

	checkHostilePage(t, readFile(t, cfg.Destination, one.URL+"index.html"))
	// The lists and the charts show the hostile title as text.
	for _, f := range []string{"index.html", "stats/index.html", "projects/alpha/index.html"} {
		if p := readFile(t, cfg.Destination, f); strings.Contains(p, "<script>alert") || !strings.Contains(p, "Parser &lt;script&gt;alert(1)&lt;/script&gt; walkthrough") {
			t.Errorf("%s does not show the title escaped", f)
		}
	}
	checkLinks(t, cfg.Destination, "")
	checkInside(t, cfg.Destination)
}

// checkEntries checks the entries of sessions.json: each URL its own, a
// safe path, with a page; and returns them by session id.
func checkEntries(t *testing.T, dest string, list []SessionEntry) map[string][]SessionEntry {
	t.Helper()
	byID := map[string][]SessionEntry{}
	urls := map[string]bool{}
	for _, e := range list {
		byID[e.ID] = append(byID[e.ID], e)
		if urls[e.URL] {
			t.Errorf("two sessions share %s", e.URL)
		}
		urls[e.URL] = true
		if !regexp.MustCompile(`^sessions/[a-z0-9-]+/[a-z0-9-]+/$`).MatchString(e.URL) {
			t.Errorf("url %q is not a safe slug path", e.URL)
		}
		if _, err := os.Stat(filepath.Join(dest, e.URL, "index.html")); err != nil {
			t.Errorf("no page for %s: %v", e.ID, err)
		}
	}
	return byID
}

// checkHostilePage checks the page of the session of site.txtar whose
// strings are hostile: they show as text, and only the site's own
// stylesheet and scripts are linked.
func checkHostilePage(t *testing.T, page string) {
	t.Helper()
	for _, want := range []string{
		`<h1>Parser &lt;script&gt;alert(1)&lt;/script&gt; walkthrough</h1>`,
		`id="m-1"`, `href="#m-2"`, `Explain the &lt;b&gt;parser&lt;/b&gt; please`,
		`&lt;img src=x onerror=alert(1)&gt;`, `<span class="kd">func</span>`,
		`<details class="thinking">`, `<details class="tool tool-shell is-error" open>`,
		`<pre class="output">total 0` + "\n" + `<span class="ansi-fg1">red</span></pre>`,
		`href="../../../projects/alpha/index.html"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("session page lacks %q", want)
		}
	}
	if !regexp.MustCompile(`<link rel="stylesheet" href="\.\./\.\./\.\./css/theme\.[0-9a-f]{10}\.css">`).MatchString(page) {
		t.Error("the stylesheet is not linked by its fingerprinted name")
	}
	for _, tag := range regexp.MustCompile(`<script[^>]*>`).FindAllString(page, -1) {
		if !regexp.MustCompile(` src="[./]*js/[a-z]+\.[0-9a-f]{10}\.js"`).MatchString(tag) {
			t.Errorf("script that is not one of the site's files: %s", tag)
		}
	}
	for _, bad := range []string{"<script>", "<img src=x", "\x1b["} {
		if strings.Contains(page, bad) {
			t.Errorf("session page contains %q", bad)
		}
	}
}

func TestBuildUnderSubpath(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	cfg, _, err := build(t, dir, map[string]any{"baseURL": "https://user.github.io/repo"})
	if err != nil {
		t.Fatal(err)
	}
	home := readFile(t, cfg.Destination, "index.html")
	for _, want := range []string{`href="/repo/css/theme.`, `href="/repo/sessions/alpha/`, `<link rel="canonical" href="https://user.github.io/repo/">`} {
		if !strings.Contains(home, want) {
			t.Errorf("home page lacks %q", want)
		}
	}
	if nf := readFile(t, cfg.Destination, "404.html"); !strings.Contains(nf, `href="/repo/index.html"`) && !strings.Contains(nf, `href="/repo/"`) {
		t.Error("404 page does not link home under the subpath")
	}
	if sm := readFile(t, cfg.Destination, "sitemap.xml"); !strings.Contains(sm, "<loc>https://user.github.io/repo/sessions/alpha/2026-05-02-second-alpha-session-22222222/</loc>") {
		t.Errorf("sitemap:\n%s", sm)
	}
	checkLinks(t, cfg.Destination, "/repo/")
}

// checkLinks follows every href and src of every page and fails on one
// that does not lead to a file of the site. base is the site's path on its
// host, or "" for a portable site with relative links.
func checkLinks(t *testing.T, dest, base string) {
	t.Helper()
	attr := regexp.MustCompile(`(?:href|src)="([^"]*)"`)
	n := 0
	_ = filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		rel, _ := filepath.Rel(dest, p)
		data, _ := os.ReadFile(p)
		for _, m := range attr.FindAllStringSubmatch(string(data), -1) {
			link := strings.ReplaceAll(m[1], "&amp;", "&")
			u, err := url.Parse(link)
			if err != nil || u.Scheme != "" || u.Host != "" || u.Path == "" {
				continue // external, or an anchor on the same page
			}
			var target string
			if strings.HasPrefix(u.Path, "/") {
				if base == "" || !strings.HasPrefix(u.Path, base) {
					t.Errorf("%s: link %q leaves the site's base path %q", rel, link, base)
					continue
				}
				target = strings.TrimPrefix(u.Path, base)
			} else {
				if rel == "404.html" && base != "" {
					t.Errorf("404.html: relative link %q breaks at other paths", link)
				}
				target = path.Join(path.Dir(filepath.ToSlash(rel)), u.Path)
			}
			if target == "" || strings.HasSuffix(target, "/") || !strings.Contains(path.Base(target), ".") {
				target = path.Join(target, "index.html")
			}
			if _, err := os.Stat(filepath.Join(dest, filepath.FromSlash(target))); err != nil {
				t.Errorf("%s: broken link %q", rel, link)
			}
			n++
		}
		return nil
	})
	if n < 20 {
		t.Errorf("checked only %d links", n)
	}
}

// checkInside fails if anything was written outside dest's parent's new site.
func checkInside(t *testing.T, dest string) {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Dir(dest))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".public.tmp") {
			t.Errorf("temporary dir %s left behind", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dest), "etc")); err == nil {
		t.Error("a hostile id wrote outside the site")
	}
}

func readFile(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBuildIsDeterministic(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	cfg, _, err := build(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := treetest.Tree(t, cfg.Destination)
	if _, _, err := build(t, dir, nil); err != nil {
		t.Fatal(err)
	}
	second := treetest.Tree(t, cfg.Destination)
	if len(first) != len(second) || len(first) < 10 {
		t.Fatalf("%d files, then %d", len(first), len(second))
	}
	for name, data := range first {
		if !bytes.Equal(data, second[name]) {
			t.Errorf("%s differs between two builds of the same input", name)
		}
	}
}

func TestFailedBuildKeepsTheOldSite(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	cfg, _, err := build(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := treetest.Tree(t, cfg.Destination)
	// A site template that fails when executed.
	tpl := filepath.Join(dir, "templates", "session.html")
	_ = os.MkdirAll(filepath.Dir(tpl), 0o755)
	_ = os.WriteFile(tpl, []byte(`{{define "main"}}{{.Session.NoSuchField}}{{end}}`), 0o644)
	_, _, err = build(t, dir, nil)
	if err == nil || !strings.Contains(err.Error(), "NoSuchField") {
		t.Fatalf("err = %v, want the template error", err)
	}
	after := treetest.Tree(t, cfg.Destination)
	if len(after) != len(before) {
		t.Errorf("the old site changed: %d files, then %d", len(before), len(after))
	}
	checkInside(t, cfg.Destination)
}

func TestSiteTemplatesOverrideTheTheme(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	p := filepath.Join(dir, "templates", "partials", "header.html")
	_ = os.MkdirAll(filepath.Dir(p), 0o755)
	_ = os.WriteFile(p, []byte(`<header>custom header for {{.Site.Config.Title}}</header>`), 0o644)
	cfg, _, err := build(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if home := readFile(t, cfg.Destination, "index.html"); !strings.Contains(home, "custom header for Test &lt;site&gt;") {
		t.Error("the site's partial did not replace the theme's")
	}
}

func TestRefusesForeignDestination(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	dest := filepath.Join(dir, "mine")
	_ = os.MkdirAll(dest, 0o755)
	_ = os.WriteFile(filepath.Join(dest, "thesis.tex"), []byte("precious"), 0o644)
	_, _, err := build(t, dir, map[string]any{"destination": dest})
	if err == nil || !strings.Contains(err.Error(), "did not build it") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dest, "thesis.tex")); err != nil {
		t.Error("a foreign file was removed")
	}
	_, _, err = build(t, dir, map[string]any{"destination": dir})
	if err == nil || !strings.Contains(err.Error(), "would contain") {
		t.Errorf("building into the site dir: err = %v", err)
	}
	// Inside the content folder, the next build would read the site.
	for _, dest := range []string{filepath.Join(dir, "content"), filepath.Join(dir, "content", "public"), filepath.Join(dir, "content", "alpha", "out")} {
		if _, _, err := build(t, dir, map[string]any{"destination": dest}); err == nil {
			t.Errorf("building into %s was accepted", dest)
		}
		if _, err := os.Stat(filepath.Join(dest, "sessions.json")); err == nil {
			t.Errorf("a site was written into %s", dest)
		}
	}
}

func TestGoldenSessionPage(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	cfg, _, err := build(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := readFile(t, cfg.Destination, "sessions/alpha/2026-05-01-parser-script-alert-1-script-walkthrough-11111111/index.html")
	// Asset fingerprints change with every style edit; the page structure is what is checked.
	got = regexp.MustCompile(`\.[0-9a-f]{10}\.(css|js)"`).ReplaceAllString(got, `.HASH.$1"`)
	golden := filepath.Join("testdata", "golden", "session.html")
	if *update {
		_ = os.MkdirAll(filepath.Dir(golden), 0o755)
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./site -run Golden -update)", err)
	}
	if got != string(want) {
		t.Errorf("session page differs from %s; if the change is intended, run go test ./site -run Golden -update\n%s", golden, firstDiff(string(want), got))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n- " + al[i] + "\n+ " + bl[i]
		}
	}
	return "lengths differ"
}

func themeCSS(t *testing.T, dest string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dest, "css", "theme.*.css"))
	if len(m) != 1 {
		t.Fatalf("theme css files: %v", m)
	}
	b, _ := os.ReadFile(m[0])
	return string(b)
}

func TestThemeVariablesNeedDartSass(t *testing.T) {
	dir := treetest.Extract(t, "testdata/site.txtar")
	params := map[string]any{"params": map[string]any{"accent": "#ff6600", "maxWidth": "60rem"}}

	// Without Dart Sass: the precompiled CSS, and one notice that says what to install.
	t.Setenv("TRANSCRIPTSITE_SASS", "/no/dart/sass/here")
	cfg, rep, err := build(t, dir, params)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Notices) != 1 || !strings.Contains(rep.Notices[0], "$accent") || !strings.Contains(rep.Notices[0], "npm install sass-embedded-linux-x64") {
		t.Errorf("notices = %q", rep.Notices)
	}
	if css := themeCSS(t, cfg.Destination); strings.Contains(css, "#ff6600") || !strings.Contains(css, "--accent: #0969da") {
		t.Error("without Dart Sass the default CSS must be used")
	}
	// Without theme variables there is nothing to say.
	if _, rep, _ := build(t, dir, nil); len(rep.Notices) != 0 {
		t.Errorf("notices without variables: %q", rep.Notices)
	}
	// Nor when the site's SCSS is a copy of the theme's (a clone of this
	// repository), but there is when one of its files differs.
	files, _ := filepath.Glob("../assets/scss/*.scss")
	own := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		own["assets/scss/"+filepath.Base(f)] = data
	}
	treetest.WriteTree(t, dir, own)
	if _, rep, _ := build(t, dir, nil); len(files) == 0 || len(rep.Notices) != 0 {
		t.Errorf("notices with a copy of the theme's %d SCSS files: %q", len(files), rep.Notices)
	}
	treetest.WriteTree(t, dir, map[string][]byte{"assets/scss/_variables.scss": append(own["assets/scss/_variables.scss"], "\n$extra: 1px;\n"...)})
	if _, rep, _ := build(t, dir, nil); len(rep.Notices) != 1 || !strings.Contains(rep.Notices[0], "its own assets/scss") {
		t.Errorf("notices with an edited SCSS file: %q", rep.Notices)
	}
	if err := os.RemoveAll(filepath.Join(dir, "assets", "scss")); err != nil {
		t.Fatal(err)
	}
	// A value that is not a colour is refused, naming the key.
	if _, _, err := build(t, dir, map[string]any{"params": map[string]any{"accent": "red} body{display:none"}}); err == nil || !strings.Contains(err.Error(), "params.accent") {
		t.Errorf("err = %v", err)
	}

	t.Setenv("TRANSCRIPTSITE_SASS", "")
	bin, err := sassBinary()
	if err != nil {
		skip(t, "no Dart Sass for the rest: "+err.Error())
	}
	t.Setenv("TRANSCRIPTSITE_SASS", bin)
	cfg, rep, err = build(t, dir, params)
	if err != nil {
		t.Fatal(err)
	}
	css := themeCSS(t, cfg.Destination)
	if len(rep.Notices) != 0 || !strings.Contains(css, "--accent: #ff6600") || !strings.Contains(css, "max-width:60rem") {
		t.Errorf("notices %q; the accent or max width is not in the compiled CSS", rep.Notices)
	}
}

// sassBinary finds Dart Sass as a build would from this package.
func sassBinary() (string, error) {
	wd, _ := os.Getwd()
	return sass.Find("", wd, filepath.Dir(wd))
}

func TestHugeOutputGoesToAFile(t *testing.T) {
	dir := t.TempDir()
	var out strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&out, "row %d \x1b[32mok\x1b[0m\n", i)
	}
	output, _ := json.Marshal(out.String())
	session := `{"parentUuid":null,"sessionId":"h1","type":"user","message":{"role":"user","content":"run it"},"uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}
{"parentUuid":"u1","sessionId":"h1","type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"./gen"}}]},"uuid":"a1","timestamp":"2026-01-01T00:00:01Z"}
{"parentUuid":"a1","sessionId":"h1","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":` + string(output) + `}]},"uuid":"u2","timestamp":"2026-01-01T00:00:02Z"}
`
	_ = os.MkdirAll(filepath.Join(dir, "content"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("title: t\n"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "content", "h.jsonl"), []byte(session), 0o644)
	cfg, _, err := build(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob(filepath.Join(cfg.Destination, "sessions", "*", "*", "index.html"))
	txts, _ := filepath.Glob(filepath.Join(cfg.Destination, "sessions", "*", "*", "out", "*.txt"))
	if len(pages) != 1 || len(txts) != 1 {
		t.Fatalf("pages %v, output files %v", pages, txts)
	}
	full, _ := os.ReadFile(txts[0])
	page, _ := os.ReadFile(pages[0])
	if !strings.HasPrefix(string(full), "row 0 ok\n") || strings.Count(string(full), "\n") != 3000 || strings.Contains(string(full), "\x1b") {
		t.Errorf("full output file: %d lines, starts %q", strings.Count(string(full), "\n"), string(full[:20]))
	}
	shown := len(regexp.MustCompile(`row \d+ `).FindAll(page, -1))
	if shown != 200 || !strings.Contains(string(page), `<a href="out/`+filepath.Base(txts[0])+`">Open the full output</a>`) {
		t.Errorf("the page must show the head and link the file; it shows %d rows", shown)
	}
	checkLinks(t, cfg.Destination, "")
}

// A large image goes to the blob store as it is read, and still reaches
// its file beside the page and the JSON export, cold and from the cache.
func TestLargeImageThroughTheBlobStore(t *testing.T) {
	dir := t.TempDir()
	// Over minBlob, and noise, as pixels compressed are: the store keeps it
	// as it is, where the test can find it to remove it.
	pixels := make([]byte, 120000)
	rand.NewChaCha8([32]byte{1}).Read(pixels)
	img := append([]byte("\x89PNG\r\n\x1a\n"), pixels...)
	data := base64.StdEncoding.EncodeToString(img)
	session := `{"parentUuid":null,"sessionId":"i1","type":"user","message":{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + data + `"}}]},"uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}
`
	_ = os.MkdirAll(filepath.Join(dir, "content"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("title: t\noutputs: {json: true}\n"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "content", "i.jsonl"), []byte(session), 0o644)
	cache := t.TempDir()
	// The warm build reads no turns, and collects what it did not use: the
	// image must stay in the store for the retitled site, whose pages and
	// exports are made again.
	for _, run := range []string{"cold", "warm", "retitled"} {
		if run == "retitled" {
			_ = os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("title: u\noutputs: {json: true}\n"), 0o644)
		}
		cfg, _, err := LoadConfig(Options{Source: dir, Overrides: map[string]any{"cacheDir": cache}})
		if err != nil {
			t.Fatal(err)
		}
		bd, err := NewBuilder(cfg, BuildOptions{GC: run == "warm"})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := bd.Build(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if run == "retitled" && rep.Rendered != 1 {
			t.Errorf("retitled: %d pages rendered, want 1", rep.Rendered)
		}
		if run == "warm" && rep.CacheMisses > 0 {
			t.Errorf("warm build missed the cache %d times", rep.CacheMisses)
		}
		files, _ := filepath.Glob(filepath.Join(cfg.Destination, "sessions", "*", "*", "img", "*.png"))
		if len(files) != 1 {
			t.Fatalf("%s: image files %v", run, files)
		}
		if got, _ := os.ReadFile(files[0]); !bytes.Equal(got, img) {
			t.Errorf("%s: the image file differs from the session's image", run)
		}
		sum := sha256.Sum256(img)
		if key := hex.EncodeToString(sum[:]); !stored(t, cache, key) {
			t.Errorf("%s: the image is not in the blob store", run)
		}
		js, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(files[0])), "session.json"))
		if err != nil || !strings.Contains(string(js), data) {
			t.Errorf("%s: the JSON export lacks the image's data (%v)", run, err)
		}
	}

	// An image the store lost (its pack removed by hand) is not left out
	// of the site: the build says so, reads the session's file again and
	// stores the image anew.
	sum := sha256.Sum256(img)
	key := hex.EncodeToString(sum[:])
	packs, _ := filepath.Glob(filepath.Join(cache, "packs", "*"))
	for _, p := range packs {
		if data, _ := os.ReadFile(p); bytes.Contains(data, img) {
			_ = os.Remove(p)
		}
	}
	_ = os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("title: v\noutputs: {json: true}\n"), 0o644)
	cfg, rep, err := build(t, dir, map[string]any{"cacheDir": cache})
	if err != nil || len(rep.Notices) != 1 || !strings.Contains(rep.Notices[0], key) {
		t.Fatalf("build with the image lost: %v %q", err, rep.Notices)
	}
	files, _ := filepath.Glob(filepath.Join(cfg.Destination, "sessions", "*", "*", "img", "*.png"))
	if got, _ := os.ReadFile(files[0]); !bytes.Equal(got, img) {
		t.Error("the image file differs from the session's image")
	}
	if !stored(t, cache, key) {
		t.Error("the image is not in the blob store again")
	}
}

// stored reports whether the build cache in dir holds a sound entry key.
func stored(t *testing.T, dir, key string) bool {
	t.Helper()
	st, err := cache.New(dir, true)
	if err == nil {
		err = st.Begin(context.Background(), nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer st.End()
	r, ok := st.Open(key)
	if ok {
		_, err = io.Copy(io.Discard, r)
		ok = err == nil
	}
	return ok
}

// Dart Sass is started only when the theme's CSS is not cached as it
// compiled it: for the first build, when a param the SCSS reads changes,
// and when the binary does (an upgrade).
func TestCompiledCSSIsCached(t *testing.T) {
	t.Setenv("TRANSCRIPTSITE_SASS", "")
	bin, err := sassBinary()
	if err != nil {
		skip(t, "no Dart Sass: "+err.Error())
	}
	tmp := t.TempDir()
	log, wrapper := filepath.Join(tmp, "runs"), filepath.Join(tmp, "sass")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\necho run >>'"+log+"'\nexec '"+bin+"' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TRANSCRIPTSITE_SASS", wrapper)
	dir := treetest.Extract(t, "testdata/site.txtar")
	runs := func() int {
		data, _ := os.ReadFile(log)
		return strings.Count(string(data), "run\n")
	}
	for i, step := range []struct {
		accent string
		touch  bool
		runs   bool
	}{
		{"#ff6600", false, true},  // the first build compiles
		{"#ff6600", false, false}, // the next takes the CSS from the cache
		{"#00aa00", false, true},  // a param the SCSS reads
		{"#00aa00", true, true},   // another Dart Sass
		{"#00aa00", false, false},
	} {
		if step.touch {
			later := time.Now().Add(time.Minute)
			os.Chtimes(wrapper, later, later)
		}
		before := runs()
		cfg, rep, err := build(t, dir, map[string]any{"params": map[string]any{"accent": step.accent}})
		if err != nil {
			t.Fatal(err)
		}
		if ran := runs() > before; ran != step.runs {
			t.Errorf("build %d ran Dart Sass: %v, want %v", i+1, ran, step.runs)
		}
		if css := themeCSS(t, cfg.Destination); len(rep.Notices) != 0 || !strings.Contains(css, "--accent: "+step.accent) {
			t.Errorf("build %d: notices %q; the accent %s is not in the CSS", i+1, rep.Notices, step.accent)
		}
	}
}

// Every page links stylesheets and scripts the site holds, whether or not
// Dart Sass compiled the CSS this time and the page came from the cache:
// where Dart Sass's CSS and the precompiled differ (a param only Dart Sass
// applies, another version), so do their names, and a page kept from a
// build with the other one linked a stylesheet that was gone.
func TestPagesLinkTheAssetsThere(t *testing.T) {
	t.Setenv("TRANSCRIPTSITE_SASS", "")
	bin, err := sassBinary()
	if err != nil {
		skip(t, "no Dart Sass: "+err.Error())
	}
	none := filepath.Join(t.TempDir(), "no-sass") // a Dart Sass that is not there: the precompiled CSS
	dir, cache := treetest.Extract(t, "testdata/site.txtar"), filepath.Join(t.TempDir(), "cache")
	names := map[string]bool{}
	for _, sass := range []string{none, bin, none} {
		t.Setenv("TRANSCRIPTSITE_SASS", sass)
		// An accent only Dart Sass can apply: its CSS and the precompiled differ.
		cfg, _, err := build(t, dir, map[string]any{"cacheDir": cache, "params": map[string]any{"accent": "#ff6600"}})
		if err != nil {
			t.Fatal(err)
		}
		names[themeCSSName(t, cfg.Destination)] = true
		assetLinksHold(t, cfg.Destination)
	}
	if len(names) != 2 {
		t.Errorf("one stylesheet with Dart Sass and without (%v): the test shows nothing", names)
	}
}

var assetLink = regexp.MustCompile(`(?:href|src)="([^":]+\.(?:css|js))"`)

// assetLinksHold checks that every stylesheet and script a page of the site
// at dest links is in the site.
func assetLinksHold(t *testing.T, dest string) {
	t.Helper()
	filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".html") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range assetLink.FindAllSubmatch(data, -1) {
			if _, err := os.Stat(filepath.Join(filepath.Dir(p), string(m[1]))); err != nil {
				t.Errorf("%s links %s, which the site does not hold", p, m[1])
			}
		}
		return nil
	})
}

// themeCSSName is the name the theme's stylesheet was written under.
func themeCSSName(t *testing.T, dest string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dest, "css", "theme.*.css"))
	if len(m) != 1 {
		t.Fatalf("theme stylesheets: %v", m)
	}
	return filepath.Base(m[0])
}
