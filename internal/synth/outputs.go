package synth

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strconv"
	"strings"
	"time"
)

// ap appends strings.
func ap(b []byte, ss ...string) []byte {
	for _, s := range ss {
		b = append(b, s...)
	}
	return b
}

func itoa(n int) string { return strconv.Itoa(n) }

// ANSI colours, as test runners print them to a terminal.
const (
	green = "\x1b[32m"
	red   = "\x1b[31m"
	bold  = "\x1b[1m"
	dim   = "\x1b[2m"
	reset = "\x1b[0m"
)

func paint(on bool, code, s string) string {
	if !on {
		return s
	}
	return code + s + reset
}

func appendTime(b []byte, ms int64) []byte {
	return time.UnixMilli(ms).UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
}

// toolchain is how the project is tested, built and linted.
type toolchain struct{ test, build, lint, install string }

func (g *gen) toolchain() toolchain {
	switch g.proj.lang {
	case langGo:
		return toolchain{"go test ./...", "go build ./...", "go vet ./... && golangci-lint run", "go mod tidy"}
	case langPython:
		return toolchain{"uv run pytest -q", "uv run mypy " + g.proj.module, "uv run ruff check .", "uv sync"}
	case langRust:
		return toolchain{"cargo test", "cargo build", "cargo clippy -- -D warnings", "cargo fetch"}
	}
	return toolchain{"npm test", "npx tsc --noEmit", "npm run lint", "npm install"}
}

// bash fills a shell call: a command and what it printed.
func (g *gen) bash(c *call) {
	tc := g.toolchain()
	b := make([]byte, 0, 2048)
	c.dur = 50 + int64(g.r.IntN(3000))
	x := g.r.IntN(100)
	for _, k := range bashKinds {
		if x < k.below {
			b = k.write(g, c, tc, b)
			break
		}
	}
	c.output = string(b)
	c.isError = c.exit != 0
	if c.desc == "" {
		c.desc = string(appendTitle(nil, string(g.phrase(nil, 2+g.r.IntN(4)))))
	}
}

// bashKinds are the kinds of command a session runs, each with its
// share of 100: the first whose bound a draw is below.
var bashKinds = []struct {
	below int
	write func(g *gen, c *call, tc toolchain, b []byte) []byte
}{
	{22, func(g *gen, c *call, tc toolchain, b []byte) []byte { return g.tests(c, tc, b, false) }},
	{32, func(g *gen, c *call, tc toolchain, b []byte) []byte { return g.tests(c, tc, b, true) }},
	{40, func(g *gen, c *call, tc toolchain, b []byte) []byte {
		c.command, c.desc = tc.build, "Type-check the project"
		b, c.exit = g.buildErrors(b, 1+g.r.IntN(6))
		return b
	}},
	{54, func(g *gen, c *call, _ toolchain, b []byte) []byte { return g.git(b, c) }},
	{60, func(g *gen, c *call, _ toolchain, b []byte) []byte {
		dir := g.file()
		dir = dir[:max(strings.LastIndexByte(dir, '/'), 0)]
		c.command, c.desc = "ls -la "+dir, "List the directory"
		return g.ls(b, g.lines(4+g.r.IntN(20)))
	}},
	{65, func(g *gen, c *call, _ toolchain, b []byte) []byte { return g.curl(b, c) }},
	{72, func(g *gen, c *call, _ toolchain, b []byte) []byte {
		svc := g.noun()
		n := g.lines(20 + g.r.IntN(80))
		c.command, c.desc = "docker compose logs --tail="+itoa(n)+" "+svc, "Show the service logs"
		return g.logs(b, svc, n)
	}},
	{76, (*gen).nodeError},
	{78, func(g *gen, c *call, _ toolchain, b []byte) []byte {
		tool := g.noun() + "ctl"
		c.command = tool + " status"
		c.exit = 127
		return ap(b, "bash: ", tool, ": command not found")
	}},
	{86, func(g *gen, c *call, _ toolchain, b []byte) []byte {
		silent := []string{"mkdir -p ", "rm -rf dist ", "touch ", "chmod +x ", "cp config/example.json "}
		c.command = silent[g.r.IntN(len(silent))] + g.file()
		c.desc = "Prepare the " + g.noun() + " files"
		return b
	}},
	{94, (*gen).ripgrep},
	{100, (*gen).install},
}

