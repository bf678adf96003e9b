package site

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/transcriptsite/transcriptsite/internal/treetest"
	"golang.org/x/net/html"
)

// xssPayloads are hostile strings that the XSS tests put in every field of
// a session. ID in each is replaced by the field and session it is placed
// in, so whatever leaks says where it came from. Each payload is built so
// that, if it ever became markup, it shows: it requests /xss/ID… from the
// test server (a script, image, frame, stylesheet, refresh or form), calls
// __xss("ID") if it ran, and its elements carry a data-xss attribute or are
// an <xss-probe>, which the page scans look for.
var xssPayloads = []string{
	// Plain markup.
	`<script src="/xss/ID.js"></script><script>__xss('ID')</script>`,
	`<img src="/xss/ID.png" onerror="__xss('ID')" data-xss="ID">`,
	`<svg onload="__xss('ID')" data-xss="ID"><xss-probe>ID</xss-probe></svg>`,
	`<xss-probe data-xss="ID" onclick="__xss('ID')">ID</xss-probe>`,
	`<iframe src="/xss/ID.html" data-xss="ID"></iframe><object data="/xss/ID.obj" data-xss="ID"></object><embed src="/xss/ID.emb" data-xss="ID">`,
	`<meta http-equiv="refresh" content="0;url=/xss/ID.refresh" data-xss="ID"><base href="/xss/ID/" data-xss="ID"><link rel="stylesheet" href="/xss/ID.css" data-xss="ID">`,
	`<form action="/xss/ID.form" data-xss="ID"><button formaction="javascript:__xss('ID')" data-xss="ID">go</button></form><a href="javascript:__xss('ID')" data-xss="ID">raw link</a>`,
	// Breaking out of attributes, raw text and templates.
	`"><img src=/xss/ID.png onerror=__xss('ID') data-xss=ID>`,
	`'><img src=/xss/ID.png onerror=__xss('ID') data-xss=ID>`,
	"`><img src=/xss/ID.png onerror=__xss('ID') data-xss=ID>",
	`</textarea></title></style></script></noscript><img src=/xss/ID.png onerror=__xss('ID') data-xss=ID>`,
	`" onmouseover="__xss('ID')" data-xss="ID" x="`,
	`{{.Site}}{{template "baseof.html" .}}{{printf "%s" "ID"}}<%= __xss('ID') %>${__xss('ID')}`,
	// CSS.
	`<div style="background:url(javascript:__xss('ID'));width:expression(__xss('ID'))" data-xss="ID">css</div><style>@import "/xss/ID.css";</style>`,
	// Links in markdown: every way of naming a script or a document.
	"[click](javascript:__xss('ID')) [data](data:text/html;base64,PHNjcmlwdD5fX3hzcygpPC9zY3JpcHQ+) [vb](vbscript:msgbox('ID')) ![img](javascript:__xss('ID')) ![pic](/xss/ID.png) <javascript:__xss('ID')> [ref][rID]\n\n[rID]: javascript:__xss('ID')",
	"[a ID](JaVaScRiPt:__xss('ID')) [b](&#106;avascript:__xss('ID')) [c](java&#x09;script:__xss('ID')) [d]( javascript:__xss('ID') ) [e](%6Aavascript:__xss('ID')) [f](\\javascript:__xss('ID')) [g](//xss.example/ID)",
	`[t](https://example.com/ID "a\" onmouseover=\"__xss('ID')\" data-xss=\"ID") <https://example.com/ID"onmouseover="__xss('ID')"> www.example.com/ID"><img/src=/xss/ID.png/onerror=__xss('ID')> [m](mailto:"><img/src=/xss/ID.png/data-xss=ID>)`,
	// Raw HTML blocks and comments in markdown.
	"<div data-xss=\"ID\">\n<script src=\"/xss/ID.js\"></script>\n\n*md*</div>\n\n<!-- --><img src=/xss/ID.png onerror=__xss('ID') data-xss=ID><!-- -->\n\n<![CDATA[<img src=/xss/ID.png data-xss=ID>]]>",
	// Code fences: the language is an attribute.
	"```\"><img src=/xss/ID.png onerror=__xss('ID') data-xss=ID>\ncode ID\n```\n\n```html\n<script src=\"/xss/ID.js\"></script>\n```\n\n~~~js onload=__xss('ID')\nx\n~~~",
	// Encoded variants.
	`&lt;img src=/xss/ID.png onerror=__xss('ID') data-xss=ID&gt; &#60;script&#62;__xss('ID')&#60;/script&#62; ＜script＞__xss('ID')＜/script＞ %3Cscript%3E__xss('ID')%3C/script%3E \u003cxss-probe data-xss=ID\u003e`,
	// Terminal escapes: a hyperlink (OSC 8) and colours around markup.
	"\x1b]8;;javascript:__xss('ID')\x1b\\link ID\x1b]8;;\x1b\\ \x1b[31m<img src=/xss/ID.png onerror=__xss('ID') data-xss=ID>\x1b[0m",
	// NUL and other control bytes around markup.
	"\x00<\x00img src=/xss/ID.png onerror=__xss('ID') data-xss=ID>\x0b<script\x0c src=/xss/ID.js></script>",
}

