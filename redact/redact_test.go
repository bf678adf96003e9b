package redact_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	transcriptsite "github.com/transcriptsite/transcriptsite"
	"github.com/transcriptsite/transcriptsite/ingest"
	_ "github.com/transcriptsite/transcriptsite/ingest/agents"
	"github.com/transcriptsite/transcriptsite/internal/synth"
	"github.com/transcriptsite/transcriptsite/redact"
	"github.com/transcriptsite/transcriptsite/redact/redacttest"
	"github.com/transcriptsite/transcriptsite/transcript"
)

func newRedactor(t testing.TB, cfg redact.Config) *redact.Redactor {
	t.Helper()
	r, err := redact.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestEveryRule plants a secret of every gitleaks rule, as gitleaks' own
// detector finds it, in three settings a transcript has: alone, among lines
// of prose, and inside a JSON tool input.
func TestEveryRule(t *testing.T) {
	samples, missed := redacttest.Samples()
	if len(missed) > 0 || len(samples) < 200 {
		t.Errorf("%d samples; no sample for %v", len(samples), missed)
	}
	r := newRedactor(t, redact.Config{})
	for _, s := range samples {
		input := jsonString(map[string]string{"command": "cat .env", "content": "line one\n" + s.Text + "\nline three"})
		secretJSON := jsonString(s.Secret)
		for _, c := range []struct{ text, secret string }{
			{s.Text, s.Secret},
			{"Here is the config:\n\n" + s.Text + "\n\nand some more text after it.", s.Secret},
			{string(input), strings.Trim(string(secretJSON), `"`)},
		} {
			counts := map[string]int{}
			out := r.String(c.text, counts)
			if strings.Contains(out, c.secret) || len(counts) == 0 {
				t.Errorf("%s: the secret is left in %q (counts %v)", s.Rule, out, counts)
			}
			if strings.HasPrefix(c.text, "{") && !json.Valid([]byte(out)) {
				t.Errorf("%s: redaction broke the JSON: %s", s.Rule, out)
			}
		}
	}
}

// jsonString encodes v as agents write JSON, without escaping <, > and &.
func jsonString(v any) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// TestKinds checks the kinds that matter most by name, for gitleaks'
// samples: a key of a gitleaks rule that one of ours replaced is reported
// as ours.
func TestKinds(t *testing.T) {
	samples, _ := redacttest.Samples()
	r := newRedactor(t, redact.Config{})
	for rule, kind := range map[string]string{
		"anthropic-api-key": "anthropic-api-key", "anthropic-admin-api-key": "anthropic-admin-api-key",
		"openai-api-key": "openai-project-key", "gcp-api-key": "google-api-key", "aws-access-token": "aws-access-token",
		"github-pat": "github-pat", "github-fine-grained-pat": "github-fine-grained-pat", "github-oauth": "github-oauth",
		"gitlab-pat": "gitlab-pat", "slack-bot-token": "slack-bot-token", "slack-user-token": "slack-user-token",
		"stripe-access-token": "stripe-access-token", "huggingface-access-token": "huggingface-access-token",
		"private-key": "private-key", "jwt": "jwt", "generic-api-key": "generic-api-key",
		"perplexity-api-key": "perplexity-api-key", "cohere-api-token": "cohere-api-key",
	} {
		i := slices.IndexFunc(samples, func(s redacttest.Sample) bool { return s.Rule == rule })
		if i < 0 {
			t.Errorf("no rule %s", rule)
			continue
		}
		counts := map[string]int{}
		out := r.String(samples[i].Text, counts)
		if counts[kind] != 1 || !strings.Contains(out, "[REDACTED:"+kind+"]") {
			t.Errorf("%s: %q gives %q, counts %v", rule, samples[i].Text, out, counts)
		}
	}
}

// TestKeys plants keys of every format of our own rules in every shape a
// session's text gives them, and in a tool's JSON input: each is
// replaced, as its kind.
func TestKeys(t *testing.T) {
	keys, missed := redacttest.Keys(3)
	if len(missed) > 0 {
		t.Errorf("no keys made for %v", missed)
	}
	r := newRedactor(t, redact.Config{})
	kinds := map[string]bool{}
	for _, k := range keys {
		kinds[k.Rule] = true
		for _, shape := range redacttest.Shapes {
			for _, text := range []string{redacttest.Place(shape, k.Text), jsonString(map[string]string{"command": redacttest.Place(shape, k.Text)})} {
				counts := map[string]int{}
				out := r.String(text, counts)
				if strings.Contains(out, k.Secret) || counts[k.Rule] != 1 || !strings.Contains(out, "[REDACTED:"+k.Rule+"]") {
					t.Errorf("%s in %q: %q, counts %v", k.Rule, text, out, counts)
				}
			}
		}
	}
	// The providers issue 19 names, at least.
	for _, k := range strings.Fields(`openai-project-key openai-service-account-key openai-admin-key openai-api-key
		anthropic-api-key anthropic-admin-api-key anthropic-oauth-token openrouter-api-key groq-api-key xai-api-key
		google-api-key huggingface-access-token replicate-api-token perplexity-api-key fireworks-api-key
		langsmith-api-key langsmith-service-key tavily-api-key deepseek-api-key mistral-api-key cohere-api-key
		together-api-key voyage-api-key`) {
		if !kinds[k] {
			t.Errorf("no keys of kind %s", k)
		}
	}
}

func TestOwnRulesAndKeptText(t *testing.T) {
	r := newRedactor(t, redact.Config{})
	for _, c := range []struct{ in, want string }{
		{"psql postgres://app:s3cr3t-P4ss@db.internal:5432/app", "psql postgres://app:[REDACTED:url-password]@db.internal:5432/app"},
		{`git remote add origin "https://x-access-token:Zt8qP2vLk9Rw@github.com/o/r.git"`, `git remote add origin "https://x-access-token:[REDACTED:url-password]@github.com/o/r.git"`},
		{"export DB_PASSWORD=q8Vn3kZt7Lw2xR", "export DB_PASSWORD=[REDACTED:generic-api-key]"},
		// Kept: low entropy, placeholders, and the text of ordinary sessions.
		{"password = \"changeme\"", ""},
		{"token: ${GITHUB_TOKEN}", ""},
		{"git@github.com:owner/repo.git and https://github.com/owner/repo and http://localhost:8080/", ""},
		{"commit 9fceb02d0ae598e95dc970b74767f19372d61af8, session 3f2a9c1e-7b4d-4e8a-9c2f-1d5e6a7b8c90", ""},
		{"apiKey := os.Getenv(\"API_KEY\")\nif tok.Kind == token.STRING {", ""},
		{"The key insight is that the parser's token stream is lazy.", ""},
		// Kept: stand-ins for secrets, flags that are not passwords, ids.
		{"OPENAI_API_KEY=sk-proj-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", ""},
		{`curl -H "Authorization: Bearer $OPENAI_API_KEY" -H 'x-api-key: <your-key>' -u "$USER:$PASS" https://api.example.com`, ""},
		{"echo $PW | docker login --password-stdin -u ci registry && mkdir -p build && ssh -p 2222 host && docker run -p 8080:80 -u 1000:1000 app", ""},
		{"git push -u origin main; psql postgres://user:password@localhost/db; mysql -u root -p shop", ""},
		{"mongosh --password ${MONGO_PASSWORD} && gh auth login --with-token < token.txt && npm test -- --token-limit 5", ""},
		{`headers["Authorization"] = request.headers.get("Authorization")`, ""},
		{"const client = new Client({ apiKey: apiKeyFromEnvironment, authorization: bearerTokenProvider })", ""},
		{"// readUint16LengthPrefixed acts like s.readUint8LengthPrefixed, but targets a\n`mysql -p…` asks for the password", ""},
		{"curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA==' https://api.example.com", "curl -H 'Authorization: Basic [REDACTED:http-auth-header]' https://api.example.com"},
		{"fw_getFirmwareRevisionNumber pa-ListItemComponentNameIsLongEnoughForIt hf_requiredCharacteristicTypesForDisplay", ""},
		{"https://example.com/search?q=token&key=cache-entry-name&page=2", ""},
		{"https://blog.example.com/pa-annual-report-of-the-finance-team-for-2024q/ and, all together, 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", ""},
	} {
		want := c.want
		if want == "" {
			want = c.in
		}
		if got := r.String(c.in, map[string]int{}); got != want {
			t.Errorf("%q\n got %q\nwant %q", c.in, got, want)
		}
	}
}

// TestCommands puts each command line with a secret in a shell tool's
// input: the secret is replaced as its kind.
func TestCommands(t *testing.T) {
	r := newRedactor(t, redact.Config{})
	for _, c := range redacttest.Commands(1) {
		call := &transcript.ToolCall{ID: "c1", Name: "Bash", Kind: transcript.ShellTool, Input: jsonString(map[string]string{"command": c.Text})}
		s := &transcript.Session{Turns: []transcript.Turn{{Messages: []*transcript.Message{{Parts: []*transcript.Part{{Kind: transcript.CallPart, Call: call}}}}}}}
		counts := r.Session(s)
		if strings.Contains(call.Input, c.Secret) || counts[c.Rule] != 1 {
			t.Errorf("%s: %s, counts %v", c.Rule, call.Input, counts)
		}
	}
}

// TestReads reads files of secrets and prints the environment, in tools
// of every kind, the result paired with its call or not: every secret in
// the output is replaced as its kind. The same output from a read of an
// ordinary file keeps what only the context rules find.
func TestReads(t *testing.T) {
	keys, _ := redacttest.Keys(1)
	r := newRedactor(t, redact.Config{})
	for i, rd := range redacttest.Reads(1, keys[:5]) {
		input, kind, output := map[string]string{"command": rd.Command}, transcript.ShellTool, rd.Output
		if rd.Path != "" {
			input, kind, output = map[string]string{"file_path": rd.Path}, transcript.ReadTool, redacttest.Numbered(rd.Output)
		}
		for _, paired := range []bool{true, false} {
			res := &transcript.ToolResult{CallID: "c1", Output: output}
			call := &transcript.ToolCall{ID: "c1", Kind: kind, Input: jsonString(input)}
			parts := []*transcript.Part{{Kind: transcript.CallPart, Call: call}, {Kind: transcript.ResultPart, Result: res}}
			if paired {
				call.Result = res
			}
			s := &transcript.Session{Turns: []transcript.Turn{{Messages: []*transcript.Message{{Parts: parts[:1]}, {Parts: parts[1:]}}}}}
			counts := r.Session(s)
			for _, sec := range rd.Secrets {
				if strings.Contains(res.Output, sec.Secret) || counts[sec.Rule] == 0 {
					t.Errorf("read %d (%s%s), paired %v: %s is left in\n%s\ncounts %v", i, rd.Path, rd.Command, paired, sec.Rule, res.Output, counts)
				}
			}
		}
		if i == 0 {
			plain := r.String(output, map[string]int{})
			if !strings.Contains(plain, rd.Secrets[1].Secret) {
				t.Errorf("without the read's context, the .env's DB_PASSWORD is redacted too: the test shows nothing")
			}
		}
	}
	// A password that is a word is redacted where it is a password, not
	// wherever the word appears; one that is not is redacted everywhere.
	env := &transcript.ToolResult{Output: "DB_PASSWORD=postgres\nAPI_PASSWORD=Vq8tLm2pRz\n"}
	note := &transcript.Part{Kind: transcript.TextPart, Text: "Connect with psql to postgres; the API takes Vq8tLm2pRz."}
	s := &transcript.Session{Turns: []transcript.Turn{{Messages: []*transcript.Message{{Parts: []*transcript.Part{
		{Kind: transcript.CallPart, Call: &transcript.ToolCall{Kind: transcript.ReadTool, Input: `{"file_path":".env"}`, Result: env}}, note}}}}}}
	r.Session(s)
	if env.Output != "DB_PASSWORD=[REDACTED:env-secret]\nAPI_PASSWORD=[REDACTED:env-secret]\n" || note.Text != "Connect with psql to postgres; the API takes [REDACTED:env-secret]." {
		t.Errorf("passwords of a .env elsewhere: %q, %q", env.Output, note.Text)
	}

	// A patch that adds a .env file (Codex's apply_patch).
	patch := &transcript.ToolCall{Kind: transcript.EditTool, Input: "*** Begin Patch\n*** Add File: deploy/.env\n+PORT=8080\n+DB_PASSWORD=Zr4mPq8vLx\n*** End Patch"}
	s = &transcript.Session{Turns: []transcript.Turn{{Messages: []*transcript.Message{{Parts: []*transcript.Part{{Kind: transcript.CallPart, Call: patch}}}}}}}
	if r.Session(s); strings.Contains(patch.Input, "Zr4mPq8vLx") || !strings.Contains(patch.Input, "+PORT=8080") {
		t.Errorf("patched .env: %s", patch.Input)
	}

	// A file of secrets written: its content is redacted as read.
	call := &transcript.ToolCall{Kind: transcript.WriteTool, Input: jsonString(map[string]string{"file_path": "/app/.env", "content": "DB_PASSWORD=Qm7rTz2pLk\nPORT=3000\n"})}
	s = &transcript.Session{Turns: []transcript.Turn{{Messages: []*transcript.Message{{Parts: []*transcript.Part{{Kind: transcript.CallPart, Call: call}}}}}}}
	if r.Session(s); strings.Contains(call.Input, "Qm7rTz2pLk") || !strings.Contains(call.Input, "PORT=3000") {
		t.Errorf("written .env: %s", call.Input)
	}
}

// TestKeptSettings prints an environment and reads an example .env with
// nothing secret in them: nothing is redacted.
func TestKeptSettings(t *testing.T) {
	r := newRedactor(t, redact.Config{})
	for input, output := range map[string]string{
		`{"command":"env"}`: "HOME=/home/dev\nPATH=/usr/local/bin:/usr/bin\nLS_COLORS=rs=0:di=01;34:ln=01;36:mh=00:pi=40;33\n" +
			"TERM_SESSION_ID=w0t0p0:2E8A5F7C-0B4D-4C1E-9F3A-7D2B6C8E1A40\nXPC_SERVICE_NAME=application.com.microsoft.VSCode.81234.81240\n" +
			"SSH_AUTH_SOCK=/private/tmp/com.apple.launchd.Xq1/Listeners\nGIT_ASKPASS=/Applications/Code.app/askpass.sh\n" +
			"VSCODE_GIT_IPC_HANDLE=/var/folders/3x/T/vscode-git-9f8e7d6c5b.sock\nMAX_THINKING_TOKENS=31999\nSHLVL=2\n" +
			"CLAUDE_CODE_ENTRYPOINT=cli\nGIT_COMMIT=9fceb02d0ae598e95dc970b74767f19372d61af8\nTOKENIZERS_PARALLELISM=false\n" +
			"SECURITYSESSIONID=186a8\nAPI_TOKEN_URL=https://auth.example.com/token\nKEY_ID=3f2a9c1e-7b4d-4e8a-9c2f-1d5e6a7b8c90\n_=/usr/bin/env\n",
		`{"file_path":"/app/.env.example"}`: "     1→OPENAI_API_KEY=your-openai-key-here\n     2→DB_PASSWORD=changeme\n     3→STRIPE_SECRET=sk_test_...\n" +
			"     4→SESSION_SECRET=\n     5→JWT_SECRET=<generate with openssl rand -hex 32>\n     6→AUTH_ENABLED=true\n     7→TOKEN_TTL=3600\n",
	} {
		res := &transcript.ToolResult{Output: output}
		call := &transcript.ToolCall{Kind: transcript.ShellTool, Input: input, Result: res}
		s := &transcript.Session{Turns: []transcript.Turn{{Messages: []*transcript.Message{{Parts: []*transcript.Part{{Kind: transcript.CallPart, Call: call}}}}}}}
		if counts := r.Session(s); len(counts) > 0 {
			t.Errorf("%s: redacted %v:\n%s", input, counts, res.Output)
		}
	}
}

func TestSiteRules(t *testing.T) {
	r := newRedactor(t, redact.Config{
		Patterns: []redact.Pattern{{Kind: "ticket", Regex: `ACME-\d{4}`}, {Kind: "internal-host", Regex: `https://(\w+)\.corp\.example`}},
		Literals: []string{"Project Nightingale", ""},
		Paths:    true,
	})
	counts := map[string]int{}
	in := `Fix ACME-1234 for Project Nightingale at https://wiki.corp.example/x in /home/alice/src/app and /Users/bob, C:\Users\carol\proj, {"p":"C:\\Users\\dave\\x"}; keep /mnt/home/x and /home/`
	want := `Fix [REDACTED:ticket] for [REDACTED:literal] at https://[REDACTED:internal-host].corp.example/x in ~/src/app and ~, ~\proj, {"p":"~\\x"}; keep /mnt/home/x and /home/`
	if got := r.String(in, counts); got != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
	if counts["ticket"] != 1 || counts["literal"] != 1 || counts["internal-host"] != 1 || len(counts) != 3 {
		t.Errorf("counts %v", counts)
	}
	for _, bad := range []redact.Config{
		{Patterns: []redact.Pattern{{Kind: "x", Regex: "("}}},
		{Patterns: []redact.Pattern{{Kind: "", Regex: "x"}}},
		{Patterns: []redact.Pattern{{Kind: "a]b", Regex: "x"}}},
	} {
		if _, err := redact.New(bad); err == nil || !strings.Contains(err.Error(), "redact.patterns[0]") {
			t.Errorf("%+v: err = %v", bad, err)
		}
	}
}

// kept are the session fields that are not redacted: ids and names that
// URLs and formats are made of, and values that are never free text
// (Image.Blob is the hash of an image's bytes).
var kept = []string{
	"Session.ID", "Session.Format", "Session.Source", "Session.Sources", "Session.ParentID", "Session.ChildIDs",
	"Message.ID", "Message.Role", "Message.Branch", "Part.Kind", "ToolCall.Kind", "ToolCall.Subagent",
	"Image.MediaType", "Image.Blob", "Event.Session", "Turn.Status",
}

// TestSessionRedactsEveryField puts a secret in every string of a session
// and checks that only the kept fields still hold it, so a field added to
// the model later is redacted or kept on purpose.
func TestSessionRedactsEveryField(t *testing.T) {
	samples, _ := redacttest.Samples()
	secret := samples[slices.IndexFunc(samples, func(s redacttest.Sample) bool { return s.Rule == "github-pat" })]
	code := 0
	res := &transcript.ToolResult{Images: []*transcript.Image{{}}, ExitCode: &code, Patch: []transcript.Hunk{{Lines: []string{""}}}}
	s := &transcript.Session{
		Meta: map[string]string{"k": ""}, Warnings: []string{""}, Sources: []string{""}, Models: []string{""}, ChildIDs: []string{""},
		Skipped: []transcript.Skip{{}},
		Turns: []transcript.Turn{{Messages: []*transcript.Message{{Parts: []*transcript.Part{
			{Call: &transcript.ToolCall{Result: res}, Image: &transcript.Image{}, Event: &transcript.Event{}},
			{Result: res},
		}}}}},
	}
	walkStrings(reflect.ValueOf(s), "", func(_ string, v reflect.Value) { v.SetString("see " + secret.Text) })
	counts := newRedactor(t, redact.Config{}).Session(s)
	var left []string
	walkStrings(reflect.ValueOf(s), "", func(field string, v reflect.Value) {
		if strings.Contains(v.String(), secret.Secret) && !slices.Contains(left, field) {
			left = append(left, field)
		}
	})
	slices.Sort(left)
	want := slices.Clone(kept)
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Errorf("fields that keep the secret:\n got %v\nwant %v", left, want)
	}
	if counts["github-pat"] != 30 {
		t.Errorf("counts %v, want one per redacted field", counts)
	}
}

