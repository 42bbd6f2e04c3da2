package m2

import (
	"slices"

	"github.com/modelfs/modelfs/translate/scene"
)

// interpName names an M2 interpolation type. 2 and 3 are the spline types; sources disagree on
// which is Bezier and which Hermite (this follows the wowdev wiki: 2 Bezier, 3 Hermite).
func interpName(i uint16) string {
	switch i {
	case 0:
		return "none"
	case 1:
		return "linear"
	case 2:
		return "bezier"
	case 3:
		return "hermite"
	}
	return "unknown"
}

// interpNames holds interpName's results boxed once, and noGlobalSeq the usual global
// sequence (none), so that trackInfo, called for every track of every object, does not box them
// again each time.
var (
	interpNames     = [...]any{interpName(0), interpName(1), interpName(2), interpName(3), interpName(4)}
	noGlobalSeq any = int16(-1)
)

// trackInfo summarises a track for the metadata: interpolation, global sequence, the number of
// keys in each sequence (or on the timeline) and the value when every key holds the same one.
func trackInfo(t *Track) scene.Extras {
	x := make(scene.Extras, 5)
	x["interpolation"] = interpNames[min(int(t.Interp), len(interpNames)-1)]
	if t.GlobalSeq == -1 {
		x["globalSequence"] = noGlobalSeq
	} else {
		x["globalSequence"] = t.GlobalSeq
	}
	total := 0
	for i := range t.Keys {
		total += len(t.Keys[i].Times)
	}
	x["keys"] = total
	if len(t.Keys) > 1 {
		keys := make([]int, len(t.Keys))
		for i := range t.Keys {
			keys[i] = len(t.Keys[i].Times)
		}
		x["keysPerSequence"] = keys
	}
	if v, ok := constant(t); ok {
		x["value"] = slices.Clone(v) // the track's memory is reused once the model is built
	}
	return x
}

// keyTimes lists the times of a track's keys, per sequence (for events), copied: the track's
// memory is reused once the model is built.
func keyTimes(t *Track) [][]uint32 {
	out := make([][]uint32, len(t.Keys))
	for i := range t.Keys {
		out[i] = append([]uint32{}, t.Keys[i].Times...)
	}
	return out
}

// extras records everything glTF has no place for.
func (b *builder) extras() {
	m := b.m
	ex := b.s.Extras
	bounds := func(bb Bounds) scene.Extras {
		return scene.Extras{"min": bb.Min, "max": bb.Max, "radius": bb.Radius}
	}
	ex["model"] = scene.Extras{
		"name": m.Name, "version": m.Version, "layout": m.Layout.Name, "flags": flagNames(m.Flags, modelFlagNames),
		"bounds": bounds(m.Bounds), "boundsAxes": "source (Z-up)", "loopingNote": loopingNote,
	}
	if len(m.CollisionIndices) > 0 || len(m.CollisionPositions) > 0 {
		ex["collision"] = scene.Extras{
			"bounds": bounds(m.Collision), "triangles": len(m.CollisionIndices) / 3,
			"vertices": len(m.CollisionPositions), "normals": len(m.CollisionNormals),
		}
	}
	if len(m.GlobalSequences) > 0 {
		ex["globalSequences"] = m.GlobalSequences
		ex["globalSequenceNote"] = GlobalSequenceNote
	}
	prof := scene.Extras{"count": m.SkinProfiles, "used": m.ViewIndex}
	if m.View == nil {
		prof["used"] = nil
	}
	if !m.Layout.Legacy {
		var files []scene.Extras
		for _, f := range m.SkinFiles {
			files = append(files, scene.Extras{"name": f.Name, "read": f.Present})
		}
		prof["files"] = files
		prof["file"] = m.SkinFile
		prof["note"] = "only the profile used and those tried before it are read; read: false means not read, not necessarily missing"
	}
	if v := m.View; v != nil {
		prof["vertices"], prof["triangles"], prof["submeshes"], prof["textureUnits"] = len(v.Vertices), len(v.Indices)/3, len(v.Submeshes), len(v.Units)
		prof["boneCountMax"] = v.BoneCountMax
		if v.ShadowBatches > 0 {
			prof["shadowBatches"] = v.ShadowBatches
		}
	}
	ex["skinProfiles"] = prof
	var missing []string
	for _, q := range m.Sequences {
		if q.AnimMissing {
			missing = append(missing, q.AnimFile)
		}
	}
	if len(missing) > 0 {
		ex["missingAnimFiles"] = missing
	}
	b.lookExtras()
	b.objectExtras()
}

