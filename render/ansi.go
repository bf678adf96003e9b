package render

import (
	"html/template"
	"strconv"
	"strings"
)

// sgr is the text style set by ANSI "select graphic rendition" codes.
type sgr struct {
	fg, bg                     int // 0 for the default, else 1+colour 0–15
	bold, dim, italic, underln bool
}

func (s sgr) class() string {
	var c []string
	if s.fg > 0 {
		c = append(c, "ansi-fg"+strconv.Itoa(s.fg-1))
	}
	if s.bg > 0 {
		c = append(c, "ansi-bg"+strconv.Itoa(s.bg-1))
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{s.bold, "ansi-bold"}, {s.dim, "ansi-dim"}, {s.italic, "ansi-italic"}, {s.underln, "ansi-underline"}} {
		if f.on {
			c = append(c, f.name)
		}
	}
	return strings.Join(c, " ")
}

// ANSI renders terminal output as escaped HTML, its colours and weights as
// classed spans (ansi-fg0 … ansi-fg15, ansi-bold, …; the stylesheet gives
// them colours for light and dark themes). Other escape sequences are
// dropped, and a carriage return overwrites its line as a terminal would,
// so progress bars show their last state. No escape byte reaches the page.
func ANSI(s string) template.HTML {
	if !strings.ContainsAny(s, "\x1b\r") {
		return template.HTML(template.HTMLEscapeString(s))
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	var cur sgr
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		cur = ansiLine(&b, lastState(line), cur)
	}
	return template.HTML(b.String())
}

// lastState is what a line shows after the carriage returns in it
// overwrote it.
func lastState(line string) string {
	line = strings.TrimRight(line, "\r")
	if j := strings.LastIndexByte(line, '\r'); j >= 0 {
		return line[j+1:]
	}
	return line
}

// ansiLine writes a line of terminal output that starts in the style cur,
// and returns the style it ends in. Spans do not cross lines, so output
// folded by lines stays whole HTML.
func ansiLine(b *strings.Builder, line string, cur sgr) sgr {
	open := cur.openSpan(b)
	for line != "" {
		k := strings.IndexByte(line, 0x1b)
		if k < 0 {
			b.WriteString(template.HTMLEscapeString(line))
			break
		}
		b.WriteString(template.HTMLEscapeString(line[:k]))
		seq, params, rest := escape(line[k:])
		line = rest
		if next := cur.apply(params); seq == 'm' && next != cur {
			closeSpan(b, open)
			cur = next
			open = cur.openSpan(b)
		}
	}
	closeSpan(b, open)
	return cur
}

// closeSpan closes the span, if one is open.
func closeSpan(b *strings.Builder, open bool) {
	if open {
		b.WriteString("</span>")
	}
}

// openSpan opens a span for the style, if it has one.
func (s sgr) openSpan(b *strings.Builder) bool {
	c := s.class()
	if c == "" {
		return false
	}
	b.WriteString(`<span class="`)
	b.WriteString(c)
	b.WriteString(`">`)
	return true
}

// escape splits the escape sequence at the start of s: its final byte
// ('m' for SGR; 0 for anything that is not a CSI sequence), its parameters,
// and the text after it.
func escape(s string) (final byte, params, rest string) {
	if len(s) < 2 {
		return 0, "", ""
	}
	switch s[1] {
	case '[':
		return csi(s)
	case ']':
		return 0, "", osc(s)
	case '(', ')', '*', '+', '-', '.', '/', '#', '%', ' ': // charset and similar: one more byte
		if len(s) >= 3 {
			return 0, "", s[3:]
		}
		return 0, "", ""
	}
	return 0, "", s[2:] // a two-byte escape
}

// csi splits the CSI sequence at the start of s: parameters 0x30–0x3F,
// intermediates 0x20–0x2F, final 0x40–0x7E. An unended one is all of s.
func csi(s string) (final byte, params, rest string) {
	for i := 2; i < len(s); i++ {
		if c := s[i]; c >= 0x40 && c <= 0x7e {
			return c, s[2:i], s[i+1:]
		}
	}
	return 0, "", ""
}

