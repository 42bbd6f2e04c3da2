package meteor

import "strconv"

// The text formats hold tens of thousands of short decimals ("25.20086", "-0.99344", "1.000");
// strconv.ParseFloat spends most of its time on cases these never need. The functions here
// take a plain decimal whose digits fit a float's mantissa exactly and whose power of ten is
// exact too: then one IEEE multiplication or division rounds correctly, which is the very
// result ParseFloat gives (Clinger's fast path, as strconv's own). Everything else goes to
// strconv, so the result is ParseFloat's for every input.

// pow10f64 holds the powers of ten that float64 represents exactly.
var pow10f64 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// pow10f32 holds the powers of ten that float32 represents exactly.
var pow10f32 = [...]float32{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10}

// scanDecimal reads a plain decimal at the start of s: [+-]digits[.digits][(e|E)[+-]digits]
// with at least one mantissa digit, as its digits as an integer and a power of ten, and its
// length n. ok is false for any other shape, and for more than 19 significant digits or an
// exponent of more than 4 digits, which the callers leave to strconv.
func scanDecimal[T string | []byte](s T) (man uint64, exp int, neg bool, n int, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && s[i]-'0' <= 9 {
		man = man*10 + uint64(s[i]-'0')
		i++
	}
	digits := i - start
	if i < len(s) && s[i] == '.' {
		i++
		frac := i
		for i < len(s) && s[i]-'0' <= 9 {
			man = man*10 + uint64(s[i]-'0')
			i++
		}
		exp = frac - i
		digits += i - frac
	}
	if digits == 0 {
		return 0, 0, false, 0, false
	}
	// man is right unless it took more than 19 digits after the leading zeros.
	if digits > 19 && significant(s[start:i]) > 19 {
		return 0, 0, false, 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		e, estart := 0, i
		for ; i < len(s) && s[i]-'0' <= 9; i++ {
			if i-estart == 4 {
				return 0, 0, false, 0, false
			}
			e = e*10 + int(s[i]-'0')
		}
		if i == estart {
			return 0, 0, false, 0, false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	return man, exp, neg, i, true
}

// significant counts the digits of a mantissa from its first non-zero one.
func significant[T string | []byte](m T) int {
	n, seen := 0, false
	for i := 0; i < len(m); i++ {
		if c := m[i]; c != '.' {
			seen = seen || c != '0'
			if seen {
				n++
			}
		}
	}
	return n
}

// exact64 returns man·10^exp (negated for neg) when one correctly rounded operation computes it.
func exact64(man uint64, exp int, neg bool) (float64, bool) {
	if man >= 1<<53 {
		return 0, false
	}
	f := 0.0
	switch {
	case man == 0:
		// Zero whatever the exponent, keeping its sign.
	case exp == 0:
		f = float64(man)
	case exp > 0 && exp < len(pow10f64):
		f = float64(man) * pow10f64[exp]
	case exp < 0 && -exp < len(pow10f64):
		f = float64(man) / pow10f64[-exp]
	default:
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

// exact32 is exact64 for float32.
func exact32(man uint64, exp int, neg bool) (float32, bool) {
	if man >= 1<<24 {
		return 0, false
	}
	var f float32
	switch {
	case man == 0:
	case exp == 0:
		f = float32(man)
	case exp > 0 && exp < len(pow10f32):
		f = float32(man) * pow10f32[exp]
	case exp < 0 && -exp < len(pow10f32):
		f = float32(man) / pow10f32[-exp]
	default:
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

// atof64 returns strconv.ParseFloat(string(s), 64); ok is false where ParseFloat gives an error.
func atof64[T string | []byte](s T) (float64, bool) {
	if man, exp, neg, n, ok := scanDecimal(s); ok && n == len(s) {
		if f, ok := exact64(man, exp, neg); ok {
			return f, true
		}
	}
	f, err := strconv.ParseFloat(string(s), 64)
	return f, err == nil
}

// atof32 returns strconv.ParseFloat(string(s), 32) as a float32; ok is false where ParseFloat
// gives an error.
func atof32[T string | []byte](s T) (float32, bool) {
	if man, exp, neg, n, ok := scanDecimal(s); ok && n == len(s) {
		if f, ok := exact32(man, exp, neg); ok {
			return f, true
		}
	}
	f, err := strconv.ParseFloat(string(s), 32)
	return float32(f), err == nil
}

// endsWord reports whether the bare word of the text formats at the start of d is n bytes: d[n]
// is a stop byte or the end, and n is no more than maxTokenLen.
func endsWord(d []byte, n int) bool {
	return n <= maxTokenLen && stopsAt(d, n)
}

// stopsAt reports whether a bare word ends at d[i]: it is a stop byte or the end.
func stopsAt(d []byte, i int) bool {
	return i == len(d) || class[d[i]]&clStop != 0
}

// scanFloat32 reads a whole bare word at the start of d that atof32 reads exactly without
// strconv, returning the value and the word's length; ok is false for anything else.
func scanFloat32(d []byte) (f float32, n int, ok bool) {
	man, exp, neg, n, ok := scanDecimal(d)
	if !ok || !endsWord(d, n) {
		return 0, 0, false
	}
	f, ok = exact32(man, exp, neg)
	return f, n, ok
}

// scanFloat64 is scanFloat32 for atof64.
func scanFloat64(d []byte) (f float64, n int, ok bool) {
	man, exp, neg, n, ok := scanDecimal(d)
	if !ok || !endsWord(d, n) {
		return 0, 0, false
	}
	f, ok = exact64(man, exp, neg)
	return f, n, ok
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
