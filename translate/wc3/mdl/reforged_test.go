package mdl

import (
	"reflect"
	"testing"

	"github.com/modelfs/modelfs/translate/wc3/mdx"
	"github.com/modelfs/modelfs/translate/wc3/wc3test"
)

// Every Reforged field survives MDL: its layers' emissive and fresnel fields (static and
// tracks), 1100's texture lists by slot, 1200's shadow intensity, bind poses, face effects and
// popcorn emitters. The MDX form of the model reads the same Reforged fields.
func TestReforgedRoundTrip(t *testing.T) {
	for _, v := range []uint32{900, 1000, 1100, 1200} {
		m := wc3test.Reforged(v)
		// What MDL does not express (see wc3test.MDL).
		for i := range m.Sequences {
			m.Sequences[i].SyncPoint = 0
		}
		m.Events = nil // MDX and MDL each drop something of Sample's empty events
		text, err := wc3test.MDL(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Read("r.mdl", text)
		if err != nil {
			t.Fatalf("%d: %v", v, err)
		}
		if len(got.Warnings) != 0 {
			t.Errorf("%d: warnings %q", v, got.Warnings)
		}
		bin, err := wc3test.MDX(m)
		if err != nil {
			t.Fatal(err)
		}
		fromMDX, err := mdx.Read("r.mdx", bin)
		if err != nil {
			t.Fatalf("%d: %v", v, err)
		}
		if !equalModels(m, got) {
			t.Errorf("version %d: Read(MDL(m)) != m", v)
			diffModels(t, m, got)
		}
		for i := range m.Materials {
			for j := range m.Materials[i].Layers {
				if a, b := fromMDX.Materials[i].Layers[j].Reforged, got.Materials[i].Layers[j].Reforged; !reflect.DeepEqual(a, b) {
					t.Errorf("version %d, material %d layer %d: MDX %+v, MDL %+v", v, i, j, a, b)
				}
			}
		}
		if !reflect.DeepEqual(fromMDX.BindPoses, got.BindPoses) || !reflect.DeepEqual(fromMDX.FaceEffects, got.FaceEffects) ||
			!reflect.DeepEqual(fromMDX.Popcorns, got.Popcorns) {
			t.Errorf("version %d: MDX and MDL differ in bind poses, face effects or popcorns", v)
		}
	}
}
