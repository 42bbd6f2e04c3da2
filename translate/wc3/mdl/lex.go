package mdl

import (
	"bytes"
	"math"
	"strconv"
	"unsafe"
)

// tokKind is the class of a lexical token.
type tokKind uint8

const (
	tEOF    tokKind = iota
	tIdent          // keyword or bare word: [A-Za-z_][A-Za-z0-9_]*
	tNumber         // starts with [0-9.+-]
	tString         // "…" (text between the quotes)
	tLBrace         // {
	tRBrace         // }
	tColon          // :
	tOther          // any other printable ASCII character
	tBad            // a lexical error; lexer.bad says what
)

// maxNumberLen bounds the length of a number token; longer runs of digits are malformed.
const maxNumberLen = 256

// lexer splits MDL text into tokens without allocating. Commas are separators only and are
// skipped like white space; `//` starts a comment that runs to the end of the line.
type lexer struct {
	data []byte
	pos  int // next unread byte
	line int // line of pos

	kind       tokKind
	start, end int    // the token's bytes: data[start:end]
	tokLine    int    // the line the token starts on
	bad        string // set with kind tBad
}

func newLexer(data []byte) lexer {
	l := lexer{data: data, line: 1}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		l.pos = 3
	}
	return l
}

// text returns the current token's bytes (for a string, without the quotes).
func (l *lexer) text() []byte { return l.data[l.start:l.end] }

// Byte classes for the lexer's dispatch.
const (
	cBad    uint8 = iota // control or non-ASCII byte
	cSpace               // blank, tab, CR, comma, form feed, vertical tab
	cNL                  // line feed
	cSlash               // '/' (a comment when doubled)
	cNum                 // 0-9 . + -
	cIdent               // A-Z a-z _
	cQuote               // "
	cLBrace              // {
	cRBrace              // }
	cColon               // :
	cPunct               // other printable ASCII
)

var byteClass [256]uint8

// next advances to the next token. On a lexical error it sets kind to tOther and bad to a
// message; the parser turns that into a FormatError.
func (l *lexer) next() {
	data := l.data
	i := l.pos
	var cl uint8
	for ; i < len(data); i++ {
		cl = byteClass[data[i]]
		if cl == cSpace {
			continue
		}
		if cl == cNL {
			l.line++
			continue
		}
		if cl == cSlash && i+1 < len(data) && data[i+1] == '/' {
			j := bytes.IndexByte(data[i:], '\n')
			if j < 0 {
				i = len(data)
				break
			}
			i += j - 1 // the loop's i++ lands on the newline
			continue
		}
		break
	}
	l.tokLine = l.line
	l.start = i
	if i >= len(data) {
		l.kind = tEOF
		l.pos, l.end = i, i
		return
	}
	j := i + 1
	switch cl {
	case cNum:
		for j < len(data) && numChar[data[j]] && j-i <= maxToken {
			j++
		}
		l.kind = tNumber
	case cIdent:
		for j < len(data) && identChar[data[j]] && j-i <= maxToken {
			j++
		}
		l.kind = tIdent
	case cLBrace:
		l.kind = tLBrace
	case cRBrace:
		l.kind = tRBrace
	case cColon:
		l.kind = tColon
	case cQuote:
		q := bytes.IndexByte(data[i+1:], '"')
		if q < 0 || bytes.IndexByte(data[i+1:i+1+q], '\n') >= 0 {
			l.kind, l.end, l.pos = tBad, j, j
			l.bad = "unterminated string"
			return
		}
		l.kind, l.start, l.end, l.pos = tString, i+1, i+1+q, i+2+q
		return
	case cBad:
		l.kind, l.end, l.pos = tBad, j, j
		l.bad = "unexpected byte 0x" + strconv.FormatUint(uint64(data[i]), 16) + " (binary or non-ASCII text outside a string or comment)"
		return
	default:
		l.kind = tOther
	}
	if j-i > maxToken {
		l.kind, l.end, l.pos = tBad, j, j
		l.bad = "token longer than " + strconv.Itoa(maxToken) + " bytes"
		return
	}
	l.end, l.pos = j, j
}

// maxToken caps the length of a number or word, so that a huge run of digits is refused after
// a few kilobytes instead of being scanned to its end.
const maxToken = 4096

// peekKind returns the kind of the token after the current one without consuming anything.
func (l *lexer) peekKind() tokKind {
	c := *l
	c.next()
	return c.kind
}

var numChar, identChar [256]bool

func init() {
	for c := 0; c < 256; c++ {
		alnum := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		identChar[c] = alnum || c == '_'
		numChar[c] = alnum || c == '.' || c == '+' || c == '-' || c == '#' || c == '_'
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == ',' || c == '\f' || c == '\v':
			byteClass[c] = cSpace
		case c == '\n':
			byteClass[c] = cNL
		case c == '/':
			byteClass[c] = cSlash
		case c >= '0' && c <= '9' || c == '.' || c == '+' || c == '-':
			byteClass[c] = cNum
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_':
			byteClass[c] = cIdent
		case c == '"':
			byteClass[c] = cQuote
		case c == '{':
			byteClass[c] = cLBrace
		case c == '}':
			byteClass[c] = cRBrace
		case c == ':':
			byteClass[c] = cColon
		case c > ' ' && c < 0x7f:
			byteClass[c] = cPunct
		}
	}
}

