package wc3

// This file is the raw Warcraft III model: a faithful, format-neutral image of what an MDL or
// MDX file holds, before any conversion. Both readers fill exactly these structures, so the two
// forms of one model compare equal with reflect.DeepEqual (see the equivalence tests), and one
// builder (build.go) turns them into a scene.Scene.
//
// Conventions both readers follow:
//   - Every slice that the file leaves empty is nil, never an empty non-nil slice.
//   - Colours are kept in the file's order (blue, green, red).
//   - Numbers are stored with the types below; MDL text is parsed straight to them
//     (floats with strconv.ParseFloat(s, 32)).
//   - An animated property keeps its static value field too; when the MDL gives only a track
//     the static field keeps the MDX default listed next to it. Builders use the track when
//     present and ignore the static value then.
//   - Node.Flags hold the MDX bits, including the type bit of the block kind (0x100 bone, …);
//     the MDL reader sets the type bit from the block name.

// Interp is a track's interpolation type, numbered as in MDX.
type Interp uint32

// Interpolation types.
const (
	DontInterp Interp = 0
	Linear     Interp = 1
	Hermite    Interp = 2
	Bezier     Interp = 3
)

// Track is an animated property: keys on the model's global timeline in milliseconds, or on the
// clock of global sequence GlobalSeq when that is ≥ 0.
type Track struct {
	Interp    Interp    `json:"interpolation"`
	GlobalSeq int32     `json:"globalSequence"` // -1 when the track follows the sequences
	Width     int       `json:"-"`              // floats per value: 1, 3 or 4
	Frames    []int32   `json:"frames"`
	Values    []float32 `json:"values"`            // Width floats per key
	InTans    []float32 `json:"inTans,omitempty"`  // Width per key when Interp ≥ Hermite, else nil
	OutTans   []float32 `json:"outTans,omitempty"` // likewise
}

// Keys returns the number of keys.
func (t *Track) Keys() int { return len(t.Frames) }

// Extent is a bounding volume.
type Extent struct {
	BoundsRadius float32    `json:"boundsRadius"`
	Min          [3]float32 `json:"min"`
	Max          [3]float32 `json:"max"`
}

// Model is the whole raw file.
type Model struct {
	Version   uint32 `json:"version"`
	Name      string `json:"name"`
	AnimFile  string `json:"animationFile,omitempty"` // MDL: AnimationFile "…"
	Extent    Extent `json:"extent"`
	BlendTime uint32 `json:"blendTime"`

	Sequences         []Sequence         `json:"sequences,omitempty"`
	GlobalSequences   []uint32           `json:"globalSequences,omitempty"` // durations, ms
	Textures          []Texture          `json:"textures,omitempty"`
	Materials         []Material         `json:"materials,omitempty"`
	TextureAnims      []TextureAnim      `json:"textureAnims,omitempty"`
	Geosets           []Geoset           `json:"-"`
	GeosetAnims       []GeosetAnim       `json:"geosetAnims,omitempty"`
	Bones             []Bone             `json:"bones,omitempty"`
	Lights            []Light            `json:"lights,omitempty"`
	Helpers           []Node             `json:"helpers,omitempty"`
	Attachments       []Attachment       `json:"attachments,omitempty"`
	PivotPoints       [][3]float32       `json:"pivotPoints,omitempty"` // indexed by ObjectID
	ParticleEmitters  []ParticleEmitter  `json:"particleEmitters,omitempty"`
	ParticleEmitters2 []ParticleEmitter2 `json:"particleEmitters2,omitempty"`
	RibbonEmitters    []RibbonEmitter    `json:"ribbonEmitters,omitempty"`
	Cameras           []Camera           `json:"cameras,omitempty"`
	Events            []EventObject      `json:"events,omitempty"`
	CollisionShapes   []CollisionShape   `json:"collisionShapes,omitempty"`

	// Reforged (versions 900 and later).
	BindPoses   [][12]float32   `json:"bindPoses,omitempty"`   // BPOS: a 3×4 matrix per object, column by column
	FaceEffects []FaceEffect    `json:"faceEffects,omitempty"` // FAFX
	Popcorns    []PopcornRecord `json:"popcorns,omitempty"`    // CORN: popcorn (FaceFX-era) particle emitters, recorded, not drawn

	// Warnings are problems the reader tolerated (unknown tokens or chunks, counts that lie),
	// each naming its line or offset. They are not compared between the two forms.
	Warnings []string `json:"-"`
}