// walkStrings calls f with every settable string in v, named Type.Field.
func walkStrings(v reflect.Value, field string, f func(string, reflect.Value)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkStrings(v.Elem(), field, f)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[transcript.Args]() {
			return // read from the redacted input once a session is redacted and merged (ingest.Tools)
		}
		for i := range v.NumField() {
			walkStrings(v.Field(i), v.Type().Name()+"."+v.Type().Field(i).Name, f)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walkStrings(v.Index(i), field, f)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			walkStrings(e, field, f)
			v.SetMapIndex(k, e)
		}
	case reflect.String:
		f(field, v)
	}
}

// corpus returns every string of the shared corpus's sessions, or of the
// demo content when the corpus is not beside the repository.
func corpus(b testing.TB) (strs []string, size int64) {
	var root fs.FS = os.DirFS("../../shared/corpus")
	if _, err := fs.Stat(root, "."); err != nil {
		root, _ = fs.Sub(transcriptsite.FS, "content")
	}
	res, err := ingest.Load(context.Background(), ingest.Root{FS: root})
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range res.Sessions {
		walkStrings(reflect.ValueOf(s), "", func(_ string, v reflect.Value) {
			if v.Len() > 0 {
				strs = append(strs, v.String())
				size += int64(v.Len())
			}
		})
	}
	return strs, size
}

