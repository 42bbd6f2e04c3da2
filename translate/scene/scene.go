// Package scene is the one in-memory model that every decoder produces and every encoder reads.
//
// A Scene is already in glTF's frame of reference: right-handed, Y-up, times in seconds,
// texture coordinates with the origin at the top-left. Decoders do the axis, unit and timeline
// conversions; encoders only serialise. Everything a source carries that glTF has no place for
// (particle emitters, events, visibility tracks, …) travels as structured Extras so that the JSON
// metadata can list it.
package scene

import (
	"fmt"
	"math"
	"path"
	"strings"
)

// NodeKind says what a node stands for in the source.
type NodeKind string

// Node kinds.
const (
	KindRoot       NodeKind = "root"
	KindBone       NodeKind = "bone"
	KindHelper     NodeKind = "helper"
	KindAttachment NodeKind = "attachment"
	KindEvent      NodeKind = "event"
	KindLight      NodeKind = "light"
	KindCamera     NodeKind = "camera"
	KindEmitter    NodeKind = "particle_emitter"
	KindRibbon     NodeKind = "ribbon_emitter"
	KindCollision  NodeKind = "collision_shape"
)

// AlphaMode is how a material's alpha is used, as in glTF.
type AlphaMode string

// Alpha modes.
const (
	AlphaOpaque AlphaMode = "OPAQUE"
	AlphaMask   AlphaMode = "MASK"
	AlphaBlend  AlphaMode = "BLEND"
)

// Path is the node property an animation channel drives.
type Path string

// Channel paths.
const (
	PathTranslation Path = "translation"
	PathRotation    Path = "rotation"
	PathScale       Path = "scale"
)

// Width is the number of floats in one value of the path (3 or 4).
func (p Path) Width() int {
	if p == PathRotation {
		return 4
	}
	return 3
}

// Index numbers the paths translation, rotation and scale 0, 1 and 2, for tables kept per
// node and path; other values give 0.
func (p Path) Index() int {
	switch p {
	case PathRotation:
		return 1
	case PathScale:
		return 2
	}
	return 0
}

// Interp is a glTF interpolation mode.
type Interp string

// Interpolation modes.
const (
	Step        Interp = "STEP"
	Linear      Interp = "LINEAR"
	CubicSpline Interp = "CUBICSPLINE"
)

// Extras holds structured, JSON-serialisable data the source carries beyond the scene proper.
// Keys are written in sorted order, so output stays deterministic.
type Extras map[string]any

// Scene is one decoded model.
type Scene struct {
	Source     Source
	Nodes      []Node
	Meshes     []Mesh
	Materials  []Material
	Textures   []Texture
	Skins      []Skin
	Animations []Animation
	// Shapes gather meshes drawn together: a building's part made of several materials, a
	// prop placed many times. A mesh belongs to at most one shape.
	Shapes []Shape
	// Lights are the lights the source places, each at a node.
	Lights []Light
	// Variants names the model's alternative looks (a creature's skins), the first being the one
	// every mesh's Material shows; a mesh whose look changes lists its material per variant.
	Variants []string
	// Extras carries the source's other contents (emitters, lights, cameras, events, collision
	// shapes, geoset animations, global sequences, …) keyed by a lower-camel-case name.
	Extras Extras
	// Emitters describe the source's particle emitters and ribbons for translate/fx, which
	// bakes them; Effects marks what it baked.
	Emitters []Emitter
	Effects  Effects
	// Warnings lists what the decoder tolerated or left out, each naming where in the source.
	Warnings []string
	// PlainExtras says the decoder put only plain values (see Plain) in every Extras, so that
	// MakePlain has nothing to look at.
	PlainExtras bool

	release func() // set by OnRelease, run once by Release
}

// OnRelease is for decoders that carve the scene's arrays from memory they reuse: f hands that
// memory back, and runs when the scene's owner calls Release.
func (s *Scene) OnRelease(f func()) { s.release = f }

// Release tells the decoder that made s that its memory may be reused for the next scene. The
// scene, and every slice read from it, must not be used afterwards, so only the owner of a
// scene calls it, once every output has been made (encoders copy what they write). Calling it
// is optional: a scene never released is garbage collected as usual. A second call does nothing.
func (s *Scene) Release() {
	if f := s.release; f != nil {
		s.release = nil
		f()
	}
}

// Source describes where a scene came from and how it was converted.
type Source struct {
	Path    string // path of the source file as given (slash-separated, relative to the root)
	Format  string // registry name of the format, e.g. "mdx" or "mdl"
	Version int    // the format's own version number (e.g. 800), 0 if none
	Name    string // the model's own name, when the file states one
	Axes    string // the source's axis convention and the conversion applied
	Unit    string // the source's unit of length
	Scale   float64
}

