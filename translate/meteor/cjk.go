package meteor

import (
	"bytes"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/transform"
)

// decodeComments turns the raw pose comments of one file into UTF-8 and names the encoding of
// each ("" for plain ASCII) and of the file ("ascii", "big5", "gbk" or "big5+gbk").
//
// The format notes say Big5, and most comments are; but some real files hold comments in GBK code
// points (traditional characters converted for a mainland release), with the odd Big5 pair left
// over. So each comment is decoded with whichever of the two explains it with fewer undecodable
// pairs and rare characters (Big5 on a tie; in Big5 the less frequent characters, from lead byte
// 0xC6 on, count as rare: GBK text read as Big5 is full of them), each pair that one cannot decode is tried in the
// other, and what neither explains is kept as a \xNN escape.
func decodeComments(raws [][]byte) (out, encs []string, file string) {
	out, encs = make([]string, len(raws)), make([]string, len(raws))
	big5, gbk := encoding.Encoding(traditionalchinese.Big5), encoding.Encoding(simplifiedchinese.GBK)
	big5d, gbkd := &decoder{dec: big5.NewDecoder()}, &decoder{dec: gbk.NewDecoder()}
	usedBig5, usedGBK := false, false
	for i, r := range raws {
		if isASCII(r) {
			out[i] = string(r)
			continue
		}
		primary, secondary := big5, gbk
		encs[i] = "big5"
		text, odd := decodeOdd(big5d, r)
		if score := odd + rareBig5(r); score > 0 {
			if gtext, godd := decodeOdd(gbkd, r); godd < score {
				primary, secondary, text, odd = gbk, big5, gtext, godd
				encs[i] = "gbk"
			}
		}
		usedBig5 = usedBig5 || encs[i] == "big5"
		usedGBK = usedGBK || encs[i] == "gbk"
		if text != nil && !bytes.ContainsRune(text, utf8.RuneError) {
			out[i] = string(text)
		} else {
			out[i] = decodeMixed(r, primary, secondary)
		}
	}
	switch {
	case usedBig5 && usedGBK:
		file = "big5+gbk"
	case usedGBK:
		file = "gbk"
	case usedBig5:
		file = "big5"
	default:
		file = "ascii"
	}
	return out, encs, file
}

// rareBig5 counts the double-byte pairs of b whose Big5 lead byte is 0xC6 or above: symbols,
// kana and the less frequent characters.
func rareBig5(b []byte) int {
	n := 0
	for i := 0; i < len(b); i++ {
		if b[i] >= 0x80 {
			if b[i] >= 0xc6 {
				n++
			}
			i++
		}
	}
	return n
}

func isASCII[T string | []byte](b T) bool {
	for i := 0; i < len(b); i++ {
		if b[i] >= 0x80 {
			return false
		}
	}
	return true
}

// decodeOdd decodes b with d and counts the characters that are undecodable or outside the
// common ranges of Chinese text (ASCII, CJK punctuation, unified ideographs, full-width forms).
func decodeOdd(d *decoder, b []byte) ([]byte, int) {
	text, err := d.bytes(b)
	if err != nil {
		return nil, len(b)
	}
	s, n := text, 0
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		s = s[size:]
		switch {
		case r < 0x80, r >= 0x3000 && r <= 0x303f, r >= 0x4e00 && r <= 0x9fff, r >= 0xff00 && r <= 0xffef && r != utf8.RuneError:
		default:
			n++
		}
	}
	return text, n
}

// decoder decodes with one encoding into a buffer it reuses, sparing a decoder and a buffer per
// comment.
type decoder struct {
	dec *encoding.Decoder
	buf []byte
}

// bytes is dec.Bytes(b), with its result valid until the next call.
func (d *decoder) bytes(b []byte) ([]byte, error) {
	// Big5 and GBK decoders write at most 3 bytes per byte read (U+FFFD for a bad one).
	if n := 3*len(b) + 8; cap(d.buf) < n {
		d.buf = make([]byte, n)
	}
	d.dec.Reset()
	n, _, err := d.dec.Transform(d.buf[:cap(d.buf)], b, true)
	if err == transform.ErrShortDst {
		return d.dec.Bytes(b) // not expected; Bytes grows its buffer as needed
	}
	if err != nil {
		return nil, err
	}
	return d.buf[:n], nil
}

// decodeMixed decodes b with primary, falling back to secondary per double-byte pair and to
// \xNN escapes per byte.
func decodeMixed(b []byte, primary, secondary encoding.Encoding) string {
	pd, sd := primary.NewDecoder(), secondary.NewDecoder()
	out := make([]byte, 0, 2*len(b))
	pair := func(dec *encoding.Decoder, p []byte) ([]byte, bool) {
		dec.Reset()
		s, err := dec.Bytes(p)
		if err != nil || len(s) == 0 {
			return nil, false
		}
		r, size := utf8.DecodeRune(s)
		return s, r != utf8.RuneError && size == len(s)
	}
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 {
			out = append(out, c)
			i++
			continue
		}
		if i+1 < len(b) {
			if s, ok := pair(pd, b[i:i+2]); ok {
				out = append(out, s...)
				i += 2
				continue
			}
			if s, ok := pair(sd, b[i:i+2]); ok {
				out = append(out, s...)
				i += 2
				continue
			}
		}
		const hex = "0123456789abcdef"
		out = append(out, '\\', 'x', hex[c>>4], hex[c&15])
		i++
	}
	return string(out)
}
