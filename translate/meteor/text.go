package meteor

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/modelfs/modelfs/internal/textnum"
	"github.com/modelfs/modelfs/translate/codec"
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
}

func newLexer(data []byte, format, file string) *lexer {
	return &lexer{data: data, line: 1, format: format, file: file, newLine: true}
}

// errorf returns a FormatError at line.
func (lx *lexer) errorf(line int, format string, args ...any) error {
	if line <= 0 {
		line = lx.line
	}
	return &codec.FormatError{Format: lx.format, File: lx.file, Offset: -1, Line: line, Msg: fmt.Sprintf(format, args...)}
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

// skip consumes blanks and comments up to the next token, counting lines.
func (lx *lexer) skip() {
	lx.pos, lx.line, lx.newLine = lx.skipFrom(lx.pos, lx.line, lx.newLine)
}

// spaces returns the end of the run of spaces at d[pos:]. Runs of spaces (indentation, aligned
// columns) are most of the blank bytes of the game's files, so it takes them eight at a time.
func spaces(d []byte, pos int) int {
	for pos+8 <= len(d) {
		x := binary.LittleEndian.Uint64(d[pos:]) ^ 0x2020202020202020
		if x != 0 {
			return pos + bits.TrailingZeros64(x)>>3
		}
		pos += 8
	}
	return pos
}

// skipFrom returns the position of the next token at or after pos, and the line count and
// new-line flag there. Taking and returning the state as values keeps it in registers.
func (lx *lexer) skipFrom(pos, line int, newLine bool) (int, int, bool) {
	d := lx.data
	for pos < len(d) {
		c := d[pos]
		switch {
		case c == ' ':
			pos = spaces(d, pos+1)
		case c == '\n':
			line++
			newLine = true
			pos++
		case c == '#':
			if k := bytes.IndexByte(d[pos:], '\n'); k >= 0 {
				pos += k
			} else {
				pos = len(d)
			}
		case class[c]&clSpace != 0:
			pos++
		default:
			return pos, line, newLine
		}
	}
	return pos, line, newLine
}

// scan reads the next token into t, ignoring any peeked one; ok is false at the end of the data.
// It sets t field by field: assigning a whole token through a pointer is a typed copy with a
// write barrier.
func (lx *lexer) scan(t *token) (ok bool, err error) {
	d := lx.data
	pos, line, newLine := lx.pos, lx.line, lx.newLine
	if pos < len(d) && (d[pos] <= ' ' || d[pos] == '#') {
		pos, line, newLine = lx.skipFrom(pos, line, newLine)
	}
	lx.line = line
	t.line, t.first, t.quoted = line, newLine, false
	if pos >= len(d) {
		lx.pos, lx.newLine = pos, newLine
		t.text, t.first = nil, false
		return false, nil
	}
	lx.newLine = false
	c := d[pos]
	if class[c]&clStop == 0 {
		// A bare word, the common case.
		i := pos + 1
		for i < len(d) && class[d[i]]&clStop == 0 {
			i++
		}
		lx.pos = i
		t.text = d[pos:i]
		if i-pos > maxTokenLen {
			return false, lx.errorf(line, "token of %d bytes is longer than %d", i-pos, maxTokenLen)
		}
		return true, nil
	}
	if c != '"' {
		// Punctuation: the stop bytes left after blanks, comments and quotes.
		lx.pos = pos + 1
		t.text = d[pos : pos+1]
		return true, nil
	}
	start := pos + 1
	end := start
	for end < len(d) && d[end] != '"' && d[end] != '\n' {
		end++
	}
	if end >= len(d) || d[end] != '"' {
		lx.pos = pos
		t.text = nil
		return false, lx.errorf(line, "unterminated quoted string")
	}
	lx.pos = end + 1
	t.text, t.quoted = d[start:end], true
	if end-start > maxTokenLen {
		return false, lx.errorf(line, "token of %d bytes is longer than %d", end-start, maxTokenLen)
	}
	return true, nil
}

// next returns the next token; ok is false at the end of the data.
func (lx *lexer) next() (tok token, ok bool, err error) {
	if lx.peeked != nil {
		lx.peeked = nil
		return lx.pk, true, nil
	}
	ok, err = lx.scan(&tok)
	return tok, ok, err
}

// bare consumes the next token and returns its text when it is a bare word of at most
// maxTokenLen bytes, the common case that the number and keyword readers take without building
// a token. Otherwise (a peeked token, punctuation, a quoted string, an over-long word, the end of
// the data) it consumes only blanks and comments, which leaves next to find that token exactly
// as it would have, and ok is false.
func (lx *lexer) bare() (text []byte, ok bool) {
	if lx.peeked != nil {
		return nil, false
	}
	lx.skip()
	d, start := lx.data, lx.pos
	i := start
	for i < len(d) && class[d[i]]&clStop == 0 {
		i++
	}
	if i == start || i-start > maxTokenLen {
		return nil, false
	}
	lx.pos = i
	lx.newLine = false
	return d[start:i], true
}

// peek returns the next token without consuming it.
func (lx *lexer) peek() (token, bool, error) {
	if lx.peeked != nil {
		return *lx.peeked, true, nil
	}
	ok, err := lx.scan(&lx.pk)
	if ok && err == nil {
		lx.peeked = &lx.pk
	}
	return lx.pk, ok, err
}

// need returns the next token, failing at the end of the data with what was expected.
func (lx *lexer) need(what string) (tok token, err error) {
	if lx.peeked != nil {
		lx.peeked = nil
		return lx.pk, nil
	}
	ok, err := lx.scan(&tok)
	if err == nil && !ok {
		err = lx.errorf(lx.line, "unexpected end of file, expected %s", what)
	}
	return tok, err
}

// expect consumes a token that must equal word (ASCII case-insensitively).
func (lx *lexer) expect(word string) error {
	if text, ok := lx.bare(); ok {
		if !equalFold(text, word) {
			return lx.errorf(lx.line, "expected %q, found %q", word, clip(text))
		}
		return nil
	}
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
func (t *token) is(word string) bool {
	return !t.quoted && equalFold(t.text, word)
}

// equalFold reports whether b equals word, ignoring ASCII case.
func equalFold(b []byte, word string) bool {
	if len(b) != len(word) {
		return false
	}
	for i := 0; i < len(word); i++ {
		a, c := b[i], word[i]
		if a != c && lower(a) != lower(c) {
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

// word returns the next token's text and line for a reader of values: a bare word through the
// fast path, anything else through need.
func (lx *lexer) word(what string) ([]byte, int, error) {
	if text, ok := lx.bare(); ok {
		return text, lx.line, nil
	}
	tok, err := lx.need(what)
	return tok.text, tok.line, err
}

// start skips to the next token and returns its position, for the value readers' fast paths,
// which read a plain number straight from the data; ok is false when a token is peeked, and then
// the fast paths step aside.
func (lx *lexer) start() (int, bool) {
	if lx.peeked != nil {
		return 0, false
	}
	lx.skip()
	return lx.pos, true
}

// took records that a fast path consumed a bare word ending at end.
func (lx *lexer) took(end int) { lx.pos, lx.newLine = end, false }

// float reads one finite number.
func (lx *lexer) float(what string) (float64, error) {
	if pos, ok := lx.start(); ok {
		if f, n, ok := scanFloat64(lx.data[pos:]); ok {
			lx.took(pos + n)
			return f, nil
		}
	}
	text, line, err := lx.word(what)
	if err != nil {
		return 0, err
	}
	f, ok := textnum.ParseFloat64(text)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, lx.errorf(line, "%s: %q is not a finite number", what, clip(text))
	}
	return f, nil
}

// float32 reads one number that is finite as a float32.
func (lx *lexer) float32(what string) (float32, error) {
	if pos, ok := lx.start(); ok {
		if f, n, ok := scanFloat32(lx.data[pos:]); ok {
			lx.took(pos + n)
			return f, nil
		}
	}
	text, line, err := lx.word(what)
	if err != nil {
		return 0, err
	}
	f, ok := textnum.ParseFloat32(text)
	if !ok || math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return 0, lx.errorf(line, "%s: %q is not a finite number", what, clip(text))
	}
	return f, nil
}

// int reads one integer in [lo, hi].
func (lx *lexer) int(what string, lo, hi int) (int, error) {
	if pos, ok := lx.start(); ok {
		if n, k, ok := scanUint(lx.data[pos:]); ok && n >= lo && n <= hi {
			lx.took(pos + k)
			return n, nil
		}
	}
	text, line, err := lx.word(what)
	if err != nil {
		return 0, err
	}
	n, ok := atoi(text)
	if !ok {
		return 0, lx.errorf(line, "%s: %q is not an integer", what, clip(text))
	}
	if n < lo || n > hi {
		return 0, lx.errorf(line, "%s %d out of range [%d, %d]", what, n, lo, hi)
	}
	return n, nil
}

// atoi parses a decimal integer with an optional sign, refusing values beyond ±2^31.
func atoi[T string | []byte](b T) (int, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 10 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
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
