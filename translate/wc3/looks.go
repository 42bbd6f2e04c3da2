package wc3

import (
	"fmt"
	"math"

	"github.com/modelfs/modelfs/translate/scene"
)

// This file maps a material's layers to one glTF material, as the game blends them:
//
//   - the layer shown is the first whose alpha is above VisibleAlpha at the default frame;
//   - None is opaque, Transparent an alpha mask at TransparentCutoff, Blend blended;
//   - Additive and AddAlpha add light: the picture gets its alpha from its brightness
//     (scene.Look.Additive), so that black stays transparent;
//   - Modulate and Modulate2x darken what is behind: black with alpha from darkness;
//   - a team colour layer (replaceable 1) under a texture layer becomes one picture of the
//     texture over the player's colour, as the game draws the two; alone, the player's colour;
//   - a team glow layer (replaceable 2) with no file becomes a painted glow of that colour;
//   - an additive layer above the shown one becomes the material's emission;
//   - Unshaded becomes KHR_materials_unlit, TwoSided doubleSided.
//
// Player 1's colour (red) is the default look; every player's colour is a material variant.

// PlayerColor is one of the game's player colours.
type PlayerColor struct {
	Name string
	RGB  [3]uint8 // sRGB
}

// PlayerColors are the game's 24 player colours, in player order.
var PlayerColors = [...]PlayerColor{
	{"Red", [3]uint8{255, 3, 3}}, {"Blue", [3]uint8{0, 66, 255}}, {"Teal", [3]uint8{28, 230, 185}},
	{"Purple", [3]uint8{84, 0, 129}}, {"Yellow", [3]uint8{255, 252, 1}}, {"Orange", [3]uint8{254, 138, 14}},
	{"Green", [3]uint8{32, 192, 0}}, {"Pink", [3]uint8{229, 91, 176}}, {"Gray", [3]uint8{149, 150, 151}},
	{"Light Blue", [3]uint8{126, 191, 241}}, {"Dark Green", [3]uint8{16, 98, 70}}, {"Brown", [3]uint8{78, 42, 4}},
	{"Maroon", [3]uint8{155, 0, 0}}, {"Navy", [3]uint8{0, 0, 195}}, {"Turquoise", [3]uint8{0, 234, 255}},
	{"Violet", [3]uint8{190, 0, 254}}, {"Wheat", [3]uint8{235, 205, 135}}, {"Peach", [3]uint8{248, 164, 139}},
	{"Mint", [3]uint8{191, 255, 128}}, {"Lavender", [3]uint8{220, 185, 235}}, {"Coal", [3]uint8{40, 40, 40}},
	{"Snow", [3]uint8{235, 240, 255}}, {"Emerald", [3]uint8{0, 120, 30}}, {"Peanut", [3]uint8{164, 111, 51}},
}

// srgb returns player p's colour as sRGB fractions (for pictures).
func srgb(p int) *[3]float32 {
	c := PlayerColors[p].RGB
	return &[3]float32{float32(c[0]) / 255, float32(c[1]) / 255, float32(c[2]) / 255}
}

func linear(c float32) float32 { return scene.SRGBToLinear(c) }

// teamLook is how a material shows the team colour, so that each player's variant can be made
// once the model's own materials are all in place.
type teamLook struct {
	kind  int // teamSolid, teamUnder or teamGlow
	tex   int // the texture over the colour (teamUnder) or the glow's (teamGlow)
	coord int
	add   bool // the glow layer adds
}

const (
	teamSolid = iota + 1
	teamUnder
	teamGlow
)

// paint returns the scene texture that shows texture tex as l paints it.
func (b *builder) paint(tex int, l scene.Look) int { return b.s.Paint(tex, l) }

// replaceable returns the replaceable id of scene texture tex (0 for a file).
func (b *builder) replaceable(tex int) uint32 {
	if tex < 0 || tex >= len(b.m.Textures) {
		return 0
	}
	return b.m.Textures[tex].ReplaceableID
}

// layerTexture returns the texture layer j of material i names, -1 for none.
func (b *builder) layerTexture(i, j int) int {
	l := &b.m.Materials[i].Layers[j]
	if l.TextureID >= 0 && int(l.TextureID) < len(b.m.Textures) {
		return int(l.TextureID)
	}
	b.warn("material %d: layer %d names texture %d of %d", i, j, l.TextureID, len(b.m.Textures))
	return -1
}

func adds(filter uint32) bool { return filter == FilterAdditive || filter == FilterAddAlpha }

