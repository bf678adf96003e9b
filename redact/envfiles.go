package redact

import (
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/transcriptsite/transcriptsite/transcript"
)

// What a tool call's input or output holds, as far as the call shows.
// These are the rules only transcripts allow: the text of a .env file an
// agent read has no marks of its own, but the call that read it names the
// file.
type holds uint8

const (
	// settings are KEY=VALUE or key: value lines of a file of secrets or
	// of the environment (env, printenv, docker inspect): a value is
	// secret when its key names a credential or it looks random.
	settings holds = 1 << iota
	// keyLines are the base64 lines of a private key (*.pem, id_rsa),
	// also when the read was cut before the END line.
	keyLines
	// command is a command line: KEY=VALUE assignments in it whose key
	// names a credential are secret (DB_PASSWORD=… npm start).
	command
)

// callHolds says what a tool call's input and output hold, from the
// call's kind and its input: the files it names, the command it runs.
func callHolds(kind transcript.ToolKind, input string) (in, out holds) {
	paths, commands := callTargets(kind, input)
	if kind == transcript.ShellTool || len(commands) > 0 {
		in |= command
	}
	writes := kind == transcript.WriteTool || kind == transcript.EditTool
	for _, p := range paths {
		h := fileHolds(p)
		if writes {
			in |= h // the content written
		}
		out |= h
	}
	for _, c := range commands {
		out |= commandHolds(c)
	}
	return in, out
}

// callTargets returns the paths and commands a call's input names; the
// input of a shell call that is not JSON is its command.
func callTargets(kind transcript.ToolKind, input string) (paths, commands []string) {
	paths, commands, ok := targets(input)
	if !ok && kind == transcript.ShellTool {
		commands = []string{input}
	}
	return paths, commands
}

// targets returns the paths and commands a tool's JSON input names, in
// the fields agents use for them; ok is false when input is not JSON.
// Patches name their files in their text (*** Update File: path).
func targets(input string) (paths, commands []string, ok bool) {
	paths = patchPaths(input)
	s := strings.TrimSpace(input)
	if !strings.HasPrefix(s, "{") || !mayHold(s) {
		return paths, nil, strings.HasPrefix(s, "{")
	}
	var in targetFields
	if json.Unmarshal([]byte(s), &in) != nil {
		return paths, nil, false
	}
	for _, v := range []json.RawMessage{in.FilePath, in.Path, in.FilePath2, in.AbsolutePath, in.TargetFile, in.NotebookPath, in.File, in.Filename, in.Paths, in.Files} {
		paths = append(paths, jsonStrings(v)...)
	}
	for _, v := range []json.RawMessage{in.Command, in.Cmd, in.Script, in.Commands} {
		if c := jsonStrings(v); len(c) > 0 {
			commands = append(commands, strings.Join(c, " "))
		}
	}
	return paths, commands, true
}

// targetFields are the fields of a tool's JSON input that agents name
// files and commands in.
type targetFields struct {
	FilePath     json.RawMessage `json:"file_path"`
	Path         json.RawMessage `json:"path"`
	FilePath2    json.RawMessage `json:"filePath"`
	AbsolutePath json.RawMessage `json:"absolute_path"`
	TargetFile   json.RawMessage `json:"target_file"`
	NotebookPath json.RawMessage `json:"notebook_path"`
	File         json.RawMessage `json:"file"`
	Filename     json.RawMessage `json:"filename"`
	Paths        json.RawMessage `json:"paths"`
	Files        json.RawMessage `json:"files"`
	Command      json.RawMessage `json:"command"`
	Cmd          json.RawMessage `json:"cmd"`
	Script       json.RawMessage `json:"script"`
	Commands     json.RawMessage `json:"commands"`
}

// patchPaths returns the files a patch names (*** Update File: path).
func patchPaths(input string) []string {
	if !strings.Contains(input, " File: ") {
		return nil
	}
	var paths []string
	for _, m := range patchFile.FindAllStringSubmatch(input, -1) {
		paths = append(paths, strings.TrimSpace(m[1]))
	}
	return paths
}

// jsonStrings decodes a JSON string, or a list of them.
func jsonStrings(v json.RawMessage) []string {
	if len(v) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return []string{s}
	}
	var list []string
	_ = json.Unmarshal(v, &list)
	return list
}

var patchFile = regexp.MustCompile(`(?m)^\*\*\* (?:Add|Update) File: (.+)$`)

