package redacttest

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// The alphabets of random secrets; without x, which placeholders use.
const (
	alnum    = "ABCDEFGHIJKLMNOPQRSTUVWYZabcdefghijklmnopqrstuvwyz0123456789"
	b64chars = alnum + "+/"
)

// Commands returns command lines an agent runs with a secret in them, one
// or more for each kind that finds secrets by where they stand (a header,
// a flag, a URL, an assignment), each secret random from the seed.
func Commands(seed uint64) []Sample {
	rng := rand.New(rand.NewPCG(seed, 19))
	pw := func() string { return random(rng, 10+rng.IntN(7), alnum) }
	tok := func() string { return random(rng, 24+rng.IntN(17), alnum) }
	var out []Sample
	add := func(kind, format string, secret string) {
		out = append(out, Sample{Rule: kind, Text: fmt.Sprintf(format, secret), Secret: secret})
	}
	add("http-auth-header", `curl -s -H "Authorization: Bearer %s" https://api.example.com/v1/me`, tok())
	add("http-auth-header", `curl -H 'X-Api-Key: %s' https://api.example.com/v1/items`, tok())
	add("http-auth-header", `http GET api.example.com/v2/repos "Authorization:token %s"`, tok())
	add("basic-auth", "curl -u deploy:%s https://ci.example.com/api/json", pw())
	add("password-flag", "mysql -h db.internal -u root -p%s shop < dump.sql", pw())
	add("password-flag", "docker login -u ci -p %s registry.example.com", pw())
	add("password-flag", "mongosh --host db --username admin --password %s", pw())
	add("password-flag", "PGPASSWORD=%s psql -h db -U app -c 'select 1'", pw())
	add("password-flag", "sshpass -p '%s' ssh deploy@web1 uptime", pw())
	add("token-flag", "huggingface-cli login --token %s", tok())
	add("token-flag", "npx vercel deploy --prod --token=%s", tok())
	add("url-password", "psql postgres://app:%s@db.internal:5432/shop -c '\\dt'", pw())
	add("url-password", "redis-cli -u redis://:%s@cache.internal:6379 ping", pw())
	add("url-password", `mongosh "mongodb+srv://admin:%s@cluster0.example.net/test"`, pw())
	add("url-query-secret", `curl "https://api.example.com/v1/export?access_token=%s&format=csv"`, tok())
	add("url-query-secret", `sqlcmd "Server=db;Database=shop;User Id=sa;Password=%s;"`, pw())
	add("env-secret", "DB_PASSWORD=%s npm run migrate", pw())
	add("env-secret", "export STRIPE_SECRET='%s' && node server.js", pw())
	return out
}

// Read is a tool call that prints secrets: a file of them read, or a
// command that prints the environment or stored secrets.
type Read struct {
	Path    string // the file read, or empty
	Command string // the command run, or empty
	Output  string // what it printed
	Secrets []Sample
}

// Reads returns the reads of files of secrets (.env, .netrc, a private
// key, …) and the dumps of the environment (env, docker inspect, kubectl
// get secret) that the context rules redact, secrets random from the seed.
// keys are provider keys to put in the .env file.
func Reads(seed uint64, keys []Sample) []Read {
	rng := rand.New(rand.NewPCG(seed, 20))
	pw := func() string { return random(rng, 10+rng.IntN(7), alnum) }
	tok := func() string { return random(rng, 32+rng.IntN(9), alnum) }
	var out []Read
	// read adds a read of path (or the output of command): lines is its
	// text, where each %s is a secret of the kind in kinds.
	read := func(path, command, lines string, kinds ...string) {
		r := Read{Path: path, Command: command}
		args := make([]any, len(kinds))
		for i, k := range kinds {
			var s string
			switch {
			case k == "private-key":
				s = random(rng, 64, b64chars)
			case strings.HasPrefix(k, "token:"):
				k, s = "env-secret", tok()
			case strings.HasPrefix(k, "b64:"):
				k, s = "env-secret", base64Of(pw())
			default:
				s = pw()
			}
			r.Secrets = append(r.Secrets, Sample{Rule: k, Secret: s})
			args[i] = s
		}
		r.Output = fmt.Sprintf(lines, args...)
		out = append(out, r)
	}
	env := "# local settings\nNODE_ENV=development\nPORT=3000\nDATABASE_URL=postgres://app:%s@localhost:5432/app\n" +
		"DB_PASSWORD=%s\nSESSION_SECRET=\"%s\"\nWEBHOOK_SIGNING=%s\nDEBUG=true\nAPI_URL=https://api.example.com\n"
	envKinds := []string{"url-password", "env-secret", "env-secret", "token:"}
	for i, k := range keys {
		line := k.Text // a key that needs its name has it
		if !strings.Contains(line, "=") {
			line = fmt.Sprintf("PROVIDER_%d=%s", i, k.Secret)
		}
		env += strings.ReplaceAll(line, "%", "%%") + "\n"
	}
	read(".env", "", env, envKinds...)
	out[len(out)-1].Secrets = append(out[len(out)-1].Secrets, keys...)
	read("config/production.env", "", "export REDIS_PASSWORD=%s\nexport LOG_LEVEL=info\n", "env-secret")
	read("", "cat .env.local", "NEXTAUTH_SECRET=%s\nNEXT_PUBLIC_SITE=https://example.com\n", "env-secret")
	read("/home/dev/.netrc", "", "machine api.example.com login deploy password %s\n", "env-secret")
	read("/home/dev/.npmrc", "", "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=%s\n", "token:")
	read("/home/dev/.pypirc", "", "[pypi]\nusername = __token__\npassword = %s\n", "env-secret")
	read("/home/dev/.aws/credentials", "", "[default]\naws_access_key_id = AKIAEXAMPLEKEYID0000\naws_secret_access_key = %s\n", "token:")
	read("/home/dev/.ssh/id_ed25519", "", "-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n%s\n", "private-key", "private-key")
	read("/home/dev/.kube/config", "", "users:\n- name: admin\n  user:\n    token: %s\n", "token:")
	read("deploy/secrets.yaml", "", "db:\n  user: app\n  password: %s\n", "env-secret")
	read("", "env", "HOME=/home/dev\nPATH=/usr/local/bin:/usr/bin:/bin\nSHELL=/bin/zsh\nGITHUB_TOKEN=%s\n"+
		"SSH_AUTH_SOCK=/tmp/ssh-Xq1/agent.42\nMAX_THINKING_TOKENS=31999\nAWS_SECRET_ACCESS_KEY=%s\nLANG=en_US.UTF-8\n", "token:", "token:")
	read("", "printenv | sort", "DB_PASS=%s\nEDITOR=vim\nTERM=xterm-256color\n", "env-secret")
	read("", "docker inspect shop-db", "[\n  {\n    \"Config\": {\n      \"Env\": [\n        \"POSTGRES_PASSWORD=%s\",\n"+
		"        \"PGDATA=/var/lib/postgresql/data\"\n      ]\n    }\n  }\n]\n", "env-secret")
	read("", "kubectl get secret shop-db -o yaml", "apiVersion: v1\ndata:\n  password: %s\n  username: YXBw\nkind: Secret\n", "b64:")
	return out
}

func base64Of(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// Numbered numbers the lines of a file's text as agents' read tools show
// them: "     1→" (Claude Code's Read).
func Numbered(text string) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = fmt.Sprintf("%6d→%s", i+1, l)
	}
	return strings.Join(lines, "\n")
}