// layerLook sets what mat takes from layer l, whose alpha at the default frame of sp is
// alpha: its UV set and texture transform, sides, shading, flags and blending.
func (b *builder) layerLook(mat *scene.Material, l *Layer, alpha float32, sp span) {
	mat.TexCoord = int(l.CoordID)
	mat.UVTransform = b.uvTransform(l, sp, mat.Extras)
	mat.DoubleSided = l.Shading&ShadeTwoSided != 0
	// Reforged's layers have their own Unlit flag; the bit means nothing in version 800.
	mat.Unlit = l.Shading&ShadeUnshaded != 0 || l.Reforged != nil && l.Shading&ShadeUnlit != 0
	mat.Flags = append(mat.Flags, "FilterMode:"+filterName(l.FilterMode))
	mat.Flags = append(mat.Flags, shadingNames(l.Shading)...)
	switch l.FilterMode {
	case FilterNone:
	case FilterTransparent:
		mat.AlphaMode, mat.AlphaCutoff = scene.AlphaMask, TransparentCutoff
	default:
		mat.AlphaMode = scene.AlphaBlend
	}
	if mat.AlphaMode != scene.AlphaOpaque {
		mat.BaseColor[3] = alpha
		if alpha <= VisibleAlpha {
			// Not drawn at the default frame, so the geoset is hidden there: the alpha it has
			// when an animation shows it is the one worth keeping.
			mat.BaseColor[3] = peakAlpha(l)
		}
	}
}

// look sets mat from material i's layers at the default frame of sp.
func (b *builder) look(i int, mat *scene.Material, sp span) {
	ls := b.m.Materials[i].Layers
	alphas := make([]float32, len(ls))
	base := -1
	for j := range ls {
		alphas[j] = b.layerAlpha(&ls[j], sp, sp.start)
		if base < 0 && alphas[j] > VisibleAlpha {
			base = j
		}
	}
	base = max(base, 0)
	l := &ls[base]
	b.layerLook(mat, l, alphas[base], sp)
	if l.TextureTrack != nil {
		b.warn("material %d: layer %d animates its texture id (flip-book); the static texture %d is used", i, base, l.TextureID)
	}
	technique := fmt.Sprintf("layer %d, filter mode %s", base, filterName(l.FilterMode))
	shown := []int{base}
	tex := b.layerTexture(i, base)
	switch b.replaceable(tex) {
	case 1:
		over := -1
		for j := base + 1; j < len(ls); j++ {
			if t := b.layerTexture(i, j); alphas[j] > VisibleAlpha && t >= 0 && b.replaceable(t) == 0 &&
				(ls[j].FilterMode == FilterBlend || ls[j].FilterMode == FilterTransparent) {
				over = j
				break
			}
		}
		if over < 0 {
			for k := range 3 {
				mat.BaseColor[k] = linear(srgb(0)[k])
			}
			technique += "; team colour: player 1's colour (red), each player's as a material variant"
			b.teamLooks(i, teamLook{kind: teamSolid})
			break
		}
		ot := int(ls[over].TextureID)
		mat.Texture = b.paint(ot, scene.Look{Under: srgb(0)})
		mat.TexCoord = int(ls[over].CoordID)
		mat.UVTransform = b.uvTransform(&ls[over], sp, mat.Extras)
		shown = append(shown, over)
		technique += fmt.Sprintf("; team colour under layer %d (%s), composited in one picture with player 1's colour (red), each player's as a material variant",
			over, filterName(ls[over].FilterMode))
		b.teamLooks(i, teamLook{kind: teamUnder, tex: ot, coord: int(ls[over].CoordID)})
	case 2:
		mat.Texture = b.paint(tex, scene.Look{Glow: srgb(0), Additive: adds(l.FilterMode)})
		technique += "; team glow: a painted glow of player 1's colour (red); each player's as a material variant"
		b.teamLooks(i, teamLook{kind: teamGlow, tex: tex, add: adds(l.FilterMode)})
	default:
		if tex < 0 {
			break
		}
		switch l.FilterMode {
		case FilterAdditive, FilterAddAlpha:
			mat.Texture = b.paint(tex, scene.Look{Additive: true})
			technique += "; adds light: blended with alpha from brightness"
		case FilterModulate, FilterModulate2x:
			scale := float32(1)
			if l.FilterMode == FilterModulate2x {
				scale = 2
			}
			mat.Texture = b.paint(tex, scene.Look{Modulate: true, Scale: scale})
			technique += "; darkens what is behind: black, blended with alpha from darkness"
		default:
			mat.Texture = tex
		}
	}
	for j := shown[len(shown)-1] + 1; j < len(ls); j++ {
		t := b.layerTexture(i, j)
		if alphas[j] > VisibleAlpha && adds(ls[j].FilterMode) && t >= 0 && b.replaceable(t) == 0 && mat.Emission == nil {
			a := alphas[j]
			mat.Emission = &scene.Emission{Texture: t, TexCoord: int(ls[j].CoordID), Factor: [3]float32{a, a, a}}
			shown = append(shown, j)
			technique += fmt.Sprintf("; layer %d (%s) as emission", j, filterName(ls[j].FilterMode))
		}
	}
	if mat.Unlit {
		technique += "; unshaded: KHR_materials_unlit"
	}
	var left []int
	for j := range ls {
		if !containsInt(shown, j) {
			left = append(left, j)
		}
	}
	if len(left) > 0 {
		mat.Extras["layersNotShown"] = scene.Ints(left)
	}
	mat.Extras["technique"] = technique
}