// Sequence is one animation window on the global timeline. MDL: Anim "name" { … }.
type Sequence struct {
	Name       string    `json:"name"`
	Interval   [2]uint32 `json:"interval"` // start, end in ms
	MoveSpeed  float32   `json:"moveSpeed"`
	NonLooping bool      `json:"nonLooping"` // MDX uint32 ≠ 0
	Rarity     float32   `json:"rarity"`
	SyncPoint  uint32    `json:"syncPoint"` // MDX only; MDL leaves 0
	Extent     Extent    `json:"extent"`
}

// Texture is one entry of the texture table. MDL: Bitmap { Image "…", ReplaceableId n, WrapWidth, WrapHeight }.
type Texture struct {
	ReplaceableID uint32 `json:"replaceableId"`
	Path          string `json:"path"`
	Flags         uint32 `json:"flags"` // 1 WrapWidth, 2 WrapHeight
}

// Material is a stack of layers. MDL flags: ConstantColor 0x1, SortPrimsNearZ 0x8,
// SortPrimsFarZ 0x10, FullResolution 0x20.
type Material struct {
	PriorityPlane int32   `json:"priorityPlane"`
	Flags         uint32  `json:"flags"`
	Shader        string  `json:"shader,omitempty"` // versions 900–1000: e.g. Shader_HD_DefaultUnit
	Layers        []Layer `json:"layers"`
}

// FaceEffect is one FAFX record: a facial animation file for a target.
type FaceEffect struct {
	Target string `json:"target"`
	Path   string `json:"path"`
}

// PopcornRecord is what the .json says of one CORN emitter: its name and object id. Its
// particles are not drawn (glTF has no particles).
type PopcornRecord struct {
	Name     string `json:"name"`
	ObjectID int32  `json:"objectId"`
	Path     string `json:"path,omitempty"`
}

// Texture slots of an HD (Reforged) material's layers, in version 1100's numbering; in versions
// 900–1000 an HD material's layers come in this order.
const (
	SlotDiffuse    = 0
	SlotNormal     = 1
	SlotORM        = 2
	SlotEmissive   = 3
	SlotTeamColor  = 4
	SlotReflection = 5
)

// LayerTexture is one texture of a version-1100 layer's list.
type LayerTexture struct {
	TextureID    int32  `json:"textureId"`
	Slot         uint32 `json:"slot"`
	TextureTrack *Track `json:"textureTrack,omitempty"` // KMTF, width 1
}

// Filter modes of a layer (MDL FilterMode names in comments).
const (
	FilterNone        = 0 // None
	FilterTransparent = 1 // Transparent
	FilterBlend       = 2 // Blend
	FilterAdditive    = 3 // Additive
	FilterAddAlpha    = 4 // AddAlpha
	FilterModulate    = 5 // Modulate
	FilterModulate2x  = 6 // Modulate2x
)

// Layer shading flags (MDL flag names in comments).
const (
	ShadeUnshaded     = 0x1   // Unshaded
	ShadeSphereEnvMap = 0x2   // SphereEnvMap
	ShadeTwoSided     = 0x10  // TwoSided
	ShadeUnfogged     = 0x20  // Unfogged
	ShadeNoDepthTest  = 0x40  // NoDepthTest
	ShadeNoDepthSet   = 0x80  // NoDepthSet
	ShadeUnlit        = 0x100 // Unlit (Reforged)
)

// Layer is one texture pass of a material.
type Layer struct {
	FilterMode    uint32  `json:"filterMode"`
	Shading       uint32  `json:"shading"`
	TextureID     int32   `json:"textureId"`              // MDL: static TextureID n (default 0 with a track)
	TextureAnimID int32   `json:"textureAnimId"`          // MDL: TVertexAnimId n; -1 when absent
	CoordID       uint32  `json:"coordId"`                // MDL: CoordId n
	Alpha         float32 `json:"alpha"`                  // MDL: static Alpha a (default 1 with a track)
	TextureTrack  *Track  `json:"textureTrack,omitempty"` // KMTF / TextureID N { … }, width 1
	AlphaTrack    *Track  `json:"alphaTrack,omitempty"`   // KMTA / Alpha N { … }, width 1

	Reforged *LayerHD `json:"reforged,omitempty"` // versions 900 and later
}

