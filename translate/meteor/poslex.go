package meteor

import (
	"bytes"
	"fmt"

	"github.com/modelfs/modelfs/translate/codec"
)

// The .pos reader has a tokenizer of its own: an action table is some 30 000 short tokens, and
// the general lexer's per-token cost (a call per blank run, tokens holding slices, so write
// barriers) was most of the parse. This one splits the text the same way (see lexer) but reads
// ahead a batch of tokens at a time in one tight loop, as offsets into the data.

// ptok is one token of a .pos: its text is data[start:end] (inside the quotes for a quoted
// string). It holds no pointers, so filling and copying tokens costs no write barriers.
type ptok struct {
	start, end int
	line       int
	quoted     bool
	first      bool // the first token on its line
}

// pcomment is one comment of a .pos: its text (without the '#' and trailing CRs) is
// data[start:end], on line line, and tok tokens come before it.
type pcomment struct {
	tok, start, end, line int
}

// posLexer reads the tokens of a .pos.
type posLexer struct {
	data []byte
	file string
	// The scanning state: position, line and whether a new line began since the last token.
	pos, line int
	newLine   bool
	// buf[i:n] are the tokens read ahead; base tokens came before buf[0].
	buf        [256]ptok
	i, n, base int
	// done is set when scanning has stopped: at the end of the data (err nil), or at a bad token
	// (err says why), which is reported when the parser reaches it.
	done bool
	err  error
	// comments[cc:] are the comments read but not yet looked at by lastComment.
	comments []pcomment
	cc       int
}