// BenchmarkString redacts every string of real sessions.
func BenchmarkString(b *testing.B) {
	strs, size := corpus(b)
	r := newRedactor(b, redact.Config{})
	b.SetBytes(size)
	for b.Loop() {
		counts := map[string]int{}
		for _, s := range strs {
			r.String(s, counts)
		}
	}
}

// TestSessionRedactsASecretEverywhere finds a secret where the text around
// it lets a rule see it, and replaces it too where it does not: in a path,
// and in a string redacted before the one that gave it away.
func TestSessionRedactsASecretEverywhere(t *testing.T) {
	samples, _ := redacttest.Samples()
	s := samples[slices.IndexFunc(samples, func(s redacttest.Sample) bool { return s.Rule == "azure-ad-client-secret" })]
	sess := &transcript.Session{
		CWD: "/srv/" + s.Secret,
		Turns: []transcript.Turn{{Messages: []*transcript.Message{
			{Parts: []*transcript.Part{{Kind: transcript.TextPart, Text: "ls /srv/" + s.Secret + "/logs"}}},
			{Parts: []*transcript.Part{{Kind: transcript.TextPart, Text: "The secret is " + s.Text}}},
		}}},
	}
	if strings.Contains(newRedactor(t, redact.Config{}).String(sess.CWD, map[string]int{}), "REDACTED") {
		t.Fatal("the rule sees the secret in a path: the test needs a secret it does not see there")
	}
	counts := newRedactor(t, redact.Config{}).Session(sess)
	for _, got := range []string{sess.CWD, sess.Turns[0].Messages[0].Parts[0].Text, sess.Turns[0].Messages[1].Parts[0].Text} {
		if strings.Contains(got, s.Secret) || !strings.Contains(got, "[REDACTED:azure-ad-client-secret]") {
			t.Errorf("%q", got)
		}
	}
	if counts["azure-ad-client-secret"] != 3 {
		t.Errorf("counts %v", counts)
	}
}

