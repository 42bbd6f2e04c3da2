package elem

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/modelfs/modelfs/internal/textnum"
	"github.com/modelfs/modelfs/translate/codec"
)

// Limits that keep hostile input cheap.
const (
	maxLine     = 1 << 20 // bytes in one line
	maxDepth    = 256     // nesting of scopes
	maxWarnings = 100     // warnings kept; the rest are counted
	maxUnknown  = 1000    // unknown scopes recorded
	maxValues   = 64      // ':'-separated values on one list line
)

// Header is the first line of every .elem file.
const Header = "Elfreina Extension Model File"

type lineKind uint8

const (
	lEOF   lineKind = iota
	lOpen           // Tag {
	lClose          // }
	lKey            // Key=Data
	lData           // bare data
)

// parser reads .elem text line by line; scope readers consume their scope and stop on the line
// after its closing brace. Fatal problems panic with a parseError that Read recovers.
type parser struct {
	name   string
	data   []byte
	pos    int // start of the next line
	lineNo int // number of the line last read

	kind  lineKind
	line  int    // number of the current line
	start int    // byte offset of the current line
	key   []byte // scope tag (lOpen) or key (lKey)
	val   []byte // data (lKey, lData)

	f        *File
	path     []string // open scope names
	dropped  int
	nUnknown int
	nums     []float32 // scratch
}

type parseError struct{ err *codec.FormatError }

// Read parses an .elem file; name is used in errors and warnings.
func Read(name string, data []byte) (f *File, err error) {
	p := &parser{name: name, data: data, f: &File{}}
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(parseError)
			if !ok {
				panic(r)
			}
			f, err = nil, pe.err
		}
	}()
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		p.pos = 3
	}
	if !utf8.Valid(data[p.pos:]) {
		off := p.pos
		for off < len(data) {
			r, n := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		p.start, p.line = off, 1+bytes.Count(data[:off], []byte{'\n'})
		p.failf("invalid UTF-8 (byte 0x%02x): .elem files are UTF-8 text", data[off])
	}
	p.file()
	if p.dropped > 0 {
		p.f.Warnings = append(p.f.Warnings, fmt.Sprintf("%d more warnings not shown", p.dropped))
	}
	return p.f, nil
}

// ---- lines ----

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' }

func trim(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// next reads the next non-blank line and classifies it.
func (p *parser) next() {
	data := p.data
	for {
		if p.pos >= len(data) {
			p.kind, p.line, p.start, p.key, p.val = lEOF, p.lineNo+1, len(data), nil, nil
			return
		}
		p.lineNo++
		p.start = p.pos
		limit := min(len(data), p.pos+maxLine+1)
		end := bytes.IndexByte(data[p.pos:limit], '\n')
		if end < 0 {
			if limit-p.pos > maxLine {
				p.line = p.lineNo
				p.failf("line longer than %d bytes", maxLine)
			}
			end = len(data) - p.pos
		}
		raw := data[p.pos : p.pos+end]
		p.pos += end + 1
		b := trim(raw)
		if len(b) == 0 {
			continue
		}
		p.line = p.lineNo
		p.key, p.val = nil, nil
		switch {
		case len(b) == 1 && b[0] == '}':
			p.kind = lClose
		case b[len(b)-1] == '{':
			tag := unquote(trim(b[:len(b)-1]))
			if len(tag) == 0 {
				p.failf("'{' without a scope name")
			}
			p.kind, p.key = lOpen, tag
		default:
			eq := bytes.IndexByte(b, '=')
			q := bytes.IndexByte(b, '"')
			if eq > 0 && (q < 0 || eq < q) {
				p.kind, p.key, p.val = lKey, trim(b[:eq]), trim(b[eq+1:])
			} else {
				p.kind, p.val = lData, b
			}
		}
		return
	}
}

func (p *parser) failf(format string, args ...any) {
	p.failAt(p.line, p.start, format, args...)
}

func (p *parser) failAt(line, off int, format string, args ...any) {
	panic(parseError{&codec.FormatError{
		Format: FormatName, File: p.name, Offset: int64(off), Line: line,
		Msg: fmt.Sprintf(format, args...),
	}})
}

func (p *parser) warnf(line int, format string, args ...any) {
	if len(p.f.Warnings) >= maxWarnings {
		p.dropped++
		return
	}
	p.f.Warnings = append(p.f.Warnings, fmt.Sprintf("line %d: ", line)+fmt.Sprintf(format, args...))
}

// where names the current scope for messages.
func (p *parser) where() string {
	if len(p.path) == 0 {
		return "the top level"
	}
	return p.path[len(p.path)-1]
}

// scope reads the scope opened on the current line, calling item for every line inside it; item
// must consume at least the current line (a nested scope entirely).
func (p *parser) scope(item func()) {
	open, off := p.line, p.start
	name := string(p.key)
	if len(p.path) >= maxDepth {
		p.failf("scopes nested deeper than %d", maxDepth)
	}
	p.path = append(p.path, name)
	p.next()
	for p.kind != lClose {
		if p.kind == lEOF {
			p.failAt(open, off, "%s scope opened here is not closed (unbalanced braces)", name)
		}
		item()
	}
	p.path = p.path[:len(p.path)-1]
	p.next()
}

// unknown skips the current line: an unknown scope is recorded and skipped whole, an unknown
// key or data line is reported.
func (p *parser) unknown() {
	switch p.kind {
	case lOpen:
		open, off := p.line, p.start
		full := strings.Join(append(p.path, string(p.key)), "/")
		if p.nUnknown < maxUnknown {
			p.f.Unknown = append(p.f.Unknown, UnknownScope{Path: full, Line: open})
		}
		p.nUnknown++
		p.warnf(open, "unknown scope %s skipped", full)
		depth := 1
		for depth > 0 {
			p.next()
			switch p.kind {
			case lEOF:
				p.failAt(open, off, "%s scope opened here is not closed (unbalanced braces)", full)
			case lOpen:
				depth++
			case lClose:
				depth--
			}
		}
		p.next()
	case lKey:
		p.warnf(p.line, "unknown key %s in %s ignored", clip(p.key), p.where())
		p.next()
	case lData:
		p.warnf(p.line, "unexpected data %s in %s ignored", clip(p.val), p.where())
		p.next()
	default:
		p.next()
	}
}

func clip(b []byte) string {
	if len(b) > 40 {
		return strconv.Quote(string(b[:40])) + "…"
	}
	return strconv.Quote(string(b))
}

// ---- values ----

// unquote strips one pair of double quotes.
func unquote(b []byte) []byte {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		return b[1 : len(b)-1]
	}
	return b
}