// LayerHD holds a layer's fields of versions 900 and later.
type LayerHD struct {
	EmissiveGain      float32    `json:"emissiveGain"`
	FresnelColor      [3]float32 `json:"fresnelColor"`
	FresnelOpacity    float32    `json:"fresnelOpacity"`
	FresnelTeamColor  float32    `json:"fresnelTeamColor"`
	EmissiveTrack     *Track     `json:"emissiveTrack,omitempty"`     // KMTE, width 1
	FresnelColorTrack *Track     `json:"fresnelColorTrack,omitempty"` // KFC3, width 3
	FresnelAlphaTrack *Track     `json:"fresnelAlphaTrack,omitempty"` // KFCA, width 1
	FresnelTeamTrack  *Track     `json:"fresnelTeamTrack,omitempty"`  // KFTC, width 1
	// Version 1100 and later: whether the layer is HD (1) or SD (0), and its textures by slot.
	ShaderType uint32         `json:"shaderType"`
	Textures   []LayerTexture `json:"textures,omitempty"`
}

// TextureAnim animates texture coordinates. MDL: TVertexAnim { Translation/Rotation/Scaling }.
type TextureAnim struct {
	Translation *Track `json:"translation,omitempty"` // KTAT, width 3
	Rotation    *Track `json:"rotation,omitempty"`    // KTAR, width 4
	Scaling     *Track `json:"scaling,omitempty"`     // KTAS, width 3
}

// Geoset is one mesh.
type Geoset struct {
	Vertices       [][3]float32   // VRTX
	Normals        [][3]float32   // NRMS
	FaceTypes      []uint32       // PTYP; MDL "Faces 1 N { Triangles {…} }" gives [4]
	FaceCounts     []uint32       // PCNT; index counts per face group
	Faces          []uint16       // PVTX
	VertexGroups   []uint8        // GNDX: vertex → matrix group
	GroupSizes     []uint32       // MTGC: objects per matrix group
	Matrices       []uint32       // MATS: object ids, concatenated per group
	MaterialID     uint32         //
	SelectionGroup uint32         //
	SelectionFlags uint32         // 4 = Unselectable
	Extent         Extent         // MDL: MinimumExtent, MaximumExtent, BoundsRadius
	SeqExtents     []Extent       // MDL: one Anim { … } block per sequence
	UVSets         [][][2]float32 // UVAS/UVBS; MDL: one TVertices block per set

	// Reforged: version 900 and later.
	LOD      int32        // level of detail, 0 the finest; -1 for every level. MDL: LevelOfDetail
	Name     string       // MDL: Name "…"
	Tangents [][4]float32 // TANG: x, y, z and the bitangent's sign. MDL: Tangents
	Skin     []uint8      // SKIN: per vertex four object indices then four weights (0–255). MDL: SkinWeights
}

// GeosetAnim animates a geoset's alpha and colour. MDL: GeosetAnim { … }. Flags: 0x1 DropShadow,
// 0x2 Color (set when a colour is given).
type GeosetAnim struct {
	Alpha      float32    `json:"alpha"` // default 1 with a track
	Flags      uint32     `json:"flags"`
	Color      [3]float32 `json:"color"` // default {1,1,1} with a track or none
	GeosetID   int32      `json:"geosetId"`
	AlphaTrack *Track     `json:"alphaTrack,omitempty"` // KGAO, width 1
	ColorTrack *Track     `json:"colorTrack,omitempty"` // KGAC, width 3
}

// Node flags (the MDX bits; MDL names in comments).
const (
	NodeDontInheritTranslation = 0x1  // DontInherit { Translation }
	NodeDontInheritScaling     = 0x2  // DontInherit { Scaling }
	NodeDontInheritRotation    = 0x4  // DontInherit { Rotation }
	NodeBillboarded            = 0x8  // Billboarded
	NodeBillboardedLockX       = 0x10 // BillboardedLockX (also spelled BillboardLockX)
	NodeBillboardedLockY       = 0x20 // BillboardedLockY
	NodeBillboardedLockZ       = 0x40 // BillboardedLockZ
	NodeCameraAnchored         = 0x80 // CameraAnchored
	TypeBone                   = 0x100
	TypeLight                  = 0x200
	TypeEvent                  = 0x400
	TypeAttachment             = 0x800
	TypeParticleEmitter        = 0x1000
	TypeCollisionShape         = 0x2000
	TypeRibbonEmitter          = 0x4000
	// Emitter-specific bits: PREM EmitterUsesMDL 0x8000, EmitterUsesTGA 0x10000; PRE2 Unshaded
	// 0x8000, SortPrimsFarZ 0x10000, LineEmitter 0x20000, Unfogged 0x40000, ModelSpace 0x80000,
	// XYQuad 0x100000.
)

