package translate_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/gltfvalidate"
	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/wc3"
	_ "github.com/modelfs/modelfs/translate/wc3/mdx" // the format the fixtures are written in
	"github.com/modelfs/modelfs/translate/wc3/wc3test"
)

// TestEmitterFixtures bakes the sample model's emitters with every flag and head-or-tail
// setting, and broken in every way a map maker's file may break them (no rows or columns,
// huge rates and life spans, NaN and infinite values, a track of 100,000 keys, a texture or
// material out of range): each model translates, the same bytes every time, the .glb passes
// the validator, and a broken emitter gets a warning naming it instead of failing the model.
func TestEmitterFixtures(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	cases := []struct {
		name string
		mod  func(m *wc3.Model)
		warn string // in some warning, when the case must give one
	}{
		{"squirting", func(m *wc3.Model) { m.ParticleEmitters2[0].Squirt = 1 }, ""},
		{"every flag", func(m *wc3.Model) {
			p := &m.ParticleEmitters2[0]
			p.Node.Flags |= 0x8000 | 0x10000 | 0x20000 | 0x40000 | 0x80000 | 0x100000 // unshaded … XY quad
		}, ""},
		{"head only", func(m *wc3.Model) { m.ParticleEmitters2[0].HeadOrTail = 0 }, ""},
		{"tail only", func(m *wc3.Model) { m.ParticleEmitters2[0].HeadOrTail = 1 }, ""},
		{"no rows or columns", func(m *wc3.Model) {
			m.ParticleEmitters2[0].Rows, m.ParticleEmitters2[0].Columns = 0, 0
			m.RibbonEmitters[0].Rows, m.RibbonEmitters[0].Columns = 0, 0
		}, ""},
		{"huge rate and life span", func(m *wc3.Model) {
			p := &m.ParticleEmitters2[0]
			p.EmissionRate, p.LifeSpan, p.EmissionRateTrack, p.Squirt = 1e30, 1e30, nil, 0
			r := &m.RibbonEmitters[0]
			r.EmissionRate, r.LifeSpan = math.MaxUint32, 1e30
		}, "Emitter2"},
		{"NaN", func(m *wc3.Model) {
			p := &m.ParticleEmitters2[0]
			p.Speed, p.Variation, p.Latitude, p.Gravity, p.Width, p.Length = nan, nan, nan, nan, nan, nan
			p.SpeedTrack, p.VariationTrack, p.LatitudeTrack, p.GravityTrack, p.WidthTrack, p.LengthTrack = nil, nil, nil, nil, nil, nil
			p.LifeSpan, p.TailLength, p.Time = nan, nan, nan
			p.SegmentScaling = [3]float32{nan, nan, nan}
			p.SegmentColor[0] = [3]float32{nan, nan, nan}
			r := &m.RibbonEmitters[0]
			r.HeightAbove, r.HeightBelow, r.Alpha, r.Gravity, r.LifeSpan = nan, nan, nan, nan, nan
			r.HeightAboveTrack, r.HeightBelowTrack, r.AlphaTrack = nil, nil, nil
		}, ""},
		{"infinite", func(m *wc3.Model) {
			p := &m.ParticleEmitters2[0]
			p.Speed, p.Gravity, p.Width, p.SpeedTrack, p.GravityTrack, p.WidthTrack = inf, -inf, inf, nil, nil, nil
			p.SegmentScaling = [3]float32{inf, 1, -inf}
			p.TailLength = inf
		}, ""},
		{"a track of 100,000 keys", func(m *wc3.Model) {
			m.ParticleEmitters2[0].EmissionRateTrack = wc3test.Track(wc3.Linear, -1, 1, 100000, 50)
		}, ""},
		{"texture and material out of range", func(m *wc3.Model) {
			m.ParticleEmitters2[0].TextureID = 99
			m.RibbonEmitters[0].MaterialID = 99
		}, "Emitter2"},
	}
	for f := range uint32(5) {
		cases = append(cases, struct {
			name string
			mod  func(m *wc3.Model)
			warn string
		}{"filter mode " + string(rune('0'+f)), func(m *wc3.Model) { m.ParticleEmitters2[0].FilterMode = f }, ""})
	}
	dir := t.TempDir()
	var glbs []string
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := wc3test.Sample()
			m.ParticleEmitters2[0].Squirt = 0 // a stream, unless the case says otherwise
			c.mod(m)
			data, err := wc3test.MDX(m)
			if err != nil {
				t.Fatal(err)
			}
			src := codec.Source{Name: "Fx.mdx", Data: data}
			glb, err := translate.Translate(src, translate.GLB, translate.EncodeOptions{})
			if err != nil {
				t.Fatalf("glb: %v", err)
			}
			again, err := translate.Translate(src, translate.GLB, translate.EncodeOptions{})
			if err != nil || !bytes.Equal(glb, again) {
				t.Fatalf("a second translation differs (%v)", err)
			}
			js, err := translate.Translate(src, translate.JSON, translate.EncodeOptions{})
			if err != nil {
				t.Fatalf("json: %v", err)
			}
			var doc struct {
				Warnings []string
				Extras   struct {
					Emitters []map[string]any
					Effects  []map[string]any
				}
			}
			if err := json.Unmarshal(js, &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Extras.Emitters) < 3 {
				t.Errorf("%d emitters in the .json", len(doc.Extras.Emitters))
			}
			if broken := c.name == "NaN" || c.name == "infinite"; c.warn == "" && !broken && len(doc.Extras.Effects) != 2 {
				t.Errorf("%d emitters baked, want the particles and the ribbon", len(doc.Extras.Effects))
			}
			if c.warn != "" && !strings.Contains(strings.Join(doc.Warnings, "\n"), c.warn) {
				t.Errorf("no warning names %q: %q", c.warn, doc.Warnings)
			}
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".glb")
			if err := os.WriteFile(p, glb, 0o644); err != nil {
				t.Fatal(err)
			}
			glbs = append(glbs, p)
		})
	}
	gltfvalidate.Check(t, glbs...)
}
