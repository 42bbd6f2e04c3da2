package elem

import "github.com/modelfs/modelfs/internal/textnum"

// Fast paths for the long lists (positions, normals, UVs, faces, blend weights, keys): a list
// line is read in one pass straight from the input. A line the fast path does not recognise is
// left unconsumed for the general reader, which also produces the error messages.

// delim marks the bytes that end a number on a list line.
var delim = [256]bool{':': true, ',': true, '"': true, ' ': true, '\t': true, '\r': true, '\n': true}

// number parses the number starting at data[i], returning it and the index after it. Plain
// decimals are converted in the same pass by textnum's exact fast path (as parseFloat32 converts
// them); anything else is delimited and handed to parseFloat32.
func number(data []byte, i int) (float32, int, bool) {
	f, n, ok := textnum.ScanFloat32(data[i:])
	j := i + n
	if !ok || j < len(data) && !delim[data[j]] || n > maxNumberLen && !longPlain(data[i:j]) {
		return slowNumber(data, i)
	}
	return f, j, true
}

// longPlain reports whether a decimal longer than parseFloat32 takes is one that number has always
// read anyway: one without an exponent, with at most 15 significant digits and 22 after the point
// (leading zeros are what make such a number long). Keeping that quirk keeps the list reader's
// verdict on every line unchanged.
func longPlain(b []byte) bool {
	sig, frac, point := 0, 0, false
	for _, c := range b {
		switch {
		case c == 'e' || c == 'E':
			return false
		case c == '.':
			point = true
		case c >= '0' && c <= '9':
			if sig > 0 || c != '0' {
				sig++
			}
			if point {
				frac++
			}
		}
	}
	return sig <= 15 && frac <= 22
}

func slowNumber(data []byte, i int) (float32, int, bool) {
	j := i
	for j < len(data) && !delim[data[j]] {
		j++
	}
	v, ok := parseFloat32(data[i:j])
	return v, j, ok
}

// lineStart skips the blanks that start a line (and an opening quote when quoted is true).
func lineStart(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t') {
		i++
	}
	return i
}

// lineEnd checks that only blanks remain on the line at i and returns the start of the next one.
func lineEnd(data []byte, i int) (int, bool) {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	if i == len(data) {
		return i, true
	}
	if data[i] != '\n' {
		return 0, false
	}
	return i + 1, true
}

// fastOpen starts reading the next line: where its content starts, after the indent and an
// opening quote if there is one.
func (p *parser) fastOpen() (i int, quoted bool) {
	i = lineStart(p.data, p.pos)
	quoted = i < len(p.data) && p.data[i] == '"'
	if quoted {
		i++
	}
	return i, quoted
}

// fastClose ends a line whose content stops at i: the closing quote if it opened with one,
// then only blanks. It moves past the line and reports true, or false if the line is not done.
func (p *parser) fastClose(i int, quoted bool) bool {
	data := p.data
	if quoted {
		if i >= len(data) || data[i] != '"' {
			return false
		}
		i++
	}
	next, ok := lineEnd(data, i)
	if !ok || next-p.pos > maxLine {
		return false
	}
	p.pos = next
	p.lineNo++
	return true
}

// fastFloats reads the next line as exactly len(dst) ':'-separated numbers, optionally quoted.
func (p *parser) fastFloats(dst []float32) bool {
	data := p.data
	i, quoted := p.fastOpen()
	for k := range dst {
		if k > 0 {
			if i >= len(data) || data[i] != ':' {
				return false
			}
			i++
		}
		v, j, ok := number(data, i)
		if !ok {
			return false
		}
		dst[k], i = v, j
	}
	return p.fastClose(i, quoted)
}

// fastFace reads the next line as "3,i:j:k", optionally quoted.
func (p *parser) fastFace(f *[3]uint32) bool {
	data := p.data
	i, quoted := p.fastOpen()
	if i+2 > len(data) || data[i] != '3' || data[i+1] != ',' {
		return false
	}
	i += 2
	for k := 0; k < 3; k++ {
		if k > 0 {
			if i >= len(data) || data[i] != ':' {
				return false
			}
			i++
		}
		v, j, ok := uintAt(data, i)
		if !ok {
			return false
		}
		f[k], i = v, j
	}
	return p.fastClose(i, quoted)
}

// fastBlend reads the next line as "vertex,weight", bare or quoted.
func (p *parser) fastBlend() (uint32, float32, bool) {
	data := p.data
	i, quoted := p.fastOpen()
	v, i, ok := uintAt(data, i)
	if !ok || i >= len(data) || data[i] != ',' {
		return 0, 0, false
	}
	w, i, ok := number(data, i+1)
	if !ok {
		return 0, 0, false
	}
	if !p.fastClose(i, quoted) {
		return 0, 0, false
	}
	return v, w, true
}

// uintAt parses up to 9 decimal digits at data[i].
func uintAt(data []byte, i int) (uint32, int, bool) {
	var v uint32
	j := i
	for j < len(data) && j-i < 9 && data[j] >= '0' && data[j] <= '9' {
		v = v*10 + uint32(data[j]-'0')
		j++
	}
	if j == i || j < len(data) && data[j] >= '0' && data[j] <= '9' {
		return 0, 0, false
	}
	return v, j, true
}
