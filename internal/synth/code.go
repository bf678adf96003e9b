package synth

import (
	"bytes"
	"strconv"
	"strings"
)

// lang is a programming language code is generated in: templates with
// placeholders, filled with fresh identifiers each time.
//
// Placeholders are a letter in braces; any other brace is literal text.
// {f} function name, {F} type or exported name, {T} the block's type,
// {v} {w} the block's variables, {x} a fresh variable, {k} a snake_case key,
// {s} a short phrase, {S} a sentence, {n} a number, {p} a project file,
// {e} an error code, {m} the project's module name, {t} a type.
type lang struct {
	name   string // the fence info string and language name
	fence  string
	style  int    // identifier style
	indent string // one level
	header []string
	blocks []block
	stmts  []string
	types  []string
}

// block is a function, class or statement that holds statements.
type block struct {
	open, close string
	depth       int      // indent levels of its statements
	stmts       []string // nil: the language's statements
}

var (
	langGo = &lang{
		name: "go", fence: "go", style: camel, indent: "\t",
		header: []string{
			"package {m}\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"fmt\"\n\t\"strings\"\n\t\"time\"\n)\n\n// Err{F} is returned when {s}.\nvar Err{F} = errors.New(\"{s}\")",
			"package {m}_test\n\nimport (\n\t\"testing\"\n\n\t\"github.com/{m}/{m}/internal/{k}\"\n)",
		},
		blocks: []block{
			{open: "// {F} {S}\nfunc (s *{T}) {F}(ctx context.Context, {w} {t}) error {", close: "}", depth: 1},
			{open: "func {f}({v} *{T}, {w} []{t}) ({t}, error) {", close: "}", depth: 1},
			{open: "// {T} {S}\ntype {T} struct {", close: "}", depth: 1, stmts: []string{"{F} {t}", "{F} []{t} `json:\"{k}\"`", "{v} *{F}", "mu sync.Mutex"}},
			{open: "func Test{F}(t *testing.T) {", close: "}", depth: 1},
		},
		stmts: []string{
			"if {v} == nil {\n\treturn fmt.Errorf(\"{s}: %w\", Err{F})\n}",
			"{x}, err := s.{F}(ctx, {w})\nif err != nil {\n\treturn fmt.Errorf(\"{f} %q: %w\", {w}, err)\n}",
			"for i, {x} := range {w} {\n\t{v}.{F}[i] = {x}\n}",
			"// {S}",
			"{x} := make(map[string]{t}, len({w}))",
			"{v}.{F} = time.Now().Add({n} * time.Second)",
			"defer {v}.{F}()",
			"select {\ncase <-ctx.Done():\n\treturn ctx.Err()\ncase {x} := <-s.{k}:\n\t{v}.{F}({x})\n}",
			"log.Printf(\"{s}: %v\", {w})",
			"{x} := strings.TrimSpace({w})",
			"switch {w} {\ncase \"{k}\":\n\treturn nil\ndefault:\n\t{v}.{F}++\n}",
			"if got, want := {v}.{F}(), {n}; got != want {\n\tt.Errorf(\"{f}() = %d, want %d\", got, want)\n}",
			"return nil",
		},
		types: strings.Fields("string int int64 bool []byte error time.Duration *Config map[string]string any"),
	}
	langPython = &lang{
		name: "python", fence: "python", style: snake, indent: "    ",
		header: []string{
			"\"\"\"{S}\"\"\"\n\nfrom __future__ import annotations\n\nimport logging\nimport os\nfrom dataclasses import dataclass, field\nfrom pathlib import Path\n\nlog = logging.getLogger(__name__)",
			"import pytest\n\nfrom {m}.{k} import {F}, {f}",
		},
		blocks: []block{
			{open: "def {f}({v}: {t}, {w}: {t} | None = None) -> {t}:\n    \"\"\"{S}\"\"\"", depth: 1},
			{open: "@dataclass\nclass {T}:\n    \"\"\"{S}\"\"\"\n\n    {k}: {t}\n    {k}: list[{t}] = field(default_factory=list)\n\n    def {f}(self, {w}: {t}) -> {t}:", depth: 2},
			{open: "def test_{f}(tmp_path: Path) -> None:", depth: 1},
		},
		stmts: []string{
			"if {v} is None:\n    raise ValueError(\"{s}\")",
			"{x} = {w}.{f}({v})",
			"for {x} in {w}:\n    {v}.append({x})",
			"# {S}",
			"log.info(\"{s} %s\", {v})",
			"{x} = {\"{k}\": {v}, \"{k}\": {n}}",
			"try:\n    {x} = {f}({v})\nexcept KeyError as exc:\n    raise RuntimeError(\"{s}\") from exc",
			"with open({v}, encoding=\"utf-8\") as fh:\n    {x} = fh.read()",
			"assert {w} == {n}, \"{s}\"",
			"return {v}",
		},
		types: strings.Fields("str int float bool bytes dict[str,str] list[str] Path None"),
	}
	langTS = &lang{
		name: "typescript", fence: "ts", style: camel, indent: "  ",
		header: []string{
			"import { {F} } from \"./{k}\";\nimport type { {F}, {F} } from \"../types\";",
			"import { describe, expect, it } from \"vitest\";\nimport { {f} } from \"../src/{k}\";",
		},
		blocks: []block{
			{open: "export async function {f}({v}: {T}, {w}: {t}): Promise<{t}> {", close: "}", depth: 1},
			{open: "export class {T} {\n  private {v} = new Map<string, {t}>();\n\n  {f}({w}: {t}): {t} {", close: "  }\n}", depth: 2},
			{open: "const {f} = ({v}: {t}[], {w}: {T}) => {", close: "};", depth: 1},
			{open: "describe(\"{s}\", () => {\n  it(\"{s}\", async () => {", close: "  });\n});", depth: 2},
		},
		stmts: []string{
			"if (!{v}) {\n  throw new Error(`{s}: ${{w}}`);\n}",
			"const {x} = await {v}.{f}({w});",
			"for (const item of {w}) {\n  {v}.set(item.{k}, item);\n}",
			"// {S}",
			"console.warn(\"{s}\", {v});",
			"return {w}.filter((item) => item.{k} !== undefined);",
			"expect({v}.{f}()).toEqual({n});",
			"const {x}: Record<string, {t}> = {};",
			"this.{v}.delete({w});",
		},
		types: strings.Fields("string number boolean unknown Date Buffer Record<string,string> string[] Response"),
	}
	langRust = &lang{
		name: "rust", fence: "rust", style: snake, indent: "    ",
		header: []string{
			"use std::collections::HashMap;\nuse std::io;\n\nuse crate::{k}::{F};\nuse crate::error::Error;",
		},
		blocks: []block{
			{open: "pub fn {f}({v}: &{T}, {w}: {t}) -> Result<{t}, Error> {", close: "}", depth: 1},
			{open: "impl {T} {\n    pub fn {f}(&mut self, {w}: {t}) -> io::Result<()> {", close: "    }\n}", depth: 2},
			{open: "#[test]\nfn {f}() {", close: "}", depth: 1},
			{open: "#[derive(Debug, Clone, PartialEq)]\npub struct {T} {", close: "}", depth: 1, stmts: []string{"pub {k}: {t},", "{k}: Vec<{t}>,", "{k}: Option<{F}>,"}},
		},
		stmts: []string{
			"let {x} = {v}.{f}(&{w})?;",
			"if {w}.is_empty() {\n    return Err(Error::{F}(\"{s}\".into()));\n}",
			"for {x} in {w}.iter() {\n    self.{k}.insert({x}.clone(), {n});\n}",
			"// {S}",
			"let mut {x}: HashMap<String, {t}> = HashMap::new();",
			"match {v}.{f}() {\n    Some(found) => return Ok(found),\n    None => {}\n}",
			"assert_eq!({v}.{f}(), {n});",
			"tracing::debug!(\"{s} {:?}\", {w});",
			"Ok(())",
		},
		types: strings.Fields("String u64 usize bool &str Vec<u8> PathBuf Duration"),
	}
	langBash = &lang{
		name: "bash", fence: "bash", style: snake, indent: "  ",
		header: []string{"#!/usr/bin/env bash\nset -euo pipefail\n\nROOT=\"$(cd \"$(dirname \"$0\")/..\" && pwd)\""},
		blocks: []block{
			{open: "{f}() {", close: "}", depth: 1},
			{open: "if [[ \"${CI:-}\" == \"true\" ]]; then", close: "fi", depth: 1},
		},
		stmts: []string{
			"local {x}=\"${1:-{k}}\"",
			"echo \"{s}\" >&2",
			"if [[ ! -f \"{p}\" ]]; then\n  echo \"missing {p}\" >&2\n  exit 1\nfi",
			"for f in \"$ROOT\"/{k}/*; do\n  {f} \"$f\"\ndone",
			"curl -fsS \"http://localhost:8080/{k}\" | jq '.{k}'",
			"# {S}",
			"export {F}=\"{k}\"",
		},
	}
	langSQL = &lang{
		name: "sql", fence: "sql", style: snake, indent: "    ",
		blocks: []block{
			{open: "-- {S}\nCREATE TABLE {k} (\n    id BIGSERIAL PRIMARY KEY,", close: ");\n\nCREATE INDEX idx_{k} ON {k} ({k});", depth: 1},
			{open: "SELECT {k}, {k}, count(*) AS {k}\nFROM {k}\nWHERE {k} = ${n}", close: "GROUP BY 1, 2\nORDER BY 3 DESC\nLIMIT {n};", stmts: []string{"AND {k} > now() - interval '{n} days'", "AND {k} IS NOT NULL", "AND {k} IN ('{k}', '{k}')"}},
		},
		stmts: []string{"{k} {t} NOT NULL,", "{k} {t},", "{k} {t} NOT NULL DEFAULT now(),", "{k} {t} REFERENCES {k}(id),"},
		types: strings.Fields("TEXT BIGINT INTEGER TIMESTAMPTZ JSONB BOOLEAN UUID NUMERIC(12,2)"),
	}
	langYAML = &lang{
		name: "yaml", fence: "yaml", style: snake, indent: "  ",
		header: []string{"name: {k}\non:\n  push:\n    branches: [main]\n  pull_request:"},
		blocks: []block{
			{open: "{k}:", depth: 1, stmts: []string{"{k}: {s}", "{k}: {n}", "enabled: true", "- {k}"}},
		},
		stmts: []string{"{k}: {s}"},
	}
	langJSON = &lang{name: "json", fence: "json", style: camel, indent: "  "}
	langDiff = &lang{name: "diff", fence: "diff", style: camel}
)

