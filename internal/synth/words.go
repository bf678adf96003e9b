package synth

import (
	"encoding/base64"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// common are real words at the head of the frequency ranking, so that prose
// reads like prose; the long tail of the vocabulary is made-up words.
var common = strings.Fields(`
the of and to a in is that it for on with as this be are by not or from at can we if but have will
which you use should when into then so an all one there what was has also more only new now it's
just like need here each other than about after before does still because same both first last
where there's don't let's make sure check instead already again without some any most these those
function file test error value type code data config build request response server client cache
session user method call return string number list field module package path line output input
handler query index table state event message result context option default version change update
issue fix bug case step time page key name id log run command script import export class struct
interface service api endpoint route schema model record entry item node tree graph queue worker
buffer stream reader writer parser token header body status flag setting variable parameter argument
loop branch commit merge diff patch release deploy container image database migration column row
cluster job task plan review docs comment helper wrapper util format timeout retry limit size count
memory thread lock channel signal process permission network socket connection host port url
`)

// verbs start function names and titles.
var verbs = strings.Fields(`get set load parse build render fetch update delete create handle validate
resolve encode decode init flush sync apply merge split scan read write open close start stop run check
compute normalize format index query match find filter sort group collect emit register lookup attach
detach refresh reset retry cancel schedule dispatch serialize marshal unmarshal compile convert extract
migrate seed wrap ensure prune evict track report`)

// nouns are technical nouns for identifiers.
var nouns = strings.Fields(`config cache store client server request response session token handler
index queue worker buffer user item record entry node tree graph file path manifest schema table row
column event message result error context options state batch chunk page cursor offset limit filter
rule policy plan job task report metric span trace writer reader parser lexer router middleware
registry provider adapter loader builder factory pool conn listener watcher snapshot checkpoint
payload header body status version release`)

const vocabSize = 40000

// vocabulary is every word form prose draws from, most frequent first. It
// is the same for every seed: the seed chooses what is said, not the
// language it is said in.
var vocabulary = buildVocabulary()

func buildVocabulary() []string {
	onsets := strings.Fields("b br c ch cl cr d dr f fl fr g gl gr h j k l m n p pl pr qu r s sc sh sk sl sm sn sp st str t th tr v w wh z x")
	onsets = append(onsets, "", "", "")
	nuclei := strings.Fields("a e i o u a e i o u ai ea ee io ou oa ie y")
	codas := strings.Fields("n r s t l m nd nt st ck ng rt x ss ll sh th p d k ld mp nk")
	codas = append(codas, "", "", "", "")
	suffixes := []string{"s", "ing", "ed", "er", "ly", "tion", "ness", "able"}

	r := rand.New(rand.NewPCG(0x5eed, 0x7a11))
	seen := make(map[string]bool, vocabSize+len(common))
	for _, w := range common {
		seen[w] = true
	}
	var made []string
	add := func(w string) {
		if !seen[w] && len(made) < vocabSize-len(common) {
			seen[w] = true
			made = append(made, w)
		}
	}
	var b []byte
	for len(made) < vocabSize-len(common) {
		b = b[:0]
		syl := 1 + r.IntN(3)
		if r.IntN(4) == 0 {
			syl++
		}
		for range syl {
			b = append(b, onsets[r.IntN(len(onsets))]...)
			b = append(b, nuclei[r.IntN(len(nuclei))]...)
			b = append(b, codas[r.IntN(len(codas))]...)
		}
		if len(b) < 3 {
			continue
		}
		base := string(b)
		add(base)
		// Word families: a stem comes with some of its inflections.
		for _, s := range suffixes {
			if r.IntN(5) == 0 {
				add(base + s)
			}
		}
	}
	// Short words are the frequent ones, in made-up language as in real.
	slices.SortStableFunc(made, func(a, b string) int { return len(a) - len(b) })
	return append(slices.Clip(common), made...)
}

// word draws a word: the session's topic words and the project's domain
// words are frequent, everything else follows the Zipf ranking.
func (g *gen) word() string {
	switch x := g.r.IntN(100); {
	case x < 5:
		return g.topic[g.r.IntN(len(g.topic))]
	case x < 9:
		return g.proj.domain[g.r.IntN(len(g.proj.domain))]
	}
	return vocabulary[g.zipf.Uint64()]
}

// noun draws a noun for an identifier.
func (g *gen) noun() string {
	switch x := g.r.IntN(10); {
	case x < 4:
		return g.proj.domain[g.r.IntN(len(g.proj.domain))]
	case x < 5:
		return g.topic[g.r.IntN(len(g.topic))]
	case x < 8:
		return nouns[g.r.IntN(len(nouns))]
	}
	return vocabulary[len(common)+g.r.IntN(4000)]
}

func (g *gen) verb() string { return verbs[g.r.IntN(len(verbs))] }

func appendTitle(b []byte, w string) []byte {
	if w == "" {
		return b
	}
	c := w[0]
	if c >= 'a' && c <= 'z' {
		c -= 'a' - 'A'
	}
	return append(append(b, c), w[1:]...)
}

// Identifier styles.
const (
	camel  = iota // loadConfig
	pascal        // ConfigLoader
	snake         // load_config
)

func (g *gen) ident(b []byte, style int) []byte {
	first, second := g.verb(), g.noun()
	if style == pascal {
		first = g.noun()
		second = nouns[g.r.IntN(len(nouns))]
	}
	switch style {
	case camel:
		return appendTitle(append(b, first...), second)
	case pascal:
		return appendTitle(appendTitle(b, first), second)
	}
	return append(append(append(b, first...), '_'), second...)
}

func (g *gen) identString(style int) string { return string(g.ident(nil, style)) }

// errorCodes are the codes and messages that make an error searchable.
var errorCodes = []string{
	"E0382", "E0502", "E0308", "E0599", "E0425", "E0277", "TS2322", "TS2345", "TS7006", "TS2339",
	"ENOENT", "EACCES", "ECONNREFUSED", "EADDRINUSE", "ETIMEDOUT", "EPIPE", "HTTP 404", "HTTP 500",
	"HTTP 502", "HTTP 503", "HTTP 429", "SQLSTATE 23505", "SQLSTATE 40001", "exit status 1", "exit status 2",
	"SIGSEGV", "OOMKilled", "ERR_MODULE_NOT_FOUND", "CERT_HAS_EXPIRED",
}

func (g *gen) errorCode() string { return errorCodes[g.r.IntN(len(errorCodes))] }

// sentence appends one sentence of technical prose.
func (g *gen) sentence(b []byte) []byte {
	n := 5 + g.r.IntN(16)
	for i := range n {
		if i > 0 {
			b = append(b, ' ')
		}
		switch x := g.r.IntN(100); {
		case x < 4:
			b = append(b, '`')
			b = g.ident(b, g.proj.lang.style)
			b = append(b, '`')
		case x < 6:
			b = append(b, '`')
			b = append(b, g.file()...)
			b = append(b, '`')
		case x < 7:
			b = strconv.AppendInt(b, int64(g.r.IntN(500)), 10)
		case x == 7 && g.r.IntN(3) == 0:
			b = append(b, g.errorCode()...)
		default:
			if i == 0 {
				b = appendTitle(b, g.word())
			} else {
				b = append(b, g.word()...)
			}
		}
		if i < n-1 && g.r.IntN(10) == 0 {
			b = append(b, ',')
		}
	}
	switch x := g.r.IntN(20); {
	case x == 0:
		return append(b, '?')
	case x == 1:
		return append(b, ':')
	}
	return append(b, '.')
}

func (g *gen) paragraph(b []byte, sentences int) []byte {
	for i := range sentences {
		if i > 0 {
			b = append(b, ' ')
		}
		b = g.sentence(b)
	}
	return b
}

// phrase appends a few lower-case words, for titles and descriptions.
func (g *gen) phrase(b []byte, n int) []byte {
	for i := range n {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, g.word()...)
	}
	return b
}