// osc returns the text after the OSC sequence at the start of s, ended by
// BEL or ESC \; an unended one is all of s.
func osc(s string) string {
	for i := 2; i < len(s); i++ {
		if s[i] == 0x07 {
			return s[i+1:]
		}
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
			return s[i+2:]
		}
	}
	return ""
}

// apply returns the style after the SGR parameters p.
func (s sgr) apply(p string) sgr {
	if p == "" {
		return sgr{}
	}
	ps := strings.Split(strings.ReplaceAll(p, ":", ";"), ";")
	for i := 0; i < len(ps); i++ {
		n, err := strconv.Atoi(ps[i])
		switch {
		case err != nil:
		case n == 38 || n == 48:
			i += s.extended(n, ps[i+1:])
		case sgrAttrs[n] != nil:
			sgrAttrs[n](&s)
		default:
			s.colour(n)
		}
	}
	return s
}

// extended sets the foreground (n 38) or background (48) to the colour of
// the parameters ps that follow, and returns how many of them it read.
func (s *sgr) extended(n int, ps []string) int {
	c, used := extendedColour(ps)
	if n == 38 {
		s.fg = c
	} else {
		s.bg = c
	}
	return used
}

// sgrAttrs set or reset the attributes of SGR parameters.
var sgrAttrs = map[int]func(*sgr){
	0:  func(s *sgr) { *s = sgr{} },
	1:  func(s *sgr) { s.bold = true },
	2:  func(s *sgr) { s.dim = true },
	3:  func(s *sgr) { s.italic = true },
	4:  func(s *sgr) { s.underln = true },
	22: func(s *sgr) { s.bold, s.dim = false, false },
	23: func(s *sgr) { s.italic = false },
	24: func(s *sgr) { s.underln = false },
	39: func(s *sgr) { s.fg = 0 },
	49: func(s *sgr) { s.bg = 0 },
}

// colour sets the basic colour of SGR parameter n, if it names one: the
// 16 colours are numbered from 1, 0 being the default.
func (s *sgr) colour(n int) {
	switch {
	case n >= 30 && n <= 37 || n >= 90 && n <= 97:
		s.fg = basic(n)
	case n >= 40 && n <= 47 || n >= 100 && n <= 107:
		s.bg = basic(n)
	}
}

// basic is the colour, from 1, that the SGR parameter n of a basic
// colour names: its last digit, 8 on for the bright ones (90–97, 100–107).
func basic(n int) int {
	if n >= 90 {
		return n%10 + 8 + 1
	}
	return n%10 + 1
}

// extendedColour reads a 256-colour (5;n) or true-colour (2;r;g;b)
// parameter list and returns the nearest of the 16 basic colours, plus one,
// and how many parameters it used.
func extendedColour(ps []string) (int, int) {
	switch param(ps, 0) {
	case 5:
		return colour256(param(ps, 1)) + 1, 2
	case 2:
		return nearest(param(ps, 1), param(ps, 2), param(ps, 3)) + 1, 4
	}
	return 0, 1
}

// param is the SGR parameter ps[i] as a number; 0 when it is missing.
func param(ps []string, i int) int {
	if i >= len(ps) {
		return 0
	}
	n, _ := strconv.Atoi(ps[i])
	return n
}

// colour256 is the nearest of the 16 basic colours, from 0, to colour n
// of the 256: the basic ones, a 6×6×6 cube, then greys.
func colour256(n int) int {
	switch {
	case n < 16:
		return n
	case n >= 244:
		return 7 // light grey
	case n >= 232:
		return 8 // dark grey
	}
	n -= 16
	return nearest(n/36*51, n/6%6*51, n%6*51)
}

// nearest maps an RGB colour to the closest of the 16 basic colours.
func nearest(r, g, b int) int {
	c := lit(r) | lit(g)<<1 | lit(b)<<2
	if c != 0 && (r > 170 || g > 170 || b > 170) {
		c += 8 // bright
	}
	return c
}

// lit is 1 when a colour's channel is on in the nearest basic colour.
func lit(x int) int {
	if x > 85 {
		return 1
	}
	return 0
}
