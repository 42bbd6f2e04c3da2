package meteor

import (
	"fmt"
	"math"
	"strconv"

	"github.com/modelfs/modelfs/translate"
)

// maxTokenLen caps the length of one token of a text format; longer runs are an error.
const maxTokenLen = 4096

// token is one word of a text file: a bare word, a quoted string (without its quotes), or one of
// the punctuation marks { } , =.
type token struct {
	text   []byte
	line   int
	quoted bool
	// first reports that the token is the first one on its line.
	first bool
}

// lexer splits a text file into tokens. '#' starts a comment that runs to the end of the line;
// CR, LF, tabs and spaces all separate tokens.
type lexer struct {
	data    []byte
	pos     int
	line    int
	format  string
	file    string
	newLine bool
	peeked  *token
	pk      token
	// comment, when set, receives each comment's text (without the '#') and its line.
	comment func(text []byte, line int)
}

func newLexer(data []byte, format, file string) *lexer {
	return &lexer{data: data, line: 1, format: format, file: file, newLine: true}
}

// errorf returns a FormatError at line.
func (lx *lexer) errorf(line int, format string, args ...any) error {
	if line <= 0 {
		line = lx.line
	}
	return &translate.FormatError{Format: lx.format, File: lx.file, Offset: -1, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Byte classes of the text formats.
const (
	clSpace = 1 << iota // separates tokens
	clPunct             // a token of its own: { } , =
	clStop              // ends a bare word: space, punctuation, '#' and '"'
)

var class = func() (t [256]uint8) {
	for _, c := range []byte(" \t\r\n\f\v\x00") {
		t[c] = clSpace | clStop
	}
	for _, c := range []byte("{},=") {
		t[c] = clPunct | clStop
	}
	t['#'], t['"'] = clStop, clStop
	return t
}()

func isPunct(c byte) bool { return class[c]&clPunct != 0 }

// next returns the next token; ok is false at the end of the data.
func (lx *lexer) next() (tok token, ok bool, err error) {
	if lx.peeked != nil {
		lx.peeked = nil
		return lx.pk, true, nil
	}
	d := lx.data
	for lx.pos < len(d) {
		c := d[lx.pos]
		switch {
		case c == '\n':
			lx.line++
			lx.newLine = true
			lx.pos++
		case class[c]&clSpace != 0:
			lx.pos++
		case c == '#':
			start := lx.pos + 1
			for lx.pos < len(d) && d[lx.pos] != '\n' {
				lx.pos++
			}
			if lx.comment != nil {
				end := lx.pos
				for end > start && d[end-1] == '\r' {
					end--
				}
				lx.comment(d[start:end], lx.line)
			}
		default:
			tok = token{line: lx.line, first: lx.newLine}
			lx.newLine = false
			switch {
			case isPunct(c):
				tok.text = d[lx.pos : lx.pos+1]
				lx.pos++
			case c == '"':
				start := lx.pos + 1
				end := start
				for end < len(d) && d[end] != '"' && d[end] != '\n' {
					end++
				}
				if end >= len(d) || d[end] != '"' {
					return tok, false, lx.errorf(tok.line, "unterminated quoted string")
				}
				tok.text, tok.quoted = d[start:end], true
				lx.pos = end + 1
			default:
				start, i := lx.pos, lx.pos
				for i < len(d) && class[d[i]]&clStop == 0 {
					i++
				}
				lx.pos = i
				tok.text = d[start:i]
			}
			if len(tok.text) > maxTokenLen {
				return tok, false, lx.errorf(tok.line, "token of %d bytes is longer than %d", len(tok.text), maxTokenLen)
			}
			return tok, true, nil
		}
	}
	return token{line: lx.line}, false, nil
}

// peek returns the next token without consuming it.
func (lx *lexer) peek() (token, bool, error) {
	if lx.peeked != nil {
		return *lx.peeked, true, nil
	}
	tok, ok, err := lx.next()
	if ok && err == nil {
		lx.pk = tok
		lx.peeked = &lx.pk
	}
	return tok, ok, err
}

// need returns the next token, failing at the end of the data with what was expected.
func (lx *lexer) need(what string) (token, error) {
	tok, ok, err := lx.next()
	if err != nil {
		return tok, err
	}
	if !ok {
		return tok, lx.errorf(lx.line, "unexpected end of file, expected %s", what)
	}
	return tok, nil
}

// expect consumes a token that must equal word (ASCII case-insensitively).
func (lx *lexer) expect(word string) error {
	tok, ok, err := lx.next()
	if err != nil {
		return err
	}
	if !ok {
		return lx.errorf(lx.line, "unexpected end of file, expected %q", word)
	}
	if !tok.is(word) {
		return lx.errorf(tok.line, "expected %q, found %q", word, clip(tok.text))
	}
	return nil
}

// is reports whether the token equals word, ignoring ASCII case (never true for quoted strings).
func (t token) is(word string) bool {
	if t.quoted || len(t.text) != len(word) {
		return false
	}
	for i := 0; i < len(word); i++ {
		a, b := t.text[i], word[i]
		if a != b && lower(a) != lower(b) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// clip shortens a token for an error message.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// float reads one finite number.
func (lx *lexer) float(what string) (float64, error) {
	tok, err := lx.need(what)
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(tok.text), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, lx.errorf(tok.line, "%s: %q is not a finite number", what, clip(tok.text))
	}
	return f, nil
}

// float32 reads one number that is finite as a float32.
func (lx *lexer) float32(what string) (float32, error) {
	tok, err := lx.need(what)
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(tok.text), 32)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, lx.errorf(tok.line, "%s: %q is not a finite number", what, clip(tok.text))
	}
	return float32(f), nil
}

// int reads one integer in [lo, hi].
func (lx *lexer) int(what string, lo, hi int) (int, error) {
	tok, err := lx.need(what)
	if err != nil {
		return 0, err
	}
	n, ok := atoi(tok.text)
	if !ok {
		return 0, lx.errorf(tok.line, "%s: %q is not an integer", what, clip(tok.text))
	}
	if n < lo || n > hi {
		return 0, lx.errorf(tok.line, "%s %d out of range [%d, %d]", what, n, lo, hi)
	}
	return n, nil
}

// atoiString is atoi for a string.
func atoiString(s string) (int, bool) {
	var buf [12]byte
	if len(s) > len(buf) {
		return 0, false
	}
	return atoi(buf[:copy(buf[:], s)])
}

// atoi parses a decimal integer with an optional sign, refusing values beyond ±2^31.
func atoi(b []byte) (int, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 10 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if n > math.MaxInt32 {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}