// projectLangs are the main languages of generated projects.
var projectLangs = []*lang{langGo, langPython, langTS, langRust}

// fenceLangs are the languages of fenced code in answers.
var fenceLangs = []*lang{langGo, langPython, langTS, langRust, langBash, langSQL, langJSON, langYAML, langDiff}

// anyLang is mostly the project's language, sometimes another.
func (g *gen) anyLang() *lang {
	if g.r.IntN(2) == 0 {
		return g.proj.lang
	}
	return fenceLangs[g.r.IntN(len(fenceLangs))]
}

// langOf is the language of a file, by extension.
func langOf(path string) *lang {
	ext := path[strings.LastIndexByte(path, '.')+1:]
	switch ext {
	case "go":
		return langGo
	case "py":
		return langPython
	case "ts", "tsx", "js":
		return langTS
	case "rs":
		return langRust
	case "sh":
		return langBash
	case "sql":
		return langSQL
	case "yml", "yaml":
		return langYAML
	case "json":
		return langJSON
	}
	return nil // prose: Markdown, Makefiles, TOML
}

// blockVars are the names a block reuses.
type blockVars struct{ t, v, w string }

// code appends about n lines of code in l, without a final newline.
func (g *gen) code(b []byte, l *lang, n int) []byte {
	switch l {
	case langJSON:
		return g.jsonDoc(b, n)
	case langDiff:
		return g.diff(b, n)
	}
	start := len(b)
	lines := 0
	if len(l.header) > 0 && (n > 12 || g.r.IntN(4) == 0) {
		b = g.expand(b, l.header[g.r.IntN(len(l.header))], l, nil, "")
		b = append(b, '\n', '\n')
		lines = countLines(b[start:])
	}
	for lines < n {
		blk := &l.blocks[g.r.IntN(len(l.blocks))]
		vars := &blockVars{t: g.identString(pascal), v: g.varName(l), w: g.varName(l)}
		mark := len(b)
		b = g.expand(b, blk.open, l, vars, "")
		stmts := blk.stmts
		if stmts == nil {
			stmts = l.stmts
		}
		indent := strings.Repeat(l.indent, blk.depth)
		for range 1 + g.r.IntN(7) {
			b = append(b, '\n')
			b = append(b, indent...)
			b = g.expand(b, stmts[g.r.IntN(len(stmts))], l, vars, indent)
		}
		if blk.close != "" {
			b = append(b, '\n')
			b = g.expand(b, blk.close, l, vars, "")
		}
		b = append(b, '\n', '\n')
		lines += countLines(b[mark:])
	}
	for len(b) > start && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
	}
	return b
}

