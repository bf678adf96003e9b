package redacttest

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"regexp"
	"strings"

	transcriptsite "github.com/transcriptsite/transcriptsite"
)

// Output is what a command printed.
type Output struct {
	Command string
	Text    string
}

// Noise returns the outputs of commands that fill sessions with strings
// that look random and are no secret: git SHAs, UUIDs, base64 images,
// hashes, lockfiles, minified code, an environment and an example .env
// with none in them. Random from the seed.
func Noise(seed uint64) []Output {
	rng := rand.New(rand.NewPCG(seed, 21))
	hexOf := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return hex.EncodeToString(b)
	}
	b64Of := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return base64.StdEncoding.EncodeToString(b)
	}
	uuid := func() string {
		h := hexOf(16)
		return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
	}
	var out []Output
	add := func(cmd string, lines func(i int) string, n int) {
		var b strings.Builder
		for i := range n {
			b.WriteString(lines(i) + "\n")
		}
		out = append(out, Output{cmd, b.String()})
	}
	add("git log --format='%H %an %s' -20", func(i int) string {
		return fmt.Sprintf("%s Dev %d Fix the parser's handling of case %d", hexOf(20), i%3, i)
	}, 20)
	add("git log --oneline -5", func(i int) string { return hexOf(4)[:7] + " Refactor module " + fmt.Sprint(i) }, 5)
	add("psql -c 'select id, account from orders limit 10'", func(i int) string { return uuid() + " | " + uuid() }, 10)
	add("sha256sum dist/*", func(i int) string { return hexOf(32) + "  dist/app-" + fmt.Sprint(i) + ".tar.gz" }, 6)
	add("docker images --digests", func(i int) string {
		return fmt.Sprintf("shop/api  v1.%d  sha256:%s  %s  2 days ago  81MB", i, hexOf(32), hexOf(6))
	}, 4)
	add("cat package-lock.json", func(i int) string {
		return fmt.Sprintf(`    "node_modules/pkg-%d": {"version": "1.%d.0", "resolved": "https://registry.npmjs.org/pkg-%d/-/pkg-%d-1.%d.0.tgz", "integrity": "sha512-%s"},`,
			i, i, i, i, i, b64Of(64))
	}, 12)
	add("cat go.sum", func(i int) string {
		return fmt.Sprintf("github.com/example/mod%d v1.%d.0 h1:%s\ngithub.com/example/mod%d v1.%d.0/go.mod h1:%s", i, i, b64Of(32), i, i, b64Of(32))
	}, 8)
	add("cat Cargo.lock", func(i int) string {
		return fmt.Sprintf("[[package]]\nname = \"crate%d\"\nversion = \"0.%d.1\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"%s\"", i, i, hexOf(32))
	}, 5)
	add("cat poetry.lock", func(i int) string {
		return fmt.Sprintf(`files = [{file = "lib%d-2.%d-py3-none-any.whl", hash = "sha256:%s"}]`, i, i, hexOf(32))
	}, 5)
	add("cat yarn.lock", func(i int) string {
		return fmt.Sprintf("lib-%d@^3.%d.0:\n  version \"3.%d.2\"\n  resolved \"https://registry.yarnpkg.com/lib-%d/-/lib-%d-3.%d.2.tgz#%s\"\n  integrity sha512-%s",
			i, i, i, i, i, i, hexOf(20), b64Of(64))
	}, 6)
	add("cat screenshot.html", func(int) string {
		return `<img alt="screenshot" src="data:image/png;base64,` + b64Of(3000) + `">`
	}, 1)
	add("npx terser app.js", func(int) string { return minified() }, 1)
	add("env", func(int) string {
		return "HOME=/home/dev\nPATH=/usr/local/bin:/usr/bin:/bin\nLS_COLORS=rs=0:di=01;34:ln=01;36:so=01;35\n" +
			"TERM_SESSION_ID=w0t0p0:" + strings.ToUpper(uuid()) + "\nGIT_COMMIT=" + hexOf(20) + "\nBUILD_ID=" + uuid() +
			"\nIMAGE_DIGEST=sha256:" + hexOf(32) + "\nTOKENIZERS_PARALLELISM=false\nMAX_THINKING_TOKENS=31999\n" +
			"SSH_AUTH_SOCK=/tmp/ssh-" + hexOf(4) + "/agent.812\nAPI_TOKEN_URL=https://auth.example.com/oauth/token"
	}, 1)
	add("cat .env.example", func(int) string {
		return "OPENAI_API_KEY=sk-proj-your-key-here\nANTHROPIC_API_KEY=sk-ant-...\nDB_PASSWORD=changeme\n" +
			"SECRET_KEY=<generate one>\nREDIS_URL=redis://localhost:6379/0\nTOKEN_TTL=3600\nAUTH_ENABLED=true"
	}, 1)
	add("kubectl get secrets", func(i int) string {
		return fmt.Sprintf("db-credentials-%d   Opaque   2   %dd", i, i+3)
	}, 3)
	return out
}

// minified is the theme's own JavaScript with its comments and line
// breaks removed, as a minifier writes code.
func minified() string {
	var b strings.Builder
	_ = fs.WalkDir(transcriptsite.FS, "assets/js", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := fs.ReadFile(transcriptsite.FS, p)
			b.Write(data)
		}
		return nil
	})
	js := comments.ReplaceAllString(b.String(), "")
	return space.ReplaceAllString(js, " ")
}

var (
	comments = regexp.MustCompile(`(?m)^\s*//.*$|/\*[\s\S]*?\*/`)
	space    = regexp.MustCompile(`\s+`)
)
