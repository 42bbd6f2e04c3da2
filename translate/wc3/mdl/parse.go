package mdl

import (
	"fmt"
	"math"
	"strconv"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/wc3"
)

// maxWarnings caps Model.Warnings so that a file full of junk cannot make the reader allocate
// far more than its own size; the last entry says how many were dropped.
const maxWarnings = 100

// parser is a recursive-descent reader over the lexer. Fatal problems panic with a
// *parseError that Read recovers; nothing else panics.
type parser struct {
	lx       lexer
	name     string
	m        *wc3.Model
	warnings []string
	dropped  int
	known    bool   // a known top-level block was seen
	stmtWord []byte // the keyword of the statement body is parsing, as written, until a nested
	stmtLine int    // body starts (read them before parsing any nested block)
}

type parseError struct{ err *codec.FormatError }

// Read decodes an MDL file; name is used in errors.
func Read(name string, data []byte) (m *wc3.Model, err error) {
	p := &parser{lx: newLexer(data), name: name, m: &wc3.Model{}}
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(parseError)
			if !ok {
				panic(r)
			}
			m, err = nil, pe.err
		}
	}()
	p.next()
	if p.lx.kind == tEOF {
		p.failf("empty file: no MDL content")
	}
	p.file()
	if !p.known {
		p.lx.tokLine = 1
		p.failf("not an MDL model: no Version, Model or other known block")
	}
	if p.dropped > 0 {
		p.warnings = append(p.warnings, fmt.Sprintf("%d more warnings not shown", p.dropped))
	}
	p.m.Warnings = p.warnings
	return p.m, nil
}

// ---- token helpers ----

func (p *parser) next() {
	p.lx.next()
	if p.lx.kind == tBad {
		p.failf("%s", p.lx.bad)
	}
}

func (p *parser) failf(format string, args ...any) {
	panic(parseError{&codec.FormatError{
		Format: "mdl", File: p.name, Offset: int64(p.lx.start), Line: p.lx.tokLine,
		Msg: fmt.Sprintf(format, args...),
	}})
}

func (p *parser) warnf(line int, format string, args ...any) {
	if len(p.warnings) >= maxWarnings {
		p.dropped++
		return
	}
	p.warnings = append(p.warnings, fmt.Sprintf("line %d: ", line)+fmt.Sprintf(format, args...))
}

// warnTok is warnf for a message whose first %s is the current token's description, which
// is only computed when the warning is kept.
func (p *parser) warnTok(line int, format string, args ...any) {
	if len(p.warnings) >= maxWarnings {
		p.dropped++
		return
	}
	p.warnf(line, format, append([]any{p.desc()}, args...)...)
}

// desc describes the current token for messages.
func (p *parser) desc() string {
	t := p.lx.text()
	if len(t) > 32 {
		t = t[:32]
	}
	switch p.lx.kind {
	case tEOF:
		return "end of file"
	case tNumber:
		return "number " + string(t)
	case tIdent:
		return quoteWord(t)
	case tString:
		return "string " + strconv.Quote(string(t))
	case tLBrace:
		return "'{'"
	case tRBrace:
		return "'}'"
	case tColon:
		return "':'"
	}
	return strconv.Quote(string(t))
}

// quoteWord describes a word (cut to 32 bytes) for messages.
func quoteWord(w []byte) string {
	return strconv.Quote(string(w[:min(len(w), 32)]))
}

// open consumes '{' and returns its line.
func (p *parser) open(what string) int {
	if p.lx.kind != tLBrace {
		p.failf("expected '{' after %s, got %s", what, p.desc())
	}
	line := p.lx.tokLine
	p.next()
	return line
}

// close consumes the '}' that ends a block opened on line open.
func (p *parser) close(open int, what string) {
	switch p.lx.kind {
	case tRBrace:
		p.next()
	case tEOF:
		p.failf("unexpected end of file: %s block opened on line %d is not closed", what, open)
	default:
		p.failf("expected '}' to close %s (opened on line %d), got %s", what, open, p.desc())
	}
}

// optCount consumes an optional count hint and returns it, or -1.
func (p *parser) optCount(what string) int {
	if p.lx.kind != tNumber {
		return -1
	}
	v, ok := parseInt(p.lx.text())
	if !ok || v < 0 || v > math.MaxInt32 {
		p.failf("malformed count (%s) after %s", p.desc(), what)
	}
	p.next()
	return int(v)
}

// capHint turns an untrusted count into a safe capacity: never more elements than the rest
// of the input could hold at minBytes each.
func (p *parser) capHint(hint, minBytes int) int {
	if hint <= 0 {
		return 0
	}
	if limit := (len(p.lx.data) - p.lx.start) / minBytes; hint > limit {
		return limit
	}
	return hint
}

func (p *parser) checkCount(line, hint, got int, what string) {
	if hint >= 0 && hint != got {
		p.warnf(line, "%s declares %d entries but holds %d", what, hint, got)
	}
}