func countLines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}

func (g *gen) varName(l *lang) string {
	if g.r.IntN(2) == 0 {
		return g.noun()
	}
	b := []byte(g.noun())
	if l.style == snake {
		return string(append(append(b, '_'), g.noun()...))
	}
	return string(appendTitle(b, g.noun()))
}

// expand appends template t, indenting its continuation lines by indent.
func (g *gen) expand(b []byte, t string, l *lang, vars *blockVars, indent string) []byte {
	if vars == nil {
		vars = &blockVars{t: g.identString(pascal), v: g.varName(l), w: g.varName(l)}
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c == '\n' {
			b = append(b, '\n')
			b = append(b, indent...)
			continue
		}
		if c != '{' || i+2 >= len(t) || t[i+2] != '}' || t[i+1] < 'A' || t[i+1] > 'z' {
			b = append(b, c)
			continue
		}
		if fill := placeholders[t[i+1]]; fill != nil {
			b = fill(g, b, l, vars)
		} else {
			b = append(b, t[i:i+3]...)
		}
		i += 2
	}
	return b
}

// placeholders fill each {x} of a code template.
var placeholders = map[byte]func(g *gen, b []byte, l *lang, vars *blockVars) []byte{
	'f': func(g *gen, b []byte, l *lang, _ *blockVars) []byte { return g.ident(b, l.style) },
	'F': func(g *gen, b []byte, _ *lang, _ *blockVars) []byte { return g.ident(b, pascal) },
	'T': func(_ *gen, b []byte, _ *lang, v *blockVars) []byte { return append(b, v.t...) },
	'v': func(_ *gen, b []byte, _ *lang, v *blockVars) []byte { return append(b, v.v...) },
	'w': func(_ *gen, b []byte, _ *lang, v *blockVars) []byte { return append(b, v.w...) },
	'x': func(g *gen, b []byte, l *lang, _ *blockVars) []byte { return append(b, g.varName(l)...) },
	'k': func(g *gen, b []byte, _ *lang, _ *blockVars) []byte {
		return append(append(append(b, g.noun()...), '_'), g.noun()...)
	},
	's': func(g *gen, b []byte, _ *lang, _ *blockVars) []byte { return g.phrase(b, 2+g.r.IntN(4)) },
	'S': func(g *gen, b []byte, _ *lang, _ *blockVars) []byte { return g.sentence(b) },
	'n': func(g *gen, b []byte, _ *lang, _ *blockVars) []byte {
		return strconv.AppendInt(b, int64(g.r.IntN(100)), 10)
	},
	'p': func(g *gen, b []byte, _ *lang, _ *blockVars) []byte { return append(b, g.file()...) },
	'e': func(g *gen, b []byte, _ *lang, _ *blockVars) []byte { return append(b, g.errorCode()...) },
	'm': func(g *gen, b []byte, _ *lang, _ *blockVars) []byte { return append(b, g.proj.module...) },
	't': func(g *gen, b []byte, l *lang, _ *blockVars) []byte {
		if len(l.types) > 0 {
			b = append(b, l.types[g.r.IntN(len(l.types))]...)
		}
		return b
	},
}

