package m2

// Model is one M2 file as read, with the skin profile and .anim files it uses, in the source's
// own terms (Z-up, milliseconds). Read fills it; Build turns it into a scene.
type Model struct {
	Version uint32
	Layout  Layout
	Name    string
	Flags   uint32

	GlobalSequences []uint32 // period of each global sequence, ms
	Sequences       []Sequence
	SequenceLookup  []int16
	Bones           []Bone
	KeyBoneLookup   []int16
	Vertices        []Vertex

	// SkinProfiles is the number of views in the file (< 264) or of NameNN.skin files it
	// declares (≥ 264). View is the one read (nil when none could be read), ViewIndex its number
	// and SkinFile its file name (≥ 264).
	SkinProfiles int
	View         *View
	ViewIndex    int
	SkinFile     string
	// SkinFiles lists, for ≥ 264, every profile's file name and whether it is present.
	SkinFiles []SkinFile

	Colors             []Color
	Textures           []Texture
	TextureWeights     []Track // fixed16 → [0, 1]
	TextureTransforms  []TextureTransform
	TextureReplace     []int16
	Materials          []Material
	BoneLookup         []int16
	TextureLookup      []int16
	TexUnitLookup      []int16
	TransparencyLookup []int16
	TransformLookup    []int16
	Bounds             Bounds
	Collision          Bounds
	CollisionIndices   []uint16
	CollisionPositions [][3]float32
	CollisionNormals   [][3]float32
	Attachments        []Attachment
	AttachmentLookup   []int16
	Events             []Event
	Lights             []Light
	Cameras            []Camera
	CameraLookup       []int16
	Ribbons            []Ribbon
	Particles          []Particle
	TextureCombos      []uint16 // header flag 0x8

	// SourceBytes is the size of the files read: the .m2, its skin and .anim files.
	SourceBytes int
	// Seed makes the random numbers of its emitters: a hash of the .m2's bytes, so that the
	// same file always bakes the same particles.
	Seed uint64

	// Warnings lists what the reader tolerated or left out.
	Warnings []string
}

// SkinFile is one declared skin profile file.
type SkinFile struct {
	Name    string // as the mount shows it, relative to the root
	Present bool
}

// Sequence is one animation (M2Sequence).
type Sequence struct {
	ID, Variation uint16
	// Start and End are the window on the global timeline (< 264); from 264 Start is 0 and End
	// the duration.
	Start, End    uint32
	MoveSpeed     float32
	Flags         uint32
	Frequency     int16
	ReplayMin     uint32
	ReplayMax     uint32
	BlendTime     uint32
	Bounds        Bounds
	NextVariation int16
	AliasNext     uint16

	// AnimFile is the .anim file holding the keys (≥ 264, flag 0x20 clear, not an alias); "" when
	// the keys are in the model. AnimMissing says it could not be read.
	AnimFile    string
	AnimMissing bool
}

// Sequence flags.
const (
	SeqKeysInModel = 0x20 // ≥ 264: the keys are in the .m2, not in an .anim file
	SeqAlias       = 0x40 // this sequence plays sequence AliasNext
)

// Duration returns the length of the sequence in ms.
func (s *Sequence) Duration() uint32 {
	if s.End < s.Start {
		return 0
	}
	return s.End - s.Start
}

// Bounds is an axis-aligned box and a radius (CAaBox + float).
type Bounds struct {
	Min, Max [3]float32
	Radius   float32
}

// Bone is one M2CompBone.
type Bone struct {
	KeyBone     int32
	Flags       uint32
	Parent      int16
	Submesh     uint16
	CRC         uint32
	Translation Track // vec3
	Rotation    Track // quaternion x, y, z, w, normalised
	Scale       Track // vec3
	Pivot       [3]float32
}

// Track is one M2Track: keys and how to interpolate them.
type Track struct {
	Interp    uint16 // 0 none, 1 linear, 2 and 3 splines (only meaningful on spline-key tracks)
	GlobalSeq int16  // -1, or the global sequence whose clock the track runs on
	Width     int    // floats per key (a spline key holds value, in-tangent, out-tangent)
	// Ranges (< 264 only) gives each sequence's first and last key index on the timeline.
	Ranges [][2]uint32
	// Keys holds one key list per sequence (≥ 264), or a single list: the whole timeline
	// (< 264) or the keys of a global-sequence track.
	Keys []Keys
}

// Keys is one key list.
type Keys struct {
	Times  []uint32
	Values []float32 // Width floats per key
}

// Len returns the number of keys.
func (k *Keys) Len() int { return len(k.Times) }

// Empty reports whether the track has no key at all.
func (t *Track) Empty() bool {
	for i := range t.Keys {
		if len(t.Keys[i].Times) > 0 {
			return false
		}
	}
	return true
}

// Vertex is one M2Vertex.
type Vertex struct {
	Pos     [3]float32
	Weights [4]uint8
	Bones   [4]uint8
	Normal  [3]float32
	UV      [2][2]float32
}

// View is one skin profile: the vertex and triangle lists of one level of detail.
type View struct {
	Vertices      []uint16 // indices into Model.Vertices
	Indices       []uint16 // triangles, indices into Vertices
	Properties    int      // count of the per-vertex bone property records (not used)
	Submeshes     []Submesh
	Units         []TexUnit
	BoneCountMax  uint32
	ShadowBatches int // ≥ 272 .skin files
}

// Submesh is one M2SkinSection.
type Submesh struct {
	ID             uint16 // geoset id: group × 100 + variant
	Level          uint16
	VertexStart    uint16
	VertexCount    uint16
	IndexStart     uint32 // with Level << 16 added
	IndexCount     uint16
	BoneCount      uint16
	BoneComboIndex uint16
	BoneInfluences uint16
	CenterBone     uint16
	Center         [3]float32
	SortCenter     [3]float32
	SortRadius     float32
}