// tests runs the test suite, passing or failing.
func (g *gen) tests(c *call, tc toolchain, b []byte, fail bool) []byte {
	c.command, c.desc = tc.test, "Run the test suite"
	if fail {
		c.desc = "Run the tests"
	}
	c.ansi = g.proj.lang != langGo && g.r.IntN(3) == 0
	b = g.testRun(b, g.lines(3+g.r.IntN(25)), fail, c.ansi)
	if fail {
		c.exit = 1
	}
	c.dur = 1000 + int64(g.r.IntN(60_000))
	return b
}

// nodeError is a script that cannot find its file.
func (g *gen) nodeError(c *call, _ toolchain, b []byte) []byte {
	f := g.file()
	c.command = "node scripts/" + g.noun() + ".js " + f
	c.exit = 1
	return ap(b, "node:internal/fs/utils:347\n    throw err;\n    ^\n\nError: ENOENT: no such file or directory, open '", g.proj.abs(f),
		"'\n    at Object.openSync (node:fs:573:18)\n    at Object.readFileSync (node:fs:452:35)\n    at ", g.identString(camel),
		" (", g.proj.abs("scripts/x.js"), ":", itoa(1+g.r.IntN(80)), ":", itoa(1+g.r.IntN(40)), ") {\n  errno: -2,\n  code: 'ENOENT',\n  syscall: 'open',\n  path: '",
		g.proj.abs(f), "'\n}\n\nNode.js v22.11.0")
}

// ripgrep searches the code for an identifier.
func (g *gen) ripgrep(c *call, _ toolchain, b []byte) []byte {
	c.command = "rg -n '" + g.identString(g.proj.lang.style) + "' ."
	n := g.lines(2 + g.r.IntN(30))
	l := g.proj.lang
	for i := range n {
		if i > 0 {
			b = append(b, '\n')
		}
		b = ap(b, g.file(), ":", itoa(1+g.r.IntN(800)), ":")
		mark := len(b)
		b = g.expand(b, l.stmts[g.r.IntN(len(l.stmts))], l, nil, "")
		if j := bytes.IndexByte(b[mark:], '\n'); j >= 0 {
			b = b[:mark+j]
		}
	}
	return b
}

// install installs the dependencies.
func (g *gen) install(c *call, tc toolchain, b []byte) []byte {
	c.command, c.desc = tc.install, "Install dependencies"
	n := g.lines(3 + g.r.IntN(12))
	for i := range n {
		if i > 0 {
			b = append(b, '\n')
		}
		b = ap(b, " + ", g.noun(), "-", g.noun(), "==", itoa(g.r.IntN(9)), ".", itoa(g.r.IntN(30)), ".", itoa(g.r.IntN(12)))
	}
	b = ap(b, "\nResolved ", itoa(n+g.r.IntN(200)), " packages in ", itoa(20+g.r.IntN(900)), "ms")
	if g.r.IntN(3) == 0 {
		c.stderr = "warning: " + string(g.sentence(nil))
	}
	return b
}

// failure is a failing test run, pasted into a prompt.
func (g *gen) failure(n int) string { return string(g.testRun(nil, n, true, false)) }

// testRun appends the output of the project's test runner.
func (g *gen) testRun(b []byte, n int, fail bool, ansi bool) []byte {
	t := testRunArgs{n: n, failAt: -1, fail: fail, ansi: ansi, pkg: g.proj.domain[g.r.IntN(len(g.proj.domain))]}
	if fail {
		t.failAt = g.r.IntN(n)
	}
	switch g.proj.lang {
	case langGo:
		return g.goTests(b, t)
	case langPython:
		return g.pytest(b, t)
	case langRust:
		return g.cargoTests(b, t)
	}
	return g.vitest(b, t)
}

