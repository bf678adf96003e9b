package redact

import (
	"regexp"
	"slices"
	"strings"
)

// keyFormats are the formats of AI providers' API keys and tokens, each its own
// kind: what agents' sessions leak most. They are written from the
// providers' documentation and the key shapes that secret scanners
// (gitleaks, betterleaks, kingfisher) report, and each is anchored on its
// prefix, bounded in length and checked for entropy, so that a placeholder
// (sk-proj-xxxx…) or an identifier that merely starts like one is kept.
// They replace gitleaks' rules for the same keys (superseded), which
// missed OpenAI's project keys without T3BlbkFJ and Anthropic's tokens
// other than api03 and admin01.
var keyFormats = []Key{
	{Kind: "openai-project-key", Pattern: `sk-proj-[A-Za-z0-9_-]{40,200}`, entropy: 3.5},
	{Kind: "openai-service-account-key", Pattern: `sk-svcacct-[A-Za-z0-9_-]{40,200}`, entropy: 3.5},
	{Kind: "openai-admin-key", Pattern: `sk-admin-[A-Za-z0-9_-]{40,200}`, entropy: 3.5},
	// Legacy user keys (48 characters, T3BlbkFJ in the middle) and keys
	// not tied to a project; Moonshot and Stability keys share the shape.
	{Kind: "openai-api-key", Pattern: `sk-(?:None-[A-Za-z0-9_-]{40,200}|[A-Za-z0-9]{48})`, entropy: 3.5},
	{Kind: "anthropic-api-key", Pattern: `sk-ant-api\d\d-[A-Za-z0-9_-]{80,120}`, entropy: 3.5},
	{Kind: "anthropic-admin-api-key", Pattern: `sk-ant-admin\d\d-[A-Za-z0-9_-]{80,120}`, entropy: 3.5},
	// Claude Code's OAuth access and refresh tokens (~/.claude/.credentials.json).
	{Kind: "anthropic-oauth-token", Pattern: `sk-ant-o[ar]t\d\d-[A-Za-z0-9_-]{40,200}`, entropy: 3.5},
	{Kind: "anthropic-session-key", Pattern: `sk-ant-sid\d\d-[A-Za-z0-9_-]{40,200}`, entropy: 3.5},
	{Kind: "openrouter-api-key", Pattern: `sk-or-v1-[0-9a-f]{64}`, entropy: 3},
	// DeepSeek's; Alibaba's DashScope (Qwen) keys share the shape.
	{Kind: "deepseek-api-key", Pattern: `sk-[0-9a-f]{32}`, entropy: 3},
	{Kind: "groq-api-key", Pattern: `gsk_[A-Za-z0-9]{52}`, entropy: 3.5},
	{Kind: "xai-api-key", Pattern: `xai-[A-Za-z0-9_-]{70,120}`, entropy: 3.5},
	{Kind: "google-api-key", Pattern: `AIza[A-Za-z0-9_-]{35}`, entropy: 3.5},
	// Google OAuth, as Gemini CLI keeps it in ~/.gemini/oauth_creds.json.
	{Kind: "google-oauth-access-token", Pattern: `ya29\.[A-Za-z0-9_-]{30,1000}`, entropy: 3.5},
	{Kind: "google-oauth-refresh-token", Pattern: `1//0[A-Za-z0-9_-]{40,200}`, entropy: 3.5},
	{Kind: "google-oauth-client-secret", Pattern: `GOCSPX-[A-Za-z0-9_-]{28}`, entropy: 3.5},
	{Kind: "huggingface-access-token", Pattern: `hf_[A-Za-z]{34}`, entropy: 3},
	{Kind: "replicate-api-token", Pattern: `r8_[A-Za-z0-9]{37}`, entropy: 3.5},
	{Kind: "perplexity-api-key", Pattern: `pplx-[A-Za-z0-9]{48}`, entropy: 3.5},
	{Kind: "fireworks-api-key", Pattern: `fw_[A-Za-z0-9]{20,64}`, entropy: 3.5},
	{Kind: "langsmith-api-key", Pattern: `lsv2_pt_[0-9a-f]{32}_[0-9a-f]{10}`, entropy: 3},
	{Kind: "langsmith-service-key", Pattern: `lsv2_sk_[0-9a-f]{32}_[0-9a-f]{10}`, entropy: 3},
	{Kind: "langfuse-secret-key", Pattern: `sk-lf-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`, entropy: 3},
	{Kind: "tavily-api-key", Pattern: `tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}`, entropy: 3.5},
	{Kind: "together-api-key", Pattern: `tgp_v1_[A-Za-z0-9_-]{43}`, entropy: 3.5},
	{Kind: "voyage-api-key", Pattern: `pa-[A-Za-z0-9_-]{43}`, entropy: 3.5},
	{Kind: "cerebras-api-key", Pattern: `csk-[a-z0-9]{48}`, entropy: 3.5},
	{Kind: "nvidia-api-key", Pattern: `nvapi-[A-Za-z0-9_-]{64}`, entropy: 3.5},
	{Kind: "jina-api-key", Pattern: `jina_[A-Za-z0-9_-]{40,100}`, entropy: 3.5},
	{Kind: "pinecone-api-key", Pattern: `pcsk_[A-Za-z0-9]{5,6}_[A-Za-z0-9]{63}`, entropy: 3.5},
	{Kind: "elevenlabs-api-key", Pattern: `sk_[0-9a-f]{48}`, entropy: 3},
	{Kind: "firecrawl-api-key", Pattern: `fc-[0-9a-f]{32}`, entropy: 3},
	{Kind: "cursor-api-key", Pattern: `key_[0-9a-f]{64}`, entropy: 3},
	{Kind: "wandb-api-key", Pattern: `wandb_v1_[A-Za-z0-9_]{77}`, entropy: 3.5},
	// Keys with no prefix of their own, found by the name they are given.
	{Kind: "mistral-api-key", Name: `mistral`, Pattern: `[A-Za-z0-9]{32}`, entropy: 3.5},
	{Kind: "cohere-api-key", Name: `cohere|co_api_key`, Pattern: `[A-Za-z0-9]{40}`, entropy: 3.5},
	{Kind: "together-api-key", Name: `together`, Pattern: `[0-9a-f]{64}`, entropy: 3},
	{Kind: "azure-openai-api-key", Name: `azure[_.-]?openai|aoai`, Pattern: `[0-9a-f]{32}|[A-Za-z0-9]{84}`, entropy: 3},
	{Kind: "wandb-api-key", Name: `wandb`, Pattern: `[0-9a-f]{40}`, entropy: 3},
	{Kind: "deepgram-api-key", Name: `deepgram`, Pattern: `[0-9a-f]{40}`, entropy: 3},
	{Kind: "assemblyai-api-key", Name: `assemblyai|assembly_ai`, Pattern: `[0-9a-f]{32}`, entropy: 3},
}