// title is a short imperative title, as an AI title or a commit subject reads.
func (g *gen) title() string {
	b := appendTitle(nil, g.verb())
	b = append(b, ' ')
	b = append(b, g.noun()...)
	b = append(b, ' ')
	b = g.phrase(b, 1+g.r.IntN(4))
	return string(b)
}

// markdown appends an assistant's answer: paragraphs, lists, headings, code.
func (g *gen) markdown(b []byte, blocks int) []byte {
	for i := range blocks {
		if i > 0 {
			b = append(b, '\n', '\n')
		}
		switch x := g.r.IntN(20); {
		case x < 2 && blocks > 2:
			b = append(b, "## "...)
			b = appendTitle(b, g.noun())
			b = append(b, ' ')
			b = g.phrase(b, 1+g.r.IntN(3))
		case x < 6:
			for k := range 2 + g.r.IntN(4) {
				if k > 0 {
					b = append(b, '\n')
				}
				if x < 4 {
					b = append(b, "- "...)
				} else {
					b = strconv.AppendInt(b, int64(k+1), 10)
					b = append(b, ". "...)
				}
				if g.r.IntN(2) == 0 {
					b = append(b, "**"...)
					b = appendTitle(b, g.word())
					b = append(b, "**: "...)
				}
				b = g.sentence(b)
			}
		case x < 9:
			b = g.fence(b, g.anyLang(), 4+g.r.IntN(14))
		case x == 9 && g.r.IntN(2) == 0:
			b = g.table(b)
		default:
			b = g.paragraph(b, 1+g.r.IntN(4))
		}
	}
	return b
}