// testRunArgs say what a test run shows: n tests (or files), the one that
// fails (failAt, -1 for none), colours, the package under test.
type testRunArgs struct {
	n, failAt  int
	fail, ansi bool
	pkg        string
}

// goTests appends the output of go test.
func (g *gen) goTests(b []byte, t testRunArgs) []byte {
	imp := "github.com/" + g.proj.module + "/" + g.proj.module + "/internal/"
	for i := range t.n {
		name := "Test" + g.identString(pascal)
		if i == t.failAt {
			b = ap(b, "--- FAIL: ", name, " (0.0", itoa(g.r.IntN(10)), "s)\n    ", g.noun(), "_test.go:", itoa(10+g.r.IntN(300)), ": ",
				g.identString(camel), "() = ", itoa(g.r.IntN(9)), ", want ", itoa(10+g.r.IntN(9)), "\nFAIL\nFAIL\t", imp, t.pkg, "\t0.", itoa(100+g.r.IntN(800)), "s\n")
			continue
		}
		if g.r.IntN(2) == 0 {
			b = ap(b, "=== RUN   ", name, "\n--- PASS: ", name, " (0.0", itoa(g.r.IntN(10)), "s)\n")
		} else {
			b = ap(b, "ok  \t", imp, g.proj.domain[g.r.IntN(len(g.proj.domain))], "\t0.", itoa(100+g.r.IntN(800)), "s\n")
		}
	}
	if t.fail {
		return ap(b, "FAIL")
	}
	return ap(b, "PASS")
}

// pytest appends the output of pytest.
func (g *gen) pytest(b []byte, t testRunArgs) []byte {
	total := 0
	b = ap(b, "============================= test session starts ==============================\nplatform linux -- Python 3.12.4, pytest-8.3.2, pluggy-1.5.0\nrootdir: ",
		g.proj.path, "\nconfigfile: pyproject.toml\ncollected ", itoa(t.n*9), " items\n\n")
	for i := range t.n {
		dots := strings.Repeat(".", 1+g.r.IntN(30))
		if i == t.failAt {
			dots = dots[1:] + "F"
		}
		total += len(dots)
		b = ap(b, "tests/", t.pkg, "/test_", g.noun(), ".py ", paint(t.ansi, green, dots), " [", itoa(min(100, (i+1)*100/t.n)), "%]\n")
	}
	if t.fail {
		f := g.identString(snake)
		b = ap(b, "\n=================================== FAILURES ===================================\n___________________________ test_", f,
			" ___________________________\n\n    def test_", f, "():\n>       assert ", g.identString(snake), "() == 4\nE       AssertionError: assert 3 == 4\n\ntests/",
			t.pkg, "/test_", g.noun(), ".py:", itoa(10+g.r.IntN(200)), ": AssertionError\n", paint(t.ansi, red, "FAILED tests/"+t.pkg+"::test_"+f+" - AssertionError: assert 3 == 4"),
			"\n", paint(t.ansi, red, "1 failed, "+itoa(total-1)+" passed in 0."+itoa(10+g.r.IntN(89))+"s"))
		return b
	}
	return ap(b, paint(t.ansi, green, "============================== "+itoa(total)+" passed in 1."+itoa(10+g.r.IntN(89))+"s =============================="))
}

