package site

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/transcriptsite/transcriptsite/internal/treetest"
	"github.com/transcriptsite/transcriptsite/redact/redacttest"
)

// fixtures are the folders of session files of every format the readers
// read, by format: each agent package's testdata. They are the sessions
// the planted-key test puts secrets in.
func fixtures(t testing.TB) map[string]string {
	dirs, err := filepath.Glob("../ingest/*/testdata")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	out := map[string]string{}
	for _, d := range dirs {
		out[filepath.Base(filepath.Dir(d))] = d
	}
	return out
}

// plant copies the fixtures of every format to content/<format>/, each
// string of their sessions with what add returns for it (by the format
// and the string's number in that format) appended: every JSON string
// that is not an id, a type, a time or a model, and every line of prose
// of Markdown and text, where what add returns must fit on the line.
// Numbers are the same from one call to the next. It returns, by format,
// whether each string is a line.
func plant(t *testing.T, content string, add func(format string, n int, line bool) string) map[string][]bool {
	t.Helper()
	n := map[string][]bool{}
	files := map[string][]byte{}
	for format, dir := range fixtures(t) {
		if err := plantFormat(content, format, dir, files, func(line bool) string {
			n[format] = append(n[format], line)
			return add(format, len(n[format]), line)
		}); err != nil {
			t.Fatal(err)
		}
	}
	treetest.WriteTree(t, "/", files)
	return n
}

// plantFormat plants in the fixtures of format, in dir, what next returns
// for each string, and adds them to files, at content/<format>/.
func plantFormat(content, format, dir string, files map[string][]byte, next func(line bool) string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if err == nil && (d.Name() == "fuzz" || d.Name() == "golden") { // test data of no session
				return filepath.SkipDir
			}
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch filepath.Ext(p) {
		case ".json":
			data = plantJSON(data, func() string { return next(false) })
		case ".jsonl":
			lines := bytes.SplitAfter(data, []byte("\n"))
			for i, l := range lines {
				lines[i] = plantJSON(l, func() string { return next(false) })
			}
			data = bytes.Join(lines, nil)
		default:
			data = plantLines(data, func() string { return next(true) })
		}
		files[filepath.Join(content, format, rel)] = data
		return nil
	})
}

// plantJSON appends add() to each string value of doc but those that are
// kept; doc is returned as it was when it is not JSON.
func plantJSON(doc []byte, add func() string) []byte {
	dec := jsontext.NewDecoder(bytes.NewReader(doc))
	var out []byte
	last := 0
	for {
		k := dec.PeekKind()
		if k == 0 {
			break
		}
		if kind, n := dec.StackIndex(dec.StackDepth()); k != '"' || kind == '{' && n%2 == 0 {
			if _, err := dec.ReadToken(); err != nil {
				return doc
			}
			continue
		}
		v, err := dec.ReadValue()
		if err != nil {
			return doc
		}
		end := int(dec.InputOffset())
		if keptKey(dec.StackPointer().LastToken()) {
			continue
		}
		var s string
		_ = json.Unmarshal(v, &s)
		q, _ := jsontext.AppendQuote(nil, s+add())
		out = append(append(out, doc[last:end-len(v)]...), q...)
		last = end
	}
	return append(out, doc[last:]...)
}

// keptKey says whether the value of a JSON key is left as it is: ids,
// types and roles, times, models and versions, media types, hashes and
// image data, which readers parse or which are shown as they are.
func keptKey(k string) bool {
	k = strings.ToLower(k)
	return keptKeys[k] || strings.HasSuffix(k, "id") || strings.HasSuffix(k, "uuid") || strings.HasSuffix(k, "_at") ||
		strings.HasSuffix(k, "hash") || strings.HasSuffix(k, "time") || strings.HasSuffix(k, "type") || strings.HasSuffix(k, "version")
}

