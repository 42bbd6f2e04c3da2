// Package textnumtest generates the number strings the tests of text-format number parsers
// compare against strconv.
package textnumtest

import (
	"math"
	"math/rand/v2"
	"strconv"
)

// Decimal returns a random number string: decimals in the shapes model exporters write,
// shortest representations of random float64 and float32 values, long digit runs with
// exponents, values at the limits of exact conversion and at float32 rounding midpoints, and
// noise over the characters numbers are made of.
func Decimal(r *rand.Rand) string {
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		return string(b)
	}
	var s string
	switch r.IntN(7) {
	case 0: // as the exporters write them
		s = strconv.FormatFloat(r.NormFloat64()*math.Pow(10, float64(r.IntN(8)-2)), 'f', r.IntN(9), 64)
	case 1: // shortest representations, all magnitudes
		s = strconv.FormatFloat(math.Float64frombits(r.Uint64()), 'g', -1, 64)
	case 2:
		s = strconv.FormatFloat(float64(math.Float32frombits(r.Uint32())), 'g', -1, 32)
	case 3: // digits, a dot and an exponent, anywhere
		s = digits(r.IntN(22)) + "." + digits(r.IntN(22))
		if r.IntN(2) == 0 {
			s = "-" + s
		}
		if r.IntN(2) == 0 {
			s += "e" + strconv.Itoa(r.IntN(80)-40)
		}
	case 4: // near the exactness limits
		m := r.Uint64N(1 << 25)
		switch r.IntN(3) {
		case 0:
			m = 1<<53 - r.Uint64N(1<<20)
		case 1: // float32 rounding midpoints and their neighbours
			m = (1<<24+r.Uint64N(1<<24))<<1 | 1
			m = m<<r.IntN(5) + r.Uint64N(3) - 1
		}
		s = strconv.FormatUint(m, 10) + "e" + strconv.Itoa(r.IntN(50)-25)
	case 5: // float32 midpoints written out in full (up to 17 digits)
		b := uint64(r.Uint32()&(1<<23-1)|1<<23)<<1 | 1
		s = strconv.FormatFloat(float64(b)*math.Pow(2, float64(r.IntN(40)-30)), 'g', -1, 64)
	default: // noise over the alphabet of numbers
		const alphabet = "0123456789.-+eE_xpin"
		b := make([]byte, 1+r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s = string(b)
	}
	return s
}