// cargoTests appends the output of cargo test.
func (g *gen) cargoTests(b []byte, t testRunArgs) []byte {
	crate := g.proj.module
	b = ap(b, "   Compiling ", crate, " v0.", itoa(g.r.IntN(9)), ".0 (", g.proj.path, ")\n    Finished `test` profile [unoptimized + debuginfo] target(s) in ",
		itoa(1+g.r.IntN(40)), ".", itoa(10+g.r.IntN(89)), "s\n     Running unittests src/lib.rs (target/debug/deps/", crate, "-", g.hexString(16), ")\n\nrunning ", itoa(t.n), " tests\n")
	for i := range t.n {
		name := t.pkg + "::tests::" + g.identString(snake)
		if i == t.failAt {
			b = ap(b, "test ", name, " ... ", paint(t.ansi, red, "FAILED"), "\n")
			continue
		}
		b = ap(b, "test ", name, " ... ", paint(t.ansi, green, "ok"), "\n")
	}
	if t.fail {
		return ap(b, "\nfailures:\n\n---- ", t.pkg, " stdout ----\nthread '", t.pkg, "' panicked at src/", t.pkg, "/mod.rs:", itoa(10+g.r.IntN(300)), ":", itoa(5+g.r.IntN(30)),
			":\nassertion `left == right` failed\n  left: 3\n right: 4\n\ntest result: ", paint(t.ansi, red, "FAILED"), ". ", itoa(t.n-1),
			" passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n\nerror: test failed, to rerun pass `--lib`")
	}
	return ap(b, "\ntest result: ", paint(t.ansi, green, "ok"), ". ", itoa(t.n), " passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.0", itoa(g.r.IntN(10)), "s")
}

// vitest appends the output of vitest.
func (g *gen) vitest(b []byte, t testRunArgs) []byte {
	total := 0
	failed := 0
	for i := range t.n {
		tests := 1 + g.r.IntN(20)
		total += tests
		file := "test/" + t.pkg + "/" + g.noun() + ".test.ts"
		if i == t.failAt {
			failed++
			b = ap(b, " ", paint(t.ansi, red, "❯"), " ", file, " (", itoa(tests), " tests | 1 failed) ", itoa(g.r.IntN(200)), "ms\n   ",
				paint(t.ansi, red, "×"), " ", string(g.phrase(nil, 3+g.r.IntN(4))), " ", itoa(g.r.IntN(50)), "ms\n     → expected 3 to deeply equal 4\n")
			continue
		}
		b = ap(b, " ", paint(t.ansi, green, "✓"), " ", file, " ", paint(t.ansi, dim, "("+itoa(tests)+" tests)"), " ", itoa(g.r.IntN(300)), "ms\n")
	}
	if failed > 0 {
		b = ap(b, "\n", paint(t.ansi, bold, " Test Files "), " ", paint(t.ansi, red, "1 failed"), " | ", itoa(t.n-1), " passed (", itoa(t.n), ")\n")
	} else {
		b = ap(b, "\n", paint(t.ansi, bold, " Test Files "), " ", paint(t.ansi, green, itoa(t.n)+" passed"), " (", itoa(t.n), ")\n")
	}
	return ap(b, "      Tests  ", itoa(total-failed), " passed (", itoa(total), ")\n   Duration  ", itoa(1+g.r.IntN(9)), ".", itoa(10+g.r.IntN(89)), "s")
}