// superseded are gitleaks' rules that keys replace: the same keys, found
// as one of them reports them.
var superseded = map[string]bool{
	"openai-api-key": true, "anthropic-api-key": true, "anthropic-admin-api-key": true,
	"gcp-api-key": true, "huggingface-access-token": true, "perplexity-api-key": true,
	"cohere-api-token": true,
}

// tokenEnd ends a key: anything that could not continue it.
const tokenEnd = `(?:[^A-Za-z0-9_-]|$)`

// Key is the format of a key a built-in rule finds.
type Key struct {
	Kind    string
	Pattern string // a regular expression of the key
	// Name, for a key with no prefix of its own, is a regular expression
	// of the name it must be given (MISTRAL_API_KEY=…), in lower case.
	Name    string
	entropy float64
}

// Keys returns the key formats of the rules transcriptsite adds to
// gitleaks', for tests and documentation.
func Keys() []Key { return slices.Clone(keyFormats) }

// rule makes the rule that finds k.
func (k Key) rule() *rule {
	if k.Name != "" {
		return named(k.Kind, k.Name, k.Pattern, k.entropy)
	}
	return key(k.Kind, k.Pattern, k.entropy)
}

// key is a rule for a key that starts with a fixed prefix. Its body must
// mix letters and digits when it may hold both, and a body that may hold -
// and _ must not be made of words joined by them: fw_getFirmwareRevision
// and pa-the-slug-of-a-long-blog-post-2024 are no keys.
func key(id, expr string, entropy float64) *rule {
	re := regexp.MustCompile(`\b(` + expr + `)` + tokenEnd)
	prefix, _ := regexp.MustCompile(expr).LiteralPrefix()
	r := &rule{id: id, re: re, group: 1, entropy: entropy, keywords: []string{strings.ToLower(prefix)}}
	alnum, joined := strings.Contains(expr, "A-Za-z0-9"), strings.Contains(expr, "_-]")
	if alnum || joined {
		r.skip = func(secret string) bool {
			body := secret[len(prefix):]
			return alnum && !mixed(body) || joined && 8*(strings.Count(body, "-")+strings.Count(body, "_")) > len(body)
		}
	}
	return r
}

// named is a rule for a key with no prefix, given a name that says whose
// it is: MISTRAL_API_KEY=…, "cohere_key": "…".
func named(id, names, value string, entropy float64) *rule {
	re := regexp.MustCompile(namePrefix + `(?:` + names + `)[\w.-]{0,30}?[\s'"]{0,3}(?:[:=]{1,3}|=>|\|\||\?=)[\s'"\x60=]{0,5}(` + value + `)` + tokenEnd)
	var kws []string
	for _, n := range strings.Split(names, "|") {
		prefix, _ := regexp.MustCompile(n).LiteralPrefix()
		kws = append(kws, strings.ToLower(prefix))
	}
	return &rule{id: id, re: re, group: 1, entropy: entropy, keywords: kws}
}

// mixed reports whether s holds both a letter and a digit.
func mixed(s string) bool {
	letter, digit := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter = letter || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		digit = digit || '0' <= c && c <= '9'
	}
	return letter && digit
}