// Node is one element of the transform hierarchy: a bone, helper, attachment point or other object.
type Node struct {
	Name        string
	Kind        NodeKind
	Parent      int        // index into Scene.Nodes, -1 for a root
	Translation [3]float32 // rest translation relative to the parent
	Rotation    [4]float32 // rest rotation, quaternion x, y, z, w
	Scale       [3]float32 // rest scale
	Extras      Extras
}

// LightType is the kind of a punctual light, as glTF's KHR_lights_punctual names it.
type LightType string

// Light types.
const (
	LightPoint       LightType = "point"
	LightSpot        LightType = "spot"
	LightDirectional LightType = "directional"
)

// Light is a punctual light at a node (glTF's KHR_lights_punctual): a point light shines from
// the node's origin every way, a spot or directional light along the node's −Z.
type Light struct {
	Name      string
	Node      int // index into Scene.Nodes; a node holds at most one light
	Type      LightType
	Color     [3]float32 // linear RGB, each 0 to 1
	Intensity float32    // candela for point and spot lights, lux for directional ones
	Range     float32    // where a point or spot light ends, 0 for nowhere
	// InnerCone and OuterCone are a spot light's angles from its axis, in radians: full light
	// inside the first, none outside the second (0 ≤ inner < outer ≤ π/2).
	InnerCone, OuterCone float32
}

// MaxFlattenedVertices bounds the vertices an output without instances (OBJ) writes for the
// copies of shapes drawn at nodes, all together: past it the remaining copies are left out,
// and the output says so. (A WMO may place 65,536 doodads: written out one by one they made an
// OBJ of 1.5 GB.) glTF draws every copy, by instancing.
const MaxFlattenedVertices = 1 << 20

// Shape is a group of meshes drawn as one: a glTF mesh whose primitives are those meshes. It is
// drawn once where its meshes are (as the scene's other meshes are) when Instances is empty,
// else at each node Instances lists, with that node's transform (the same node may not draw
// two shapes). Its meshes are neither skinned nor hidden.
type Shape struct {
	Name      string
	Meshes    []int // indices into Scene.Meshes, in drawing order
	Instances []int // indices into Scene.Nodes
	Extras    Extras
}

// Mesh is one triangle list with one material: a glTF mesh with a single primitive, or one of
// the primitives of a Shape.
type Mesh struct {
	Name      string
	Positions [][3]float32
	Normals   [][3]float32 // empty or one per position, unit length
	// Tangents is empty or, with Normals, one per position: a unit tangent along the first UV
	// set's U and, in W, the sign (±1) that gives the bitangent as cross(normal, tangent)·W.
	Tangents [][4]float32
	UVs      [][][2]float32 // UV sets, each with one entry per position; origin top-left
	Colors   [][4]float32   // empty or one RGBA per position
	// Joints and Weights hold the skin influences in sets of four, glTF style: Joints[s][v] are the
	// joint indices (into the skin's joint list) of vertex v in set s. Both have the same shape,
	// and a vertex's weights across all sets sum to 1. Unused slots have joint 0 and weight 0.
	Joints   [][][4]uint16
	Weights  [][][4]float32
	Indices  []uint32 // triangles, counter-clockwise front faces
	Material int      // index into Scene.Materials, -1 for none
	Skin     int      // index into Scene.Skins, -1 for an unskinned mesh
	// VariantMaterials is, for a mesh whose look changes with Scene.Variants, the material each
	// variant shows (indices into Scene.Materials, one per variant); nil for the others.
	VariantMaterials []int
	// Hidden says the mesh is not shown in the model's default pose (a geoset the game hides at
	// the start of its first Stand sequence). Encoders keep it in the file, so that an animation
	// can show it (see Animation.Visibility), but draw it as nothing.
	Hidden bool
	Extras Extras
}

// Material is how a mesh is shaded.
type Material struct {
	Name      string
	BaseColor [4]float32 // linear RGBA factor
	Texture   int        // index into Scene.Textures, -1 for none
	TexCoord  int        // which UV set the texture uses
	// UVTransform, when set, moves the texture coordinates of the material's textures (a
	// texture animation at the default frame), as glTF's KHR_texture_transform does.
	UVTransform *UVTransform
	AlphaMode   AlphaMode
	AlphaCutoff float32 // used with AlphaMask
	DoubleSided bool
	Unlit       bool
	// Emission, when set, is light the surface gives off whatever lights it: a glow drawn
	// over it additively, or a colour the game paints on it.
	Emission *Emission
	// PBR, when set, holds a physically based material's maps (Warcraft III Reforged's HD
	// materials), read with the base colour's UV set.
	PBR *PBR
	// Flags are the source's own material flags by their source names (e.g. "Unshaded",
	// "FilterMode:Additive").
	Flags  []string
	Extras Extras
}

