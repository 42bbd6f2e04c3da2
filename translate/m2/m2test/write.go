// Package m2test writes World of Warcraft M2 files for tests: the same model as version 256
// (views inside, one timeline, float quaternions), 260–263 (either header variant), 264 with
// NameNN.skin and .anim files, and 272. It writes what package m2 reads, from an m2.Model in
// the per-sequence form (see Write), and builds the fixture models the tests and benchmarks use.
//
// It is test support: it checks little, and the models it is given must be consistent.
package m2test

import (
	"encoding/binary"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"testing/fstest"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/m2"
)

// Files maps file names (beside each other, no directory) to their bytes.
type Files map[string][]byte

// LegacyGap is the gap, in ms, the writer leaves between sequences on a legacy timeline (the
// value Blizzard's exporter and M2Lib use).
const LegacyGap = 3333

// Write writes m as version (with layout l, which must suit the version) under the base name
// base (no extension): base.m2, and for v ≥ 264 baseNN.skin and the .anim files.
//
// m is given in the per-sequence form: sequence windows are [0, duration] (Start 0, End the
// duration), every non-global track has one key list per sequence (an alias's list is
// ignored), a global-sequence track one list, and times count from the start of their
// sequence or global sequence. views are the skin profiles to write (m.View when nil).
// Sequences without flag 0x20 (and not aliases) get their keys in .anim files for v ≥ 264.
//
// For legacy versions the sequences are laid on one timeline, LegacyGap apart, aliases sharing
// their target's window; a track gets the default value at both ends of a sequence it has no
// keys in (so that the game, following the track's key ranges, shows the same thing).
func Write(m *m2.Model, base string, version uint32, l m2.Layout, views []*m2.View) (Files, error) {
	if views == nil {
		if m.View == nil {
			views = []*m2.View{}
		} else {
			views = []*m2.View{m.View}
		}
	}
	w := &writer{m: m, version: version, l: l, base: base, files: Files{}, anims: map[int]*wbuf{}}
	if err := w.write(views); err != nil {
		return nil, err
	}
	return w.files, nil
}

// wbuf is a growing file.
type wbuf struct{ b []byte }

func (w *wbuf) align() {
	for len(w.b)%16 != 0 {
		w.b = append(w.b, 0)
	}
}

// reserve appends n zero bytes (16-byte aligned) and returns their offset.
func (w *wbuf) reserve(n int) int {
	w.align()
	at := len(w.b)
	w.b = append(w.b, make([]byte, n)...)
	return at
}

func (w *wbuf) u8(at int, v uint8)    { w.b[at] = v }
func (w *wbuf) u16(at int, v uint16)  { binary.LittleEndian.PutUint16(w.b[at:], v) }
func (w *wbuf) u32(at int, v uint32)  { binary.LittleEndian.PutUint32(w.b[at:], v) }
func (w *wbuf) f32(at int, v float32) { w.u32(at, math.Float32bits(v)) }
func (w *wbuf) vec3(at int, v [3]float32) {
	w.f32(at, v[0])
	w.f32(at+4, v[1])
	w.f32(at+8, v[2])
}

// data appends bytes (aligned) and writes the M2Array {n, offset} at at; nothing for n = 0.
func (w *wbuf) data(at, n int, b []byte) {
	if n == 0 {
		w.u32(at, 0)
		w.u32(at+4, 0)
		return
	}
	off := w.reserve(len(b))
	copy(w.b[off:], b)
	w.u32(at, uint32(n))
	w.u32(at+4, uint32(off))
}

// records reserves n records of size bytes, writes their M2Array at at, and returns the offset
// of the first.
func (w *wbuf) records(at, n, size int) int {
	if n == 0 {
		w.u32(at, 0)
		w.u32(at+4, 0)
		return 0
	}
	off := w.reserve(n * size)
	w.u32(at, uint32(n))
	w.u32(at+4, uint32(off))
	return off
}

// Little-endian encoders for data arrays.
func le16s[T ~int16 | ~uint16](v []T) []byte {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(x))
	}
	return b
}