// TexUnit is one M2Batch (texture unit).
type TexUnit struct {
	Flags          uint8
	Priority       int8
	Shader         uint16
	Submesh        uint16
	Geoset         uint16
	Color          int16
	Material       uint16
	Layer          uint16
	TextureCount   uint16
	TextureCombo   uint16
	TexCoordCombo  uint16
	WeightCombo    uint16
	TransformCombo uint16
}

// Texture is one M2Texture.
type Texture struct {
	Type  uint32 // 0: Path is the file; else a runtime slot (see TextureTypeName)
	Flags uint32 // 1 wrap X, 2 wrap Y
	Path  string
}

// Material is one M2Material: render flags and blend mode.
type Material struct {
	Flags uint16
	Blend uint16
}

// Color is one M2Color.
type Color struct {
	Color Track // RGB
	Alpha Track // [0, 1]
}

// TextureTransform is one M2TextureTransform.
type TextureTransform struct {
	Translation, Rotation, Scale Track
}

// Attachment is one M2Attachment.
type Attachment struct {
	ID       uint32
	Bone     uint16
	Unknown  uint16
	Pos      [3]float32
	Animated Track // uint8
}

// Event is one M2Event.
type Event struct {
	Ident   string
	Data    uint32
	Bone    uint32
	Pos     [3]float32
	Enabled Track // times only (Width 0)
}

// Light is one M2Light.
type Light struct {
	Type             uint16
	Bone             int16
	Pos              [3]float32
	AmbientColor     Track
	AmbientIntensity Track
	DiffuseColor     Track
	DiffuseIntensity Track
	AttenuationStart Track
	AttenuationEnd   Track
	Visibility       Track
}

// Camera is one M2Camera.
type Camera struct {
	Type        int32
	FOV         float32 // < 271; from 271 FOVTrack
	Far, Near   float32
	Positions   Track // spline keys of vec3
	PosBase     [3]float32
	Targets     Track // spline keys of vec3
	TargetBase  [3]float32
	Roll        Track // spline keys of float
	FOVTrack    Track // spline keys of float (≥ 271)
	HasFOVTrack bool
}

// Ribbon is one M2Ribbon emitter.
type Ribbon struct {
	ID               int32
	Bone             uint32
	Pos              [3]float32
	Textures         []uint16
	Materials        []uint16
	Color            Track
	Alpha            Track
	HeightAbove      Track
	HeightBelow      Track
	EdgesPerSecond   float32
	EdgeLifetime     float32
	Gravity          float32
	Rows, Cols       uint16
	TexSlot          Track
	Visibility       Track
	PriorityPlane    int16
	HasPriorityPlane bool
}

// Particle is one M2Particle emitter: the fixed fields and the scalar tracks.
type Particle struct {
	ID                int32
	Flags             uint32
	Pos               [3]float32
	Bone              uint16
	Texture           uint16
	Model             string
	ChildEmitter      string
	Blend             uint16
	EmitterType       uint16
	ColorIndex        uint16
	ParticleType      uint8
	HeadOrTail        uint8
	TileRotation      uint16
	Rows, Cols        uint16
	EmissionSpeed     Track
	SpeedVariation    Track
	VerticalRange     Track
	HorizontalRange   Track
	Gravity           Track
	Lifespan          Track
	EmissionRate      Track
	EmissionAreaLen   Track
	EmissionAreaWidth Track
	ZSource           Track
	Enabled           Track

	// Over a particle's life, before 264: three keys, at its start, at MidPoint (a share of
	// its life) and at its end.
	MidPoint                    float32
	ColorValues                 [3][4]uint8 // RGBA (the file holds BGRA)
	ScaleValues                 [3]float32
	LifespanUVAnim              [3]uint16 // head cells over [0, MidPoint]: first, last, repeat
	DecayUVAnim                 [3]uint16 // head cells over [MidPoint, 1]
	TailUVAnim, TailDecayUVAnim [2]int16
	// Over a particle's life, from 264: keys at shares of its life.
	ColorTrack, AlphaTrack, ScaleTrack, HeadCellTrack, TailCellTrack PartTrack
	ScaleVary                                                        [2]float32
	LifespanVary, EmissionRateVary                                   float32
	BaseSpin, BaseSpinVary, SpinVary                                 float32

	TailLength, TwinkleSpeed, TwinklePercent float32
	TwinkleScale                             [2]float32
	BurstMultiplier, Drag, Spin              float32
	WindVector                               [3]float32
	WindTime                                 float32
	FollowSpeed1, FollowScale1               float32
	FollowSpeed2, FollowScale2               float32
}

// PartTrack is a particle's value over its life (M2's "fake" track): keys at shares of the
// life (0 to 1), linear between them.
type PartTrack struct {
	Times  []float32
	Values []float32 // Width floats per key
	Width  int
}

// At is the value at share u of the life (def with no keys), in out.
func (t *PartTrack) At(u float32, def []float32) []float32 {
	n := len(t.Times)
	if n == 0 || t.Width != len(def) {
		return def
	}
	out := make([]float32, t.Width)
	i := 0
	for i < n && t.Times[i] <= u {
		i++
	}
	switch {
	case i == 0:
		copy(out, t.Values[:t.Width])
	case i == n:
		copy(out, t.Values[(n-1)*t.Width:])
	default:
		a, b := t.Times[i-1], t.Times[i]
		f := float32(0)
		if b > a {
			f = (u - a) / (b - a)
		}
		for c := range out {
			x, y := t.Values[(i-1)*t.Width+c], t.Values[i*t.Width+c]
			out[c] = x + (y-x)*f
		}
	}
	return out
}