func (lx *posLexer) errorf(line int, format string, args ...any) error {
	return &codec.FormatError{Format: FormatPOS, File: lx.file, Offset: -1, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// eof is the error for data that ends where what was expected.
func (lx *posLexer) eof(what string) error {
	return lx.errorf(lx.line, "unexpected end of file, expected %s", what)
}

// fill reads the next batch of tokens into buf.
func (lx *posLexer) fill() {
	d := lx.data
	pos, line, newLine := lx.pos, lx.line, lx.newLine
	lx.base += lx.n
	lx.pruneComments()
	n := 0
	for n < len(lx.buf) {
		// Blanks and comments.
		for pos < len(d) {
			c := d[pos]
			if c == ' ' {
				pos = spaces(d, pos+1)
				continue
			}
			if c > ' ' {
				if c != '#' {
					break
				}
				start := pos + 1
				if k := bytes.IndexByte(d[start:], '\n'); k >= 0 {
					pos = start + k
				} else {
					pos = len(d)
				}
				end := pos
				for end > start && d[end-1] == '\r' {
					end--
				}
				c := pcomment{tok: lx.base + n, start: start, end: end, line: line}
				if k := len(lx.comments) - 1; k >= lx.cc && lx.comments[k].tok == c.tok {
					lx.comments[k] = c // only the last comment before a token matters
				} else {
					lx.comments = append(lx.comments, c)
				}
				continue
			}
			if c == '\n' {
				line++
				newLine = true
			} else if class[c]&clSpace == 0 {
				break // a control byte, which starts a word
			}
			pos++
		}
		if pos >= len(d) {
			lx.done = true
			break
		}
		switch c := d[pos]; {
		case class[c]&clStop == 0:
			i := pos + 1
			for i < len(d) && class[d[i]]&clStop == 0 {
				i++
			}
			if i-pos > maxTokenLen {
				lx.fail(line, "token of %d bytes is longer than %d", i-pos, maxTokenLen)
				goto stop
			}
			lx.buf[n] = ptok{start: pos, end: i, line: line, first: newLine}
			pos = i
		case c != '"':
			// Punctuation: the stop bytes left after blanks, comments and quotes.
			lx.buf[n] = ptok{start: pos, end: pos + 1, line: line, first: newLine}
			pos++
		default:
			end := pos + 1
			for end < len(d) && d[end] != '"' && d[end] != '\n' {
				end++
			}
			switch {
			case end >= len(d) || d[end] != '"':
				lx.fail(line, "unterminated quoted string")
				goto stop
			case end-pos-1 > maxTokenLen:
				lx.fail(line, "token of %d bytes is longer than %d", end-pos-1, maxTokenLen)
				goto stop
			}
			lx.buf[n] = ptok{start: pos + 1, end: end, line: line, quoted: true, first: newLine}
			pos = end + 1
		}
		newLine = false
		n++
	}
stop:
	lx.pos, lx.line, lx.newLine = pos, line, newLine
	lx.i, lx.n = 0, n
}

// fail stops scanning at a bad token.
//
//go:noinline
func (lx *posLexer) fail(line int, format string, args ...any) {
	lx.done, lx.err = true, lx.errorf(line, format, args...)
}

// ready reports whether a token is at buf[i], reading the next batch when needed.
func (lx *posLexer) ready() bool {
	if lx.i == lx.n && !lx.done {
		lx.fill()
	}
	return lx.i < lx.n
}

// peek returns the next token without consuming it (valid until the next peek or next); ok is
// false at the end of the data.
func (lx *posLexer) peek() (*ptok, bool, error) {
	if !lx.ready() {
		return nil, false, lx.err
	}
	return &lx.buf[lx.i], true, nil
}

// next returns the next token; ok is false at the end of the data.
func (lx *posLexer) next() (ptok, bool, error) {
	if !lx.ready() {
		return ptok{}, false, lx.err
	}
	lx.i++
	return lx.buf[lx.i-1], true, nil
}

// need returns the next token, failing at the end of the data with what was expected.
func (lx *posLexer) need(what string) (ptok, error) {
	t, ok, err := lx.next()
	if err == nil && !ok {
		err = lx.eof(what)
	}
	return t, err
}

// text returns the text of t.
func (lx *posLexer) text(t *ptok) []byte { return lx.data[t.start:t.end] }

// is reports whether t equals word, ignoring ASCII case (never true for quoted strings).
func (lx *posLexer) is(t *ptok, word string) bool {
	return !t.quoted && equalFold(lx.data[t.start:t.end], word)
}

// isByte reports whether t is the one-byte bare word c, such as a brace.
func (lx *posLexer) isByte(t *ptok, c byte) bool {
	return !t.quoted && t.end-t.start == 1 && lx.data[t.start] == c
}

// isPunct reports whether t is a bare punctuation mark.
func (lx *posLexer) isPunct(t *ptok) bool {
	return !t.quoted && t.end-t.start == 1 && isPunct(lx.data[t.start])
}

// expect consumes a token that must equal word (ASCII case-insensitively).
func (lx *posLexer) expect(word string) error {
	t, ok, err := lx.next()
	if err != nil {
		return err
	}
	if !ok {
		return lx.errorf(lx.line, "unexpected end of file, expected %q", word)
	}
	if !lx.is(&t, word) {
		return lx.errorf(t.line, "expected %q, found %q", word, clip(lx.text(&t)))
	}
	return nil
}

// int reads one integer in [lo, hi].
func (lx *posLexer) int(what string, lo, hi int) (int, error) {
	t, err := lx.need(what)
	if err != nil {
		return 0, err
	}
	n, ok := atoi(lx.text(&t))
	if !ok {
		return 0, lx.errorf(t.line, "%s: %q is not an integer", what, clip(lx.text(&t)))
	}
	if n < lo || n > hi {
		return 0, lx.errorf(t.line, "%s %d out of range [%d, %d]", what, n, lo, hi)
	}
	return n, nil
}

// lastComment returns the last comment before token number tok among those not looked at yet,
// and marks them all looked at.
//
// The caller, ParsePOS, asks with the token after a pose number, and wants the comment only when
// it is on the line of the pose's keyword, two tokens back: so a comment before that keyword
// never matters (the keyword would be on a later line), which lets the comments stay few.
func (lx *posLexer) lastComment(tok int) (c pcomment, ok bool) {
	for lx.cc < len(lx.comments) && lx.comments[lx.cc].tok <= tok {
		c, ok = lx.comments[lx.cc], true
		lx.cc++
	}
	return c, ok
}

// pruneComments drops, before the next batch, the comments no later lastComment can want: those
// looked at, and those before the token before the batch (tokens before it have been read, so no
// later question concerns them).
func (lx *posLexer) pruneComments() {
	kept := lx.comments[:0]
	for _, c := range lx.comments[lx.cc:] {
		if c.tok >= lx.base-1 {
			kept = append(kept, c)
		}
	}
	lx.comments, lx.cc = kept, 0
}