// pow10f64 holds the powers of ten that float64 represents exactly.
var pow10f64 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat32 parses b as strconv.ParseFloat(b, 32) would, bit for bit. It also accepts the
// MSVC spellings 1.#INF, -1.#IND and 1.#QNAN.
//
// It keeps its own fast path rather than internal/textnum's because numbers are most of an
// MDL file and this one is specialised to the 15-digit float64 route. The integer and fraction
// digit loops are written out twice on purpose: a shared helper, even inlined, is slower here.
//
// Fast path (Clinger): a decimal with at most 15 significant digits and a power of ten up to
// 22 converts to the correctly rounded float64 with one exact operation. Rounding that to
// float32 is then correct too unless the float64 sits exactly on a float32 rounding midpoint
// (no float64 lies between the exact value and its nearest float64), which is checked; such
// rare cases and everything else go to strconv.
func parseFloat32(b []byte) (float32, bool) {
	if len(b) == 0 || len(b) > maxNumberLen {
		return 0, false
	}
	i := 0
	neg := false
	switch b[0] {
	case '-':
		neg = true
		i = 1
	case '+':
		i = 1
	}
	var mant uint64
	nd, exp := 0, 0
	digits := false
	for ; i < len(b); i++ {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		digits = true
		if nd > 0 || c != 0 {
			if nd >= 15 {
				goto slow
			}
			mant = mant*10 + uint64(c)
			nd++
		}
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b); i++ {
			c := b[i] - '0'
			if c > 9 {
				break
			}
			digits = true
			if nd > 0 || c != 0 {
				if nd >= 15 {
					goto slow
				}
				mant = mant*10 + uint64(c)
				nd++
			}
			exp--
		}
	}
	if !digits {
		goto slow
	}
	if i < len(b) {
		if b[i] != 'e' && b[i] != 'E' {
			goto slow
		}
		i++
		eneg := false
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			eneg = b[i] == '-'
			i++
		}
		if i == len(b) {
			goto slow
		}
		e := 0
		for ; i < len(b); i++ {
			c := b[i] - '0'
			if c > 9 || e > 1000 {
				goto slow
			}
			e = e*10 + int(c)
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if mant == 0 {
		if neg {
			return float32(math.Copysign(0, -1)), true
		}
		return 0, true
	}
	if exp < -22 || exp > 22 {
		goto slow
	}
	{
		f := float64(mant)
		if exp < 0 {
			f /= pow10f64[-exp]
		} else {
			f *= pow10f64[exp]
		}
		// Normal float32 range only, and not on a float32 midpoint (low 29 mantissa bits
		// 1 followed by zeros).
		if f < 0x1p-126 || f > math.MaxFloat32 || math.Float64bits(f)&(1<<29-1) == 1<<28 {
			goto slow
		}
		r := float32(f)
		if neg {
			r = -r
		}
		return r, true
	}
slow:
	if bytes.IndexByte(b, '#') >= 0 {
		return parseMSVCSpecial(b)
	}
	if bytes.IndexByte(b, '_') >= 0 {
		return 0, false // strconv accepts underscores only with a base prefix; MDL never has them
	}
	v, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), 32)
	if err != nil {
		// Out of range values saturate to ±Inf like a C reader; anything else is malformed.
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return float32(v), true
		}
		return 0, false
	}
	return float32(v), true
}

// parseMSVCSpecial handles 1.#INF, -1.#INF, 1.#IND, -1.#IND, 1.#QNAN and similar.
func parseMSVCSpecial(b []byte) (float32, bool) {
	neg := b[0] == '-'
	h := bytes.IndexByte(b, '#')
	rest := b[h+1:]
	switch {
	case bytes.HasPrefix(rest, []byte("INF")):
		if neg {
			return float32(math.Inf(-1)), true
		}
		return float32(math.Inf(1)), true
	case bytes.HasPrefix(rest, []byte("IND")), bytes.HasPrefix(rest, []byte("QNAN")), bytes.HasPrefix(rest, []byte("SNAN")):
		return float32(math.NaN()), true
	}
	return 0, false
}

// parseInt parses a decimal integer (optionally signed) into an int64 within [-2^31, 2^32).
// MDL writers sometimes print integer fields as floats ("150.000000"); a fraction of zeros
// is accepted.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > maxNumberLen {
		return 0, false
	}
	i := 0
	neg := false
	if b[0] == '-' || b[0] == '+' {
		neg = b[0] == '-'
		i = 1
	}
	if i >= len(b) {
		return 0, false
	}
	var v int64
	digits := 0
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			break
		}
		v = v*10 + int64(c-'0')
		digits++
		if v > 1<<32 {
			return 0, false
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(b) {
		if b[i] != '.' {
			return 0, false
		}
		for i++; i < len(b); i++ {
			if b[i] != '0' {
				return 0, false
			}
		}
	}
	if neg {
		v = -v
	}
	if v < math.MinInt32 || v > math.MaxUint32 {
		return 0, false
	}
	return v, true
}