// mayHold is a quick test that s could name a file of secrets or a
// command that prints them, before it is parsed.
func mayHold(s string) bool {
	for _, m := range []string{".env", "env.", "envrc", "printenv", `"env`, " env", "environ", "netrc", "npmrc", "pypirc",
		"yarnrc", "pgpass", "cred", ".pem", ".key", "id_", "kube", "secret", "export", "declare", "typeset", "inspect",
		"config -l", "config --list", "aws sts", "heroku", "my.cnf", "auth.json", "docker/config"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// fileHolds says what a file holds, by its name.
func fileHolds(p string) holds {
	p = strings.ReplaceAll(strings.Trim(p, `"'`), `\`, "/")
	base := strings.ToLower(path.Base(p))
	switch {
	case settingsFile(p, base):
		return settings
	case keyFile(base):
		return keyLines | settings
	}
	return 0
}

// settingsFile reports whether the file p, named base in lower case,
// holds settings that are secrets: a .env file, a file of credentials, a
// kubeconfig, docker's config, a process's environment.
func settingsFile(p, base string) bool {
	lower := strings.ToLower(p)
	return base == ".env" || strings.HasPrefix(base, ".env.") || strings.HasSuffix(base, ".env") ||
		secretFiles[base] || strings.HasPrefix(base, "secrets.") || strings.HasSuffix(base, ".kubeconfig") ||
		strings.HasSuffix(lower, ".kube/config") || strings.HasSuffix(lower, ".docker/config.json") ||
		strings.HasSuffix(p, "/environ")
}

// keyFile reports whether the file named base, in lower case, holds a
// private key.
func keyFile(base string) bool {
	return strings.HasSuffix(base, ".pem") || strings.HasSuffix(base, ".key") ||
		strings.HasPrefix(base, "id_") && !strings.HasSuffix(base, ".pub")
}

// secretFiles are files of secrets by their name.
var secretFiles = map[string]bool{
	".envrc": true, ".netrc": true, "_netrc": true, ".npmrc": true, ".pypirc": true, ".yarnrc.yml": true,
	".pgpass": true, ".git-credentials": true, ".my.cnf": true, "credentials": true, "credentials.json": true,
	".credentials.json": true, "oauth_creds.json": true, "auth.json": true, "kubeconfig": true, ".secrets": true,
	"application_default_credentials.json": true,
}

// commandHolds says what a command line's output holds: the settings of
// a file of secrets it names, or the environment it prints.
func commandHolds(c string) holds {
	var h holds
	for _, seg := range commandSep.Split(c, -1) {
		words := commandWords(seg)
		for _, w := range words {
			h |= fileHolds(strings.Trim(w, `"'();<>`))
		}
		if len(words) > 0 && dumps(words) {
			h |= settings
		}
	}
	return h
}

// commandWords returns the words of the simple command seg: without
// sudo, assignments and the brackets of a group before it, and what a
// shell runs (bash -lc 'cmd', as Codex runs every command).
func commandWords(seg string) []string {
	words := strings.Fields(seg)
	for len(words) > 0 && prelude(words[0]) {
		words = words[1:]
	}
	if len(words) > 2 && shells[path.Base(words[0])] && strings.HasPrefix(words[1], "-") && strings.Contains(words[1], "c") {
		words = strings.Fields(strings.Trim(strings.Join(words[2:], " "), `"'`))
	}
	return words
}

// prelude reports whether the word w comes before a command: sudo, an
// assignment, the bracket of a group.
func prelude(w string) bool {
	return w == "sudo" || strings.Contains(w, "=") || w == "(" || w == "{"
}

var shells = words("bash sh zsh dash ksh fish")

var commandSep = regexp.MustCompile(`&&|\|\||[|;\n]|\$\(`)

// dumps reports whether a command prints the environment or stored
// secrets: env, printenv, export -p, docker inspect, kubectl get secret.
func dumps(w []string) bool {
	d, ok := dumpers[path.Base(w[0])]
	return ok && d(args(w))
}

// args are the words of a command, its name first.
type args []string

// at is the i-th word, or "" past the last.
func (w args) at(i int) string {
	if i < len(w) {
		return w[i]
	}
	return ""
}

// has reports whether one of the words is one of vals.
func (w args) has(vals ...string) bool {
	return slices.ContainsFunc(w, func(x string) bool { return slices.Contains(vals, x) })
}

// dumpers say, by a command's name, whether it prints secrets: the
// environment (env, printenv, export -p), a container's environment, a
// cluster's secrets, an app's config, git's settings, cloud credentials.
var dumpers = map[string]func(w args) bool{
	"env":      envDumps,
	"printenv": func(w args) bool { return len(w) == 1 || w[0] == "printenv" },
	"set":      func(w args) bool { return len(w) == 1 },
	"export":   exportDumps,
	"declare":  exportDumps,
	"typeset":  exportDumps,
	"docker":   containerDumps,
	"podman":   containerDumps,
	"kubectl":  clusterDumps,
	"oc":       clusterDumps,
	"heroku":   func(w args) bool { return strings.HasPrefix(w.at(1), "config") },
	"git":      func(w args) bool { return w.at(1) == "config" && w.has("-l", "--list") },
	"aws": func(w args) bool {
		return w.at(1) == "sts" || w.at(1) == "configure" && w.at(2) == "export-credentials"
	},
}

// envDumps reports whether env prints the environment: with a command
// it runs it, and what it prints is the command's.
func envDumps(w args) bool {
	for _, a := range w[1:] {
		if !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
			return false
		}
	}
	return true
}

