// Package textnum provides exact, fast parsing of decimal numbers in text model formats.
//
// Text model files hold many thousands of short decimals ("25.20086", "-0.99344", "1.000"), and
// strconv.ParseFloat spends most of its time on cases these never need. When the digits of a
// plain decimal fit a float64 mantissa exactly and its power of ten is exact too, one IEEE
// multiplication or division rounds correctly, which is the very result ParseFloat gives
// (Clinger's fast path, as strconv's own). Everything else goes to strconv, so ParseFloat32 and
// ParseFloat64 give ParseFloat's result for every input.
//
// ScanFloat32 and ScanFloat64 expose the fast path alone, reading a number at the start of the
// data, for callers that delimit their words themselves or whose format deliberately departs
// from strconv on what the fast path leaves over.
package textnum

import (
	"math"
	"strconv"
)

// pow10f64 holds the powers of ten that float64 represents exactly.
var pow10f64 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// pow10f32 holds the powers of ten that float32 represents exactly.
var pow10f32 = [...]float32{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10}

// ParseFloat64 returns strconv.ParseFloat(string(s), 64), bit for bit; ok is false exactly where
// ParseFloat returns an error.
func ParseFloat64[T string | []byte](s T) (f float64, ok bool) {
	if f, n, ok := ScanFloat64(s); ok && n == len(s) {
		return f, true
	}
	f, err := strconv.ParseFloat(string(s), 64)
	return f, err == nil
}

// ParseFloat32 returns strconv.ParseFloat(string(s), 32) as a float32, bit for bit; ok is false
// exactly where ParseFloat returns an error.
func ParseFloat32[T string | []byte](s T) (f float32, ok bool) {
	if f, n, ok := ScanFloat32(s); ok && n == len(s) {
		return f, true
	}
	f64, err := strconv.ParseFloat(string(s), 32)
	return float32(f64), err == nil
}

// ScanFloat64 reads the plain decimal [+-]digits[.digits][(e|E)[+-]digits] at the start of d
// and returns its value, as ParseFloat64 gives it, and its length n; ok is false when d does not
// start with that shape or the fast path cannot convert it exactly (what follows the number is
// left to the caller).
func ScanFloat64[T string | []byte](d T) (f float64, n int, ok bool) {
	man, exp, neg, n, ok := scanDecimal(d)
	if !ok {
		return 0, 0, false
	}
	f, ok = exact64(man, exp, neg)
	return f, n, ok
}

// ScanFloat32 is ScanFloat64 for float32: the value is the one ParseFloat32 gives.
func ScanFloat32[T string | []byte](d T) (f float32, n int, ok bool) {
	man, exp, neg, n, ok := scanDecimal(d)
	if !ok {
		return 0, 0, false
	}
	f, ok = exact32(man, exp, neg)
	return f, n, ok
}

// scanDecimal reads a plain decimal at the start of s: [+-]digits[.digits][(e|E)[+-]digits]
// with at least one mantissa digit, as its digits as an integer and a power of ten, and its
// length n. ok is false for any other shape, and for more than 19 significant digits or an
// exponent of more than 4 digits, which the fast path leaves to strconv.
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

// exact32 returns man·10^exp (negated for neg) as a float32 when it can be computed exactly
// rounded without strconv: with one float32 operation when both operands are exact float32s,
// else with one float64 operation whose result rounds to float32 correctly too, which holds
// unless it is a normal float32's rounding midpoint (the one float64 that may lie on the other
// side of a midpoint from the exact value) or outside float32's normal range.
func exact32(man uint64, exp int, neg bool) (float32, bool) {
	var f float32
	switch {
	case man == 0:
		// Zero whatever the exponent, keeping its sign.
	case man < 1<<24 && exp == 0:
		f = float32(man)
	case man < 1<<24 && exp > 0 && exp < len(pow10f32):
		f = float32(man) * pow10f32[exp]
	case man < 1<<24 && exp < 0 && -exp < len(pow10f32):
		f = float32(man) / pow10f32[-exp]
	default:
		d, ok := exact64(man, exp, false)
		// A float32 midpoint has a 1 and then zeros in the 29 low bits float32 drops.
		if !ok || d < 0x1p-126 || d > math.MaxFloat32 || math.Float64bits(d)&(1<<29-1) == 1<<28 {
			return 0, false
		}
		f = float32(d)
	}
	if neg {
		f = -f
	}
	return f, true
}