func le32s(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func cstr(s string) []byte { return append([]byte(s), 0) }

// kind is the value type of a track, as written.
type kind int

const (
	kNone kind = iota
	kVec3
	kQuat
	kCompQuat
	kFixed16
	kFloat
	kU8
	kU16
	kSplineVec3
	kSplineFloat
)

func (k kind) width() int {
	switch k {
	case kVec3:
		return 3
	case kQuat, kCompQuat:
		return 4
	case kSplineVec3:
		return 9
	case kSplineFloat:
		return 3
	case kNone:
		return 0
	}
	return 1
}

// encode writes values (width floats each) as kind k.
func (k kind) encode(vals []float32) []byte {
	var out []byte
	put32 := func(f float32) { out = binary.LittleEndian.AppendUint32(out, math.Float32bits(f)) }
	w := k.width()
	for i := 0; w > 0 && i+w <= len(vals); i += w {
		v := vals[i : i+w]
		switch k {
		case kCompQuat:
			s := EncodeExact([4]float32(v))
			for _, x := range s {
				out = binary.LittleEndian.AppendUint16(out, uint16(x))
			}
		case kFixed16:
			out = binary.LittleEndian.AppendUint16(out, uint16(int16(math.Round(float64(v[0])*32767))))
		case kU8:
			out = append(out, uint8(v[0]))
		case kU16:
			out = binary.LittleEndian.AppendUint16(out, uint16(v[0]))
		default:
			for _, f := range v {
				put32(f)
			}
		}
	}
	return out
}

// EncodeExact returns the compressed quaternion that decodes to exactly q when there is one (q
// came from DecodeCompQuat), else the nearest.
func EncodeExact(q [4]float32) [4]int16 {
	s := m2.EncodeCompQuat(q)
	if m2.DecodeCompQuat(s) == q {
		return s
	}
	for d := 0; d < 81; d++ {
		t := s
		c := d
		for i := range t {
			t[i] = int16(int32(t[i]) + int32(c%3) - 1)
			c /= 3
		}
		if m2.DecodeCompQuat(t) == q {
			return t
		}
	}
	return s
}

// OnGrid returns the quaternion nearest q that a compressed quaternion holds exactly, so that a
// model written with float and with compressed quaternions reads back the same.
func OnGrid(q [4]float32) [4]float32 {
	return m2.DecodeCompQuat(m2.EncodeCompQuat(q))
}

// writer carries one Write.
type writer struct {
	m       *m2.Model
	version uint32
	l       m2.Layout
	base    string
	f       wbuf
	files   Files
	windows [][2]uint32 // legacy: each sequence's window on the timeline
	anims   map[int]*wbuf
}

func (w *writer) write(views []*m2.View) error {
	m, l := w.m, w.l
	f := &w.f
	// The header, then the data.
	hs := 8 + 8 + 4 + 9*8 + 8*8 + 56 + 11*8
	if l.Legacy {
		hs += 8
	} else {
		hs += 4
	}
	if l.Playable {
		hs += 8
	}
	if l.Flipbooks {
		hs += 8
	}
	combos := !l.Legacy && m.Flags&0x8 != 0
	if combos {
		hs += 8
	}
	f.b = make([]byte, hs)
	copy(f.b, "MD20")
	f.u32(4, w.version)
	w.layoutSequences()
	at := 8
	next := func() int { a := at; at += 8; return a }
	nameAt := next()
	flagsAt := at
	at += 4
	gloopsAt, seqAt, seqLookupAt := next(), next(), next()
	playableAt := -1
	if l.Playable {
		playableAt = next()
	}
	bonesAt, keyBonesAt, vertsAt := next(), next(), next()
	viewsAt, numSkinAt := -1, -1
	if l.Legacy {
		viewsAt = next()
	} else {
		numSkinAt = at
		at += 4
	}
	colorsAt, texAt, weightsAt := next(), next(), next()
	if l.Flipbooks {
		next()
	}
	transformsAt, replAt, matsAt := next(), next(), next()
	boneLookupAt, texLookupAt, unitLookupAt, transLookupAt, transformLookupAt := next(), next(), next(), next(), next()
	boxAt := at
	at += 56
	collIdxAt, collPosAt, collNormAt := next(), next(), next()
	attAt, attLookupAt, eventsAt, lightsAt := next(), next(), next(), next()
	camsAt, camLookupAt, ribbonsAt, particlesAt := next(), next(), next(), next()
	combosAt := -1
	if combos {
		combosAt = next()
	}
	if at != hs {
		return fmt.Errorf("m2test: header is %d bytes, expected %d", at, hs)
	}
	f.data(nameAt, len(m.Name)+1, cstr(m.Name))
	f.u32(flagsAt, m.Flags)
	f.data(gloopsAt, len(m.GlobalSequences), le32s(m.GlobalSequences))
	w.sequences(seqAt)
	f.data(seqLookupAt, len(m.SequenceLookup), le16s(m.SequenceLookup))
	if playableAt >= 0 {
		f.data(playableAt, 0, nil)
	}
	w.bones(bonesAt)
	f.data(keyBonesAt, len(m.KeyBoneLookup), le16s(m.KeyBoneLookup))
	w.vertices(vertsAt)
	if l.Legacy {
		o := f.records(viewsAt, len(views), 44)
		for i, v := range views {
			w.view(f, o+44*i, v)
		}
	} else {
		f.u32(numSkinAt, uint32(len(views)))
		for i, v := range views {
			var s wbuf
			s.b = make([]byte, 48)
			copy(s.b, "SKIN")
			if w.version >= 272 {
				s.b = append(s.b, make([]byte, 8)...)
			}
			w.view(&s, 4, v)
			w.files[m2.SkinFileName(w.base, i)] = s.b
		}
	}
	w.colors(colorsAt)
	w.textures(texAt)
	o := f.records(weightsAt, len(m.TextureWeights), l.TrackSize)
	for i := range m.TextureWeights {
		w.track(f, o+l.TrackSize*i, &m.TextureWeights[i], kFixed16, []float32{1})
	}
	o = f.records(transformsAt, len(m.TextureTransforms), 3*l.TrackSize)
	for i := range m.TextureTransforms {
		t := &m.TextureTransforms[i]
		p := o + 3*l.TrackSize*i
		w.track(f, p, &t.Translation, kVec3, []float32{0, 0, 0})
		w.track(f, p+l.TrackSize, &t.Rotation, kQuat, []float32{0, 0, 0, 1})
		w.track(f, p+2*l.TrackSize, &t.Scale, kVec3, []float32{1, 1, 1})
	}
	f.data(replAt, len(m.TextureReplace), le16s(m.TextureReplace))
	o = f.records(matsAt, len(m.Materials), 4)
	for i, mt := range m.Materials {
		f.u16(o+4*i, mt.Flags)
		f.u16(o+4*i+2, mt.Blend)
	}
	f.data(boneLookupAt, len(m.BoneLookup), le16s(m.BoneLookup))
	f.data(texLookupAt, len(m.TextureLookup), le16s(m.TextureLookup))
	f.data(unitLookupAt, len(m.TexUnitLookup), le16s(m.TexUnitLookup))
	f.data(transLookupAt, len(m.TransparencyLookup), le16s(m.TransparencyLookup))
	f.data(transformLookupAt, len(m.TransformLookup), le16s(m.TransformLookup))
	for i, b := range []m2.Bounds{m.Bounds, m.Collision} {
		p := boxAt + 28*i
		f.vec3(p, b.Min)
		f.vec3(p+12, b.Max)
		f.f32(p+24, b.Radius)
	}
	f.data(collIdxAt, len(m.CollisionIndices), le16s(m.CollisionIndices))
	f.data(collPosAt, len(m.CollisionPositions), vec3s(m.CollisionPositions))
	f.data(collNormAt, len(m.CollisionNormals), vec3s(m.CollisionNormals))
	w.attachments(attAt)
	f.data(attLookupAt, len(m.AttachmentLookup), le16s(m.AttachmentLookup))
	w.events(eventsAt)
	w.lights(lightsAt)
	w.cameras(camsAt)
	f.data(camLookupAt, len(m.CameraLookup), le16s(m.CameraLookup))
	w.ribbons(ribbonsAt)
	w.particles(particlesAt)
	if combosAt >= 0 {
		f.data(combosAt, len(m.TextureCombos), le16s(m.TextureCombos))
	}
	w.files[w.base+".m2"] = f.b
	for i, a := range w.anims {
		q := m.Sequences[i]
		w.files[m2.AnimFileName(w.base, q.ID, q.Variation)] = a.b
	}
	return nil
}

func vec3s(v [][3]float32) []byte {
	b := make([]byte, 0, 12*len(v))
	for _, x := range v {
		for _, f := range x {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
		}
	}
	return b
}

// target follows alias links.
func (w *writer) target(i int) int {
	seqs := w.m.Sequences
	for steps := 0; seqs[i].Flags&m2.SeqAlias != 0 && steps <= len(seqs); steps++ {
		i = int(seqs[i].AliasNext)
	}
	return i
}

// external reports whether sequence i's keys go to an .anim file.
func (w *writer) external(i int) bool {
	q := w.m.Sequences[i]
	return !w.l.Legacy && q.Flags&m2.SeqKeysInModel == 0 && q.Flags&m2.SeqAlias == 0
}

// layoutSequences places the sequences on the legacy timeline.
func (w *writer) layoutSequences() {
	seqs := w.m.Sequences
	w.windows = make([][2]uint32, len(seqs))
	t := uint32(0)
	for i, q := range seqs {
		if q.Flags&m2.SeqAlias != 0 {
			continue
		}
		t += LegacyGap
		w.windows[i] = [2]uint32{t, t + q.End}
		t += q.End
	}
	for i := range seqs {
		if seqs[i].Flags&m2.SeqAlias != 0 {
			w.windows[i] = w.windows[w.target(i)]
		}
	}
}

func (w *writer) sequences(at int) {
	m, l, f := w.m, w.l, &w.f
	o := f.records(at, len(m.Sequences), l.SequenceSize)
	for i, q := range m.Sequences {
		p := o + l.SequenceSize*i
		f.u16(p, q.ID)
		f.u16(p+2, q.Variation)
		p += 4
		if l.Legacy {
			f.u32(p, w.windows[i][0])
			f.u32(p+4, w.windows[i][1])
			p += 8
		} else {
			f.u32(p, q.End)
			p += 4
		}
		f.f32(p, q.MoveSpeed)
		f.u32(p+4, q.Flags)
		f.u16(p+8, uint16(q.Frequency))
		f.u32(p+12, q.ReplayMin)
		f.u32(p+16, q.ReplayMax)
		f.u32(p+20, q.BlendTime)
		f.vec3(p+24, q.Bounds.Min)
		f.vec3(p+36, q.Bounds.Max)
		f.f32(p+48, q.Bounds.Radius)
		f.u16(p+52, uint16(q.NextVariation))
		f.u16(p+54, q.AliasNext)
	}
}

// track writes track t as kind k at at in f (the record holding the track header). def is the
// value a legacy timeline gets where a sequence has no keys.
func (w *writer) track(f *wbuf, at int, t *m2.Track, k kind, def []float32) {
	f.u16(at, t.Interp)
	f.u16(at+2, uint16(t.GlobalSeq))
	wd := k.width()
	if w.l.Legacy {
		var times []uint32
		var vals []float32
		var ranges []uint32
		switch {
		case t.Empty():
		case t.GlobalSeq >= 0:
			times, vals = t.Keys[0].Times, t.Keys[0].Values
		default:
			for i := range w.m.Sequences {
				win := w.windows[i]
				if w.m.Sequences[i].Flags&m2.SeqAlias != 0 {
					tr := w.ranges(w.target(i), ranges)
					ranges = append(ranges, tr[0], tr[1])
					continue
				}
				first := len(times)
				var ks m2.Keys
				if i < len(t.Keys) {
					ks = t.Keys[i]
				}
				if len(ks.Times) == 0 {
					times = append(times, win[0], win[1])
					vals = append(vals, def...)
					vals = append(vals, def...)
				} else {
					for j, x := range ks.Times {
						times = append(times, win[0]+x)
						vals = append(vals, ks.Values[j*wd:j*wd+wd]...)
					}
				}
				ranges = append(ranges, uint32(first), uint32(len(times)-1))
			}
			ranges = append(ranges, 0, 0)
		}
		f.data(at+4, len(ranges)/2, le32s(ranges))
		f.data(at+12, len(times), le32s(times))
		if k != kNone {
			f.data(at+20, len(times), k.encode(vals))
		}
		return
	}
	n := len(t.Keys)
	if t.GlobalSeq < 0 && !t.Empty() {
		n = len(w.m.Sequences)
	}
	if t.Empty() {
		n = 0
	}
	tAt := f.records(at+4, n, 8)
	vAt := -1
	if k != kNone {
		vAt = f.records(at+12, n, 8)
	}
	for i := 0; i < n; i++ {
		var ks m2.Keys
		if i < len(t.Keys) {
			ks = t.Keys[i]
		}
		dst := f
		if t.GlobalSeq < 0 {
			if w.m.Sequences[i].Flags&m2.SeqAlias != 0 {
				continue
			}
			if w.external(i) {
				if w.anims[i] == nil {
					w.anims[i] = &wbuf{}
				}
				dst = w.anims[i]
			}
		}
		if len(ks.Times) == 0 {
			continue
		}
		toff := dst.reserve(4 * len(ks.Times))
		copy(dst.b[toff:], le32s(ks.Times))
		f.u32(tAt+8*i, uint32(len(ks.Times)))
		f.u32(tAt+8*i+4, uint32(toff))
		if vAt >= 0 {
			enc := k.encode(ks.Values)
			voff := dst.reserve(len(enc))
			copy(dst.b[voff:], enc)
			f.u32(vAt+8*i, uint32(len(ks.Times)))
			f.u32(vAt+8*i+4, uint32(voff))
		}
	}
}

// ranges returns the range already written for sequence i (aliases come after their target in
// the fixtures; an alias before its target gets (0, 0)).
func (w *writer) ranges(i int, ranges []uint32) [2]uint32 {
	if 2*i+1 < len(ranges) {
		return [2]uint32{ranges[2*i], ranges[2*i+1]}
	}
	return [2]uint32{}
}

func (w *writer) bones(at int) {
	m, l, f := w.m, w.l, &w.f
	o := f.records(at, len(m.Bones), l.BoneSize)
	rot := kQuat
	if l.CompressedQuats {
		rot = kCompQuat
	}
	for i := range m.Bones {
		b := &m.Bones[i]
		p := o + l.BoneSize*i
		f.u32(p, uint32(b.KeyBone))
		f.u32(p+4, b.Flags)
		f.u16(p+8, uint16(b.Parent))
		f.u16(p+10, b.Submesh)
		p += 12
		if l.BoneCRC {
			f.u32(p, b.CRC)
			p += 4
		}
		w.track(f, p, &b.Translation, kVec3, []float32{0, 0, 0})
		w.track(f, p+l.TrackSize, &b.Rotation, rot, []float32{0, 0, 0, 1})
		w.track(f, p+2*l.TrackSize, &b.Scale, kVec3, []float32{1, 1, 1})
		f.vec3(p+3*l.TrackSize, b.Pivot)
	}
}

func (w *writer) vertices(at int) {
	m, f := w.m, &w.f
	o := f.records(at, len(m.Vertices), 48)
	for i, v := range m.Vertices {
		p := o + 48*i
		f.vec3(p, v.Pos)
		copy(f.b[p+12:], v.Weights[:])
		copy(f.b[p+16:], v.Bones[:])
		f.vec3(p+20, v.Normal)
		f.f32(p+32, v.UV[0][0])
		f.f32(p+36, v.UV[0][1])
		f.f32(p+40, v.UV[1][0])
		f.f32(p+44, v.UV[1][1])
	}
}

// view writes a skin profile header at at in f, its data at the end of f.
func (w *writer) view(f *wbuf, at int, v *m2.View) {
	f.data(at, len(v.Vertices), le16s(v.Vertices))
	f.data(at+8, len(v.Indices), le16s(v.Indices))
	f.data(at+16, len(v.Vertices), make([]byte, 4*len(v.Vertices)))
	size := w.l.SubmeshSize
	o := f.records(at+24, len(v.Submeshes), size)
	for i, s := range v.Submeshes {
		p := o + size*i
		f.u16(p, s.ID)
		f.u16(p+2, uint16(s.IndexStart>>16))
		f.u16(p+4, s.VertexStart)
		f.u16(p+6, s.VertexCount)
		f.u16(p+8, uint16(s.IndexStart))
		f.u16(p+10, s.IndexCount)
		f.u16(p+12, s.BoneCount)
		f.u16(p+14, s.BoneComboIndex)
		f.u16(p+16, s.BoneInfluences)
		f.u16(p+18, s.CenterBone)
		f.vec3(p+20, s.Center)
		if size >= 48 {
			f.vec3(p+32, s.SortCenter)
			f.f32(p+44, s.SortRadius)
		}
	}
	o = f.records(at+32, len(v.Units), 24)
	for i, u := range v.Units {
		p := o + 24*i
		f.u8(p, u.Flags)
		f.u8(p+1, uint8(u.Priority))
		for k, x := range []uint16{u.Shader, u.Submesh, u.Geoset, uint16(u.Color), u.Material, u.Layer,
			u.TextureCount, u.TextureCombo, u.TexCoordCombo, u.WeightCombo, u.TransformCombo} {
			f.u16(p+2+2*k, x)
		}
	}
	f.u32(at+40, v.BoneCountMax)
}

func (w *writer) colors(at int) {
	m, l, f := w.m, w.l, &w.f
	o := f.records(at, len(m.Colors), 2*l.TrackSize)
	for i := range m.Colors {
		p := o + 2*l.TrackSize*i
		w.track(f, p, &m.Colors[i].Color, kVec3, []float32{1, 1, 1})
		w.track(f, p+l.TrackSize, &m.Colors[i].Alpha, kFixed16, []float32{1})
	}
}

func (w *writer) textures(at int) {
	m, f := w.m, &w.f
	o := f.records(at, len(m.Textures), 16)
	for i, t := range m.Textures {
		p := o + 16*i
		f.u32(p, t.Type)
		f.u32(p+4, t.Flags)
		if t.Path == "" {
			f.data(p+8, 1, []byte{0})
		} else {
			f.data(p+8, len(t.Path)+1, cstr(t.Path))
		}
	}
}

func (w *writer) attachments(at int) {
	m, l, f := w.m, w.l, &w.f
	size := 20 + l.TrackSize
	o := f.records(at, len(m.Attachments), size)
	for i := range m.Attachments {
		a := &m.Attachments[i]
		p := o + size*i
		f.u32(p, a.ID)
		f.u16(p+4, a.Bone)
		f.u16(p+6, a.Unknown)
		f.vec3(p+8, a.Pos)
		w.track(f, p+20, &a.Animated, kU8, []float32{1})
	}
}

func (w *writer) events(at int) {
	m, l, f := w.m, w.l, &w.f
	base := 12
	if l.Legacy {
		base = 20
	}
	size := 24 + base
	o := f.records(at, len(m.Events), size)
	for i := range m.Events {
		e := &m.Events[i]
		p := o + size*i
		copy(f.b[p:p+4], e.Ident)
		f.u32(p+4, e.Data)
		f.u32(p+8, e.Bone)
		f.vec3(p+12, e.Pos)
		w.track(f, p+24, &e.Enabled, kNone, nil)
	}
}

func (w *writer) lights(at int) {
	m, l, f := w.m, w.l, &w.f
	T := l.TrackSize
	size := 16 + 7*T
	o := f.records(at, len(m.Lights), size)
	for i := range m.Lights {
		li := &m.Lights[i]
		p := o + size*i
		f.u16(p, li.Type)
		f.u16(p+2, uint16(li.Bone))
		f.vec3(p+4, li.Pos)
		p += 16
		for k, x := range []struct {
			t  *m2.Track
			kd kind
		}{{&li.AmbientColor, kVec3}, {&li.AmbientIntensity, kFloat}, {&li.DiffuseColor, kVec3}, {&li.DiffuseIntensity, kFloat},
			{&li.AttenuationStart, kFloat}, {&li.AttenuationEnd, kFloat}, {&li.Visibility, kU8}} {
			w.track(f, p+k*T, x.t, x.kd, make([]float32, x.kd.width()))
		}
	}
}

func (w *writer) cameras(at int) {
	m, l, f := w.m, w.l, &w.f
	T := l.TrackSize
	fovTrack := !l.Legacy && w.version >= 271
	size := 16 + 3*T + 24
	if fovTrack {
		size = 12 + 4*T + 24
	}
	o := f.records(at, len(m.Cameras), size)
	for i := range m.Cameras {
		c := &m.Cameras[i]
		p := o + size*i
		f.u32(p, uint32(c.Type))
		p += 4
		if !fovTrack {
			f.f32(p, c.FOV)
			p += 4
		}
		f.f32(p, c.Far)
		f.f32(p+4, c.Near)
		p += 8
		w.track(f, p, &c.Positions, kSplineVec3, make([]float32, 9))
		f.vec3(p+T, c.PosBase)
		p += T + 12
		w.track(f, p, &c.Targets, kSplineVec3, make([]float32, 9))
		f.vec3(p+T, c.TargetBase)
		p += T + 12
		w.track(f, p, &c.Roll, kSplineFloat, make([]float32, 3))
		if fovTrack {
			w.track(f, p+T, &c.FOVTrack, kSplineFloat, make([]float32, 3))
		}
	}
}

func (w *writer) ribbons(at int) {
	m, l, f := w.m, w.l, &w.f
	T := l.TrackSize
	size := 52 + 6*T
	if !l.Legacy {
		size += 4
	}
	o := f.records(at, len(m.Ribbons), size)
	for i := range m.Ribbons {
		r := &m.Ribbons[i]
		p := o + size*i
		f.u32(p, uint32(r.ID))
		f.u32(p+4, r.Bone)
		f.vec3(p+8, r.Pos)
		f.data(p+20, len(r.Textures), le16s(r.Textures))
		f.data(p+28, len(r.Materials), le16s(r.Materials))
		p += 36
		w.track(f, p, &r.Color, kVec3, []float32{1, 1, 1})
		w.track(f, p+T, &r.Alpha, kFixed16, []float32{1})
		w.track(f, p+2*T, &r.HeightAbove, kFloat, []float32{0})
		w.track(f, p+3*T, &r.HeightBelow, kFloat, []float32{0})
		p += 4 * T
		f.f32(p, r.EdgesPerSecond)
		f.f32(p+4, r.EdgeLifetime)
		f.f32(p+8, r.Gravity)
		f.u16(p+12, r.Rows)
		f.u16(p+14, r.Cols)
		p += 16
		w.track(f, p, &r.TexSlot, kU16, []float32{0})
		w.track(f, p+T, &r.Visibility, kU8, []float32{1})
		if !l.Legacy {
			f.u16(p+2*T, uint16(r.PriorityPlane))
		}
	}
}

func (w *writer) particles(at int) {
	m, l, f := w.m, w.l, &w.f
	T := l.TrackSize
	size := 504
	switch {
	case !l.Legacy && w.version >= 272:
		size = 492
	case !l.Legacy:
		size = 476
	}
	o := f.records(at, len(m.Particles), size)
	for i := range m.Particles {
		e := &m.Particles[i]
		p := o + size*i
		f.u32(p, uint32(e.ID))
		f.u32(p+4, e.Flags)
		f.vec3(p+8, e.Pos)
		f.u16(p+20, e.Bone)
		f.u16(p+22, e.Texture)
		f.data(p+24, len(e.Model)+1, cstr(e.Model))
		f.data(p+32, len(e.ChildEmitter)+1, cstr(e.ChildEmitter))
		if w.version < 263 {
			f.u16(p+40, e.Blend)
			f.u16(p+42, e.EmitterType)
		} else {
			f.u8(p+40, uint8(e.Blend))
			f.u8(p+41, uint8(e.EmitterType))
			f.u16(p+42, e.ColorIndex)
		}
		f.u8(p+44, e.ParticleType)
		f.u8(p+45, e.HeadOrTail)
		f.u16(p+46, e.TileRotation)
		f.u16(p+48, e.Rows)
		f.u16(p+50, e.Cols)
		t := p + 52
		vary := 0
		if !l.Legacy {
			vary = 4
		}
		for k, tr := range []*m2.Track{&e.EmissionSpeed, &e.SpeedVariation, &e.VerticalRange, &e.HorizontalRange, &e.Gravity,
			&e.Lifespan, &e.EmissionRate, &e.EmissionAreaLen, &e.EmissionAreaWidth, &e.ZSource} {
			w.track(f, t, tr, kFloat, []float32{0})
			t += T
			if k == 5 || k == 6 {
				t += vary
			}
		}
		if l.Legacy {
			f.f32(t, e.MidPoint)
			for k := range 3 {
				c := e.ColorValues[k]
				f.u8(t+4+4*k, c[2])
				f.u8(t+5+4*k, c[1])
				f.u8(t+6+4*k, c[0])
				f.u8(t+7+4*k, c[3])
				f.f32(t+16+4*k, e.ScaleValues[k])
				f.u16(t+28+2*k, e.LifespanUVAnim[k])
				f.u16(t+34+2*k, e.DecayUVAnim[k])
			}
			for k := range 2 {
				f.u16(t+40+2*k, uint16(e.TailUVAnim[k]))
				f.u16(t+44+2*k, uint16(e.TailDecayUVAnim[k]))
			}
			t += 48
		} else {
			f.f32(p+172, e.LifespanVary)
			f.f32(p+196, e.EmissionRateVary)
			partTrack(f, t, &e.ColorTrack, 4)
			partTrack(f, t+16, &e.AlphaTrack, 2)
			partTrack(f, t+32, &e.ScaleTrack, 4)
			f.f32(t+48, e.ScaleVary[0])
			f.f32(t+52, e.ScaleVary[1])
			partTrack(f, t+56, &e.HeadCellTrack, 0)
			partTrack(f, t+72, &e.TailCellTrack, 0)
			t += 88
		}
		f.f32(t, e.TailLength)
		f.f32(t+4, e.TwinkleSpeed)
		f.f32(t+8, e.TwinklePercent)
		f.f32(t+12, e.TwinkleScale[0])
		f.f32(t+16, e.TwinkleScale[1])
		f.f32(t+20, e.BurstMultiplier)
		f.f32(t+24, e.Drag)
		t += 28
		if l.Legacy {
			f.f32(t, e.Spin)
			t += 4
		} else {
			f.f32(t, e.BaseSpin)
			f.f32(t+4, e.BaseSpinVary)
			f.f32(t+8, e.Spin)
			f.f32(t+12, e.SpinVary)
			t += 16
		}
		t += 24
		f.vec3(t, e.WindVector)
		f.f32(t+12, e.WindTime)
		f.f32(t+16, e.FollowSpeed1)
		f.f32(t+20, e.FollowScale1)
		f.f32(t+24, e.FollowSpeed2)
		f.f32(t+28, e.FollowScale2)
		enabled := p + 476
		if !l.Legacy {
			enabled = p + 456
		}
		w.track(f, enabled, &e.Enabled, kU8, []float32{1})
	}
}

// partTrack writes a particle's life track at at: times as fixed-point shares, values as
// floats (elem 4), fixed16 alphas (elem 2) or uint16 cells (elem 0).
func partTrack(f *wbuf, at int, t *m2.PartTrack, elem int) {
	times := make([]uint16, len(t.Times))
	for i, x := range t.Times {
		times[i] = uint16(math.Round(float64(x) * 32768))
	}
	f.data(at, len(times), le16s(times))
	var b []byte
	switch elem {
	case 4:
		b = make([]byte, 4*len(t.Values))
		for i, v := range t.Values {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
	case 2:
		v16 := make([]int16, len(t.Values))
		for i, v := range t.Values {
			v16[i] = int16(math.Round(float64(v) * 32767))
		}
		b = le16s(v16)
	default:
		u := make([]uint16, len(t.Values))
		for i, v := range t.Values {
			u[i] = uint16(v)
		}
		b = le16s(u)
	}
	f.data(at+8, len(times), b)
}

// Bases returns the base name of a model file name: its name without directory and extension.
func Bases(name string) string {
	b := path.Base(name)
	return strings.TrimSuffix(b, path.Ext(b))
}

// Names returns the file names in sorted order.
func (fs Files) Names() []string {
	var out []string
	for n := range fs {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Source returns the file name of files as a codec.Source whose companions are the other
// files (all at the root).
func (fs Files) Source(name string) codec.Source {
	tree := fstest.MapFS{}
	for n, b := range fs {
		tree[n] = &fstest.MapFile{Data: b}
	}
	return codec.Source{Name: name, Data: fs[name], FS: tree}
}

// Without returns a copy of files without the named ones.
func (fs Files) Without(names ...string) Files {
	out := Files{}
	for n, b := range fs {
		if !slices.Contains(names, n) {
			out[n] = b
		}
	}
	return out
}
