package render

import (
	"bytes"
	"encoding/json"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Shown is text as a page shows it, and the language to highlight it in.
type Shown struct{ Text, Lang string }

// Readable is a tool's input as a page shows it: JSON indented, or, when
// a string in it has several lines (a prompt, a plan, a message), as
// YAML, where such a string keeps its lines rather than "\n" escapes;
// anything else as it is.
func Readable(s string) Shown {
	if y, ok := multiline(s); ok {
		return Shown{y, "yaml"}
	}
	return Shown{PrettyJSON(s), "json"}
}

// ReadableOutput is a tool's output as a page shows it: as it is, but
// JSON holding a string of several lines as YAML (see Readable).
func ReadableOutput(s string) string {
	if y, ok := multiline(s); ok {
		return y
	}
	return s
}

// multiline is s, a JSON object or array with a string of several lines
// in it, as YAML in the order of its keys.
func multiline(s string) (string, bool) {
	t := strings.TrimSpace(s)
	if !jsonWithLines(t) {
		return "", false
	}
	var doc yaml.Node
	if yaml.Unmarshal([]byte(t), &doc) != nil || !plainScalars(&doc) {
		return "", false
	}
	return yamlOf(&doc)
}

// jsonWithLines reports whether t is a JSON object or array with an
// escaped line break in it.
func jsonWithLines(t string) bool {
	return t != "" && (t[0] == '{' || t[0] == '[') && strings.Contains(t, `\n`) && json.Valid([]byte(t))
}

// yamlOf writes doc as YAML indented by two spaces.
func yamlOf(doc *yaml.Node) (string, bool) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if enc.Encode(doc) != nil || enc.Close() != nil {
		return "", false
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}

// plainScalars lets YAML choose how to write each scalar of n (a string
// of several lines as a literal block), written in JSON's flow style, and
// reports whether one has several lines.
func plainScalars(n *yaml.Node) bool {
	multi := false
	n.Style = 0
	if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "\n") {
		// A line's trailing spaces would make YAML quote the whole string
		// again; on a page they show as nothing anyway.
		n.Value = trimLineEnds(n.Value)
		n.Style, multi = yaml.LiteralStyle, true
	}
	for _, c := range n.Content {
		multi = plainScalars(c) || multi
	}
	return multi
}

// trimLineEnds drops the spaces and tabs that end each line of s. (A
// regexp, (?m)[ \t]+$, tried each position of every string of a call's
// input: a twentieth of a build's instructions.)
func trimLineEnds(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for line := range strings.Lines(s) {
		body, nl := strings.CutSuffix(line, "\n")
		b.WriteString(strings.TrimRight(body, " \t"))
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
