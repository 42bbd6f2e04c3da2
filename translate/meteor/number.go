package meteor

import "github.com/modelfs/modelfs/internal/textnum"

// The text formats hold tens of thousands of short decimals, which textnum converts exactly
// (strconv.ParseFloat's result, bit for bit) mostly without strconv. The scanners here read a
// number straight from the data where it is a whole bare word of the text formats, and decline
// (ok false) anything else, which the callers then read as a word.

// endsWord reports whether the bare word of the text formats at the start of d is n bytes: d[n]
// is a stop byte or the end, and n is no more than maxTokenLen.
func endsWord(d []byte, n int) bool {
	return n <= maxTokenLen && stopsAt(d, n)
}

// stopsAt reports whether a bare word ends at d[i]: it is a stop byte or the end.
func stopsAt(d []byte, i int) bool {
	return i == len(d) || class[d[i]]&clStop != 0
}

// scanFloat32 reads a whole bare word at the start of d that textnum.ScanFloat32 takes, returning
// the value (textnum.ParseFloat32's for the word) and the word's length; ok is false for anything
// else.
func scanFloat32(d []byte) (f float32, n int, ok bool) {
	f, n, ok = textnum.ScanFloat32(d)
	if !ok || !endsWord(d, n) {
		return 0, 0, false
	}
	return f, n, true
}

// scanFloat64 is scanFloat32 for float64.
func scanFloat64(d []byte) (f float64, n int, ok bool) {
	f, n, ok = textnum.ScanFloat64(d)
	if !ok || !endsWord(d, n) {
		return 0, 0, false
	}
	return f, n, true
}

// scanUint reads a whole bare word of 1 to 9 digits at the start of d (which atoi reads the
// same), returning its value and length; ok is false for anything else.
func scanUint(d []byte) (v, n int, ok bool) {
	for n < len(d) && n < 10 && d[n] >= '0' && d[n] <= '9' {
		v = v*10 + int(d[n]-'0')
		n++
	}
	if n == 0 || n == 10 || !endsWord(d, n) {
		return 0, 0, false
	}
	return v, n, true
}
