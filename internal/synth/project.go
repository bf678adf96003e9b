package synth

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// project is a repository sessions are run in.
type project struct {
	path    string // the working directory, as the agent records it
	sep     string // path separator: "\\" for a Windows checkout
	name    string
	module  string // package / crate / module name
	lang    *lang
	domain  []string // the project's own nouns
	files   []string // relative slash paths
	branch  string   // default branch
	remote  string
	hooks   bool     // hooks configured: progress records around tool calls
	mcp     []string // MCP servers configured
	seed    uint64
	usePNGs bool // a front-end project: screenshots are likely
}

var (
	nameSuffixes = strings.Fields("api cli web service worker sdk core app tools server ui bot dash infra site")
	homeDirs     = []string{"/home/%u/src/%n", "/Users/%u/work/%n", "/Users/%u/code/%o/%n", "/home/%u/projects/%n", "/workspace/%n", "/srv/%o/%n"}
	mcpServers   = strings.Fields("github linear postgres playwright sentry context7 slack notion")
)

// newProjects makes the n projects of a corpus.
func newProjects(seed int64, n int) []*project {
	r := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	pick := func() string { return vocabulary[len(common)+r.IntN(3000)] }
	ps := make([]*project, n)
	seen := map[string]bool{}
	for i := range ps {
		p := &project{seed: r.Uint64(), lang: projectLangs[r.IntN(len(projectLangs))], sep: "/"}
		p.name = pick()
		switch x := r.IntN(10); {
		case x < 5:
			p.name += "-" + nameSuffixes[r.IntN(len(nameSuffixes))]
		case x == 5:
			p.name += "." + []string{"dev", "io", "me", "org"}[r.IntN(4)]
		}
		if seen[p.name] {
			p.name += strconv.Itoa(i) // one machine has one folder of a name
		}
		seen[p.name] = true
		user, org := pick(), pick()
		if r.IntN(14) == 0 {
			p.sep = "\\"
			p.path = `C:\Users\` + user + `\source\repos\` + p.name
		} else {
			p.path = strings.NewReplacer("%u", user, "%o", org, "%n", p.name).Replace(homeDirs[r.IntN(len(homeDirs))])
		}
		p.module = strings.Map(func(c rune) rune {
			if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
				return c
			}
			return -1
		}, p.name)
		for range 24 {
			p.domain = append(p.domain, pick())
		}
		p.branch = "main"
		if r.IntN(4) == 0 {
			p.branch = "master"
		}
		p.remote = "git@github.com:" + org + "/" + p.name + ".git"
		p.hooks = r.IntN(3) == 0
		for range r.IntN(3) {
			p.mcp = append(p.mcp, mcpServers[r.IntN(len(mcpServers))])
		}
		p.usePNGs = p.lang == langTS || r.IntN(4) == 0
		p.files = p.tree(r)
		ps[i] = p
	}
	return ps
}

// tree lists the project's files, laid out as its language's projects are.
func (p *project) tree(r *rand.Rand) []string {
	var fs []string
	dirs := make([]string, 3+r.IntN(6))
	for i := range dirs {
		dirs[i] = p.domain[r.IntN(len(p.domain))]
	}
	noun := func() string {
		if r.IntN(2) == 0 {
			return p.domain[r.IntN(len(p.domain))]
		}
		return nouns[r.IntN(len(nouns))]
	}
	switch p.lang {
	case langGo:
		fs = p.goTree(r, dirs, noun)
	case langPython:
		fs = p.pythonTree(r, dirs, noun)
	case langTS:
		fs = p.tsTree(r, dirs, noun)
	case langRust:
		fs = p.rustTree(r, dirs, noun)
	}
	fs = append(fs, "README.md", ".github/workflows/ci.yml", "docker-compose.yml")
	for i := range 1 + r.IntN(5) {
		fs = append(fs, "migrations/00"+strconv.Itoa(i+1)+"_"+noun()+"_"+noun()+".sql")
	}
	for range 1 + r.IntN(3) {
		fs = append(fs, "scripts/"+noun()+".sh", "config/"+noun()+".json")
	}
	return fs
}

// goTree lists the files of a Go module with the folders dirs.
func (p *project) goTree(r *rand.Rand, dirs []string, noun func() string) []string {
	var fs []string
	fs = append(fs, "go.mod", "go.sum", "Makefile", "cmd/"+p.module+"/main.go")
	for _, d := range dirs {
		for range 2 + r.IntN(5) {
			n := noun()
			fs = append(fs, "internal/"+d+"/"+n+".go", "internal/"+d+"/"+n+"_test.go")
		}
	}
	return fs
}

// pythonTree lists the files of a Python package with the folders dirs.
func (p *project) pythonTree(r *rand.Rand, dirs []string, noun func() string) []string {
	var fs []string
	fs = append(fs, "pyproject.toml", "uv.lock", p.module+"/__init__.py", p.module+"/cli.py")
	for _, d := range dirs {
		for range 2 + r.IntN(5) {
			n := noun()
			fs = append(fs, p.module+"/"+d+"/"+n+".py", "tests/"+d+"/test_"+n+".py")
		}
	}
	return fs
}

// tsTree lists the files of a TypeScript app with the folders dirs.
func (p *project) tsTree(r *rand.Rand, dirs []string, noun func() string) []string {
	var fs []string
	fs = append(fs, "package.json", "tsconfig.json", "vite.config.ts", "src/index.ts", "src/styles/main.css")
	for _, d := range dirs {
		for range 2 + r.IntN(5) {
			n := noun()
			fs = append(fs, "src/"+d+"/"+n+".ts", "src/components/"+string(appendTitle(nil, d))+string(appendTitle(nil, n))+".tsx", "test/"+d+"/"+n+".test.ts")
		}
	}
	return fs
}

// rustTree lists the files of a Rust crate with the folders dirs.
func (p *project) rustTree(r *rand.Rand, dirs []string, noun func() string) []string {
	var fs []string
	fs = append(fs, "Cargo.toml", "Cargo.lock", "src/main.rs", "src/lib.rs", "src/error.rs")
	for _, d := range dirs {
		fs = append(fs, "src/"+d+"/mod.rs")
		for range 1 + r.IntN(5) {
			fs = append(fs, "src/"+d+"/"+noun()+".rs")
		}
		fs = append(fs, "tests/"+d+".rs")
	}
	return fs
}

// abs is a project file's path as the agent's tools see it.
func (p *project) abs(rel string) string {
	if p.sep == "/" {
		return p.path + "/" + rel
	}
	return p.path + `\` + strings.ReplaceAll(rel, "/", `\`)
}

// claudeDir is the project folder name Claude Code derives from the cwd:
// every character that is not a letter or digit becomes '-'.
func (p *project) claudeDir() string {
	return strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return c
		}
		return '-'
	}, p.path)
}

// file picks a file of the project, preferring the turn's focus.
func (g *gen) file() string {
	if len(g.focus) > 0 && g.r.IntN(3) > 0 {
		return g.focus[g.r.IntN(len(g.focus))]
	}
	return g.proj.files[g.r.IntN(len(g.proj.files))]
}

// codeFile picks a file that holds code.
func (g *gen) codeFile() string {
	for range 8 {
		if f := g.file(); langOf(f) != nil {
			return f
		}
	}
	return g.proj.files[len(g.proj.files)-1] // a config JSON
}