// Node is the part every object of the hierarchy shares.
type Node struct {
	Name        string `json:"name"`
	ObjectID    int32  `json:"objectId"`
	ParentID    int32  `json:"parent"` // -1 for a root
	Flags       uint32 `json:"flags"`
	Translation *Track `json:"translation,omitempty"` // KGTR, width 3
	Rotation    *Track `json:"rotation,omitempty"`    // KGRT, width 4 (x, y, z, w)
	Scaling     *Track `json:"scaling,omitempty"`     // KGSC, width 3
}

// Bone is a node that geosets can be skinned to.
type Bone struct {
	Node
	GeosetID     int32 `json:"geosetId"`     // MDL: GeosetId n | Multiple (-1)
	GeosetAnimID int32 `json:"geosetAnimId"` // MDL: GeosetAnimId n | None (-1)
}

// Light is a light source. Type: 0 Omnidirectional, 1 Directional, 2 Ambient.
type Light struct {
	Node
	Type                  uint32     `json:"type"`
	AttenuationStart      float32    `json:"attenuationStart"`
	AttenuationEnd        float32    `json:"attenuationEnd"`
	Color                 [3]float32 `json:"color"`
	Intensity             float32    `json:"intensity"`
	AmbColor              [3]float32 `json:"ambColor"`
	AmbIntensity          float32    `json:"ambIntensity"`
	ShadowIntensity       *float32   `json:"shadowIntensity,omitempty"`       // version 1200
	AttenuationStartTrack *Track     `json:"attenuationStartTrack,omitempty"` // KLAS, width 1
	AttenuationEndTrack   *Track     `json:"attenuationEndTrack,omitempty"`   // KLAE, width 1
	ColorTrack            *Track     `json:"colorTrack,omitempty"`            // KLAC, width 3
	IntensityTrack        *Track     `json:"intensityTrack,omitempty"`        // KLAI, width 1
	AmbIntensityTrack     *Track     `json:"ambIntensityTrack,omitempty"`     // KLBI, width 1
	AmbColorTrack         *Track     `json:"ambColorTrack,omitempty"`         // KLBC, width 3
	Visibility            *Track     `json:"visibility,omitempty"`            // KLAV, width 1
}

// Attachment is a named point other models attach to.
type Attachment struct {
	Node
	Path         string `json:"path"`
	AttachmentID int32  `json:"attachmentId"`
	Visibility   *Track `json:"visibility,omitempty"` // KATV, width 1
}

// ParticleEmitter is the first-generation emitter (PREM). MDL: ParticleEmitter "…" { …,
// Particle { LifeSpan, InitVelocity, Path } }.
type ParticleEmitter struct {
	Node
	EmissionRate      float32 `json:"emissionRate"`
	Gravity           float32 `json:"gravity"`
	Longitude         float32 `json:"longitude"`
	Latitude          float32 `json:"latitude"`
	Path              string  `json:"path"`
	LifeSpan          float32 `json:"lifeSpan"`
	InitVelocity      float32 `json:"initVelocity"`
	EmissionRateTrack *Track  `json:"emissionRateTrack,omitempty"` // KPEE
	GravityTrack      *Track  `json:"gravityTrack,omitempty"`      // KPEG
	LongitudeTrack    *Track  `json:"longitudeTrack,omitempty"`    // KPLN
	LatitudeTrack     *Track  `json:"latitudeTrack,omitempty"`     // KPLT
	LifeSpanTrack     *Track  `json:"lifeSpanTrack,omitempty"`     // KPEL
	InitVelocityTrack *Track  `json:"initVelocityTrack,omitempty"` // KPES
	Visibility        *Track  `json:"visibility,omitempty"`        // KPEV
}

