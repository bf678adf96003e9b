package redact

import (
	"regexp"
	"strings"
	"sync"
)

// credentials are rules for secrets known by where they stand rather than
// by their shape: in an HTTP header, after a password flag, in a URL. A
// value that only stands for a secret ($TOKEN, <password>, changeme) is
// kept. Compiled when the rules are, not as the program starts.
var credentials = sync.OnceValue(func() []*rule {
	return []*rule{
		// A password in a URL's userinfo, the user possibly empty:
		// postgres://user:password@host/db, redis://:password@host.
		cred("url-password", `\b[a-zA-Z][a-zA-Z0-9+.-]{1,30}://[^\s:/?#@"'\x60<>]{0,200}:([^\s/?#@"'\x60<>]{1,300})@[^\s/?#@"'\x60<>]`, 0, "://"),
		// Passwords and tokens in a URL's query or a connection string's
		// options: ?password=…, &access_token=…, ;Password=…
		cred("url-query-secret", `(?i)[?&;](?:password|passwd|pwd|pass)=([^&\s"'#<>\x60;\\]{3,300})`,
			0, "password=", "passwd=", "pwd=", "pass="),
		token(cred("url-query-secret", `(?i)[?&;](?:access_token|auth_token|refresh_token|id_token|session_token|private_token|api_key|apikey|api-key|token|key|secret|client_secret|sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature)=([^&\s"'#<>\x60;\\]{16,1000})`,
			3.5, "token=", "key=", "secret=", "sig=", "signature=", "-token=")),
		// Authorization: Bearer …, X-Api-Key: … in commands, code and config.
		cred("http-auth-header", `(?i)\b(?:proxy-)?authorization["']?[ \t]*:[ \t]*["']?basic[ \t]+([A-Za-z0-9+/]{8,1000}={0,2})`,
			3, "authorization"),
		token(cred("http-auth-header", `(?i)\b(?:proxy-)?authorization["']?[ \t]*:[ \t]*["']?(?:(?:bearer|token|bot|apikey|api-key|key|digest|sso-key)[ \t]+)?([A-Za-z0-9._~+/=-]{8,1000})`,
			3, "authorization")),
		token(cred("http-auth-header", `(?i)\b(?:x-api-key|x-goog-api-key|xi-api-key|api-key|apikey|x-auth-token|x-access-token|x-subscription-token|private-token|x-gitlab-token|x-vault-token|x-rapidapi-key)["']?[ \t]*:[ \t]*["']?([A-Za-z0-9._~+/=-]{8,1000})`,
			3, "api-key", "apikey", "x-auth-token", "x-access-token", "x-subscription-token", "private-token", "x-gitlab-token", "x-vault-token", "x-rapidapi-key")),
		// curl -u user:password, http -a user:password.
		cred("basic-auth", `\b(?:curl|wget|xh)\b[^\n]*?[ \t](?:-u|--user|--http-user)(?:[ \t]+|=)?["']?[^\s:"'$@]{0,100}:([^\s"'\x60@]{3,200})`,
			0, "curl", "wget", "xh"),
		cred("basic-auth", `\bhttps? (?:-a|--auth)(?:[ \t]+|=)["']?[^\s:"'$@]{0,100}:([^\s"'\x60@]{3,200})`,
			0, "http -a", "https -a", "http --auth", "https --auth"),
		// Passwords given to commands: --password …, mysql -p…, sshpass -p …,
		// docker login -p …, redis-cli -a …, openssl -pass pass:…, and the
		// variables that clients read them from.
		cred("password-flag", `(?:^|[\s"'=(])--(?:password|passwd|pass|db-password|admin-password|root-password)(?:=|[ \t]+)["']?([^\s"'$<>{}|;&\x60\\-][^\s"'\x60\\]*)`,
			0, "--pass", "--db-password", "--admin-password", "--root-password"),
		cred("password-flag", `\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb|mariadb-dump)\b[^\n|;&]*?[ \t]-p["']?([^\s"'\x60]+)`,
			0, "mysql", "mariadb"),
		cred("password-flag", `\bsshpass[ \t]+-p[ \t]*["']?([^\s"'\x60]+)`, 0, "sshpass"),
		cred("password-flag", `\b(?:docker|podman|buildah|skopeo|helm|oras|nerdctl)\b[^\n|;&]*?\blogin\b[^\n|;&]*?[ \t]-p[ \t]+["']?([^\s"'\x60]+)`,
			0, "docker", "podman", "buildah", "skopeo", "helm", "oras", "nerdctl"),
		cred("password-flag", `\b(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)\b[^\n|;&]*?[ \t]-p[ \t]+["']?([^\s"'\x60-][^\s"'\x60]*)`,
			0, "mongo"),
		cred("password-flag", `\bredis-cli\b[^\n|;&]*?[ \t]-a[ \t]+["']?([^\s"'\x60]+)`, 0, "redis-cli"),
		cred("password-flag", `[ \t]-pass(?:in|out)?[ \t]+["']?pass:([^\s"'\x60]+)`, 0, "pass:"),
		cred("password-flag", `\b(?:PGPASSWORD|MYSQL_PWD|REDISCLI_AUTH|SSHPASS)=["']?([^\s"'\x60;&|]+)`,
			0, "pgpassword", "mysql_pwd", "rediscli_auth", "sshpass="),
		// Tokens given to commands: --token …, --api-key …
		token(cred("token-flag", `(?:^|[\s"'=(])--(?:token|api-key|apikey|api_key|auth-token|access-token|secret-key|client-secret|refresh-token|bearer-token|hf-token|github-token|gh-token|npm-token)(?:=|[ \t]+)["']?([^\s"'$<>{}|;&\x60\\-][^\s"'\x60\\]{7,})`,
			0, "--token", "--api-key", "--apikey", "--api_key", "--auth-token", "--access-token", "--secret-key",
			"--client-secret", "--refresh-token", "--bearer-token", "--hf-token", "--github-token", "--gh-token", "--npm-token")),
	}
})