// Emission is a material's emitted light: Factor times the texture's colour (or Factor alone
// when Texture is -1).
// UVTransform is glTF's KHR_texture_transform: uv' = offset + rotate(−rotation) · (scale · uv).
type UVTransform struct {
	Offset   [2]float32
	Rotation float32 // radians, counter-clockwise in UV space as glTF has it
	Scale    [2]float32
}

// PBR holds the maps of a physically based material; each is an index into Scene.Textures, -1
// for none.
type PBR struct {
	// Normal is a tangent-space normal map, green up (OpenGL style, as glTF).
	Normal int
	// ORM holds ambient occlusion in red, roughness in green and metalness in blue: glTF's
	// occlusion and metallic-roughness maps in one image.
	ORM int
}

type Emission struct {
	Texture  int // index into Scene.Textures, -1 for none
	TexCoord int
	Factor   [3]float32
}

// Texture is an image a material refers to.
type Texture struct {
	Path        string // as written in the source (may be empty for a replaceable texture)
	Resolved    string // the file it resolves to, relative to the root; empty when unresolved
	Replaceable int    // the source's replaceable id or slot type, 0 for a plain file
	// Guess is set when Path is not written in the source but stands in for a runtime texture
	// (a team colour, a creature skin); the metadata marks it as such.
	Guess  bool
	WrapU  bool
	WrapV  bool
	Extras Extras
	// Image holds the PNG or JPEG bytes of the resolved file, MIME their type; both are filled
	// only for outputs that embed images (.glb).
	Image []byte
	MIME  string
	// ImageError says why the resolved file cannot be shown (unreadable, corrupt); its material
	// is then written without an image.
	ImageError string
	// Look, when set, makes this a picture painted for a material (see Look) from texture From.
	// No file of the mount holds it, so every glTF output embeds it.
	Look *Look
	From int
}

// Paint returns the texture that shows texture tex as l paints it, adding it on first use: a
// copy of tex (same file, same wrapping) with the look.
func (s *Scene) Paint(tex int, l Look) int {
	for i := range s.Textures {
		if t := &s.Textures[i]; t.Look != nil && t.From == tex && t.Look.same(&l) {
			return i
		}
	}
	t := s.Textures[tex]
	t.Look, t.From = &l, tex
	x := make(Extras, len(t.Extras)+1)
	for k, v := range t.Extras {
		x[k] = v
	}
	x["paintedFrom"] = int64(tex)
	t.Extras = x
	s.Textures = append(s.Textures, t)
	return len(s.Textures) - 1
}

// Look says how a picture is painted from a texture's pixels (Resolved), or, for Glow, from
// nothing: what a game draws in several passes or at run time, made into one image that glTF
// can show.
type Look struct {
	// Opaque: alpha is taken as 1 before anything else.
	Opaque bool
	// ColorKey, when set, is a colour key: pixels of that colour (to half a step of 255) become
	// transparent.
	ColorKey *[3]float32
	// Additive: alpha becomes the pixel's brightness (its largest channel) times its alpha,
	// and colour is divided by that brightness, so that a blended draw adds the colour as an
	// additive one does, and black stays transparent.
	Additive bool
	// Modulate: colour black and alpha one minus the brightness (Scale times it, clamped), so
	// that a blended draw darkens what is behind as a multiplying one does.
	Modulate bool
	Scale    float32
	// Under, when set, is a colour the pixels are drawn over, their alpha revealing it; the
	// result is opaque.
	Under *[3]float32
	// Mask: grey, white where the pixels are transparent (one minus alpha), opaque.
	Mask bool
	// Glow, when set, paints no file but a round glow of this colour, opaque at its centre
	// and transparent at its edge.
	Glow *[3]float32
}

// SRGBToLinear turns an sRGB fraction into the linear one glTF's colour factors hold.
func SRGBToLinear(c float32) float32 {
	v := float64(c)
	if v <= 0.04045 {
		return float32(v / 12.92)
	}
	return float32(math.Pow((v+0.055)/1.055, 2.4))
}

// same reports whether l and o paint the same picture: Key(l) == Key(o), without making them.
func (l *Look) same(o *Look) bool {
	return l.Opaque == o.Opaque && sameColor(l.ColorKey, o.ColorKey) && l.Additive == o.Additive &&
		l.Modulate == o.Modulate && (!l.Modulate || l.Scale == o.Scale) && sameColor(l.Under, o.Under) &&
		l.Mask == o.Mask && sameColor(l.Glow, o.Glow)
}