// ParticleEmitter2 is the second-generation emitter (PRE2).
type ParticleEmitter2 struct {
	Node
	Speed             float32       `json:"speed"`
	Variation         float32       `json:"variation"`
	Latitude          float32       `json:"latitude"`
	Gravity           float32       `json:"gravity"`
	LifeSpan          float32       `json:"lifeSpan"`
	EmissionRate      float32       `json:"emissionRate"`
	Width             float32       `json:"width"`
	Length            float32       `json:"length"`
	FilterMode        uint32        `json:"filterMode"` // 0 Blend, 1 Additive, 2 Modulate, 3 Modulate2x, 4 AlphaKey
	Rows              uint32        `json:"rows"`
	Columns           uint32        `json:"columns"`
	HeadOrTail        uint32        `json:"headOrTail"` // 0 Head, 1 Tail, 2 Both
	TailLength        float32       `json:"tailLength"`
	Time              float32       `json:"time"`
	SegmentColor      [3][3]float32 `json:"segmentColor"`
	SegmentAlpha      [3]uint8      `json:"segmentAlpha"`
	SegmentScaling    [3]float32    `json:"segmentScaling"`
	HeadIntervals     [2][3]uint32  `json:"headIntervals"` // MDL: LifeSpanUVAnim, DecayUVAnim
	TailIntervals     [2][3]uint32  `json:"tailIntervals"` // MDL: TailUVAnim, TailDecayUVAnim
	TextureID         int32         `json:"textureId"`
	Squirt            uint32        `json:"squirt"`
	PriorityPlane     int32         `json:"priorityPlane"`
	ReplaceableID     uint32        `json:"replaceableId"`
	SpeedTrack        *Track        `json:"speedTrack,omitempty"`        // KP2S
	VariationTrack    *Track        `json:"variationTrack,omitempty"`    // KP2R
	LatitudeTrack     *Track        `json:"latitudeTrack,omitempty"`     // KP2L
	GravityTrack      *Track        `json:"gravityTrack,omitempty"`      // KP2G
	EmissionRateTrack *Track        `json:"emissionRateTrack,omitempty"` // KP2E
	LengthTrack       *Track        `json:"lengthTrack,omitempty"`       // KP2W (MDL Length; the tags are crossed)
	WidthTrack        *Track        `json:"widthTrack,omitempty"`        // KP2N (MDL Width)
	Visibility        *Track        `json:"visibility,omitempty"`        // KP2V
}

// RibbonEmitter leaves a ribbon trail (RIBB).
type RibbonEmitter struct {
	Node
	HeightAbove      float32    `json:"heightAbove"`
	HeightBelow      float32    `json:"heightBelow"`
	Alpha            float32    `json:"alpha"`
	Color            [3]float32 `json:"color"`
	LifeSpan         float32    `json:"lifeSpan"`
	TextureSlot      uint32     `json:"textureSlot"`
	EmissionRate     uint32     `json:"emissionRate"`
	Rows             uint32     `json:"rows"`
	Columns          uint32     `json:"columns"`
	MaterialID       int32      `json:"materialId"`
	Gravity          float32    `json:"gravity"`
	HeightAboveTrack *Track     `json:"heightAboveTrack,omitempty"` // KRHA
	HeightBelowTrack *Track     `json:"heightBelowTrack,omitempty"` // KRHB
	AlphaTrack       *Track     `json:"alphaTrack,omitempty"`       // KRAL
	ColorTrack       *Track     `json:"colorTrack,omitempty"`       // KRCO, width 3
	TextureSlotTrack *Track     `json:"textureSlotTrack,omitempty"` // KRTX
	Visibility       *Track     `json:"visibility,omitempty"`       // KRVS
}

// Camera is a named camera (CAMS); it is not a node.
type Camera struct {
	Name              string     `json:"name"`
	Position          [3]float32 `json:"position"`
	FieldOfView       float32    `json:"fieldOfView"`
	FarClip           float32    `json:"farClip"`
	NearClip          float32    `json:"nearClip"`
	TargetPosition    [3]float32 `json:"targetPosition"`
	Translation       *Track     `json:"translation,omitempty"`       // KCTR, width 3
	Rotation          *Track     `json:"rotation,omitempty"`          // KCRL, width 1 (roll)
	TargetTranslation *Track     `json:"targetTranslation,omitempty"` // KTTR, width 3
}

// EventObject fires game events at frames. MDL: EventObject "…" { EventTrack n { frames }, GlobalSeqId k }.
type EventObject struct {
	Node
	GlobalSeq int32    `json:"globalSequence"`   // -1 for none
	Frames    []uint32 `json:"frames,omitempty"` // nil when the object has no KEVT block
}

// Collision shape types.
const (
	ShapeBox      = 0
	ShapePlane    = 1
	ShapeSphere   = 2
	ShapeCylinder = 3
)

// CollisionShape is a hit volume (CLID). Box, Plane and Cylinder have 2 vertices, Sphere 1;
// Sphere and Cylinder have a radius.
type CollisionShape struct {
	Node
	Type         uint32       `json:"type"`
	Vertices     [][3]float32 `json:"vertices"`
	BoundsRadius float32      `json:"boundsRadius"`
}