// A rule anchored at its keywords still finds a secret after other
// keywords on the same line, and one whose name holds a keyword midway.
func TestAnchoredMidLine(t *testing.T) {
	r, err := redact.New(redact.Config{})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "q8ZrL2mN4pQ7sT9vW1xY3bK6"
	for _, s := range []string{
		`see the API docs and the auth notes, then set access_key = "` + secret + `" here`,
		`export MYAPP_SECRET_VALUE=` + secret,
		`{"k": "v", "client_token": "` + secret + `"}`,
	} {
		counts := map[string]int{}
		got := r.String(s, counts)
		if strings.Contains(got, secret) || counts["generic-api-key"] != 1 {
			t.Errorf("String(%q) = %q, counts %v", s, got, counts)
		}
	}
}

// TestNoiseIsKept runs sessions full of strings that look random and are
// no secret (git SHAs, UUIDs, base64 images, hashes, lockfiles, minified
// code, an environment and an example .env without secrets), as tool
// output, text and thinking: nothing is redacted.
func TestNoiseIsKept(t *testing.T) {
	r := newRedactor(t, redact.Config{})
	for seed := range uint64(3) {
		var msgs []*transcript.Message
		for i, o := range redacttest.Noise(seed) {
			res := &transcript.ToolResult{Output: o.Text}
			call := &transcript.ToolCall{ID: fmt.Sprint(i), Kind: transcript.ShellTool, Input: jsonString(map[string]string{"command": o.Command}), Result: res}
			msgs = append(msgs, &transcript.Message{Parts: []*transcript.Part{
				{Kind: transcript.TextPart, Text: "Output of " + o.Command + ":\n\n```\n" + o.Text + "```"},
				{Kind: transcript.ThinkingPart, Text: o.Text},
				{Kind: transcript.CallPart, Call: call},
			}})
		}
		s := &transcript.Session{ID: fmt.Sprint("noise", seed), Turns: []transcript.Turn{{Messages: msgs}}}
		r.Session(s)
		for _, f := range listRedactions(s) {
			t.Error(f)
		}
	}
}