// payload returns payload k for the named field.
func payload(k int, field string) string {
	return strings.ReplaceAll(xssPayloads[k], "ID", xssID(k, field))
}

// fields hands out the payloads of session k and records the fields it
// puts them in.
type fields struct {
	k    int
	used map[string]bool
}

func (f *fields) p(field string) string { f.used[field] = true; return payload(f.k, field) }

func (f *fields) id(field string) string { f.used[field] = true; return xssID(f.k, field) }

// xssID names a field of session k. It has no character that any context
// escapes, so the scans can find it in any page or index.
func xssID(k int, field string) string { return fmt.Sprintf("X%sX%02d", field, k) }

// tinyPNG is a 1×1 PNG.
var tinyPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")

// hostileHTML is a document that must never be written where a browser
// would run it: as an image with a hostile media type.
func hostileHTML(id string) string {
	return `<svg xmlns="http://www.w3.org/2000/svg" onload="__xss('` + id + `')"><script>__xss('` + id + `')</script></svg>`
}

// jsonl writes records as JSON lines; escapeHTML chooses whether <, > and & are
// written raw (as most agents write them) or as \u003c escapes.
func jsonl(escapeHTML bool, recs ...any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			panic(err)
		}
	}
	return b.Bytes()
}

type obj = map[string]any

// claudeXSS is a Claude Code session with payload k in every field the
// format has.
func claudeXSS(f *fields) []byte {
	p, id, k := f.p, f.id, f.k
	sid := p("ccsession")
	n := 0
	parent := any(nil)
	env := func(typ string, msg obj) obj {
		n++
		uuid := p("ccuuid") + fmt.Sprint(n)
		r := obj{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": "/work/" + p("cccwd"),
			"sessionId": sid, "version": p("ccversion"), "gitBranch": p("ccbranch"), "type": typ, "uuid": uuid,
			"timestamp": fmt.Sprintf("2026-03-%02dT10:00:%02dZ", k+1, n), "message": msg}
		parent = uuid
		return r
	}
	tool := func(name, id string, input obj) obj {
		return obj{"type": "tool_use", "id": p(id), "name": name, "input": input}
	}
	result := func(id string, content any, isErr bool) obj {
		return obj{"type": "tool_result", "tool_use_id": p(id), "content": content, "is_error": isErr}
	}
	img := func(mt string, data []byte) obj {
		return obj{"type": "image", "source": obj{"type": "base64", "media_type": mt, "data": base64.StdEncoding.EncodeToString(data)}}
	}
	asst := func(blocks ...obj) obj {
		return obj{"id": p("ccmsgid"), "type": "message", "role": "assistant", "model": p("ccmodel"), "content": blocks,
			"usage": obj{"input_tokens": 10, "output_tokens": 5}}
	}
	user := func(content any) obj { return obj{"role": "user", "content": content} }
	return jsonl(k%2 == 0,
		env("user", user(p("ccprompt"))),
		env("assistant", asst(
			obj{"type": "thinking", "thinking": p("ccthinking"), "signature": "sig"},
			obj{"type": "text", "text": p("ccmarkdown") + "\n\n```" + p("ccfence") + "\ncode\n```\n"},
			tool("Bash", "cctoolid1", obj{"command": p("cccommand"), "description": p("ccdescription")}),
		)),
		env("user", user([]obj{result("cctoolid1", p("ccoutput"), true)})),
		env("assistant", asst(
			tool("Edit", "cctoolid2", obj{"file_path": p("ccpath") + ".go", "old_string": p("ccold"), "new_string": p("ccnew")}),
			tool("Write", "cctoolid3", obj{"file_path": p("ccwritepath") + ".html", "content": p("ccwrite")}),
			tool("Read", "cctoolid4", obj{"file_path": p("ccreadpath")}),
			tool("Grep", "cctoolid5", obj{"pattern": p("ccpattern"), "path": p("ccgreppath")}),
			tool("WebFetch", "cctoolid6", obj{"url": "javascript:__xss('" + id("ccurl") + "')", "prompt": p("ccwebprompt")}),
			tool("TodoWrite", "cctoolid7", obj{"todos": []obj{{"content": p("cctodo"), "status": p("ccstatus")}}}),
			tool("Task", "cctoolid8", obj{"subagent_type": p("ccagent"), "description": p("cctaskdesc"), "prompt": p("cctaskprompt")}),
			tool(p("cctoolname"), "cctoolid9", obj{p("ccinputkey"): p("ccinput")}),
		)),
		env("user", user([]obj{
			result("cctoolid2", p("cceditresult"), true),
			result("cctoolid3", "ok", false),
			result("cctoolid4", "     1\t"+p("ccfile"), false),
			result("cctoolid5", p("ccmatches"), false),
			result("cctoolid6", p("ccfetched"), false),
			result("cctoolid8", p("ccreport"), false),
			result("cctoolid9", []obj{{"type": "text", "text": p("ccresulttext")}, img(p("ccresultmediatype"), tinyPNG)}, false),
		})),
		env("user", user([]obj{
			{"type": "text", "text": p("ccimageprompt")},
			img(p("ccmediatype"), tinyPNG),
			img("image/svg+xml", []byte(hostileHTML(id("ccsvg")))),
			img("text/html", []byte(hostileHTML(id("cchtml")))),
			{"type": "image", "source": obj{"type": "url", "url": "javascript:__xss('" + id("ccimageurl") + "')"}},
			{"type": "image", "source": obj{"type": "url", "url": "/" + id("ccimagepath") + ".png"}},
		})),
		obj{"type": "system", "subtype": "api_error", "parentUuid": parent, "uuid": "sys" + fmt.Sprint(k), "sessionId": sid,
			"timestamp": fmt.Sprintf("2026-03-%02dT10:01:00Z", k+1), "error": obj{"message": p("ccerror")}, "retryAttempt": 1, "maxRetries": 3},
		obj{"type": p("ccrecordtype"), "uuid": "unk" + fmt.Sprint(k), "parentUuid": "sys" + fmt.Sprint(k), "sessionId": sid, "data": p("ccrecord")},
		obj{"type": "custom-title", "customTitle": p("cctitle"), "sessionId": sid},
	)
}