// buildErrors appends a compiler's or type checker's errors and its exit code.
func (g *gen) buildErrors(b []byte, n int) ([]byte, int) {
	at := func() string { return itoa(1+g.r.IntN(400)) + ":" + itoa(1+g.r.IntN(60)) }
	for i := range n {
		f := g.codeFile()
		switch g.proj.lang {
		case langGo:
			if i == 0 {
				b = ap(b, "# github.com/", g.proj.module, "/", g.proj.module, "/", f[:max(strings.LastIndexByte(f, '/'), 0)], "\n")
			}
			b = ap(b, f, ":", at(), ": undefined: ", g.identString(camel), "\n")
		case langPython:
			b = ap(b, f, ":", itoa(1+g.r.IntN(400)), ": error: Argument 1 to \"", g.identString(snake), "\" has incompatible type \"str\"; expected \"int\"  [arg-type]\n")
		case langRust:
			code := []string{"E0382", "E0502", "E0308", "E0599", "E0425"}[g.r.IntN(5)]
			v := g.identString(snake)
			line := itoa(1 + g.r.IntN(400))
			b = ap(b, "error[", code, "]: borrow of moved value: `", v, "`\n  --> ", f, ":", line, ":", itoa(5+g.r.IntN(30)), "\n   |\n",
				line, " |     let ", v, " = ", g.identString(snake), "(&", g.noun(), ");\n   |         - value moved here\n\n")
		default:
			code := []string{"TS2322", "TS2345", "TS7006", "TS2339"}[g.r.IntN(4)]
			b = ap(b, f, "(", strings.Replace(at(), ":", ",", 1), "): error ", code, ": Type '", g.identString(pascal), "' is not assignable to type '", g.identString(pascal), "'.\n")
		}
	}
	switch g.proj.lang {
	case langPython:
		return ap(b, "Found ", itoa(n), " errors in ", itoa(1+n/2), " files (checked ", itoa(20+g.r.IntN(300)), " source files)"), 1
	case langRust:
		return ap(b, "error: could not compile `", g.proj.module, "` (lib) due to ", itoa(n), " previous errors"), 101
	case langGo:
		return b[:len(b)-1], 1
	}
	return b[:len(b)-1], 2
}

func (g *gen) sha() string { return g.hexString(40) }

func (g *gen) git(b []byte, c *call) []byte {
	switch g.r.IntN(5) {
	case 0:
		c.command, c.desc = "git status", "Show working tree status"
		b = ap(b, "On branch ", g.proj.branch, "\nChanges not staged for commit:\n  (use \"git add <file>...\" to update what will be committed)\n  (use \"git restore <file>...\" to discard changes in working directory)\n")
		for range 1 + g.r.IntN(6) {
			b = ap(b, "\tmodified:   ", g.file(), "\n")
		}
		return ap(b, "\nno changes added to commit (use \"git add\" and/or \"git commit -a\")")
	case 1:
		n := g.lines(5 + g.r.IntN(20))
		c.command, c.desc = "git log --oneline -"+itoa(n), "Show recent commits"
		for i := range n {
			if i > 0 {
				b = append(b, '\n')
			}
			b = ap(b, g.hexString(7), " ", g.title())
		}
		return b
	case 2:
		c.command, c.desc = "git diff --stat", "Summarise the changes"
		files := 1 + g.r.IntN(8)
		for range files {
			b = ap(b, " ", g.file(), " | ", itoa(1+g.r.IntN(120)), " ", strings.Repeat("+", 1+g.r.IntN(20)), strings.Repeat("-", g.r.IntN(10)), "\n")
		}
		return ap(b, " ", itoa(files), " files changed, ", itoa(g.r.IntN(400)), " insertions(+), ", itoa(g.r.IntN(200)), " deletions(-)")
	case 3:
		t := g.title()
		c.command, c.desc = "git add -A && git commit -m \""+t+"\"", "Commit the change"
		return ap(b, "[", g.proj.branch, " ", g.hexString(7), "] ", t, "\n ", itoa(1+g.r.IntN(9)), " files changed, ", itoa(g.r.IntN(300)), " insertions(+), ", itoa(g.r.IntN(100)), " deletions(-)")
	}
	c.command, c.desc = "git diff", "Show the diff"
	return g.diff(b, g.lines(10+g.r.IntN(40)))
}

var months = strings.Fields("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec")

func (g *gen) ls(b []byte, n int) []byte {
	b = ap(b, "total ", itoa(8*n))
	for range n {
		dir := g.r.IntN(4) == 0
		mode, name := "-rw-r--r--", g.noun()+"."+langExt(g.proj.lang)
		if dir {
			mode, name = "drwxr-xr-x", g.noun()
		}
		b = ap(b, "\n", mode, "  ", itoa(1+g.r.IntN(9)), " dev  staff  ", itoa(g.r.IntN(90000)), " ", months[g.r.IntN(12)], " ", itoa(1+g.r.IntN(28)), " ",
			itoa(10+g.r.IntN(13)), ":", itoa(10+g.r.IntN(49)), " ", name)
	}
	return b
}