func (g *gen) table(b []byte) []byte {
	cols := 2 + g.r.IntN(3)
	for c := range cols {
		b = append(b, "| "...)
		b = appendTitle(b, g.word())
		b = append(b, ' ')
		if c == cols-1 {
			b = append(b, "|\n"...)
		}
	}
	for c := range cols {
		b = append(b, "|---"...)
		if c == cols-1 {
			b = append(b, "|"...)
		}
	}
	for range 2 + g.r.IntN(5) {
		b = append(b, '\n')
		for c := range cols {
			b = append(b, "| "...)
			if c == 0 {
				b = append(b, '`')
				b = g.ident(b, g.proj.lang.style)
				b = append(b, '`')
			} else {
				b = g.phrase(b, 1+g.r.IntN(3))
			}
			b = append(b, ' ')
		}
		b = append(b, '|')
	}
	return b
}

// fence appends a fenced code block of n lines in l.
func (g *gen) fence(b []byte, l *lang, n int) []byte {
	b = append(b, "```"...)
	b = append(b, l.fence...)
	b = append(b, '\n')
	b = g.code(b, l, n)
	return append(b, "\n```"...)
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func (g *gen) base62(b []byte, n int) []byte {
	for range n {
		b = append(b, base62[g.r.IntN(len(base62))])
	}
	return b
}

func (g *gen) hex(b []byte, n int) []byte {
	for range n {
		b = append(b, hexDigits[g.r.IntN(16)])
	}
	return b
}

func (g *gen) hexString(n int) string { return string(g.hex(nil, n)) }

// uuid is a random (version 4) UUID.
func (g *gen) uuid() string {
	var u [16]byte
	a, c := g.r.Uint64(), g.r.Uint64()
	for i := range 8 {
		u[i], u[8+i] = byte(a>>(8*i)), byte(c>>(8*i))
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return formatUUID(u)
}

// uuid7 is a time-ordered (version 7) UUID, as Codex names its threads.
func (g *gen) uuid7(ms int64) string {
	var u [16]byte
	for i := range 6 {
		u[i] = byte(ms >> (8 * (5 - i)))
	}
	a := g.r.Uint64()
	for i := 6; i < 16; i++ {
		u[i] = byte(a >> (8 * (i % 8)))
		if i == 11 {
			a = g.r.Uint64()
		}
	}
	u[6] = u[6]&0x0f | 0x70
	u[8] = u[8]&0x3f | 0x80
	return formatUUID(u)
}

func formatUUID(u [16]byte) string {
	var b [36]byte
	j := 0
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[j] = '-'
			j++
		}
		b[j], b[j+1] = hexDigits[c>>4], hexDigits[c&0xf]
		j += 2
	}
	return string(b[:])
}

// token is an opaque id with a prefix: msg_01…, toolu_01…, req_011C….
func (g *gen) token(prefix string, n int) string {
	return string(g.base62(append([]byte(nil), prefix...), n))
}

// blob is base64 of n random bytes: signatures and encrypted reasoning.
func (g *gen) blob(n int) string {
	raw := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := g.r.Uint64()
		for k := 0; k < 8 && i+k < n; k++ {
			raw[i+k] = byte(v >> (8 * k))
		}
	}
	return base64.StdEncoding.EncodeToString(raw)
}
