package mdl

import (
	"bytes"
	"math"
	"strconv"
	"unsafe"

	"github.com/modelfs/modelfs/internal/textnum"
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

// parseFloat32 parses b as strconv.ParseFloat(b, 32) would, bit for bit, with the departures of
// a C reader that MDL files expect: the MSVC spellings 1.#INF, -1.#IND and 1.#QNAN are accepted,
// out-of-range values saturate to ±Inf instead of failing, underscores are refused even where
// strconv takes them (after a base prefix), and so is a token longer than maxNumberLen bytes.
// Plain decimals take textnum's exact fast path; the rest go to strconv.
func parseFloat32(b []byte) (float32, bool) {
	if len(b) == 0 || len(b) > maxNumberLen {
		return 0, false
	}
	if f, n, ok := textnum.ScanFloat32(b); ok && n == len(b) {
		return f, true
	}
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