// exportDumps reports whether export, declare or typeset lists the
// variables: alone, or with -p or -x.
func exportDumps(w args) bool {
	return len(w) == 1 || w.at(1) == "-p" || w.at(1) == "-x" || w.at(1) == "-px"
}

// containerDumps reports whether docker or podman prints a container's
// environment: inspect, or env run inside it.
func containerDumps(w args) bool {
	return w.at(1) == "inspect" || w.at(1) == "exec" && w.has("env", "printenv") ||
		w.at(1) == "container" && w.at(2) == "inspect"
}

// clusterDumps reports whether kubectl or oc prints a cluster's secrets.
func clusterDumps(w args) bool {
	return w.at(1) == "get" && strings.HasPrefix(w.at(2), "secret") || w.at(1) == "get" && strings.HasPrefix(w.at(2), "secrets/")
}

// A setting: KEY=VALUE (also with spaces, as ini files and .pypirc
// write it), key: value (YAML), "key": "value" (JSON), after the start of
// a line or a mark that can precede one (a read's line number, a grep
// file name, a quote, a diff's + or -).
var (
	eqSetting    = regexp.MustCompile(`(?:^|[\s"'→|:;,{(\[+-])(?:export\s+|declare -x\s+|setenv\s+)?([A-Za-z_][A-Za-z0-9_.\-]*|//[^\s=]+:_[A-Za-z]+)[ \t]*=[ \t]*("[^"\n]*"|'[^'\n]*'|[^\s"'\x60]+)`)
	colonSetting = regexp.MustCompile(`(?:^|[\s→|{,\[+-])("[A-Za-z_][A-Za-z0-9_.\-]*"|'[A-Za-z_][A-Za-z0-9_.\-]*'|[A-Za-z_][A-Za-z0-9_.\-]*)[ \t]*:[ \t]+("[^"\n]*"|'[^'\n]*'|[^\s"'\x60,}\]]+)`)
	wordSetting  = regexp.MustCompile(`(?:^|\s)(password|passwd|account)[ \t]+(\S+)`) // .netrc
	keyLine      = regexp.MustCompile(`(?m)^(?:\s*\d+[→\t:|])?\s*([A-Za-z0-9+/]{16,}={0,2})\s*$`)
)

// settingsIn finds the secret values of the settings in s (decoded text),
// as h says s holds them.
func settingsIn(s string, h holds, out []found) []found {
	// Each pattern needs its character: a text without it is not scanned
	// (no literal starts them, so the scan tries every position).
	if h&(settings|command) != 0 && strings.IndexByte(s, '=') >= 0 {
		out = settingsOf(eqSetting, s, h&settings == 0, out)
	}
	if h&settings != 0 {
		if strings.IndexByte(s, ':') >= 0 {
			out = settingsOf(colonSetting, s, false, out)
		}
		out = settingsOf(wordSetting, s, false, out)
	}
	if h&keyLines != 0 {
		out = keyLinesIn(s, out)
	}
	return out
}

// settingsOf adds the secret values of the settings re finds in s; byName
// as setting takes it.
func settingsOf(re *regexp.Regexp, s string, byName bool, out []found) []found {
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		out = setting(s, m, byName, out)
	}
	return out
}

// keyLinesIn adds the base64 lines of a private key in s.
func keyLinesIn(s string, out []found) []found {
	for _, m := range keyLine.FindAllStringSubmatchIndex(s, -1) {
		if !strings.HasPrefix(s[m[2]:m[3]], "-----") {
			out = append(out, found{m[2], m[3], "private-key", gitleaks})
		}
	}
	return out
}