// codexXSS is a Codex CLI rollout with payload k in every field.
func codexXSS(f *fields) []byte {
	p, id, k := f.p, f.id, f.k
	ts := func(s int) string { return fmt.Sprintf("2026-04-%02dT10:00:%02d.000Z", k+1, s) }
	line := func(s int, typ string, payload obj) obj {
		return obj{"timestamp": ts(s), "type": typ, "payload": payload}
	}
	args := func(v obj) string { b, _ := json.Marshal(v); return string(b) }
	return jsonl(k%2 == 1,
		line(0, "session_meta", obj{"id": p("cxsession"), "timestamp": ts(0), "cwd": "/home/" + p("cxcwd"), "originator": "codex_cli_rs",
			"cli_version": p("cxversion"), "git": obj{"branch": p("cxbranch")}}),
		line(1, "turn_context", obj{"turn_id": "1", "cwd": "/home/x", "model": p("cxmodel")}),
		line(2, "response_item", obj{"type": "message", "role": "user", "content": []obj{
			{"type": "input_text", "text": p("cxprompt")},
			{"type": "input_image", "image_url": "data:" + p("cxmediatype") + ";base64," + base64.StdEncoding.EncodeToString(tinyPNG)},
			{"type": "input_image", "image_url": "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(hostileHTML(id("cxsvg"))))},
		}}),
		line(3, "response_item", obj{"type": "reasoning", "summary": []obj{{"type": "summary_text", "text": p("cxthinking")}}}),
		line(4, "response_item", obj{"type": "function_call", "name": "shell", "call_id": p("cxcallid1"),
			"arguments": args(obj{"command": []string{"bash", "-lc", p("cxcommand")}, "workdir": p("cxworkdir")})}),
		line(5, "response_item", obj{"type": "function_call_output", "call_id": p("cxcallid1"), "output": p("cxoutput")}),
		line(6, "response_item", obj{"type": "custom_tool_call", "status": "completed", "call_id": p("cxcallid2"), "name": "apply_patch",
			"input": "*** Begin Patch\n*** Update File: " + p("cxpath") + ".py\n@@\n-" + p("cxold") + "\n+" + p("cxnew") + "\n*** End Patch"}),
		line(7, "response_item", obj{"type": "custom_tool_call_output", "call_id": p("cxcallid2"), "output": p("cxpatchout")}),
		line(8, "response_item", obj{"type": "function_call", "name": p("cxtoolname"), "call_id": p("cxcallid3"), "arguments": p("cxarguments")}),
		line(9, "response_item", obj{"type": "function_call_output", "call_id": p("cxcallid3"), "output": p("cxoutput3")}),
		line(10, "response_item", obj{"type": "message", "role": "assistant", "content": []obj{{"type": "output_text", "text": p("cxmarkdown")}}}),
		line(11, "event_msg", obj{"type": "error", "message": p("cxerror")}),
		line(12, "event_msg", obj{"type": "thread_name_updated", "thread_name": p("cxtitle")}),
	)
}

// geminiXSS is a Gemini CLI session with payload k in every field.
func geminiXSS(f *fields) []byte {
	p, id, k := f.p, f.id, f.k
	ts := func(s int) string { return fmt.Sprintf("2026-05-%02dT10:00:%02d.000Z", k+1, s) }
	call := func(id, name string, args obj, response obj) obj {
		return obj{"id": p(id), "name": name, "args": args, "status": "success", "timestamp": ts(4),
			"displayName": p("gmdisplay"), "description": p("gmtooldesc"),
			"result": []obj{{"functionResponse": obj{"id": p(id), "name": name, "response": response}}}}
	}
	return jsonl(k%2 == 0,
		obj{"sessionId": p("gmsession"), "projectHash": p("gmproject"), "startTime": ts(0), "lastUpdated": ts(9), "kind": "main"},
		obj{"id": p("gmmsgid") + "u", "timestamp": ts(1), "type": "user", "content": []obj{
			{"text": p("gmprompt")},
			{"inlineData": obj{"mimeType": p("gmmediatype"), "data": base64.StdEncoding.EncodeToString(tinyPNG)}},
			{"inlineData": obj{"mimeType": "text/html", "data": base64.StdEncoding.EncodeToString([]byte(hostileHTML(id("gmhtml"))))}},
			{"fileData": obj{"mimeType": "image/png", "fileUri": "javascript:__xss('" + id("gmfileuri") + "')"}},
			{"fileData": obj{"mimeType": "image/png", "fileUri": "../../../" + id("gmfilepath") + ".png"}},
		}},
		obj{"id": p("gmmsgid") + "g", "timestamp": ts(4), "type": "gemini", "content": p("gmmarkdown"), "model": p("gmmodel"),
			"thoughts": []obj{{"subject": p("gmsubject"), "description": p("gmthinking"), "timestamp": ts(3)}},
			"tokens":   obj{"input": 10, "output": 5, "total": 15},
			"toolCalls": []obj{
				call("gmcallid1", "run_shell_command", obj{"command": p("gmcommand")}, obj{"output": p("gmoutput")}),
				call("gmcallid2", "replace", obj{"file_path": p("gmpath") + ".ts", "old_string": p("gmold"), "new_string": p("gmnew")}, obj{"error": p("gmerror")}),
				call("gmcallid3", p("gmtoolname"), obj{p("gminputkey"): p("gminput")}, obj{"output": p("gmoutput3")}),
			}},
		obj{"$set": obj{"summary": p("gmtitle")}},
		obj{"id": p("gmmsgid") + "i", "timestamp": ts(8), "type": "info", "content": p("gminfo")},
	)
}

// writeXSSSite writes a site whose sessions carry every payload in every
// field, in three formats, in files and folders with hostile names. It
// returns the site's directory and the fields that hold payloads.
func writeXSSSite(t *testing.T) (string, map[string]bool) {
	t.Helper()
	dir := t.TempDir()
	files := map[string][]byte{"config.yaml": []byte("title: XSS\n")}
	used := map[string]bool{}
	for k := range xssPayloads {
		f := &fields{k, used}
		// File and folder names cannot hold '/' or NUL; the rest of a payload can.
		name := func(field string) string {
			s := strings.NewReplacer("/", "∕", "\x00", "", "\\", "∖").Replace(f.p(field))
			return truncateBytes(s, 180)
		}
		files[filepath.Join("content", "claude", name("ccsrc")+".jsonl")] = claudeXSS(f)
		files[filepath.Join("content", "codex", fmt.Sprintf("rollout-%02d-", k)+name("cxsrc")+".jsonl")] = codexXSS(f)
		files[filepath.Join("content", "gemini", name("gmdir"), "chats", fmt.Sprintf("session-%02d.jsonl", k))] = geminiXSS(f)
	}
	treetest.WriteTree(t, dir, files)
	return dir, used
}

// truncateBytes cuts s to at most n bytes, at a rune boundary.
func truncateBytes(s string, n int) string {
	for len(s) > n {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

// csp is the policy every page of the site must carry.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'"

// siteTags are the elements the theme, goldmark and chroma make. Anything
// else in a page came from content.
var siteTags = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range strings.Fields(`html head meta title link script body a header nav form label input button
		main footer div span p h1 h2 h3 h4 h5 h6 section article details summary ol ul li dl dt dd code pre
		time figure figcaption table thead tbody tfoot tr th td strong em del br hr blockquote img select
		option fieldset legend noscript mark caption output`) {
		m[t] = true
	}
	return m
}()

// svgTags are the elements of the charts the site draws, in SVG.
var svgTags = map[string]bool{"svg": true, "title": true, "desc": true, "g": true, "line": true, "rect": true, "text": true}

// urlAttrs are the attributes whose value a browser loads or follows.
var urlAttrs = map[string]bool{
	"href": true, "src": true, "action": true, "formaction": true, "srcset": true, "poster": true,
	"data": true, "background": true, "cite": true, "ping": true, "xlink:href": true, "manifest": true,
}

// siteScript is how the site names its own scripts.
var siteScript = regexp.MustCompile(`^(?:\.\./)*(?:/[^:]*/)?js/[a-z]+\.[0-9a-f]{10}\.js$`)

// scanPage reports every element and attribute of an HTML page that could
// run script, load something from elsewhere or was not made by the site:
// what an injected payload leaves behind.
func scanPage(page []byte) []string {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return []string{"unparsable: " + err.Error()}
	}
	var bad []string
	flag := func(n *html.Node, why string) {
		var b strings.Builder
		_ = html.Render(&b, &html.Node{Type: html.ElementNode, Data: n.Data, Attr: n.Attr})
		bad = append(bad, why+": "+truncateBytes(b.String(), 200))
	}
	policies, loadedBeforeCSP := 0, false
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if n.Namespace == "svg" && !svgTags[n.Data] || n.Namespace != "svg" && (!siteTags[n.Data] || n.Namespace != "") {
				flag(n, "element the site does not make")
			}
			loads, policy := scanElement(n, scanAttrs(n, flag), flag)
			if policy {
				policies++
			}
			loadedBeforeCSP = loadedBeforeCSP || loads && policies == 0
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if policies != 1 {
		bad = append(bad, fmt.Sprintf("%d Content-Security-Policy meta elements, want 1", policies))
	}
	if loadedBeforeCSP {
		bad = append(bad, "a script, stylesheet or image comes before the Content-Security-Policy")
	}
	return bad
}

// scanAttrs flags the attributes of n that run script, style it or lead
// somewhere unsafe, and returns them all by name.
func scanAttrs(n *html.Node, flag func(*html.Node, string)) map[string]string {
	attr := map[string]string{}
	for _, a := range n.Attr {
		name := strings.ToLower(a.Key)
		if a.Namespace != "" {
			name = a.Namespace + ":" + name
		}
		attr[name] = a.Val
		switch {
		case strings.HasPrefix(name, "on"):
			flag(n, "event handler attribute")
		case name == "style":
			flag(n, "inline style")
		case name == "data-xss":
			flag(n, "payload attribute")
		case urlAttrs[name] && !safeLink(a.Val):
			flag(n, "unsafe URL")
		}
	}
	return attr
}

// scanElement flags what the element n, whose attributes are attr, must
// not be, and says whether it loads something, and whether it is the
// page's Content-Security-Policy.
func scanElement(n *html.Node, attr map[string]string, flag func(*html.Node, string)) (loads, policy bool) {
	switch n.Data {
	case "script":
		if !siteScript.MatchString(attr["src"]) || n.FirstChild != nil {
			flag(n, "script that is not one of the site's files")
		}
		return true, false
	case "link", "img":
		return true, false
	case "meta":
		eq, ok := attr["http-equiv"]
		switch {
		case !ok:
		case !strings.EqualFold(eq, "Content-Security-Policy"):
			flag(n, "http-equiv other than the policy")
		case attr["content"] != csp && attr["content"] != "default-src 'none'":
			flag(n, "a weaker Content-Security-Policy")
		default:
			return false, true
		}
	case "form":
		if _, ok := attr["action"]; ok {
			flag(n, "form with an action")
		}
	case "a":
		if u, err := url.Parse(attr["href"]); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
			if rel := strings.Fields(attr["rel"]); !slices.Contains(rel, "noopener") || !slices.Contains(rel, "nofollow") {
				flag(n, `external link without rel="noopener nofollow"`)
			}
		}
	}
	return false, false
}