// lookExtras records the model's texture slots and the tracks of its looks.
func (b *builder) lookExtras() {
	m, ex := b.m, b.s.Extras
	var slots []scene.Extras
	for i, t := range m.Textures {
		if t.Type != 0 {
			slots = append(slots, scene.Extras{"texture": i, "type": t.Type, "slot": TextureTypeName(t.Type), "source": slotNote(t.Type)})
		}
	}
	putSome(ex, "textureSlots", len(slots), slots)
	putSome(ex, "textureReplace", len(m.TextureReplace), m.TextureReplace)
	putSome(ex, "textureCombinerCombos", len(m.TextureCombos), m.TextureCombos)
	var colors []scene.Extras
	for i := range m.Colors {
		colors = append(colors, scene.Extras{"color": trackInfo(&m.Colors[i].Color), "alpha": trackInfo(&m.Colors[i].Alpha)})
	}
	putSome(ex, "colors", len(colors), colors)
	var weights []scene.Extras
	for i := range m.TextureWeights {
		weights = append(weights, trackInfo(&m.TextureWeights[i]))
	}
	putSome(ex, "textureWeights", len(weights), weights)
	var transforms []scene.Extras
	for i := range m.TextureTransforms {
		t := &m.TextureTransforms[i]
		transforms = append(transforms, scene.Extras{"translation": trackInfo(&t.Translation), "rotation": trackInfo(&t.Rotation), "scale": trackInfo(&t.Scale)})
	}
	putSome(ex, "textureTransforms", len(transforms), transforms)
}

// objectExtras records the model's attachments, events, lights, cameras and emitters.
func (b *builder) objectExtras() {
	m, ex := b.m, b.s.Extras
	var attachments []scene.Extras
	for i := range m.Attachments {
		a := &m.Attachments[i]
		attachments = append(attachments, scene.Extras{"id": a.ID, "name": attachmentName(a.ID), "bone": a.Bone, "node": b.nb + i,
			"position": convPos(a.Pos), "animated": trackInfo(&a.Animated)})
	}
	putSome(ex, "attachments", len(attachments), attachments)
	var events []scene.Extras
	for i := range m.Events {
		e := &m.Events[i]
		events = append(events, scene.Extras{"id": e.Ident, "data": e.Data, "bone": e.Bone, "position": convPos(e.Pos),
			"globalSequence": e.Enabled.GlobalSeq, "times": keyTimes(&e.Enabled)})
	}
	putSome(ex, "events", len(events), events)
	var lights []scene.Extras
	for i := range m.Lights {
		l := &m.Lights[i]
		kind := "point"
		if l.Type == 0 {
			kind = "directional"
		}
		lights = append(lights, scene.Extras{"type": l.Type, "kind": kind, "bone": l.Bone, "position": convPos(l.Pos),
			"ambientColor": trackInfo(&l.AmbientColor), "ambientIntensity": trackInfo(&l.AmbientIntensity),
			"diffuseColor": trackInfo(&l.DiffuseColor), "diffuseIntensity": trackInfo(&l.DiffuseIntensity),
			"attenuationStart": trackInfo(&l.AttenuationStart), "attenuationEnd": trackInfo(&l.AttenuationEnd),
			"visibility": trackInfo(&l.Visibility)})
	}
	putSome(ex, "lights", len(lights), lights)
	var cameras []scene.Extras
	for i := range m.Cameras {
		c := &m.Cameras[i]
		x := scene.Extras{"type": c.Type, "far": c.Far, "near": c.Near,
			"position": convPos(c.PosBase), "target": convPos(c.TargetBase),
			"positions": trackInfo(&c.Positions), "targets": trackInfo(&c.Targets), "roll": trackInfo(&c.Roll),
			"splineNote": "position, target and roll keys are spline keys (value, in-tangent, out-tangent), in source axes"}
		if c.HasFOVTrack {
			x["fieldOfView"] = trackInfo(&c.FOVTrack)
		} else {
			x["fieldOfView"] = c.FOV
		}
		cameras = append(cameras, x)
	}
	putSome(ex, "cameras", len(cameras), cameras)
	putSome(ex, "cameraLookup", len(m.CameraLookup), m.CameraLookup)
	b.emitterExtras(ex)
	if len(events)+len(lights)+len(cameras)+len(m.Ribbons)+len(m.Particles)+len(attachments) > 0 {
		ex["objectNote"] = "positions of attachments, events, lights, cameras and emitters are in glTF axes (Y-up); bone numbers are node indices"
	}
}

// putSome sets ex[key] to v when there are some (n > 0).
func putSome(ex scene.Extras, key string, n int, v any) {
	if n > 0 {
		ex[key] = v
	}
}