func (g *gen) curl(b []byte, c *call) []byte {
	path := "/api/" + g.noun() + "/" + g.noun()
	c.command, c.desc = "curl -si http://localhost:8080"+path, "Call the endpoint"
	if g.r.IntN(5) == 0 {
		c.exit = 7
		return ap(b, "curl: (7) Failed to connect to localhost port 8080 after 0 ms: Couldn't connect to server")
	}
	status := []string{"200 OK", "404 Not Found", "500 Internal Server Error", "502 Bad Gateway", "503 Service Unavailable", "429 Too Many Requests"}[g.r.IntN(6)]
	b = ap(b, "HTTP/1.1 ", status, "\nContent-Type: application/json\nDate: ")
	b = time.UnixMilli(g.now).UTC().AppendFormat(b, time.RFC1123)
	if strings.HasPrefix(status, "503") || strings.HasPrefix(status, "429") {
		b = ap(b, "\nRetry-After: ", itoa(1+g.r.IntN(120)))
	}
	b = ap(b, "\nContent-Length: ", itoa(40+g.r.IntN(400)), "\n\n")
	var j jw
	j.open('{')
	if status[0] == '2' {
		j.ks("id", g.uuid())
		j.ks(g.noun(), string(g.phrase(nil, 2)))
		j.ki(g.noun(), g.r.IntN(1000))
	} else {
		j.ks("error", string(g.sentence(nil)))
		j.ks("code", g.errorCode())
		j.ks("request_id", g.hexString(16))
	}
	j.close('}')
	return append(b, j.b...)
}

// logs appends n lines of a service's log.
func (g *gen) logs(b []byte, svc string, n int) []byte {
	t := g.now - int64(n)*1500
	levels := []string{"INFO ", "INFO ", "INFO ", "DEBUG", "WARN ", "ERROR"}
	for i := range n {
		if i > 0 {
			b = append(b, '\n')
		}
		t += int64(g.r.IntN(3000))
		lv := levels[g.r.IntN(len(levels))]
		b = ap(b, svc, "-1  | ")
		b = appendTime(b, t)
		b = ap(b, " ", lv, " [", g.noun(), "] ")
		b = g.phrase(b, 2+g.r.IntN(6))
		b = ap(b, " id=", g.hexString(8), " dur=", itoa(g.r.IntN(900)), "ms")
		if lv == "ERROR" {
			b = ap(b, " err=\"", g.errorCode(), ": ", string(g.phrase(nil, 3)), "\"")
		}
	}
	return b
}

// png makes a small valid PNG: a few pixels of a pattern in random colours.
func (g *gen) png() []byte {
	w, h := 2+g.r.IntN(30), 2+g.r.IntN(30)
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	c1 := color.NRGBA{uint8(g.r.IntN(256)), uint8(g.r.IntN(256)), uint8(g.r.IntN(256)), 255}
	c2 := color.NRGBA{uint8(g.r.IntN(256)), uint8(g.r.IntN(256)), uint8(g.r.IntN(256)), uint8(128 + g.r.IntN(128))}
	pattern, step := g.r.IntN(4), 1+g.r.IntN(4)
	for y := range h {
		for x := range w {
			c := c1
			switch pattern {
			case 0:
				if (x/step+y/step)%2 == 1 {
					c = c2
				}
			case 1:
				if y/step%2 == 1 {
					c = c2
				}
			case 2:
				c.R = uint8(int(c1.R) + (int(c2.R)-int(c1.R))*x/w)
				c.B = uint8(int(c1.B) + (int(c2.B)-int(c1.B))*y/h)
			case 3:
				if g.r.IntN(3) == 0 {
					c = c2
				}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img) // writing to memory cannot fail
	return buf.Bytes()
}