// safeLink reports whether a URL attribute's value is one the site may
// make: http(s), mailto, or a path or fragment on this host. Browsers drop
// tabs and line breaks from URLs and ignore leading spaces, so this does too.
func safeLink(v string) bool {
	v = strings.TrimLeft(strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(v), " \x00\x0c")
	u, err := url.Parse(v)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return u.Host != ""
	case "mailto":
		return true
	case "":
		return u.Host == "" && !strings.HasPrefix(v, "//") && !strings.HasPrefix(v, `\`)
	}
	return false
}

// pageText is the text and attribute values of a page, as a reader and a
// script see them.
func pageText(page []byte) string {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return ""
	}
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
		case html.ElementNode:
			for _, a := range n.Attr {
				b.WriteString(" " + a.Val + " ")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return b.String()
}

func TestScanPageFindsInjections(t *testing.T) {
	head := `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="` + csp + `">` +
		`<script src="../js/main.0123456789.js" defer></script></head><body>`
	clean := head + `<main><p>text &lt;img src=x onerror=alert(1)&gt;</p><a href="https://example.com" rel="noopener nofollow">x</a><a href="#m-1">#1</a></main></body></html>`
	if bad := scanPage([]byte(clean)); len(bad) > 0 {
		t.Fatalf("a clean page is flagged: %q", bad)
	}
	for _, inject := range []string{
		`<img src=x onerror=alert(1)>`,
		`<svg onload=alert(1)>`,
		`<xss-probe>`,
		`<script>alert(1)</script>`,
		`<script src="https://evil.example/x.js"></script>`,
		`<a href="javascript:alert(1)">x</a>`,
		`<a href=" java&#9;script:alert(1)">x</a>`,
		`<a href="data:text/html,x">x</a>`,
		`<a href="//evil.example/">x</a>`,
		`<a href="https://example.com/">no rel</a>`,
		`<iframe src="/x"></iframe>`,
		`<meta http-equiv="refresh" content="0;url=/x">`,
		`<base href="/x/">`,
		`<form action="/x"></form>`,
		`<button formaction="javascript:alert(1)">`,
		`<div style="color:red">`,
		`<style>*{}</style>`,
		`<p data-xss="1">`,
		`<math><mi xlink:href="javascript:alert(1)">x</mi></math>`,
	} {
		if bad := scanPage([]byte(head + inject + `</body></html>`)); len(bad) == 0 {
			t.Errorf("not flagged: %s", inject)
		}
	}
	// The policy must be there, as the site's, before anything loads.
	for _, page := range []string{
		`<html><head><script src="js/main.0123456789.js"></script></head></html>`,
		`<html><head><meta http-equiv="Content-Security-Policy" content="default-src *"></head></html>`,
		`<html><head><link rel="stylesheet" href="css/x.css"><meta http-equiv="Content-Security-Policy" content="` + csp + `"></head></html>`,
	} {
		if bad := scanPage([]byte(page)); len(bad) == 0 {
			t.Errorf("not flagged: %s", page)
		}
	}
}

// buildXSSSite builds the hostile site and returns its destination and
// the fields that hold payloads.
func buildXSSSite(t *testing.T) (string, map[string]bool) {
	t.Helper()
	dir, used := writeXSSSite(t)
	cfg, rep, err := build(t, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := 3 * len(xssPayloads); rep.Sessions != want {
		t.Errorf("%d sessions, want %d; warnings %v", rep.Sessions, want, rep.Warnings)
	}
	return cfg.Destination, used
}

// hiddenFields are the fields whose payloads the pages do not show, and why.
var hiddenFields = map[string]string{
	"ccmsgid": "message ids", "ccuuid": "record ids", "gmmsgid": "message ids",
	"cxsession": "only sessions.json names sessions by id", "gmsession": "only sessions.json names sessions by id",
	"ccmediatype": "images are typed by their bytes", "ccresultmediatype": "images are typed by their bytes",
	"cxmediatype": "images are typed by their bytes", "gmmediatype": "images are typed by their bytes",
	"ccfence": "a code fence's language is its first word", "cxpatchout": "a patch's output shows only on error",
	"cxworkdir": "a shell call shows its command", "gmdisplay": "tool labels", "gmtooldesc": "tool labels",
	"gmproject":   "the folder names a Gemini project",
	"ccimagepath": "links from transcripts are http(s) only", "gmfilepath": "links from transcripts are http(s) only",
}

// unwrittenFields are in documents that claim to be images and are not:
// they must not reach any file of the site.
var unwrittenFields = []string{"ccsvg", "cchtml", "cxsvg", "gmhtml"}

// payloadID matches the id of a payload's field.
var payloadID = regexp.MustCompile(`X[a-z0-9]+X\d\d`)

func TestXSSPages(t *testing.T) {
	dest, used := buildXSSSite(t)
	var text, everything strings.Builder
	pages := 0
	err := filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dest, p)
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		everything.Write(data)
		// Beside a session's page only its exports, its images and long
		// outputs, named by their content and typed by their bytes.
		if strings.HasPrefix(rel, "sessions/") && !regexp.MustCompile(`^sessions/[a-z0-9-]+/[a-z0-9-]+/(index\.html|session\.(md|json)|img/[0-9a-f]{24}\.(png|jpg|gif|webp)|out/[0-9a-f]{20}\.txt)$`).MatchString(rel) {
			t.Errorf("unexpected file %s", rel)
		}
		if !strings.HasSuffix(p, ".html") {
			return nil
		}
		pages++
		for _, b := range scanPage(data) {
			t.Errorf("%s: %s", rel, b)
		}
		// html/template puts ZgotmplZ where a template gave it an unsafe URL
		// or style: a template that should have checked the value first.
		if bytes.Contains(data, []byte("ZgotmplZ")) {
			t.Errorf("%s: a template wrote an unchecked URL or style", rel)
		}
		for _, l := range links(data) {
			if u, err := url.Parse(l); err == nil && u.Scheme == "" && payloadID.MatchString(l) {
				t.Errorf("%s: a transcript links within the site: %q", rel, l)
			}
		}
		text.WriteString(pageText(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pages < 3*len(xssPayloads) {
		t.Errorf("%d pages", pages)
	}
	// The payloads reached the pages, as text: the scans above looked at
	// them, not at pages without them.
	all := text.String()
	for f := range used {
		if _, ok := hiddenFields[f]; ok || slices.Contains(unwrittenFields, f) {
			continue
		}
		for k := range xssPayloads {
			if !strings.Contains(all, xssID(k, f)) {
				t.Errorf("field %s: payload %d is not on any page", f, k)
			}
		}
	}
	// Template syntax in a session is text, not evaluated.
	tpl := slices.IndexFunc(xssPayloads, func(p string) bool { return strings.HasPrefix(p, "{{") })
	for _, f := range []string{"ccprompt", "ccoutput", "cctitle", "cxmarkdown", "gmcommand"} {
		if want := `{{printf "%s" "` + xssID(tpl, f) + `"}}`; !strings.Contains(all, want) {
			t.Errorf("no page shows %s", want)
		}
	}
	for _, f := range unwrittenFields {
		for k := range xssPayloads {
			if strings.Contains(everything.String(), xssID(k, f)) {
				t.Errorf("a document that claims to be an image (%s) was written", xssID(k, f))
			}
		}
	}
}

// links returns the href and src attributes of a page.
func links(page []byte) []string {
	var out []string
	z := html.NewTokenizer(bytes.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
			for {
				k, v, more := z.TagAttr()
				if string(k) == "href" || string(k) == "src" {
					out = append(out, string(v))
				}
				if !more {
					break
				}
			}
		}
	}
}

// xssHook runs in every page before the page's own scripts: it gives
// payloads the function they call, and turns the dialogs they would open
// into calls of it.
const xssHook = `window.__xssHits = [];
window.__xss = function (id) { window.__xssHits.push(String(id)); };
["alert", "confirm", "prompt"].forEach(function (f) { window[f] = function (x) { window.__xss(f + " " + x); }; });`

// domCheck lists what, in the live page, a payload left behind: elements
// the site does not make, event handler and style attributes (the site's
// scripts set classes, never styles), URLs that are not http(s), mailto or
// this site's own, and scripts that are not the site's files; and what
// payloads ran.
const domCheck = `((tags, svgTags) => {
  const bad = [];
  const desc = e => e.outerHTML.slice(0, 200);
  for (const e of document.querySelectorAll("*")) {
    const svg = e.namespaceURI === "http://www.w3.org/2000/svg";
    if (svg ? !svgTags.includes(e.localName) : !tags.includes(e.localName) || e.namespaceURI !== "http://www.w3.org/1999/xhtml") bad.push("element: " + desc(e));
    for (const a of e.attributes) {
      const n = a.name.toLowerCase();
      if (n.startsWith("on")) bad.push("event handler: " + desc(e));
      if (n === "style") bad.push("inline style: " + desc(e));
      if (n === "data-xss") bad.push(n + ": " + desc(e));
    }
    for (const n of ["href", "src", "action", "formaction", "data", "poster", "srcset", "background"]) {
      const v = e.getAttribute(n);
      if (v === null) continue;
      let u;
      try { u = new URL(v, location.href); } catch (err) { bad.push("unparsable URL: " + desc(e)); continue; }
      if (!["http:", "https:", "mailto:"].includes(u.protocol)) bad.push("URL scheme " + u.protocol + ": " + desc(e));
      if (u.origin === location.origin && u.pathname.startsWith("/xss/")) bad.push("URL to the probe: " + desc(e));
    }
    if (e.localName === "script" && !/^\/js\/[a-z]+\.[0-9a-f]{10}\.js$/.test(new URL(e.src || "x:", location.href).pathname)) bad.push("script: " + desc(e));
  }
  return {bad: bad, ran: window.__xssHits || ["no hook"]};
})`

type domReport struct {
	Bad []string `json:"bad"`
	Ran []string `json:"ran"`
}

func TestXSSInBrowser(t *testing.T) {
	ctx, consoleErrors := browser(t)
	dest, _ := buildXSSSite(t)

	// The probe: any request under /xss/ means a payload became markup.
	var mu sync.Mutex
	var requested []string
	mux := http.NewServeMux()
	mux.HandleFunc("/xss/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requested = append(requested, r.URL.RequestURI())
		mu.Unlock()
		if strings.HasSuffix(r.URL.Path, ".js") {
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprintf(w, "window.__xss && window.__xss(%q);\n", r.URL.Path)
		}
	})
	// A page with payloads that did get in, to show that each probe sees them.
	mux.HandleFunc("/selftest.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="%s"><link rel="icon" href="data:,"></head><body>
<img src="/xss/selftest.png" onerror="__xss('inline')" data-xss="1"><script src="/xss/selftest.js"></script>
<a href="javascript:__xss('link')">x</a><xss-probe></xss-probe></body></html>`, csp)
	})
	mux.Handle("/", http.FileServer(http.Dir(dest)))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: xssHook}); err != nil {
		t.Fatal(err)
	}
	tags, _ := json.Marshal(slices.Sorted(maps.Keys(siteTags)))
	svg, _ := json.Marshal(slices.Sorted(maps.Keys(svgTags)))
	check := chromedp.Evaluate[domReport](domCheck + "(" + string(tags) + ", " + string(svg) + ")")
	inspect := func(where string) {
		t.Helper()
		r := run(t, ctx, check)
		for _, b := range r.Bad {
			t.Errorf("%s: %s", where, b)
		}
		if len(r.Ran) > 0 {
			t.Errorf("%s: payloads ran: %q", where, r.Ran)
		}
	}

	do(t, ctx, chromedp.Navigate(srv.URL+"/selftest.html"),
		poll(`window.__xssHits.length > 0`, chromedp.WithPollingTimeout(5*time.Second)))
	self := run(t, ctx, check)
	mu.Lock()
	selfRequests := requested
	requested = nil
	mu.Unlock()
	if len(self.Bad) < 4 || !slices.Contains(self.Ran, "/xss/selftest.js") || len(selfRequests) != 2 {
		t.Fatalf("the probes miss injected payloads: DOM %q, ran %q, requests %q", self.Bad, self.Ran, selfRequests)
	}
	// The blocked inline handler is reported, which shows that the console
	// check sees policy violations.
	selfErrors := consoleErrors()
	if !slices.ContainsFunc(selfErrors, func(e string) bool { return strings.Contains(e, "Content Security Policy") }) {
		t.Fatalf("the console check misses a policy violation: %q", selfErrors)
	}

	// Every page of the site.
	var pages []string
	_ = filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".html") {
			rel, _ := filepath.Rel(dest, p)
			pages = append(pages, filepath.ToSlash(rel))
		}
		return err
	})
	if len(pages) < 3*len(xssPayloads) {
		t.Fatalf("only %d pages", len(pages))
	}
	for _, p := range pages {
		do(t, ctx, chromedp.Navigate(srv.URL+"/"+(&url.URL{Path: p}).EscapedPath()))
		inspect(p)
	}

	// doSearch runs steps that end waiting for results, and says what the
	// page shows when they never come.
	doSearch := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({
				query: document.getElementById("search-query").value,
				status: document.getElementById("search-status").textContent,
				hits: document.querySelectorAll(".search-hit").length,
				empty: [...document.querySelectorAll(".search-hit")].filter(h => !h.firstChild).length})`))
			t.Fatalf("%v; the page: %s; console: %q", err, state, consoleErrors())
		}
	}

	// The search page, given each payload as its query.
	// Results load their excerpts as they come near the view: each one
	// still waiting is scrolled to, until every result is shown.
	searched := poll(searchShown+` && (() => {
		const far = document.querySelector(".search-result[data-state=far]");
		if (far) far.scrollIntoView();
		return !far && [...document.querySelectorAll(".search-result")].every(r => r.dataset.state === "shown");
	})()`, chromedp.WithPollingTimeout(30*time.Second)) // a wait, not a measure: CI runs packages side by side
	for k := range xssPayloads {
		q := payload(k, "query")
		doSearch(chromedp.Navigate(srv.URL+"/search/?q="+url.QueryEscape(q)), searched)
		inspect(fmt.Sprintf("search for payload %d", k))
		if !strings.ContainsAny(q, "\x00\r\n") {
			if got := run(t, ctx, chromedp.Evaluate[string](`document.getElementById("search-query").value`)); got != q {
				t.Errorf("payload %d: the search box holds %q", k, got)
			}
		}
	}

	// Payloads typed into the search box: results show them as text.
	for _, k := range []int{1, 7, 16} {
		q := payload(k, "typed")
		doSearch(chromedp.Navigate(srv.URL+"/search/"), chromedp.WaitVisible(chromedp.CSS("#search-query")),
			chromedp.SendKeys(chromedp.CSS("#search-query"), q), searched)
		inspect(fmt.Sprintf("typed payload %d", k))
	}
	doSearch(chromedp.Navigate(srv.URL+"/search/"), chromedp.WaitVisible(chromedp.CSS("#search-query")),
		chromedp.SendKeys(chromedp.CSS("#search-query"), "onerror"), searched)
	inspect("search for onerror")
	titles := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".search-result-title")].map(e => e.textContent)`))
	hits := run(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".search-hit-text")].map(e => e.textContent)`))
	if !slices.ContainsFunc(titles, func(s string) bool { return strings.Contains(s, "<img src=/xss/") }) {
		t.Errorf("no result title shows a payload as text: %q", titles)
	}
	if !slices.ContainsFunc(hits, func(s string) bool { return strings.Contains(s, "onerror=__xss(") }) {
		t.Errorf("no excerpt shows a payload as text: %q", hits)
	}

	// The search box of a session page takes a payload to the search page.
	do(t, ctx, chromedp.Navigate(srv.URL+"/"+pages[len(pages)-1]), chromedp.WaitVisible(chromedp.CSS("#search-input")),
		chromedp.SendKeys(chromedp.CSS("#search-input"), payload(2, "box")+"\r"),
		chromedp.WaitVisible(chromedp.CSS("#search-query")), searched)
	inspect("search from the box")

	mu.Lock()
	if len(requested) > 0 {
		t.Errorf("payloads made the browser request %q", requested)
	}
	mu.Unlock()
	if errs := consoleErrors()[len(selfErrors):]; len(errs) > 0 {
		t.Errorf("console errors (CSP violations among them): %q", errs)
	}
}