// setting adds the value of the setting m (key group 1, value group 2)
// when it is secret; byName, for a command, only when its key names a
// credential.
func setting(s string, m []int, byName bool, out []found) []found {
	k := strings.Trim(s[m[2]:m[3]], `"'`)
	lo, hi := unquoted(s, m[4], m[5])
	if secretSetting(k, s[lo:hi], byName) {
		out = append(out, found{lo, hi, "env-secret", generic})
	}
	return out
}

// unquoted returns the span of s[lo:hi] without the quotes around it.
func unquoted(s string, lo, hi int) (int, int) {
	if hi-lo >= 2 && (s[lo] == '"' || s[lo] == '\'') && s[hi-1] == s[lo] {
		return lo + 1, hi - 1
	}
	return lo, hi
}

// secretSetting reports whether the value v of the key k is secret: the
// key names a credential and v is one, or, unless only names count
// (byName), v looks random under a key that does not say it is no secret.
func secretSetting(k, v string, byName bool) bool {
	if credKey(k) {
		return secretValue(k, v)
	}
	return !byName && !plainKey(k) && random(v)
}

// secretValue reports whether v, the value of a key that names a
// credential, is one rather than a stand-in, a path, a URL (whose
// password url-password finds), a switch or a number of something.
func secretValue(k, v string) bool {
	if stands(v) || strings.Contains(v, "://") || boolWords[strings.ToLower(v)] || deepPath(v) {
		return false
	}
	if strings.Trim(v, "0123456789.") == "" {
		return password(keyWords(k)) // a PIN, not a count of tokens
	}
	return true
}

// deepPath reports whether v is a path of more than one folder.
func deepPath(v string) bool {
	return (strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./")) && strings.Count(v, "/") > 1
}

var boolWords = map[string]bool{"yes": true, "off": true, "enabled": true, "disabled": true, "required": true, "optional": true}

// random reports whether v looks like a generated secret: long, in a
// token's alphabet, letters and digits mixed, of high entropy. Hashes
// and UUIDs (hex) fall short of the entropy.
func random(v string) bool {
	if len(v) < 20 || !mixed(v) || strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_.~-") != "" ||
		strings.ContainsAny(v[:1], "/~.") { // a path
		return false
	}
	return entropy(v) >= 4.2 && !fieldPath.MatchString(v)
}

// keyWords splits a setting's name into lower-case words:
// AWS_SECRET_ACCESS_KEY, clientSecret, //registry/:_authToken.
func keyWords(k string) []string {
	var words []string
	start := -1
	for i, r := range k {
		alnum := unicode.IsLetter(r) || unicode.IsDigit(r)
		if start >= 0 && (!alnum || camelHump(k, i, r)) {
			words = append(words, strings.ToLower(k[start:i]))
			start = -1
		}
		if alnum && start < 0 {
			start = i
		}
	}
	if start >= 0 {
		words = append(words, strings.ToLower(k[start:]))
	}
	return words
}

// camelHump reports whether r, at k[i], is an upper-case letter after a
// lower-case one: a new word in camelCase.
func camelHump(k string, i int, r rune) bool {
	return unicode.IsUpper(r) && i > 0 && unicode.IsLower(rune(k[i-1]))
}

// credKey reports whether a setting's name names a credential, and not
// something about one (TOKEN_URL, SECRET_NAME, AWS_ACCESS_KEY_ID).
func credKey(k string) bool {
	w := keyWords(k)
	if len(w) == 0 || about[w[len(w)-1]] {
		return false
	}
	for _, x := range w {
		if credWords[x] {
			return true
		}
	}
	return false
}

// password reports whether the words name a password, which may be all
// digits.
func password(words []string) bool {
	for _, w := range words {
		switch w {
		case "password", "passwd", "pass", "pwd", "pin", "passphrase", "secret":
			return true
		}
	}
	return false
}

// plainKey reports whether a setting's name says its value is no secret,
// however random it looks: a name, an id, a path.
func plainKey(k string) bool {
	w := keyWords(k)
	return len(w) > 0 && about[w[len(w)-1]]
}

var (
	credWords = words(`password passwd pass pwd passphrase secret secrets token apikey key auth credential credentials
		creds cookie privatekey dsn pat salt pin otp jwt bearer hmac authtoken accesstoken refreshtoken apitoken
		secretkey accesskey signingkey encryptionkey masterkey clientsecret appsecret dbpassword`)
	about = words(`id ids name names path paths file files dir url uri urls host hostname port user username users
		type version region timeout ttl expiry expires expiration length size count limit limits prefix suffix mode
		enabled enable disabled header endpoint domain email algorithm alg format env level provider model location
		sock socket pid helper length max min rotation policy scope scopes issuer audience store storage command cmd
		program askpass agent hash checksum fingerprint`)
)

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
