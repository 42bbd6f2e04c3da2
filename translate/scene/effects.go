package scene

// Emitters are what a game draws beyond meshes: particles and ribbons. A decoder describes
// each emitter by the rules its game runs it with (Emitter); translate/fx simulates them and
// bakes what they draw into nodes, meshes and channels of the scene. Encoders never read an
// Emitter: they see the baked geometry, marked by Effects.

// KindEffect is the node kind of baked effect geometry: an emitter's own node (holding the
// emitter's index in the .json's emitters as extras "emitter"), and under it one node per
// sampled moment.
const KindEffect NodeKind = "effect"

// Emitter describes one emitter in the scene's frame of reference (Y up): it emits along its
// node's +Y, spreads its spawn area over the node's X (Width) and Z (Length), and its
// particles fall along the scene's −Y. Times are seconds, lengths scene units.
type Emitter struct {
	Name  string
	Kind  string // the kind the .json gives it (particle2, ribbon, m2particle, …)
	Index int    // its index in the .json's emitters (scene extras "emitters")
	Node  int    // the node it moves with, an index into Scene.Nodes
	// Seed makes its random numbers: decoders derive it from the model's content and the
	// emitter's index, so that the same file always bakes the same bytes.
	Seed uint64
	// Material is what its quads are drawn with, an index into Scene.Materials: the emitter's
	// texture, blended as its filter mode blends. -1 leaves the emitter out.
	Material int
	// Additive says the game adds its quads onto what is behind them, where glTF can only
	// blend: where they pile up, the game's colour saturates, and the baker brightens the
	// quads there to show it.
	Additive bool
	// Ribbon says it draws a strip through the points it leaves behind (Above, Below), not
	// particles.
	Ribbon bool

	Rate       Param   // emissions per second (particles, or ribbon edges)
	Visibility Param   // emits while above 0
	LifeSpan   float32 // how long a particle or an edge lives

	// Particles.
	Speed, Variation, Latitude, Gravity Param // units/s, a fraction of speed, degrees, units/s²
	Width, Length                       Param // the spawn area (full sizes)
	// Squirt emits Rate particles at once whenever the rate's key changes, instead of a stream.
	Squirt bool
	// Line spreads the directions in the node's YZ plane only (a fan), not a cone.
	Line bool
	// Sphere spawns particles on a shell around the node, between Length and Width from it,
	// flying outward (up to Latitude above or below its XZ plane); not over an area.
	Sphere bool
	// Source, when above 0, is a point that far along the node's +Y from which particles fly
	// out through where they spawn, instead of along +Y.
	Source Param
	// ModelSpace particles move with the node after they are emitted; the others stay in the
	// world where they were emitted.
	ModelSpace bool
	// XYQuad particles lie flat (in the XZ plane), turned to face their direction of travel;
	// the others face the viewer.
	XYQuad     bool
	Head, Tail bool    // draw the particle, and a streak behind it along its velocity
	TailLength float32 // the streak's length, in seconds of travel
	// Middle is the share of a particle's life at which the second of its three segments is
	// reached: Colors and Scales run from the first to the second over [0, Middle], from the
	// second to the third over [Middle, 1].
	Middle float32
	Colors [3][4]float32 // sRGB and alpha, 0 to 1
	Scales [3]float32    // half the side of the quad
	// Cells are the texture cells shown over a particle's life: head over [0, Middle] and
	// [Middle, 1], then the tail's two; each (start, end, repeat): cells start to end-1, run
	// repeat times.
	Cells         [4][3]uint32
	Rows, Columns int

	// Ribbons: the edge's extent above and below the node (along its −Z and +Z), its colour
	// (sRGB, width 3), alpha and texture row (Slot).
	Above, Below, Alpha, Color, Slot Param
}

// Param is a parameter that may be animated: Curve's value when it has one, else Value.
type Param struct {
	Value [3]float32
	Curve Curve
}

// Curve is an animated parameter, evaluated as the game does.
type Curve interface {
	// At returns the value at t seconds into clip c, and the index of the key in effect (for
	// squirting emitters; -1 before the first key or when none counts).
	At(c Clip, t float64) (v [3]float32, key int)
}

// Clip names one of the scene's animations to a Curve.
type Clip struct {
	Index      int     // index into Scene.Animations
	Start, End float64 // the animation's window on the source timeline (Animation.Start, End)
}

// At evaluates p at t seconds into clip c.
func (p *Param) At(c Clip, t float64) ([3]float32, int) {
	if p.Curve == nil {
		return p.Value, -1
	}
	return p.Curve.At(c, t)
}

// Scalar is At's first component.
func (p *Param) Scalar(c Clip, t float64) float32 {
	v, _ := p.At(c, t)
	return v[0]
}

// Effects says which of the scene's nodes, meshes and shapes are baked effects: the last
// Nodes, Meshes and Shapes of their lists. Outputs that describe the model (the .json) or
// show its rest pose only (OBJ) leave them out; glTF plays them.
type Effects struct {
	// View is the direction, from the model, of the viewer its billboards are baked to face
	// (the game's default view of it: a portrait camera, say); zero means the front, +X.
	View [3]float32
	// Nodes, Meshes and Shapes count the baked items at the end of each list.
	Nodes, Meshes, Shapes int
	// Baked lists, per baked emitter, what was made of it, for the .json.
	Baked []Extras
}

// Models returns the counts of s's nodes, meshes and shapes that are the model's own, not
// baked effects.
func (s *Scene) Models() (nodes, meshes, shapes int) {
	return len(s.Nodes) - s.Effects.Nodes, len(s.Meshes) - s.Effects.Meshes, len(s.Shapes) - s.Effects.Shapes
}