// cred is a rule whose first group is the secret.
func cred(id, expr string, entropy float64, keywords ...string) *rule {
	return &rule{id: id, re: regexp.MustCompile(expr), group: 1, entropy: entropy, keywords: keywords, skip: stands, prio: generic}
}

// token makes r keep a value with no digit: a token is random, a word or
// an identifier (apiKeyFromEnvironment) is not one.
func token(r *rule) *rule {
	r.skip = func(v string) bool { return stands(v) || !mixed(v) }
	return r
}

// stands reports whether v only stands for a secret: a variable, a
// template, a placeholder, a mask, a word such as "password", or code.
func stands(v string) bool {
	v = strings.Trim(v, `"'`)
	if len(v) < 3 || strings.ContainsAny(v[:1], "$<{%[*(#") || strings.Count(v, v[:1]) == len(v) {
		return true
	}
	l := strings.ToLower(v)
	for _, w := range placeholderParts {
		if strings.Contains(l, w) {
			return true
		}
	}
	if placeholderWords[l] || strings.ContainsAny(v, "()") {
		return true
	}
	// SOME_NAME: a variable's name; a.b.c: a field of an object.
	return upperName.MatchString(v) || fieldPath.MatchString(v)
}

var (
	placeholderParts = []string{"your", "xxx", "***", "...", "…", "•", "changeme", "change_me", "change-me", "placeholder",
		"example", "redacted", "dummy", "here", "${", "{{", "process.env", "environ", "getenv", "fake", "sample"}
	placeholderWords = map[string]bool{"password": true, "passwd": true, "pass": true, "secret": true, "token": true,
		"apikey": true, "api_key": true, "api-key": true, "key": true, "none": true, "null": true, "nil": true,
		"true": true, "false": true, "undefined": true, "test": true, "changeit": true, "string": true, "value": true,
		"mypassword": true, "mysecret": true, "mytoken": true}
	upperName = regexp.MustCompile(`^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$`)
	fieldPath = regexp.MustCompile(`^[A-Za-z_]+(?:\.[A-Za-z_]+)+$`)
)
