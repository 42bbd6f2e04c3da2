package elem

// File is the raw content of one .elem file, as written: left-handed Direct3D data, colours
// already reordered from A:R:G:B to RGBA, times as fractions of the animation time.
type File struct {
	Version    string // the "File Version" header value, e.g. "1.00"
	Setting    Setting
	Containers []Container
	Nodes      []Node // the hierarchy in pre-order; Parent indexes this list
	Rendering  []RenderingMesh
	Animations []Animation
	Unknown    []UnknownScope // scopes the reader does not know, skipped
	Warnings   []string
}

// Setting is the Setting scope.
type Setting struct {
	SoftVersion     string // ElfreinaSoftVersion (or SoftVersion)
	LoadType        string
	IsRightHand     bool
	HasIsRightHand  bool              // IsRightHand was given
	Other           map[string]string // keys the reader does not know, as written
	Present         bool              // the scope was in the file
	IsRightHandLine int
}

// Container is one MeshContainer scope.
type Container struct {
	Name          string
	BoneCount     int
	MeshCount     int
	MaterialCount int
	VertexFormat  []string
	BoneNames     []string
	Offsets       [][16]float32 // OffsetMatrices, Direct3D row-major
	Materials     []Material
	Meshes        []Mesh
	Line          int
}

// Material is one Material scope.
type Material struct {
	Name              string
	Diffuse           [4]float32 // RGBA
	Ambient           [4]float32 // RGBA
	Emissive          [4]float32 // RGBA
	Specular          [4]float32 // RGBA
	HasDiffuse        bool
	SpecularSharpness float32
	Texture           string // TextureFilename as written
	Line              int
}

// Mesh is one Mesh scope.
type Mesh struct {
	Name        string
	VertexCount int // -1 when not given
	FaceCount   int // -1 when not given
	Positions   [][3]float32
	Normals     [][3]float32
	Colors      [][4]float32 // RGBA
	UVs         [8][][2]float32
	HasUV       [8]bool
	Blend       []BlendPart
	Faces       [][3]uint32
	Attributes  []uint32
	HasAttrs    bool
	Line        int
	FacesLine   int            // line of the VertexIndices scope
	AttrsLine   int            // line of the Attributes scope
	Lines       map[string]int // line of each per-vertex list scope, by canonical name
}

// BlendPart is one BlendPart scope: one bone's weights over the mesh's vertices.
type BlendPart struct {
	BoneName       string
	TransformIndex int // -1 when not given
	Vertices       []uint32
	Weights        []float32
	Line           int
}

// Node is one Node scope of the HierarchyList.
type Node struct {
	Name    string
	Parent  int // index into File.Nodes, -1 for a root
	Init    [16]float32
	HasInit bool
	Line    int
}

// RenderingMesh is one RenderingMesh scope.
type RenderingMesh struct {
	Name           string
	HierarchyNames []string
	Line           int
}

// Animation is one AnimationData scope.
type Animation struct {
	Name           string
	TimeMS         float64 // AnimationTime, milliseconds
	FrameRate      float64 // FrameParSecond
	TransitionTime float64
	Priority       float64
	Loop           bool
	TimeKeys       []float32 // BoneAnimation's own TimeKeys
	Parts          []AnimationPart
	UVTimeKeys     []float32
	UVParts        []UVPart
	HasUV          bool
	Line           int
}

// AnimationPart is one AnimationPart of a BoneAnimation.
type AnimationPart struct {
	NodeName string
	Times    []float32 // fractions of the animation time
	Trans    [][3]float32
	Rotate   [][4]float32 // x, y, z, w
	Scale    [][3]float32
	Line     int
}

// UVPart is one AnimationPart of a UVAnimation.
type UVPart struct {
	ContainerName string
	MaterialName  string
	Times         []float32
	Trans         [][2]float32
	Rotate        []float32 // radians
	Scale         [][2]float32
	Line          int
}

// UnknownScope is a scope the reader skipped.
type UnknownScope struct {
	Path string `json:"path"` // slash-separated scope names from the top, e.g. "MeshDatas/MeshContainer/Foo"
	Line int    `json:"line"`
}