// The theme's own pages keep the policy: the demo site and the test site,
// portable and under a base URL, pass the scan that finds injections.
func TestSitePagesKeepThePolicy(t *testing.T) {
	for _, c := range []struct {
		name, dir string
		overrides map[string]any
	}{
		{"demo", "..", nil},
		{"test site", treetest.Extract(t, "testdata/site.txtar"), nil},
		{"test site under a base URL", treetest.Extract(t, "testdata/site.txtar"), map[string]any{"baseURL": "https://user.github.io/repo/"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			overrides := map[string]any{"destination": filepath.Join(t.TempDir(), "public")}
			maps.Copy(overrides, c.overrides)
			cfg, _, err := build(t, c.dir, overrides)
			if err != nil {
				t.Fatal(err)
			}
			pages := 0
			_ = filepath.WalkDir(cfg.Destination, func(p string, d fs.DirEntry, err error) error {
				if err != nil || !strings.HasSuffix(p, ".html") {
					return err
				}
				pages++
				data, _ := os.ReadFile(p)
				rel, _ := filepath.Rel(cfg.Destination, p)
				for _, b := range scanPage(data) {
					t.Errorf("%s: %s", rel, b)
				}
				return nil
			})
			if pages < 5 {
				t.Errorf("%d pages", pages)
			}
		})
	}
}