// TestGeneratedSessionsAreKept redacts the synthetic sessions the
// benchmarks build (code, commands, long outputs, images, in three formats):
// nothing in them is a secret.
func TestGeneratedSessionsAreKept(t *testing.T) {
	dir := t.TempDir()
	if _, err := synth.Generate(dir, synth.Options{Sessions: 24, Messages: 40, Formats: []string{"claude-code", "codex", "gemini-cli"}, Images: true}); err != nil {
		t.Fatal(err)
	}
	if n := redactNothing(t, os.DirFS(dir)); n != 24 {
		t.Errorf("%d sessions", n)
	}
}

// TestCorpusHasNoSecrets redacts every session of the shared corpus, when
// it is beside the repository, and lists every redaction made: the corpus
// holds no secret, so each would be a false positive.
func TestCorpusHasNoSecrets(t *testing.T) {
	root := os.DirFS("../../shared/corpus")
	if _, err := fs.Stat(root, "."); err != nil {
		t.Skip("no shared corpus beside the repository")
	}
	t.Logf("%d sessions, no redaction", redactNothing(t, root))
}

// redactNothing redacts every session in root and fails the test for each
// redaction made, with its place and the text around it. It returns how
// many sessions there were.
func redactNothing(t *testing.T, root fs.FS) int {
	t.Helper()
	res, err := ingest.Load(context.Background(), ingest.Root{FS: root})
	if err != nil {
		t.Fatal(err)
	}
	r := newRedactor(t, redact.Config{})
	for _, s := range res.Sessions {
		r.Session(s)
		for _, f := range listRedactions(s) {
			t.Errorf("%s: %s", s.Source, f)
		}
	}
	return len(res.Sessions)
}

// listRedactions describes each redaction in s with its place and the text
// around it.
func listRedactions(s *transcript.Session) []string {
	var out []string
	findings := redact.Findings(s)
	walkStrings(reflect.ValueOf(s), "", func(field string, v reflect.Value) {
		str := v.String()
		for i := 0; ; {
			j := strings.Index(str[i:], "[REDACTED:")
			if j < 0 {
				break
			}
			j += i
			out = append(out, fmt.Sprintf("%s: …%s…", field, str[max(0, j-60):min(len(str), j+80)]))
			i = j + 1
		}
	})
	if len(findings) != len(out) {
		out = append(out, fmt.Sprintf("Findings lists %d redactions, the strings hold %d", len(findings), len(out)))
	}
	return out
}