func (p *parser) float(what string) float32 {
	if p.lx.kind != tNumber {
		if p.lx.kind == tIdent {
			switch string(p.lx.text()) {
			case "NaN", "nan", "NAN":
				p.next()
				return float32(math.NaN())
			case "Inf", "inf", "INF", "Infinity", "infinity":
				p.next()
				return float32(math.Inf(1))
			}
		}
		p.failf("expected a number for %s, got %s", what, p.desc())
	}
	v, ok := parseFloat32(p.lx.text())
	if !ok {
		p.failf("malformed %s for %s", p.desc(), what)
	}
	p.next()
	return v
}

func (p *parser) int64v(what string, lo, hi int64) int64 {
	if p.lx.kind != tNumber {
		p.failf("expected an integer for %s, got %s", what, p.desc())
	}
	v, ok := parseInt(p.lx.text())
	if !ok || v < lo || v > hi {
		p.failf("malformed or out-of-range %s for %s", p.desc(), what)
	}
	p.next()
	return v
}

func (p *parser) i32(what string) int32 {
	return int32(p.int64v(what, math.MinInt32, math.MaxInt32))
}

// u32 reads an unsigned 32-bit integer; -1 is accepted and stored as 0xFFFFFFFF, as MDX does.
func (p *parser) u32(what string) uint32 {
	return uint32(p.int64v(what, -1, math.MaxUint32))
}

func (p *parser) str(what string) string {
	if p.lx.kind != tString {
		p.failf("expected a quoted string for %s, got %s", what, p.desc())
	}
	s := string(p.lx.text())
	p.next()
	return s
}

// optName consumes an optional quoted object name.
func (p *parser) optName() string {
	if p.lx.kind == tString {
		return p.str("name")
	}
	return ""
}

// value reads one value of len(dst) floats: a bare number when len(dst) is 1, otherwise
// (or also) `{ a, b, … }` with exactly len(dst) numbers.
func (p *parser) value(dst []float32, what string) {
	if len(dst) == 1 && p.lx.kind != tLBrace {
		dst[0] = p.float(what)
		return
	}
	open := p.open(what)
	n := 0
	for p.lx.kind != tRBrace && p.lx.kind != tEOF {
		if n == len(dst) {
			p.failf("%s takes %d values, found more", what, len(dst))
		}
		dst[n] = p.float(what)
		n++
	}
	if n != len(dst) {
		p.failf("%s takes %d values, found %d", what, len(dst), n)
	}
	p.close(open, what)
}

func (p *parser) vec3(what string) (v [3]float32) {
	p.value(v[:], what)
	return v
}

// uints reads `{ a, b, c }` of unsigned integers no larger than hi.
func (p *parser) uints(dst []uint32, hi int64, what string) {
	open := p.open(what)
	n := 0
	for p.lx.kind != tRBrace && p.lx.kind != tEOF {
		if n == len(dst) {
			p.failf("%s takes %d values, found more", what, len(dst))
		}
		dst[n] = uint32(p.int64v(what, 0, hi))
		n++
	}
	if n != len(dst) {
		p.failf("%s takes %d values, found %d", what, len(dst), n)
	}
	p.close(open, what)
}

// skipUnknown skips the current token and the values that belong to it: everything up to the
// next word or closing brace, including balanced blocks.
func (p *parser) skipUnknown() {
	p.next()
	p.skipRest()
}

// skipRest skips what is left of a statement: up to the next word, '}' or end of file.
func (p *parser) skipRest() {
	for {
		switch p.lx.kind {
		case tIdent, tRBrace, tEOF:
			return
		case tLBrace:
			p.skipBlock()
		default:
			p.next()
		}
	}
}

// skipBlock skips a balanced `{ … }` starting at the current '{'.
func (p *parser) skipBlock() {
	open := p.lx.tokLine
	depth := 0
	for {
		switch p.lx.kind {
		case tLBrace:
			depth++
		case tRBrace:
			depth--
			if depth == 0 {
				p.next()
				return
			}
		case tEOF:
			p.failf("unexpected end of file: block opened on line %d is not closed", open)
		}
		p.next()
	}
}