var keptKeys = map[string]bool{"type": true, "role": true, "timestamp": true, "ts": true, "created": true, "updated": true,
	"completed": true, "start": true, "end": true, "status": true, "model": true, "modelid": true, "provider": true,
	"mimetype": true, "media_type": true, "data": true, "kind": true, "subtype": true, "signature": true, "mode": true,
	"parentsession": true, "branchedfrom": true} // Pi links a fork to its parent by its file

// plantLines appends " "+add() to each line of prose of a Markdown or text
// document: not front matter, headings of levels 1 to 3, HTML, fences or
// what JSON and YAML fences hold.
func plantLines(doc []byte, add func() string) []byte {
	lines := strings.Split(string(doc), "\n")
	inFence, skipFence, frontMatter := false, false, len(lines) > 0 && lines[0] == "---"
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case frontMatter:
			frontMatter = i == 0 || t != "---"
			continue
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			if inFence = !inFence; inFence {
				skipFence = structured.MatchString(t)
			}
			continue
		case inFence && skipFence, t == "", prose.MatchString(t):
			continue
		}
		lines[i] = l + " " + add()
	}
	return []byte(strings.Join(lines, "\n"))
}

var (
	structured = regexp.MustCompile(`json|yaml|session-config|msg-metadata`)
	prose      = regexp.MustCompile(`^(?:#{1,3} |<|---|_\*\*|# aider chat)`)
)

// TestPlantedKeysLeakNowhere plants secrets in every string of the
// sessions of every format: several keys of every format of our own rules,
// in every shape a text gives them, and the credentials in command lines,
// in every format; a sample of every gitleaks rule in two of them. A first build finds the strings a site
// shows; a build without redaction shows each secret planted in them; the
// build with it must show none, in any file, and count each as its kind.
func TestPlantedKeysLeakNowhere(t *testing.T) {
	all := plantedSamples(t)
	fs := formats(t)
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("title: Planted\noutputs: {json: true}\n"), 0o644)
	content := filepath.Join(dir, "content")
	off := map[string]any{"redact.enabled": false}

	// Which strings does a site show?
	mark := func(format string, n int, _ bool) string {
		return fmt.Sprintf(" zqm%sq%dqz", strings.ReplaceAll(format, "-", ""), n)
	}
	count := plant(t, content, mark)
	_, marked := buildPlanted(t, dir, "marks", off)
	seen := map[string]bool{}
	for _, m := range markRe.FindAllString(marked.all, -1) {
		seen[m] = true
	}
	shown := map[string][]int{}
	for _, f := range fs {
		for n := 1; n <= len(count[f]); n++ {
			if seen[strings.TrimSpace(mark(f, n, false))] {
				shown[f] = append(shown[f], n)
			}
		}
	}

	texts, where := spread(t, fs, all, shown, count)
	if err := os.RemoveAll(content); err != nil {
		t.Fatal(err)
	}
	plant(t, content, func(f string, n int, line bool) string {
		if len(texts[f][n]) == 0 {
			return ""
		}
		if line {
			return strings.Join(texts[f][n], " ")
		}
		return "\n" + strings.Join(texts[f][n], "\n") + "\n"
	})

	var everyNeedle []string
	for _, f := range fs {
		for _, p := range where[f] {
			everyNeedle = append(everyNeedle, needles(p.Secret)...)
		}
	}
	_, open := buildPlanted(t, dir, "open", off)
	list, redacted := buildPlanted(t, dir, "public", nil)
	c := plantCheck{t: t, list: list, redacted: redacted, inOpen: holds(open.all, everyNeedle),
		inRedacted: holds(redacted.all, everyNeedle), kinds: map[string]bool{}, reported: map[string]bool{}}
	nPlanted := 0
	for _, f := range fs {
		c.format(f, where[f])
		nPlanted += len(where[f])
	}
	t.Logf("%d formats, %d kinds; %d secrets planted, %d where a page shows them, none left", len(fs), len(c.kinds), nPlanted, c.total)
}

// planted is a secret planted in sessions, in the text that holds it.
type planted struct {
	redacttest.Sample
	text string
	ours bool // of our rules, reported as their kind; a gitleaks rule's may be reported as another's of its shape
}

