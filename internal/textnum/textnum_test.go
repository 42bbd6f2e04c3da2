package textnum

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/textnum/textnumtest"
)

// check fails unless ParseFloat64 and ParseFloat32 give exactly what strconv.ParseFloat gives
// for s (the same bits, so signed zeros count) and the same verdict on errors, for s as a string
// and as bytes, and unless the scanners read the numbers they take at the start of s followed by
// other bytes as ParseFloat reads them alone.
func check(t *testing.T, s string) {
	t.Helper()
	want64, err64 := strconv.ParseFloat(s, 64)
	got64, ok64 := ParseFloat64(s)
	if ok64 != (err64 == nil) || (ok64 && math.Float64bits(got64) != math.Float64bits(want64)) {
		t.Errorf("ParseFloat64(%q) = %v, %v; strconv gives %v, %v", s, got64, ok64, want64, err64)
	}
	if got, ok := ParseFloat64([]byte(s)); math.Float64bits(got) != math.Float64bits(got64) || ok != ok64 {
		t.Errorf("ParseFloat64(%q) differs between string and []byte", s)
	}
	want32, err32 := strconv.ParseFloat(s, 32)
	got32, ok32 := ParseFloat32(s)
	if ok32 != (err32 == nil) || (ok32 && math.Float32bits(got32) != math.Float32bits(float32(want32))) {
		t.Errorf("ParseFloat32(%q) = %v, %v; strconv gives %v, %v", s, got32, ok32, want32, err32)
	}
	if got, ok := ParseFloat32([]byte(s)); math.Float32bits(got) != math.Float32bits(got32) || ok != ok32 {
		t.Errorf("ParseFloat32(%q) differs between string and []byte", s)
	}
	for _, rest := range []string{"", " 1", "\n", ":", "x", "5", ".", "e", "e1", "_"} {
		d := []byte(s + rest)
		if f, n, ok := ScanFloat32(d); ok {
			want, wok := ParseFloat32(d[:n])
			if n == 0 || !wok || math.Float32bits(f) != math.Float32bits(want) {
				t.Errorf("ScanFloat32(%q) = %v, %d; ParseFloat32(%q) = %v, %v", d, f, n, d[:n], want, wok)
			}
			if g, m, ok := ScanFloat32(string(d)); !ok || m != n || math.Float32bits(g) != math.Float32bits(f) {
				t.Errorf("ScanFloat32(%q) differs between string and []byte", d)
			}
		}
		if f, n, ok := ScanFloat64(d); ok {
			want, wok := ParseFloat64(d[:n])
			if n == 0 || !wok || math.Float64bits(f) != math.Float64bits(want) {
				t.Errorf("ScanFloat64(%q) = %v, %d; ParseFloat64(%q) = %v, %v", d, f, n, d[:n], want, wok)
			}
		}
	}
}

func TestEdgeCases(t *testing.T) {
	for _, s := range []string{
		"", "+", "-", ".", "+.", "-.", "e", "e5", ".e5", "1e", "1e+", "1e-", "1.2.3", "1..2", "--1", "+-1",
		"0", "-0", "+0", "0.0", "-0.000", "00000", "000.000", ".0", "0.", "-0e5", "0e9999", "0e99999", "-0e-9999",
		"1", "-1", "+1", "1.", ".5", "-.5", "+.5e1", "5.e-1", "1.000", "0.418", "2.87744", "-0.99344", "25.20086",
		"0.83333", "0.16667", "1E+2", "1e-05", "1.5e0005", "1e22", "1e23", "1e-22", "1e-23", "1e10", "1e11", "1e-10",
		"1e-11", "123456789e22", "123456789e-22", "16777215", "16777216", "16777217", "16777215e10", "16777215e-10",
		"16777217e0", "33554434", "3e10", "3e11", "-3e10", "0.123456789", "-77.08765410471244", "1.0000001", "0.30000001",
		"9007199254740991", "9007199254740992", "9007199254740993", "9007199254740991e22", "9007199254740991e-22",
		"1234567890123456789", "12345678901234567890", "1.234567890123456789", "0.00000000000000000001234567890123456789",
		"99999999999999999999", "3.4028235e38", "3.4028236e38", "-3.4028235e38", "3.40282356e38", "340282356779733661637539395458142568447",
		"1.7976931348623157e308", "1.7976931348623159e308", "4.9e-324", "2.4e-324", "1e-400", "1.17549435e-38",
		"1.1754943e-38", "1.1754942e-38", "1.4e-45", "7e-46", "1e39", "1e-45", "1e-38", "1e-39",
		"0.1", "0.2", "0.3", "0.7", "0.1e1", "100e-2", "1_000", "1_0.5", "0x10", "0x1p-2", "0X1P+2", "0x_1p0", "0x1_0p0",
		"inf", "-Inf", "+INF", "infinity", "-Infinity", "nan", "NaN", "-nan", "1.5f", "1,5", " 1", "1 ", "1e+5x", "١", "1\x00",
		"1.#INF", "-1.#IND", "1.#QNAN",
		"0.999999999999999999999", "8.589973e9", "1e4294967296", "1e-4294967296", "4.4501477170144023e-308",
		"2.2250738585072011e-308", "2.2250738585072012e-308", "5e-324", "1.00000017881393432617187499",
		"1.000000178813934326171875", "1.00000017881393432617187501", "0.000000000000000000000000000000000000000001",
		strings.Repeat("0", 600) + "1", strings.Repeat("0", 600) + "1.5", "0." + strings.Repeat("0", 600) + "1",
		strings.Repeat("1", 600), "1e+0005", "1e00001", "1e-0000", "1e9999", "1e-9999", "0123", "-0", "+7",
		"999999999", "1000000000", "2147483647", "2147483648", "-2147483648",
	} {
		check(t, s)
	}
}

// TestFastPath checks that the fast path takes the numbers text model files are made of.
func TestFastPath(t *testing.T) {
	for _, s := range []string{"0", "-0", "1.000", "25.20086", "-0.99344", "1e-05", "-1.5e-05", "240.000000",
		"0.123456789", "-77.08765410471244", "123456789012345", "0.000001", "+2.5", ".5", "7."} {
		if _, n, ok := ScanFloat32(s); !ok || n != len(s) {
			t.Errorf("ScanFloat32(%q) = _, %d, %v: not the fast path", s, n, ok)
		}
		if _, n, ok := ScanFloat64(s); !ok || n != len(s) {
			t.Errorf("ScanFloat64(%q) = _, %d, %v: not the fast path", s, n, ok)
		}
	}
}

// TestRandom compares against strconv on random number strings.
func TestRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for range 300000 {
		check(t, textnumtest.Decimal(r))
		if t.Failed() {
			return
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "-0.000", "2.87744", "1e22", "16777217", "3e10", "9007199254740993", "0x1p-2",
		"inf", "1_0", ".5", "5.", "0.123456789", "1e-45"} {
		f.Add(s)
	}
	f.Fuzz(check)
}
