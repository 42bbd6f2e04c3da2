package mpq

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/mpq/internal/crypt"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVectors decodes streams StormLib made (recorded from its compressors; each output checked
// against libstorm's own decoder), one per
// compression whose coder this package implements itself.
func TestVectors(t *testing.T) {
	abra := "abracadabra abracadabra abracadabra!"
	adpcmOut := "00008107600ec91370167817481505118d0a5a0370fb91f453ee28ea70e860e912ed81f2b3f9c800b208910f2514cc16"
	for _, c := range []struct {
		name, sector, want string
		imploded           bool
	}{
		{"Huffman type 0", "010008733192d31feb22eb0e19846e8a11ef8beadaacba9009", hex.EncodeToString([]byte(abra)), false},
		{"Huffman type 2", "010297d52eb8e365b5eb65b50bee7859ed7a59ed823b5e56bb31960b", hex.EncodeToString([]byte(abra)), false},
		{"ADPCM mono", "400004000081070e060c084c4e4349494e4e4a440806050d01090e0a0c", adpcmOut, false},
		{"Huffman and ADPCM mono", "41071972eeca75b2a07d42303b4fe61f37af974b05", adpcmOut, false},
		{"implode, binary", "0006820485d4013163f923e01f", hex.EncodeToString([]byte(strings.Repeat("A", 52) + "bc" + strings.Repeat("A", 6) + "bc")), true},
		{"implode, ASCII", "01040ac5f620932d0682676a3abce1693a780f423299a47a1d82adf969371d9082f3749d0a8c7cb4e2807f",
			hex.EncodeToString([]byte("the quick brown fox jumps over the lazy dog; the quick brown fox")), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := unhex(t, c.want)
			got, _, err := decompress(unhex(t, c.sector), len(want), c.imploded)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("got %x\nwant %x", got, want)
			}
		})
	}
}

// TestJenkins checks the HET name hash against values libstorm computes.
func TestJenkins(t *testing.T) {
	for name, want := range map[string]uint64{
		"":                      0xDEADBEF1DEADBEF2,
		"(listfile)":            0x3BC43BB0B2F3866A,
		"(attributes)":          0x6955E9E414C107A7,
		"war3map.j":             0x5252117E4BEDA79D,
		"Units\\HumanUnits.slk": 0x0BAB9EA06C4F09BE,
		"units/humanunits.SLK":  0x0BAB9EA06C4F09BE,
	} {
		if got := crypt.Jenkins64(name); got != want {
			t.Errorf("Jenkins64(%q) = %#x, want %#x", name, got, want)
		}
	}
}

// TestBadSectors feeds each decoder a sector that is wrong in the ways a hostile archive can
// make one: each is an error, never a panic or more output than the sector holds.
func TestBadSectors(t *testing.T) {
	for _, c := range []struct {
		name, sector string
		imploded     bool
	}{
		{"empty", "", false},
		{"unknown bit", "04010203", false},
		{"zlib, not zlib", "02deadbeef", false},
		{"bzip2, not bzip2", "10deadbeef", false},
		{"LZMA, too short", "12005d00", false},
		{"LZMA, corrupt stream", "12005d000001000010000000000000ffffffffffffffffffff", false},
		{"Huffman, tree type 9", "0109ffff", false},
		{"Huffman, stream ends", "0107", false},
		{"ADPCM, shorter than its header", "400003", false},
		{"ADPCM stereo, one sample", "80000400ff", false},
		{"sparse, no size", "2000", false},
		{"sparse, size beyond the sector", "20ffffffff8000", false},
		{"implode, unknown literal coding", "0206ffff", true},
		{"implode, dictionary of 7 bits", "0007ffff", true},
		{"implode, stream ends", "0006", true},
		{"implode, no end marker", "00060000", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := decompress(unhex(t, c.sector), 64, c.imploded)
			if err == nil {
				t.Errorf("decoded to %x; want an error", out)
			}
		})
	}
}