// plantedSamples are the secrets TestPlantedKeysLeakNowhere plants: keys
// of every format of our rules, in every shape a text gives them, the
// credentials in command lines, and a sample of every gitleaks rule.
func plantedSamples(t *testing.T) []planted {
	keys, missed := redacttest.Keys(3)
	gitleaks, _ := redacttest.Samples()
	if len(missed) > 0 {
		t.Errorf("no keys of %v", missed)
	}
	var all []planted
	for i, k := range keys {
		all = append(all, planted{k, redacttest.Place(redacttest.Shapes[i%len(redacttest.Shapes)], k.Text), true})
	}
	for _, c := range redacttest.Commands(7) {
		if c.Rule != "env-secret" { // found in a shell tool's input only
			all = append(all, planted{c, c.Text, true})
		}
	}
	for _, s := range gitleaks {
		all = append(all, planted{s, s.Text, false})
	}
	return all
}

// plantedSite is a built site's files, by name, each in lower case with
// its name, and all of them in one.
type plantedSite struct {
	files map[string]string
	all   string
}

// buildPlanted builds the site in dir into dest, and returns its sessions
// and its files.
func buildPlanted(t *testing.T, dir, dest string, overrides map[string]any) ([]SessionEntry, plantedSite) {
	t.Helper()
	o := map[string]any{"destination": filepath.Join(dir, dest)}
	for k, v := range overrides {
		o[k] = v
	}
	cfg, _, err := build(t, dir, o)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	var all strings.Builder
	for name, data := range treetest.Tree(t, cfg.Destination) {
		files[name] = strings.ToLower(name + "\n" + string(data))
		all.WriteString(files[name] + "\n")
	}
	return readSessions(t, cfg.Destination), plantedSite{files, all.String()}
}