func containsInt(v []int, x int) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}

// teamLooks records that material i shows the team colour as t.
func (b *builder) teamLooks(i int, t teamLook) {
	if b.teams == nil {
		b.teams = map[int]teamLook{}
	}
	b.teams[i] = t
}

// playerMaterial returns material mat (one of the model's) as player p shows it; p 0 is mat.
func (b *builder) playerMaterial(mat, p int) int {
	t, ok := b.teams[mat]
	if !ok || p == 0 {
		return mat
	}
	if b.teamMats == nil {
		b.teamMats = map[int][]int{}
	}
	if ms := b.teamMats[mat]; ms != nil {
		return ms[p]
	}
	ms := make([]int, len(PlayerColors))
	ms[0] = mat
	for q := 1; q < len(PlayerColors); q++ {
		m := b.s.Materials[mat]
		m.Name = fmt.Sprintf("%s %s", m.Name, PlayerColors[q].Name)
		m.Extras = cloneExtras(m.Extras)
		m.Extras["player"] = int64(q + 1)
		switch t.kind {
		case teamSolid:
			for k := range 3 {
				m.BaseColor[k] = linear(srgb(q)[k])
			}
		case teamUnder:
			// One picture per player would cost a picture each; the texture over black and
			// its transparency as the emission of the player's colour cost two for all.
			m.Texture = b.paint(t.tex, scene.Look{Under: &[3]float32{}})
			c := srgb(q)
			m.Emission = &scene.Emission{Texture: b.paint(t.tex, scene.Look{Mask: true}), TexCoord: t.coord,
				Factor: [3]float32{linear(c[0]), linear(c[1]), linear(c[2])}}
			m.Extras["technique"] = fmt.Sprintf("team colour: the texture over black, the player's colour (%s) emitted where it is transparent", PlayerColors[q].Name)
		case teamGlow:
			m.Texture = b.paint(t.tex, scene.Look{Glow: srgb(q), Additive: t.add})
		}
		ms[q] = len(b.s.Materials)
		b.s.Materials = append(b.s.Materials, m)
	}
	b.teamMats[mat] = ms
	return ms[p]
}

// peakAlpha is the largest alpha layer l takes: its static alpha, or its track's largest value.
func peakAlpha(l *Layer) float32 {
	if l.AlphaTrack == nil || len(l.AlphaTrack.Values) == 0 {
		return clamp01(l.Alpha)
	}
	var p float32
	for _, v := range l.AlphaTrack.Values {
		p = max(p, clamp01(v))
	}
	return p
}

// uvTransform returns layer l's texture animation at frame f of sp as glTF's texture transform
// (nil when it leaves the coordinates as they are), and records the animation in extras. The
// game (and mdx-m3-viewer) moves a layer's coordinates by the translation, then turns them by
// the rotation's angle about Z and scales them by its X scale, both about (0.5, 0.5):
// uv' = s·R(θ)·(uv + t − ½) + ½, which is glTF's transform with scale s, rotation −θ and offset
// s·R(θ)·(t − ½) + ½.
func (b *builder) uvTransform(l *Layer, sp span, extras scene.Extras) *scene.UVTransform {
	if l.TextureAnimID < 0 || int(l.TextureAnimID) >= len(b.m.TextureAnims) {
		return nil
	}
	ta := &b.m.TextureAnims[l.TextureAnimID]
	var t, sc [3]float32
	var q [4]float32
	b.value(ta.Translation, []float32{0, 0, 0}, []float32{0, 0, 0}, sp, sp.start, t[:])
	b.value(ta.Rotation, []float32{0, 0, 0, 1}, []float32{0, 0, 0, 1}, sp, sp.start, q[:])
	b.value(ta.Scaling, []float32{1, 1, 1}, []float32{1, 1, 1}, sp, sp.start, sc[:])
	extras["textureAnimation"] = int64(l.TextureAnimID)
	theta := 2 * math.Atan2(float64(q[2]), float64(q[3]))
	s := float64(sc[0])
	if math.IsNaN(theta) || math.IsNaN(s) || math.IsInf(s, 0) || !finite3(t) {
		return nil
	}
	if math.Abs(float64(t[0])) < 1e-6 && math.Abs(float64(t[1])) < 1e-6 && math.Abs(theta) < 1e-6 && math.Abs(s-1) < 1e-6 {
		return nil
	}
	c, sn := math.Cos(theta), math.Sin(theta)
	dx, dy := float64(t[0])-0.5, float64(t[1])-0.5
	return &scene.UVTransform{
		Offset:   [2]float32{float32(s*(c*dx-sn*dy) + 0.5), float32(s*(sn*dx+c*dy) + 0.5)},
		Rotation: float32(-theta),
		Scale:    [2]float32{float32(s), float32(s)},
	}
}

func finite3(v [3]float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}