// body parses `{ … }` made of keyword statements. For each, body consumes the keyword (and a
// `static` before it, which static reports) and calls fn with it; fn consumes the rest of the
// statement and returns true, or returns false without consuming anything for a keyword it
// does not know (k is kwUnknown for a word that is no keyword), which body then skips with a
// warning. p.stmtWord and p.stmtLine hold the keyword as written and its line.
func (p *parser) body(what string, fn func(k kw, static bool) bool) {
	open := p.open(what)
	for {
		switch p.lx.kind {
		case tRBrace:
			p.next()
			return
		case tEOF:
			p.failf("unexpected end of file: %s block opened on line %d is not closed", what, open)
		case tIdent:
			line := p.lx.tokLine
			k := keyword(p.lx.text())
			static := false
			if k == kwStatic {
				p.next()
				if p.lx.kind != tIdent {
					p.failf("expected a property name after static in %s, got %s", what, p.desc())
				}
				k = keyword(p.lx.text())
				static = true
			}
			p.stmtLine, p.stmtWord = p.lx.tokLine, p.lx.text()
			word := p.stmtWord
			p.next()
			if fn(k, static) {
				continue
			}
			if len(p.warnings) < maxWarnings {
				p.warnf(line, "unknown %s in %s skipped", quoteWord(word), what)
			} else {
				p.dropped++
			}
			p.skipRest()
		case tLBrace:
			p.warnf(p.lx.tokLine, "unexpected block in %s skipped", what)
			p.skipBlock()
		default:
			p.warnTok(p.lx.tokLine, "unexpected %s in %s skipped", what)
			p.skipUnknown()
		}
	}
}

// isTrack reports whether the current tokens start a track (`N {` or `{ Interp`) rather than
// a static value.
func (p *parser) isTrack(static bool) bool {
	if static {
		return false
	}
	switch p.lx.kind {
	case tNumber:
		return p.lx.peekKind() == tLBrace
	case tLBrace:
		return p.lx.peekKind() == tIdent
	}
	return false
}

// trackOr parses a track into *dst when one follows and reports whether it did.
func (p *parser) trackOr(static bool, width int, what string, dst **wc3.Track) bool {
	if !p.isTrack(static) {
		return false
	}
	*dst = p.track(width, what)
	return true
}

// track parses `[N] { Interp, [GlobalSeqId k,] frame: value, [InTan v, OutTan v,] … }`.
func (p *parser) track(width int, what string) *wc3.Track {
	t := &wc3.Track{GlobalSeq: -1, Width: width}
	hint := p.optCount(what)
	open := p.open(what)
	if c := p.capHint(hint, 4+2*width); c > 0 {
		t.Frames = make([]int32, 0, c)
		t.Values = make([]float32, 0, c*width)
	}
	var val, in, out [4]float32
	haveInterp := false
	extraTans := false
	for {
		switch p.lx.kind {
		case tRBrace:
			p.next()
			if !haveInterp && len(t.Frames) > 0 {
				p.warnf(open, "%s track has no interpolation type; DontInterp assumed", what)
			}
			if extraTans {
				p.warnf(open, "%s track gives tangents but is not Hermite or Bezier; tangents ignored", what)
			}
			p.checkCount(open, hint, len(t.Frames), what)
			if len(t.Frames) == 0 {
				t.Frames, t.Values, t.InTans, t.OutTans = nil, nil, nil, nil
			}
			return t
		case tEOF:
			p.failf("unexpected end of file: %s track opened on line %d is not closed", what, open)
		case tIdent:
			k := keyword(p.lx.text())
			var interp wc3.Interp
			switch k {
			case kwDontInterp:
				interp = wc3.DontInterp
			case kwLinear:
				interp = wc3.Linear
			case kwHermite:
				interp = wc3.Hermite
			case kwBezier:
				interp = wc3.Bezier
			case kwGlobalSeqId:
				p.next()
				t.GlobalSeq = p.i32("GlobalSeqId")
				continue
			default:
				p.warnTok(p.lx.tokLine, "unknown %s in %s track skipped", what)
				p.skipUnknown()
				continue
			}
			if len(t.Frames) > 0 || haveInterp {
				p.warnTok(p.lx.tokLine, "extra interpolation type %s in %s track ignored", what)
			} else {
				t.Interp, haveInterp = interp, true
			}
			p.next()
		case tNumber:
			keyLine := p.lx.tokLine
			frame := p.i32(what + " frame")
			if p.lx.kind == tColon {
				p.next()
			}
			p.value(val[:width], what)
			gotIn, gotOut := false, false
			for p.lx.kind == tIdent {
				k := keyword(p.lx.text())
				if k == kwInTan {
					p.next()
					p.value(in[:width], what+" InTan")
					gotIn = true
				} else if k == kwOutTan {
					p.next()
					p.value(out[:width], what+" OutTan")
					gotOut = true
				} else {
					break
				}
			}
			t.Frames = append(t.Frames, frame)
			t.Values = append(t.Values, val[:width]...)
			if t.Interp >= wc3.Hermite {
				if !gotIn || !gotOut {
					p.warnf(keyLine, "%s key at frame %d lacks InTan or OutTan; zero used", what, frame)
					if !gotIn {
						in = [4]float32{}
					}
					if !gotOut {
						out = [4]float32{}
					}
				}
				t.InTans = append(t.InTans, in[:width]...)
				t.OutTans = append(t.OutTans, out[:width]...)
			} else if gotIn || gotOut {
				extraTans = true
			}
		default:
			p.warnTok(p.lx.tokLine, "unexpected %s in %s track skipped", what)
			p.skipUnknown()
		}
	}
}