// sameColor compares two optional colours as Key writes them.
func sameColor(a, b *[3]float32) bool {
	if a == nil || b == nil {
		return a == b
	}
	for i := range a {
		if byte255(a[i]) != byte255(b[i]) {
			return false
		}
	}
	return true
}

func byte255(v float32) uint8 { return uint8(math.Round(float64(min(max(v, 0), 1)) * 255)) }

// hex writes an sRGB colour as #RRGGBB.
func hex(b *strings.Builder, c *[3]float32) {
	const digits = "0123456789ABCDEF"
	b.WriteByte('#')
	for _, v := range c {
		x := byte255(v)
		b.WriteByte(digits[x>>4])
		b.WriteByte(digits[x&15])
	}
}

// Key is a short string that tells looks apart.
func (l *Look) Key() string {
	if l == nil {
		return ""
	}
	var b strings.Builder
	if l.Opaque {
		b.WriteString("opaque;")
	}
	if l.ColorKey != nil {
		b.WriteString("key ")
		hex(&b, l.ColorKey)
		b.WriteByte(';')
	}
	if l.Additive {
		b.WriteString("additive;")
	}
	if l.Modulate {
		fmt.Fprintf(&b, "modulate %g;", l.Scale)
	}
	if l.Under != nil {
		b.WriteString("over ")
		hex(&b, l.Under)
		b.WriteByte(';')
	}
	if l.Mask {
		b.WriteString("transparency;")
	}
	if l.Glow != nil {
		b.WriteString("glow ")
		hex(&b, l.Glow)
		b.WriteByte(';')
	}
	return b.String()
}

// ImagePath returns the path, relative to the root, of the image as a glTF reader finds it in
// the mount: the resolved file itself when it is PNG or JPEG, else its NAME.EXT.png translation;
// "" when the texture is unresolved or its image cannot be shown.
func (t *Texture) ImagePath() string {
	if t.Look != nil {
		return "" // painted: no file holds it
	}
	return t.FileImage()
}

// FileImage is ImagePath of the file a painted texture is painted from (for outputs that
// cannot carry a painted picture, such as OBJ), and ImagePath for the others.
func (t *Texture) FileImage() string {
	if t.Look != nil && t.Look.Glow != nil && t.Resolved == "" {
		return ""
	}
	if t.Resolved == "" || t.ImageError != "" {
		return ""
	}
	switch strings.ToLower(path.Ext(t.Resolved)) {
	case ".png", ".jpg", ".jpeg":
		return t.Resolved
	}
	return t.Resolved + ".png"
}

// Skin binds meshes to a set of joint nodes.
type Skin struct {
	Name   string
	Joints []int // indices into Scene.Nodes
	// InverseBind has one column-major 4×4 matrix per joint.
	InverseBind [][16]float32
	Skeleton    int // the common root node, -1 if none is named
}

// Animation is one named clip, rebased to start at time 0.
type Animation struct {
	Name     string
	Duration float32 // seconds
	Loop     bool
	// Start and End are the window this clip was cut from on the source's own timeline, in
	// seconds (both 0 when the source keeps one key array per clip).
	Start, End float64
	Channels   []Channel
	// Visibility lists, for each mesh the clip shows or hides, when it does; a mesh not listed
	// keeps its default (Mesh.Hidden) throughout the clip.
	Visibility []Visibility
	Extras     Extras
}

// Visibility says when, within one animation, a mesh is shown. The steps hold: the mesh is
// shown from Times[i] to Times[i+1] when Shown[i] is set.
type Visibility struct {
	Mesh  int       // index into Scene.Meshes
	Times []float32 // seconds, strictly increasing, all >= 0
	Shown []bool    // one per time
}

// Channel animates one property of one node.
type Channel struct {
	Node   int
	Path   Path
	Interp Interp
	Times  []float32 // seconds, strictly increasing, all >= 0
	// Values is flat: Path.Width() floats per key, or 3×Width per key for CubicSpline laid out as
	// glTF does (in-tangent, value, out-tangent), tangents in units per second.
	Values []float32
	// Rounding is how far an encoder may move each value (for rotations, as the distance
	// between unit quaternions) to store it more compactly; 0 keeps them as given. The decoder
	// grants it out of what its model can take (see ShortRounding).
	Rounding float32
}

// ShortRounding is how far storing a unit quaternion's components as 16-bit normalised integers
// (glTF's compact rotations) moves it at most: half a step of 1/32767 in each of four
// components. A rotation channel whose Rounding is at least this may be stored so.
const ShortRounding = 3.1e-5