// jsonDoc appends a pretty-printed JSON document of about n lines.
func (g *gen) jsonDoc(b []byte, n int) []byte {
	b = append(b, '{')
	lines := 1
	for i := 0; lines < n-1 || i == 0; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n  \""...)
		b = g.ident(b, camel)
		b = append(b, "\": "...)
		lines++
		switch g.r.IntN(6) {
		case 0:
			b = append(b, '{')
			for k := range 2 + g.r.IntN(5) {
				if k > 0 {
					b = append(b, ',')
				}
				b = append(b, "\n    \""...)
				b = append(b, g.noun()...)
				b = append(b, "\": \""...)
				b = g.phrase(b, 1+g.r.IntN(3))
				b = append(b, '"')
				lines++
			}
			b = append(b, "\n  }"...)
			lines++
		case 1:
			b = append(b, '[')
			for k := range 1 + g.r.IntN(4) {
				if k > 0 {
					b = append(b, ", "...)
				}
				b = append(b, '"')
				b = append(b, g.noun()...)
				b = append(b, '"')
			}
			b = append(b, ']')
		case 2:
			b = strconv.AppendInt(b, int64(g.r.IntN(10000)), 10)
		case 3:
			b = strconv.AppendBool(b, g.r.IntN(2) == 0)
		default:
			b = append(b, '"')
			b = g.phrase(b, 1+g.r.IntN(4))
			b = append(b, '"')
		}
	}
	return append(b, "\n}"...)
}

// diff appends a unified diff of one file.
func (g *gen) diff(b []byte, n int) []byte {
	f := g.file()
	l := langOf(f)
	if l == nil || l == langJSON {
		l = g.proj.lang
	}
	b = append(b, "--- a/"...)
	b = append(b, f...)
	b = append(b, "\n+++ b/"...)
	b = append(b, f...)
	b = append(b, "\n@@ -"...)
	at := 1 + g.r.IntN(300)
	b = strconv.AppendInt(b, int64(at), 10)
	b = append(b, ",7 +"...)
	b = strconv.AppendInt(b, int64(at), 10)
	b = append(b, ",9 @@"...)
	for i := range max(n-3, 3) {
		b = append(b, '\n')
		mark := len(b)
		switch {
		case i%4 == 1:
			b = append(b, '-')
		case i%4 == 2 || i%5 == 3:
			b = append(b, '+')
		default:
			b = append(b, ' ')
		}
		b = append(b, l.indent...)
		b = g.expand(b, l.stmts[g.r.IntN(len(l.stmts))], l, nil, "")
		// One source line per diff line: cut multi-line statements.
		if k := bytes.IndexByte(b[mark:], '\n'); k >= 0 {
			b = b[:mark+k]
		}
	}
	return b
}
