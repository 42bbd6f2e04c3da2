package dds_test

import (
	"fmt"
	"image"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/fixtures"
	"github.com/modelfs/modelfs/translate/texture/dds"
	"github.com/modelfs/modelfs/translate/texture/internal/testkit/texfix"
)

// TestAgainstPillow decodes random blocks of every compressed format, and every DDS file of
// the corpus, with this package and with Pillow (Debian's python3-pil), an independent
// decoder, and requires a mean absolute difference of at most 1 per channel.
func TestAgainstPillow(t *testing.T) {
	py := texfix.Pillow(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	const w, h = 64, 64
	random := func(blockBytes int) []byte {
		b := make([]byte, (w/4)*(h/4)*blockBytes)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	bc7 := random(16)
	for i := 0; i < len(bc7); i += 16 {
		bc7[i] |= 1 << (i / 16 % 8) // every mode in turn; no reserved mode, which Pillow decodes otherwise
	}
	// chans: how many channels (R, G, B, A from the first) to compare. Pillow leaves BC5's
	// blue 0 where this package puts the normal's Z.
	files := []struct {
		name  string
		data  []byte
		chans []int
	}{
		{"bc1.dds", withPixels(fixtures.DDSHeader("DXT1", w, h, 1, false), random(8)), []int{0, 1, 2, 3}},
		{"bc2.dds", withPixels(fixtures.DDSHeader("DXT3", w, h, 1, false), random(16)), []int{0, 1, 2, 3}},
		{"bc3.dds", withPixels(fixtures.DDSHeader("DXT5", w, h, 1, false), random(16)), []int{0, 1, 2, 3}},
		{"bc4.dds", withPixels(fixtures.DDSHeader("ATI1", w, h, 1, false), random(8)), []int{0, 1, 2, 3}},
		{"bc5.dds", withPixels(fixtures.DDSHeader("ATI2", w, h, 1, false), random(16)), []int{0, 1, 3}},
		{"bc7.dds", withPixels(dx10(98, w, h, false), bc7), []int{0, 1, 2, 3}},
	}
	var paths []string
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	for _, p := range corpusDDS(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		chans := []int{0, 1, 2, 3}
		if h, err := dds.DecodeHeader(p, data); err == nil && h.Kind == dds.BC5 {
			chans = []int{0, 1, 3}
		}
		files = append(files, struct {
			name  string
			data  []byte
			chans []int
		}{filepath.Base(p), data, chans})
		paths = append(paths, p)
	}
	refs := texfix.PillowDecode(t, py, paths)
	for i, f := range files {
		if refs[i].Img == nil {
			t.Errorf("%s: Pillow cannot read it: %s", f.name, refs[i].Err)
			continue
		}
		img, err := dds.Decode(f.name, f.data)
		if err != nil {
			t.Errorf("%s: %v", f.name, err)
			continue
		}
		mean, most := compare(img.(*image.NRGBA), refs[i].Img, f.chans)
		t.Logf("%-12s Pillow %-4s mean absolute difference %s, largest %d", f.name, refs[i].Mode, mean, most)
		for c, m := range mean {
			if m > 1 {
				t.Errorf("%s: channel %d differs from Pillow by %.2f on average", f.name, f.chans[c], m)
			}
		}
	}
}

type means []float64

func (m means) String() string {
	s := ""
	for _, v := range m {
		s += fmt.Sprintf("%.3f ", v)
	}
	return s
}

// compare returns the mean absolute difference of each channel of chans, and the largest.
func compare(a, b *image.NRGBA, chans []int) (means, int) {
	if a.Rect != b.Rect {
		return means{999}, 999
	}
	m := make(means, len(chans))
	most := 0
	for p := 0; p < len(a.Pix); p += 4 {
		for i, c := range chans {
			d := int(a.Pix[p+c]) - int(b.Pix[p+c])
			d = max(d, -d)
			m[i] += float64(d)
			most = max(most, d)
		}
	}
	for i := range m {
		m[i] /= float64(len(a.Pix) / 4)
	}
	return m, most
}