// in lists the files of st that hold s, which found says st holds.
func (st plantedSite) in(found map[string]bool, s string) (names []string) {
	if !found[s] {
		return nil
	}
	for name, data := range st.files {
		if strings.Contains(data, s) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// spread spreads every secret over the strings of every format that a
// site shows: on a line of Markdown, on one line (a sample of several
// lines only in JSON); gitleaks' rules, which other tests try each, in two
// formats each. It returns the texts to plant, by format and string, and
// the secrets planted in each format.
func spread(t *testing.T, fs []string, all []planted, shown map[string][]int, count map[string][]bool) (map[string]map[int][]string, map[string][]planted) {
	texts := map[string]map[int][]string{}
	where := map[string][]planted{}
	for fi, f := range fs {
		texts[f] = map[int][]string{}
		if len(shown[f]) == 0 {
			t.Errorf("%s: no string of its sessions is shown", f)
			continue
		}
		i := 0
		for j, p := range all {
			if !p.ours && j%len(fs) != fi && (j+len(fs)/2)%len(fs) != fi {
				continue
			}
			n := shown[f][i%len(shown[f])]
			if line := count[f][n-1]; line && strings.Contains(p.text, "\n") {
				if strings.Contains(p.Text, "\n") {
					continue
				}
				p.text = strings.ReplaceAll(p.text, "\n", " ")
			}
			texts[f][n] = append(texts[f][n], p.text)
			where[f] = append(where[f], p)
			i++
		}
	}
	return texts, where
}

// needles are what of a secret must not be in a site: the secret, and
// each run of letters and digits in it.
func needles(secret string) []string { return redacttest.Needles(secret) }

// plantCheck checks the sites built from the planted sessions.
type plantCheck struct {
	t                  *testing.T
	list               []SessionEntry // of the site built with redaction
	redacted           plantedSite
	inOpen, inRedacted map[string]bool // the needles each site holds
	kinds, reported    map[string]bool
	total              int
}

// format checks the secrets planted in the sessions of format f: each
// that reached a page without redaction is in no file of the redacted
// site, and is counted as its kind.
func (c *plantCheck) format(f string, where []planted) {
	t := c.t
	counts := map[string]int{}
	for _, e := range c.list {
		if strings.HasPrefix(e.Source, f+"/") {
			for k, n := range e.Redacted {
				counts[k] += n
			}
		}
	}
	reached := map[string]int{}
	for _, p := range where {
		if !c.inOpen[strings.ToLower(p.Secret)] {
			continue // cut from what the site shows
		}
		reached[p.Rule]++
		c.total++
		c.kinds[p.Rule] = true
		for _, nd := range needles(p.Secret) {
			c.leak(p, nd)
		}
		if p.ours && counts[p.Rule] == 0 {
			t.Errorf("%s: no secret reported as %s", f, p.Rule)
		}
	}
	for _, p := range where {
		if reached[p.Rule] == 0 {
			t.Errorf("%s: no secret of kind %s reached a page even without redaction", f, p.Rule)
			reached[p.Rule] = -1
		}
	}
}

// leak reports the needle nd of the secret p if the redacted site holds
// it, once, with where it is: a session's page if it is in one.
func (c *plantCheck) leak(p planted, nd string) {
	names := c.redacted.in(c.inRedacted, nd)
	if len(names) == 0 || c.reported[nd] {
		return
	}
	c.reported[nd] = true
	pn := names[0]
	for _, nm := range names {
		if strings.HasPrefix(nm, "sessions/") {
			pn = nm
		}
	}
	page := c.redacted.files[pn]
	i := strings.Index(page, nd)
	c.t.Errorf("a secret of kind %s is in %s: %q in …%s…", p.Rule, names, nd, page[max(0, i-150):min(len(page), i+len(nd)+50)])
}

// holds returns which of needles s holds, in one pass.
func holds(s string, needles []string) map[string]bool {
	trie := ahocorasick.NewTrieBuilder().AddStrings(needles).Build()
	found := map[string]bool{}
	for _, m := range trie.MatchString(s) {
		found[m.MatchString()] = true
	}
	return found
}

var (
	markRe = regexp.MustCompile(`zqm[a-z]+q[0-9]+qz`)
)

// readCalls are the tool calls, with their results, that read each of
// reads and run each of commands, as Claude Code, Codex and Gemini CLI
// record them.
func readCalls(reads []redacttest.Read, commands []redacttest.Sample) (claude, codex, gemini []obj) {
	for i, r := range reads {
		id := fmt.Sprintf("call%d", i)
		cmd, output := r.Command, r.Output
		if r.Path != "" {
			claude = append(claude, obj{"type": "tool_use", "id": id, "name": "Read", "input": obj{"file_path": r.Path}},
				obj{"type": "tool_result", "tool_use_id": id, "content": redacttest.Numbered(output)})
			gemini = append(gemini, obj{"id": id, "name": "read_file", "args": obj{"absolute_path": r.Path}, "status": "success",
				"result": []obj{{"functionResponse": obj{"id": id, "name": "read_file", "response": obj{"output": output}}}}})
			cmd = "cat " + r.Path
		} else {
			claude = append(claude, obj{"type": "tool_use", "id": id, "name": "Bash", "input": obj{"command": cmd}},
				obj{"type": "tool_result", "tool_use_id": id, "content": output})
			gemini = append(gemini, obj{"id": id, "name": "run_shell_command", "args": obj{"command": cmd}, "status": "success",
				"result": []obj{{"functionResponse": obj{"id": id, "name": "run_shell_command", "response": obj{"output": output}}}}})
		}
		args, _ := json.Marshal(obj{"command": []string{"bash", "-lc", cmd}})
		codex = append(codex, obj{"type": "function_call", "name": "shell", "call_id": id, "arguments": string(args)},
			obj{"type": "function_call_output", "call_id": id, "output": output})
	}
	for i, c := range commands {
		id := fmt.Sprintf("cmd%d", i)
		claude = append(claude, obj{"type": "tool_use", "id": id, "name": "Bash", "input": obj{"command": c.Text}},
			obj{"type": "tool_result", "tool_use_id": id, "content": "ok"})
		gemini = append(gemini, obj{"id": id, "name": "run_shell_command", "args": obj{"command": c.Text}, "status": "success",
			"result": []obj{{"functionResponse": obj{"id": id, "name": "run_shell_command", "response": obj{"output": "ok"}}}}})
		args, _ := json.Marshal(obj{"cmd": c.Text})
		codex = append(codex, obj{"type": "function_call", "name": "exec_command", "call_id": id, "arguments": string(args)},
			obj{"type": "function_call_output", "call_id": id, "output": "ok"})
	}
	return claude, codex, gemini
}

// checkPlantedReads builds the site in dir with redaction on or off, and
// checks that it shows every secret, or none, and counts them.
func checkPlantedReads(t *testing.T, dir string, redacted bool, secrets []redacttest.Sample) {
	t.Helper()
	var needles []string
	for _, s := range secrets {
		needles = append(needles, strings.ToLower(s.Secret))
	}
	cfg, _, err := build(t, dir, map[string]any{"redact.enabled": redacted, "destination": filepath.Join(dir, fmt.Sprint("public-", redacted))})
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for name, data := range treetest.Tree(t, cfg.Destination) {
		all.WriteString(strings.ToLower(name + "\n" + string(data) + "\n"))
	}
	found := holds(all.String(), needles)
	list := readSessions(t, cfg.Destination)
	if len(list) != 3 {
		t.Fatalf("%d sessions, want 3", len(list))
	}
	for _, e := range list {
		for _, s := range secrets {
			if redacted && e.Redacted[s.Rule] == 0 {
				t.Errorf("%s: no secret counted as %s", e.Format, s.Rule)
			}
		}
	}
	for _, s := range secrets {
		if found[strings.ToLower(s.Secret)] == redacted {
			t.Errorf("redaction %v: the %s secret %q is in the site: %v", redacted, s.Rule, s.Secret, found[strings.ToLower(s.Secret)])
		}
	}
}

// formats are the formats of the fixtures, sorted.
func formats(t *testing.T) []string {
	var out []string
	for f := range fixtures(t) {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// TestPlantedReadsLeakNowhere has agents of three formats read files of
// secrets (.env, .netrc, a private key, …), print the environment (env,
// docker inspect, kubectl get secret) and run commands with credentials in
// them, as tool calls and, for Claude Code, as the user's own shell
// command: no secret reaches the site, and each is counted as its kind.
func TestPlantedReadsLeakNowhere(t *testing.T) {
	keys, _ := redacttest.Keys(1)
	reads := redacttest.Reads(3, keys[:8])
	commands := redacttest.Commands(3)
	var secrets []redacttest.Sample
	for _, r := range reads {
		secrets = append(secrets, r.Secrets...)
	}
	secrets = append(secrets, commands...)

	claude, codex, gemini := readCalls(reads, commands)

	var cc [][]byte
	n := 0
	rec := func(typ string, msg obj) obj {
		n++
		return obj{"parentUuid": nil, "sessionId": "11111111-0000-4000-8000-000000000001", "cwd": "/home/dev/shop", "type": typ,
			"uuid": fmt.Sprintf("u%d", n), "timestamp": fmt.Sprintf("2026-05-01T10:%02d:%02dZ", n/60, n%60), "message": msg}
	}
	cc = append(cc, jsonl(false, rec("user", obj{"role": "user", "content": "Why does the app not start?"})))
	for i := 0; i < len(claude); i += 2 {
		cc = append(cc, jsonl(false,
			rec("assistant", obj{"id": fmt.Sprintf("m%d", i), "role": "assistant", "model": "claude-sonnet-4-5", "content": []obj{claude[i]}}),
			rec("user", obj{"role": "user", "content": []obj{claude[i+1]}})))
	}
	// The user's own command: Claude Code shows it as tagged text.
	env := reads[0]
	cc = append(cc, jsonl(false,
		rec("user", obj{"role": "user", "content": "<bash-input>cat .env</bash-input>"}),
		rec("user", obj{"role": "user", "content": "<bash-stdout>" + env.Output + "</bash-stdout><bash-stderr></bash-stderr>"})))

	ts := func(s int) string { return fmt.Sprintf("2026-05-02T10:%02d:%02d.000Z", s/60, s%60) }
	cx := [][]byte{jsonl(false,
		obj{"timestamp": ts(0), "type": "session_meta", "payload": obj{"id": "019a0000-0000-7000-8000-000000000002", "timestamp": ts(0), "cwd": "/home/dev/shop"}},
		obj{"timestamp": ts(1), "type": "response_item", "payload": obj{"type": "message", "role": "user", "content": []obj{{"type": "input_text", "text": "Why does the app not start?"}}}})}
	for i, it := range codex {
		cx = append(cx, jsonl(false, obj{"timestamp": ts(2 + i), "type": "response_item", "payload": it}))
	}
	gm := jsonl(false,
		obj{"sessionId": "33333333-0000-4000-8000-000000000003", "projectHash": "abc", "startTime": "2026-05-03T10:00:00.000Z", "lastUpdated": "2026-05-03T10:09:00.000Z", "kind": "main"},
		obj{"id": "g1", "timestamp": "2026-05-03T10:00:01.000Z", "type": "user", "content": []obj{{"text": "Why does the app not start?"}}},
		obj{"id": "g2", "timestamp": "2026-05-03T10:00:05.000Z", "type": "gemini", "content": "Let me look.", "model": "gemini-2.5-pro", "toolCalls": gemini})

	dir := t.TempDir()
	treetest.WriteTree(t, dir, map[string][]byte{
		"config.yaml": []byte("title: Reads\n"),
		"content/claude/-home-dev-shop/11111111-0000-4000-8000-000000000001.jsonl":                        bytes.Join(cc, nil),
		"content/codex/2026/05/02/rollout-2026-05-02T10-00-00-019a0000-0000-7000-8000-000000000002.jsonl": bytes.Join(cx, nil),
		"content/gemini/tmp/shop/chats/session-2026-05-03T10-00-33333333.jsonl":                           gm,
	})
	checkPlantedReads(t, dir, false, secrets) // every secret is shown
	checkPlantedReads(t, dir, true, secrets)  // and none is

	// The report of what was redacted where, built cold and warm: a row a
	// secret, at a message the page has, and no secret.
	for _, run := range []string{"cold", "warm"} {
		cfg, _, err := LoadConfig(Options{Source: dir, Overrides: map[string]any{"cacheDir": filepath.Join(dir, "cache")}})
		if err != nil {
			t.Fatal(err)
		}
		report := filepath.Join(dir, run+".tsv")
		b, err := NewBuilder(cfg, BuildOptions{Redactions: report})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := b.Build(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		rows := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")[2:]
		if len(rows) != Sum(rep.Redacted) || len(rows) < len(secrets) {
			t.Errorf("%s: %d rows for %d secrets redacted", run, len(rows), Sum(rep.Redacted))
		}
		for _, r := range rows {
			f := strings.Split(r, "\t")
			page, anchor, _ := strings.Cut(f[5], "#")
			html, err := os.ReadFile(filepath.Join(cfg.Destination, page, "index.html"))
			if err != nil || anchor != "" && !bytes.Contains(html, []byte(`id="`+anchor+`"`)) || len(f) != 6 {
				t.Errorf("%s: row %q: no such page or message (%v)", run, r, err)
				break
			}
		}
		for _, s := range secrets {
			if strings.Contains(strings.ToLower(string(data)), strings.ToLower(s.Secret)) {
				t.Errorf("%s: the report holds a %s secret", run, s.Rule)
			}
		}
	}
	t.Logf("%d reads and %d commands in 3 formats, %d secrets", len(reads), len(commands), len(secrets))
}