func (p *parser) str(b []byte) string {
	if len(b) > 0 && b[0] == '"' && (len(b) < 2 || b[len(b)-1] != '"') {
		p.failf("unterminated string %s", clip(b))
	}
	return string(unquote(b))
}

func (p *parser) integer(b []byte, what string) int {
	b = unquote(b)
	v, ok := parseInt(b)
	if !ok {
		p.failf("%s: %s is not an integer", what, clip(b))
	}
	return v
}

func (p *parser) count(b []byte, what string) int {
	v := p.integer(b, what)
	if v < 0 {
		p.failf("%s: negative count %d", what, v)
	}
	return v
}

func (p *parser) number(b []byte, what string) float64 {
	b = trim(unquote(b))
	v, ok := parseFloat(b)
	if !ok {
		p.failf("%s: %s is not a number", what, clip(b))
	}
	return v
}

func (p *parser) boolean(b []byte, what string) bool {
	s := string(unquote(b))
	switch {
	case strings.EqualFold(s, "true") || s == "1":
		return true
	case strings.EqualFold(s, "false") || s == "0":
		return false
	}
	p.failf("%s: %s is neither True nor False", what, clip(b))
	return false
}

// floats parses exactly n ':'-separated numbers into dst.
func (p *parser) floats(b []byte, dst []float32, what string) {
	b = unquote(b)
	n := len(dst)
	for i := 0; i < n; i++ {
		var part []byte
		if i < n-1 {
			c := bytes.IndexByte(b, ':')
			if c < 0 {
				p.failf("%s: want %d ':'-separated values, got %d", what, n, i+1)
			}
			part, b = b[:c], b[c+1:]
		} else {
			if bytes.IndexByte(b, ':') >= 0 {
				p.failf("%s: want %d ':'-separated values, got more", what, n)
			}
			part = b
		}
		v, ok := parseFloat32(trim(part))
		if !ok {
			p.failf("%s: value %d, %s, is not a number", what, i+1, clip(part))
		}
		dst[i] = v
	}
}

// list parses any number of ':'-separated numbers, appending them to the scratch slice.
func (p *parser) list(b []byte, what string) []float32 {
	b = unquote(b)
	p.nums = p.nums[:0]
	for len(p.nums) < maxValues {
		c := bytes.IndexByte(b, ':')
		part := b
		if c >= 0 {
			part = b[:c]
		}
		v, ok := parseFloat32(trim(part))
		if !ok {
			p.failf("%s: %s is not a number", what, clip(part))
		}
		p.nums = append(p.nums, v)
		if c < 0 {
			return p.nums
		}
		b = b[c+1:]
	}
	p.failf("%s: more than %d values on one line", what, maxValues)
	return nil
}

// parseInt parses a decimal integer within ±2^31; a fraction of zeros ("12.0") is accepted.
func parseInt(b []byte) (int, bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, i = b[0] == '-', 1
	}
	v, digits := 0, 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		v = v*10 + int(b[i]-'0')
		digits++
		if v > math.MaxInt32 {
			return 0, false
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && b[i] == '0'; i++ {
		}
	}
	if i != len(b) {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// maxNumberLen bounds the length of a number parseFloat32 reads; longer ones are refused.
const maxNumberLen = 64

// parseFloat32 parses b as strconv.ParseFloat(b, 32) does, bit for bit, except that it refuses
// what is not an .elem number: strconv's Go-syntax extensions (underscores, hex floats), Inf and
// NaN, values out of float32's range, and anything longer than maxNumberLen bytes. Plain decimals
// take textnum's exact fast path; the rest go to strconv.
func parseFloat32(b []byte) (float32, bool) {
	if len(b) == 0 || len(b) > maxNumberLen {
		return 0, false
	}
	if f, n, ok := textnum.ScanFloat32(b); ok && n == len(b) {
		return f, true
	}
	return slowFloat32(b)
}

func slowFloat32(b []byte) (float32, bool) {
	for _, c := range b {
		if c == '_' || c == 'x' || c == 'X' || c == 'p' || c == 'P' {
			return 0, false // strconv's Go-syntax extensions are not .elem numbers
		}
	}
	v, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), 32)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return float32(v), true
}

// parseFloat parses a float64 (for scalar settings such as AnimationTime).
func parseFloat(b []byte) (float64, bool) {
	for _, c := range b {
		if c == '_' || c == 'x' || c == 'X' || c == 'p' || c == 'P' {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}
