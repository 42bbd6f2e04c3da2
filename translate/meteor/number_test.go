package meteor

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelfs/modelfs/internal/textnum"
	"github.com/modelfs/modelfs/internal/textnum/textnumtest"
)

// checkScan checks the scanners that read a number at the start of the data (the conversion
// itself is textnum's and tested there): they may decline, but what they read must be the whole
// word and what textnum.ParseFloat32, textnum.ParseFloat64 and atoi make of it.
func checkScan(t *testing.T, word string) {
	t.Helper()
	if len(word) == 0 || strings.ContainsFunc(word, func(r rune) bool { return r < utf8.RuneSelf && class[r]&clStop != 0 }) {
		return // not one bare word
	}
	for _, rest := range []string{"", " 1", "\n", "{", "#", "\"", "x", "5", "."} {
		d := []byte(word + rest)
		// The bare word at the start of d runs to the first stop byte.
		k := 0
		for k < len(d) && class[d[k]]&clStop == 0 {
			k++
		}
		w := string(d[:k])
		if f, n, ok := scanFloat32(d); ok {
			want, wok := textnum.ParseFloat32(w)
			if n != k || !wok || math.Float32bits(f) != math.Float32bits(want) {
				t.Errorf("scanFloat32(%q) = %v, %d; textnum.ParseFloat32(%q) = %v, %v", d, f, n, w, want, wok)
			}
		}
		if f, n, ok := scanFloat64(d); ok {
			want, wok := textnum.ParseFloat64(w)
			if n != k || !wok || math.Float64bits(f) != math.Float64bits(want) {
				t.Errorf("scanFloat64(%q) = %v, %d; textnum.ParseFloat64(%q) = %v, %v", d, f, n, w, want, wok)
			}
		}
		if v, n, ok := scanUint(d); ok {
			want, wok := atoi(w)
			if n != k || !wok || v != want {
				t.Errorf("scanUint(%q) = %v, %d; atoi(%q) = %v, %v", d, v, n, w, want, wok)
			}
		}
	}
}

func TestNumberEdgeCases(t *testing.T) {
	for _, s := range []string{
		"", "+", "-", ".", "+.", "-.", "e", "e5", ".e5", "1e", "1e+", "1e-", "1.2.3", "1..2", "--1", "+-1",
		"0", "-0", "+0", "0.0", "-0.000", "00000", "000.000", ".0", "0.", "-0e5", "0e9999", "0e99999", "-0e-9999",
		"1", "-1", "+1", "1.", ".5", "-.5", "+.5e1", "5.e-1", "1.000", "0.418", "2.87744", "-0.99344", "25.20086",
		"0.83333", "0.16667", "1E+2", "1e-05", "1.5e0005", "1e22", "1e23", "1e-22", "1e-23", "1e10", "1e11", "1e-10",
		"1e-11", "123456789e22", "123456789e-22", "16777215", "16777216", "16777217", "16777215e10", "16777215e-10",
		"9007199254740991", "9007199254740992", "9007199254740993", "9007199254740991e22", "9007199254740991e-22",
		"1234567890123456789", "12345678901234567890", "1.234567890123456789", "0.00000000000000000001234567890123456789",
		"99999999999999999999", "3.4028235e38", "3.4028236e38", "-3.4028235e38", "1.7976931348623157e308",
		"1.7976931348623159e308", "4.9e-324", "2.4e-324", "1e-400", "1.17549435e-38", "1.4e-45", "7e-46", "1e39",
		"0.1", "0.2", "0.3", "0.7", "0.1e1", "100e-2", "1_000", "1_0.5", "0x10", "0x1p-2", "0X1P+2", "inf", "-Inf",
		"+INF", "infinity", "-Infinity", "nan", "NaN", "-nan", "1.5f", "1,5", " 1", "1 ", "1e+5x", "١", "1\x00",
		"0.999999999999999999999", "8.589973e9", "1e4294967296", "1e-4294967296", "4.4501477170144023e-308",
		"2.2250738585072011e-308", "2.2250738585072012e-308", "5e-324", "1.00000017881393432617187499",
		"1.000000178813934326171875", "1.00000017881393432617187501", "0.000000000000000000000000000000000000000001",
		strings.Repeat("0", maxTokenLen) + "1", strings.Repeat("0", maxTokenLen-1) + "1", "1e+0005", "1e00001", "1e-0000", "0123", "-0", "+7", "999999999", "1000000000", "2147483647", "2147483648", "-2147483648",
	} {
		checkScan(t, s)
	}
}

// TestNumberRandom checks the scanners on random number strings.
func TestNumberRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for range 200000 {
		checkScan(t, textnumtest.Decimal(r))
		if t.Failed() {
			return
		}
	}
}

func FuzzNumber(f *testing.F) {
	for _, s := range []string{"0", "-0.000", "2.87744", "1e22", "16777217", "9007199254740993", "0x1p-2", "inf", "1_0", ".5", "5."} {
		f.Add(s)
	}
	f.Fuzz(checkScan)
}
