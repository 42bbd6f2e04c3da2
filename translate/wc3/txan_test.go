package wc3

import (
	"math"
	"testing"

	"github.com/modelfs/modelfs/translate/scene"
)

// TestUVTransform checks that the glTF texture transform made from a texture animation maps
// coordinates as the game's shader (mdx-m3-viewer's) does: translate, rotate about the
// middle by the rotation's angle, scale about the middle by its X scale.
func TestUVTransform(t *testing.T) {
	theta := 0.6
	q := []float32{0, 0, float32(math.Sin(theta / 2)), float32(math.Cos(theta / 2))}
	m := &Model{
		Sequences: []Sequence{{Name: "Stand", Interval: [2]uint32{100, 200}}},
		TextureAnims: []TextureAnim{{
			Translation: &Track{Interp: Linear, GlobalSeq: -1, Width: 3, Frames: []int32{100, 200}, Values: []float32{0.25, -0.5, 0, 1, 1, 0}},
			Rotation:    &Track{Interp: DontInterp, GlobalSeq: -1, Width: 4, Frames: []int32{100}, Values: q},
			Scaling:     &Track{Interp: DontInterp, GlobalSeq: -1, Width: 3, Frames: []int32{100}, Values: []float32{2, 2, 2}},
		}},
	}
	b := &builder{m: m}
	sp, _ := b.defaultSpan()
	x := scene.Extras{}
	tr := b.uvTransform(&Layer{TextureAnimID: 0}, sp, x)
	if tr == nil || x["textureAnimation"] != int64(0) {
		t.Fatalf("transform %v, extras %v", tr, x)
	}
	game := func(u, v float64) (float64, float64) {
		u, v = u+0.25, v-0.5
		u, v = u-0.5, v-0.5
		c, s := math.Cos(theta), math.Sin(theta)
		u, v = c*u-s*v, s*u+c*v
		return 2*u + 0.5, 2*v + 0.5
	}
	gltf := func(u, v float64) (float64, float64) {
		// KHR_texture_transform: translation · rotation · scale, rotation matrix
		// [cos r, sin r; −sin r, cos r].
		u, v = u*float64(tr.Scale[0]), v*float64(tr.Scale[1])
		r := float64(tr.Rotation)
		c, s := math.Cos(r), math.Sin(r)
		u, v = c*u+s*v, -s*u+c*v
		return u + float64(tr.Offset[0]), v + float64(tr.Offset[1])
	}
	for _, p := range [][2]float64{{0, 0}, {1, 0}, {0.3, 0.7}, {1, 1}} {
		gu, gv := game(p[0], p[1])
		hu, hv := gltf(p[0], p[1])
		if math.Abs(gu-hu) > 1e-5 || math.Abs(gv-hv) > 1e-5 {
			t.Errorf("uv %v: game (%.5f, %.5f), glTF (%.5f, %.5f)", p, gu, gv, hu, hv)
		}
	}
	if b.uvTransform(&Layer{TextureAnimID: -1}, sp, x) != nil {
		t.Error("no texture animation: want no transform")
	}
}
