package mdx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/modelfs/modelfs/internal/le"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/wc3"
	"github.com/modelfs/modelfs/translate/wc3/internal/mdxfmt"
)

// Version is the MDX version of classic Warcraft III; Read accepts it and the Reforged versions
// 900 to Newest.
const Version = mdxfmt.Version

// Newest is the newest MDX version Read knows; newer files are read with its layout.
const Newest = mdxfmt.Newest

// maxWarnings caps Model.Warnings so a file of tiny unknown chunks cannot blow up memory.
const maxWarnings = 100

// Read decodes an MDX file; name is used in errors.
func Read(name string, data []byte) (*wc3.Model, error) {
	r := &reader{name: name, d: data, m: &wc3.Model{}}
	if err := r.file(); err != nil {
		var fe *codec.FormatError
		if r.m.Version > Newest && errors.As(err, &fe) {
			fe.Msg = fmt.Sprintf("MDX version %d is newer than %d, the newest this modelfs reads, and does not read with that layout (%s): it needs a modelfs that knows version %d",
				r.m.Version, Newest, fe.Msg, r.m.Version)
		}
		return nil, err
	}
	return r.m, nil
}

type reader struct {
	name   string
	d      []byte
	m      *wc3.Model
	nwarn  int
	layout uint32 // the version whose layout the file is read with
}

func (r *reader) fail(off int, format string, a ...any) error {
	return &codec.FormatError{Format: "mdx", File: r.name, Offset: int64(off), Msg: fmt.Sprintf(format, a...)}
}

// more reports whether another warning would still be recorded; callers on paths that can
// repeat once per record check it first so that suppressed warnings cost nothing.
func (r *reader) more() bool {
	if r.nwarn > maxWarnings {
		r.nwarn++
		return false
	}
	return true
}

func (r *reader) warn(format string, a ...any) {
	r.nwarn++
	switch {
	case r.nwarn <= maxWarnings:
		r.m.Warnings = append(r.m.Warnings, fmt.Sprintf(format, a...))
	case r.nwarn == maxWarnings+1:
		r.m.Warnings = append(r.m.Warnings, "further warnings suppressed")
	}
}

func (r *reader) u32(off int) uint32 { return binary.LittleEndian.Uint32(r.d[off:]) }
func (r *reader) i32(off int) int32  { return int32(binary.LittleEndian.Uint32(r.d[off:])) }
func (r *reader) f32(off int) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(r.d[off:]))
}

func (r *reader) vec3(off int) [3]float32 {
	return [3]float32{r.f32(off), r.f32(off + 4), r.f32(off + 8)}
}

// tagName renders the 4 bytes at off for messages.
func (r *reader) tagName(off int) string { return fmt.Sprintf("%q", r.d[off:off+4]) }

// str reads a NUL-padded fixed-size string.
func (r *reader) str(off, n int) string {
	b := r.d[off : off+n]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

func (r *reader) extent(off int) wc3.Extent {
	return wc3.Extent{BoundsRadius: r.f32(off), Min: r.vec3(off + 4), Max: r.vec3(off + 16)}
}

// need fails unless n bytes are left between off and end.
func (r *reader) need(off, end, n int, what string) error {
	if end-off < n {
		return r.fail(off, "%s: need %d bytes, only %d left", what, n, end-off)
	}
	return nil
}

// sized reads the inclusive size that starts an object at pos and returns the object's end.
func (r *reader) sized(pos, end, min int, what string) (int, error) {
	if end-pos < 4 {
		return 0, r.fail(pos, "%s size: need 4 bytes, only %d left", what, end-pos)
	}
	sz := r.u32(pos)
	if sz < uint32(min) {
		return 0, r.fail(pos, "%s: size %d is smaller than its fixed %d bytes", what, sz, min)
	}
	if uint64(sz) > uint64(end-pos) {
		return 0, r.fail(pos, "%s: size %d exceeds the %d bytes left in its container", what, sz, end-pos)
	}
	return pos + int(sz), nil
}

func (r *reader) file() error {
	d := r.d
	if len(d) == 0 {
		return r.fail(0, "empty file")
	}
	if len(d) < 4 || r.u32(0) != mdxfmt.TagMDLX {
		return r.fail(0, "not an MDX file: starts with %q, want \"MDLX\"", d[:min(4, len(d))])
	}
	sawVers, sawModl, sawGeos := false, false, false
	pos := 4
	for pos < len(d) {
		if len(d)-pos < 8 {
			if sawGeos {
				r.warn("offset %d: %d bytes after the last chunk, too few for a chunk header, ignored", pos, len(d)-pos)
				break
			}
			return r.fail(pos, "truncated chunk header: %d bytes left, need 8", len(d)-pos)
		}
		tag := r.u32(pos)
		size := r.u32(pos + 4)
		if uint64(size) > uint64(len(d)-pos-8) {
			if sawGeos {
				// A damaged chunk header after the geometry: what was read before it is a
				// model, as the game shows it; the rest cannot be placed.
				r.warn("offset %d: chunk %s: size %d exceeds the %d bytes left in the file; the rest of the file (%d bytes) is ignored",
					pos, r.tagName(pos), size, len(d)-pos-8, len(d)-pos)
				break
			}
			return r.fail(pos+4, "chunk %s: size %d exceeds the %d bytes left in the file",
				r.tagName(pos), size, len(d)-pos-8)
		}
		start, end := pos+8, pos+8+int(size)
		if !sawVers && tag != mdxfmt.TagVERS {
			if !mdxfmt.KnownTag(tag) {
				// A tool's own chunk before VERS (an INFO chunk naming the writer, say).
				r.warn("offset %d: unknown chunk %s (%d bytes) before VERS skipped", pos, r.tagName(pos), size)
				pos = end
				continue
			}
			return r.fail(pos, "first chunk is %s, want \"VERS\"", r.tagName(pos))
		}
		var err error
		switch tag {
		case mdxfmt.TagVERS:
			if sawVers {
				r.warn("offset %d: second VERS chunk", pos)
			}
			sawVers = true
			err = r.vers(start, end)
		case mdxfmt.TagMODL:
			if sawModl {
				r.warn("offset %d: second MODL chunk replaces the first", pos)
			}
			sawModl = true
			err = r.modl(start, end)
		case mdxfmt.TagSEQS:
			err = r.seqs(start, end)
		case mdxfmt.TagGLBS:
			err = r.glbs(start, end)
		case mdxfmt.TagTEXS:
			err = r.texs(start, end)
		case mdxfmt.TagPIVT:
			err = r.pivt(start, end)
		case mdxfmt.TagMTLS:
			err = r.each(start, end, r.material)
		case mdxfmt.TagTXAN:
			err = r.each(start, end, r.textureAnim)
		case mdxfmt.TagGEOS:
			r.m.Geosets = slices.Grow(r.m.Geosets, r.count(start, end, mdxfmt.MinGeoset))
			err = r.each(start, end, r.geoset)
			sawGeos = err == nil
		case mdxfmt.TagGEOA:
			err = r.each(start, end, r.geosetAnim)
		case mdxfmt.TagBONE:
			err = r.each(start, end, r.bone)
		case mdxfmt.TagLITE:
			err = r.each(start, end, r.light)
		case mdxfmt.TagHELP:
			err = r.each(start, end, r.helper)
		case mdxfmt.TagATCH:
			err = r.each(start, end, r.attachment)
		case mdxfmt.TagPREM:
			err = r.each(start, end, r.emitter1)
		case mdxfmt.TagPRE2:
			err = r.each(start, end, r.emitter2)
		case mdxfmt.TagRIBB:
			err = r.each(start, end, r.ribbon)
		case mdxfmt.TagCAMS:
			err = r.each(start, end, r.camera)
		case mdxfmt.TagEVTS:
			err = r.each(start, end, r.event)
		case mdxfmt.TagCLID:
			err = r.each(start, end, r.collision)
		case mdxfmt.TagBPOS:
			err = r.bindPoses(start, end)
		case mdxfmt.TagFAFX:
			err = r.faceEffects(start, end)
		case mdxfmt.TagCORN:
			err = r.each(start, end, r.popcorn)
		default:
			if r.more() {
				r.warn("offset %d: unknown chunk %s (%d bytes) skipped", pos, r.tagName(pos), size)
			}
		}
		var fe *codec.FormatError
		if err != nil && sawGeos && tag != mdxfmt.TagGEOS && errors.As(err, &fe) {
			// A damaged object after the geometry costs its chunk's objects from it on: those
			// read before it stay, the game shows the rest of the model.
			r.warn("offset %d: %s; the rest of chunk %s is ignored", fe.Offset, fe.Msg, r.tagName(pos))
			err = nil
		}
		if err != nil {
			return err
		}
		pos = end
	}
	if !sawVers {
		return r.fail(pos, "missing VERS chunk")
	}
	if !sawModl {
		return r.fail(pos, "missing MODL chunk")
	}
	r.check()
	return nil
}

// count walks the inclusive sizes of the objects filling [pos, end) and returns how many
// there are, stopping at the first size below min or past end (each then reports it).
func (r *reader) count(pos, end, min int) int {
	n := 0
	for end-pos >= 4 {
		sz := r.u32(pos)
		if sz < uint32(min) || uint64(sz) > uint64(end-pos) {
			break
		}
		pos += int(sz)
		n++
	}
	return n
}

// each reads consecutive objects filling [pos, end); one returns the end of the object it read,
// which is always past pos.
func (r *reader) each(pos, end int, one func(pos, end int) (int, error)) error {
	for pos < end {
		next, err := one(pos, end)
		if err != nil {
			return err
		}
		pos = next
	}
	return nil
}

func (r *reader) vers(pos, end int) error {
	if err := r.need(pos, end, 4, "VERS"); err != nil {
		return err
	}
	v := r.u32(pos)
	switch {
	case mdxfmt.KnownVersion(v):
		r.layout = v
	case v > Newest:
		r.layout = Newest
		r.warn("offset %d: MDX version %d is newer than %d, the newest this modelfs reads; read with the layout of %d, so anything version %d adds is missing (a modelfs that knows it would show it)",
			pos, v, Newest, Newest, v)
	default:
		return r.fail(pos, "MDX version %d is not one Warcraft III writes (800, 900, 1000, 1100, 1200)", v)
	}
	r.m.Version = v
	if end-pos > 4 {
		r.warn("offset %d: VERS has %d extra bytes", pos+4, end-pos-4)
	}
	return nil
}

func (r *reader) modl(pos, end int) error {
	if err := r.need(pos, end, mdxfmt.SizeMODL, "MODL"); err != nil {
		return err
	}
	m := r.m
	m.Name = r.str(pos, 80)
	m.AnimFile = r.str(pos+80, 260)
	m.Extent = r.extent(pos + 340)
	m.BlendTime = r.u32(pos + 368)
	if end-pos > mdxfmt.SizeMODL {
		r.warn("offset %d: MODL has %d extra bytes", pos+mdxfmt.SizeMODL, end-pos-mdxfmt.SizeMODL)
	}
	return nil
}

// records checks that a fixed-record chunk holds a whole number of records and returns it.
func (r *reader) records(pos, end, size int, what string) (int, error) {
	if (end-pos)%size != 0 {
		return 0, r.fail(pos-4, "%s: size %d is not a multiple of the %d-byte record", what, end-pos, size)
	}
	return (end - pos) / size, nil
}

func (r *reader) seqs(pos, end int) error {
	n, err := r.records(pos, end, mdxfmt.SizeSequence, "SEQS")
	if err != nil || n == 0 {
		return err
	}
	s := make([]wc3.Sequence, n)
	for i := range s {
		p := pos + i*mdxfmt.SizeSequence
		s[i] = wc3.Sequence{
			Name:       r.str(p, 80),
			Interval:   [2]uint32{r.u32(p + 80), r.u32(p + 84)},
			MoveSpeed:  r.f32(p + 88),
			NonLooping: r.u32(p+92) != 0,
			Rarity:     r.f32(p + 96),
			SyncPoint:  r.u32(p + 100),
			Extent:     r.extent(p + 104),
		}
	}
	r.m.Sequences = append(r.m.Sequences, s...)
	return nil
}

func (r *reader) glbs(pos, end int) error {
	n, err := r.records(pos, end, 4, "GLBS")
	if err != nil || n == 0 {
		return err
	}
	g := make([]uint32, n)
	for i := range g {
		g[i] = r.u32(pos + 4*i)
	}
	r.m.GlobalSequences = append(r.m.GlobalSequences, g...)
	return nil
}

func (r *reader) texs(pos, end int) error {
	n, err := r.records(pos, end, mdxfmt.SizeTexture, "TEXS")
	if err != nil || n == 0 {
		return err
	}
	t := make([]wc3.Texture, n)
	for i := range t {
		p := pos + i*mdxfmt.SizeTexture
		t[i] = wc3.Texture{ReplaceableID: r.u32(p), Path: r.str(p+4, 260), Flags: r.u32(p + 264)}
	}
	r.m.Textures = append(r.m.Textures, t...)
	return nil
}

func (r *reader) pivt(pos, end int) error {
	n, err := r.records(pos, end, 12, "PIVT")
	if err != nil || n == 0 {
		return err
	}
	p := make([][3]float32, n)
	getVec3s(p, r.d[pos:end])
	r.m.PivotPoints = append(r.m.PivotPoints, p...)
	return nil
}

// tracks reads the animated properties filling [pos, end) into the slots that match their tags.
func (r *reader) tracks(pos, end int, what string, slots []slot) error {
	for pos < end {
		if end-pos < 4 {
			r.warn("offset %d: %s: %d trailing bytes skipped", pos, what, end-pos)
			return nil
		}
		tag := r.u32(pos)
		var s *slot
		for i := range slots {
			if slots[i].Tag == tag {
				s = &slots[i]
				break
			}
		}
		width := 0
		if s != nil {
			width = s.Width
		} else if w, ok := mdxfmt.ForeignWidth[tag]; ok {
			width = w
		} else {
			r.warn("offset %d: %s: unknown tag %s; the remaining %d bytes of the object skipped",
				pos, what, r.tagName(pos), end-pos)
			return nil
		}
		if s == nil {
			next, err := r.skipTrack(pos, end, what, width)
			if err != nil {
				return err
			}
			if r.more() {
				r.warn("offset %d: %s: track %s does not belong here; skipped", pos, what, r.tagName(pos))
			}
			pos = next
			continue
		}
		next, err := r.track(pos, end, what, s)
		if err != nil {
			return err
		}
		pos = next
	}
	return nil
}

// skipTrack returns the end of the track of values width wide at pos.
func (r *reader) skipTrack(pos, end int, what string, width int) (int, error) {
	n, keySize, err := r.trackHeader(pos, end, what, width)
	if err != nil {
		return 0, err
	}
	return pos + mdxfmt.SizeTrackHdr + n*keySize, nil
}

// trackHeader checks the header of the track at pos and that its keys fit before end, and
// returns the key count and size.
func (r *reader) trackHeader(pos, end int, what string, width int) (n, keySize int, err error) {
	if end-pos < mdxfmt.SizeTrackHdr {
		return 0, 0, r.fail(pos, "%s: track %s: header needs %d bytes, only %d left",
			what, r.tagName(pos), mdxfmt.SizeTrackHdr, end-pos)
	}
	keys := r.u32(pos + 4)
	interp := r.u32(pos + 8)
	if interp > uint32(wc3.Bezier) {
		return 0, 0, r.fail(pos+8, "%s: track %s: unknown interpolation type %d", what, r.tagName(pos), interp)
	}
	per := width
	if interp >= uint32(wc3.Hermite) {
		per = 3 * width
	}
	keySize = 4 + 4*per
	p := pos + mdxfmt.SizeTrackHdr
	if uint64(keys)*uint64(keySize) > uint64(end-p) {
		return 0, 0, r.fail(pos+4, "%s: track %s: %d keys of %d bytes exceed the %d bytes left",
			what, r.tagName(pos), keys, keySize, end-p)
	}
	return int(keys), keySize, nil
}

// track reads the track at pos, whose tag is s's, into s and returns its end.
func (r *reader) track(pos, end int, what string, s *slot) (int, error) {
	width := s.Width
	n, keySize, err := r.trackHeader(pos, end, what, width)
	if err != nil {
		return 0, err
	}
	interp := r.u32(pos + 8)
	p := pos + mdxfmt.SizeTrackHdr
	next := p + n*keySize
	t := &wc3.Track{Interp: wc3.Interp(interp), GlobalSeq: r.i32(pos + 12), Width: width}
	if n > 0 {
		nk := n
		t.Frames = make([]int32, nk)
		t.Values = make([]float32, nk*width)
		hasTans := interp >= uint32(wc3.Hermite)
		if hasTans {
			t.InTans = make([]float32, nk*width)
			t.OutTans = make([]float32, nk*width)
		}
		for i := 0; i < nk; i++ {
			t.Frames[i] = r.i32(p)
			p += 4
			p = r.values(t.Values[i*width:(i+1)*width], p, s.IsInt)
			if hasTans {
				p = r.values(t.InTans[i*width:(i+1)*width], p, s.IsInt)
				p = r.values(t.OutTans[i*width:(i+1)*width], p, s.IsInt)
			}
		}
	}
	if *s.dst != nil && r.more() {
		r.warn("offset %d: %s: second %s track replaces the first", pos, what, s.Name)
	}
	*s.dst = t
	return next, nil
}

func (r *reader) values(dst []float32, p int, isInt bool) int {
	for j := range dst {
		if isInt {
			dst[j] = float32(r.i32(p))
		} else {
			dst[j] = r.f32(p)
		}
		p += 4
	}
	return p
}

// node reads the shared object header at pos and returns its end.
func (r *reader) node(pos, end int, n *wc3.Node, what string) (int, error) {
	ne, err := r.sized(pos, end, mdxfmt.SizeNode, what)
	if err != nil {
		return 0, err
	}
	n.Name = r.str(pos+4, 80)
	n.ObjectID = r.i32(pos + 84)
	n.ParentID = r.i32(pos + 88)
	n.Flags = r.u32(pos + 92)
	err = r.tracks(pos+mdxfmt.SizeNode, ne, what, []slot{
		{mdxfmt.KGTR, &n.Translation}, {mdxfmt.KGRT, &n.Rotation}, {mdxfmt.KGSC, &n.Scaling}})
	return ne, err
}

func (r *reader) material(pos, end int) (int, error) {
	fixed := 20 // size, priorityPlane, flags, "LAYS", count
	if r.layout == mdxfmt.V900 || r.layout == mdxfmt.V1000 {
		fixed += 80 // the shader's name, after the flags
	}
	oe, err := r.sized(pos, end, fixed, "material")
	if err != nil {
		return 0, err
	}
	mt := wc3.Material{PriorityPlane: r.i32(pos + 4), Flags: r.u32(pos + 8)}
	if fixed > 20 {
		mt.Shader = r.str(pos+12, 80)
	}
	if r.u32(pos+fixed-8) != mdxfmt.TagLAYS {
		return 0, r.fail(pos+fixed-8, "material: found %s, want \"LAYS\"", r.tagName(pos+fixed-8))
	}
	n := r.u32(pos + fixed - 4)
	p := pos + fixed
	if uint64(n)*28 > uint64(oe-p) {
		return 0, r.fail(pos+fixed-4, "material: %d layers cannot fit in %d bytes", n, oe-p)
	}
	if n > 0 {
		mt.Layers = make([]wc3.Layer, n)
	}
	for i := range mt.Layers {
		le, err := r.sized(p, oe, 28, "layer")
		if err != nil {
			return 0, err
		}
		if err := r.layer(p, le, &mt.Layers[i]); err != nil {
			return 0, err
		}
		p = le
	}
	if p < oe {
		r.warn("offset %d: material: %d unread bytes skipped", p, oe-p)
	}
	r.m.Materials = append(r.m.Materials, mt)
	return oe, nil
}

// layer reads the layer filling [pos, end), whose inclusive size sized has checked to be at
// least 28 bytes.
func (r *reader) layer(pos, end int, l *wc3.Layer) error {
	*l = wc3.Layer{FilterMode: r.u32(pos + 4), Shading: r.u32(pos + 8), TextureID: r.i32(pos + 12),
		TextureAnimID: r.i32(pos + 16), CoordID: r.u32(pos + 20), Alpha: r.f32(pos + 24)}
	p := pos + 28
	slots := []slot{{mdxfmt.KMTF, &l.TextureTrack}, {mdxfmt.KMTA, &l.AlphaTrack}}
	if r.layout > Version {
		// Emissive gain (900), then the fresnel colour, opacity and team colour (1000; files of
		// 900 carry them too). Each is read only where the bytes left do not start a track.
		hd := &wc3.LayerHD{EmissiveGain: 1, FresnelColor: [3]float32{1, 1, 1}}
		l.Reforged = hd
		for _, f := range []*float32{&hd.EmissiveGain, &hd.FresnelColor[0], &hd.FresnelColor[1], &hd.FresnelColor[2],
			&hd.FresnelOpacity, &hd.FresnelTeamColor} {
			if end-p < 4 || r.trackTag(p) {
				break
			}
			*f = r.f32(p)
			p += 4
		}
		slots = append(slots, slot{mdxfmt.KMTE, &hd.EmissiveTrack}, slot{mdxfmt.KFC3, &hd.FresnelColorTrack},
			slot{mdxfmt.KFCA, &hd.FresnelAlphaTrack}, slot{mdxfmt.KFTC, &hd.FresnelTeamTrack})
		if r.layout >= mdxfmt.V1100 {
			// The shader type and the textures by slot, each with its own texture-id track;
			// the layer's other tracks follow the list.
			if err := r.need(p, end, 8, "layer"); err != nil {
				return err
			}
			hd.ShaderType = r.u32(p)
			n := r.u32(p + 4)
			p += 8
			if uint64(n)*8 > uint64(end-p) {
				return r.fail(p-4, "layer: %d textures of at least 8 bytes exceed the %d bytes left", n, end-p)
			}
			if n > 0 {
				hd.Textures = make([]wc3.LayerTexture, n)
			}
			for i := range hd.Textures {
				if err := r.need(p, end, 8, "layer texture"); err != nil {
					return err
				}
				t := &hd.Textures[i]
				t.TextureID, t.Slot = r.i32(p), r.u32(p+4)
				p += 8
				if end-p >= 4 && r.u32(p) == mdxfmt.KMTF.Tag {
					q, err := r.track(p, end, "layer texture", &slot{mdxfmt.KMTF, &t.TextureTrack})
					if err != nil {
						return err
					}
					p = q
				}
			}
			slots = slots[1:] // KMTF belongs to the textures
		}
	}
	return r.tracks(p, end, "layer", slots)
}

// trackTag reports whether the four bytes at p are a track tag the reader knows.
func (r *reader) trackTag(p int) bool {
	_, ok := mdxfmt.ForeignWidth[r.u32(p)]
	return ok
}

func (r *reader) textureAnim(pos, end int) (int, error) {
	oe, err := r.sized(pos, end, 4, "texture animation")
	if err != nil {
		return 0, err
	}
	var ta wc3.TextureAnim
	err = r.tracks(pos+4, oe, "texture animation", []slot{
		{mdxfmt.KTAT, &ta.Translation}, {mdxfmt.KTAR, &ta.Rotation}, {mdxfmt.KTAS, &ta.Scaling}})
	if err != nil {
		return 0, err
	}
	r.m.TextureAnims = append(r.m.TextureAnims, ta)
	return oe, nil
}

// array reads the header of a tagged array inside a geoset: tag, count, then count elements of
// elem bytes. It returns the count and the offset of the first element.
func (r *reader) array(pos, end int, tag uint32, elem int) (int, int, error) {
	if end-pos < 8 {
		return 0, 0, r.fail(pos, "geoset: %s: need 8 bytes, only %d left", tagString(tag), end-pos)
	}
	if r.u32(pos) != tag {
		return 0, 0, r.fail(pos, "geoset: found %s, want %q", r.tagName(pos), tagString(tag))
	}
	n := r.u32(pos + 4)
	if uint64(n)*uint64(elem) > uint64(end-pos-8) {
		return 0, 0, r.fail(pos+4, "geoset: %s: %d elements of %d bytes exceed the %d bytes left",
			tagString(tag), n, elem, end-pos-8)
	}
	return int(n), pos + 8, nil
}

func tagString(t uint32) string {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], t)
	return string(b[:])
}

func (r *reader) geoset(pos, end int) (int, error) {
	oe, err := r.sized(pos, end, mdxfmt.MinGeoset, "geoset")
	if err != nil {
		return 0, err
	}
	// Filled in place: a failed read discards the whole model anyway.
	r.m.Geosets = append(r.m.Geosets, wc3.Geoset{})
	g := &r.m.Geosets[len(r.m.Geosets)-1]
	p := pos + 4
	var n int

	if n, p, err = r.array(p, oe, mdxfmt.TagVRTX, 12); err != nil {
		return 0, err
	}
	if n > 0 {
		g.Vertices = make([][3]float32, n)
		getVec3s(g.Vertices, r.d[p:])
		p += 12 * n
	}
	if n, p, err = r.array(p, oe, mdxfmt.TagNRMS, 12); err != nil {
		return 0, err
	}
	if n > 0 {
		g.Normals = make([][3]float32, n)
		getVec3s(g.Normals, r.d[p:])
		p += 12 * n
	}
	if g.FaceTypes, p, err = r.u32Array(p, oe, mdxfmt.TagPTYP); err != nil {
		return 0, err
	}
	if g.FaceCounts, p, err = r.u32Array(p, oe, mdxfmt.TagPCNT); err != nil {
		return 0, err
	}
	if n, p, err = r.array(p, oe, mdxfmt.TagPVTX, 2); err != nil {
		return 0, err
	}
	if n > 0 {
		g.Faces = make([]uint16, n)
		le.Get(g.Faces, r.d[p:p+2*n], 2)
		p += 2 * n
	}
	if n, p, err = r.array(p, oe, mdxfmt.TagGNDX, 1); err != nil {
		return 0, err
	}
	if n > 0 {
		g.VertexGroups = make([]uint8, n)
		copy(g.VertexGroups, r.d[p:p+n])
		p += n
	}
	if g.GroupSizes, p, err = r.u32Array(p, oe, mdxfmt.TagMTGC); err != nil {
		return 0, err
	}
	if g.Matrices, p, err = r.u32Array(p, oe, mdxfmt.TagMATS); err != nil {
		return 0, err
	}
	if err := r.need(p, oe, 12+mdxfmt.SizeExtent+4, "geoset"); err != nil {
		return 0, err
	}
	g.MaterialID = r.u32(p)
	g.SelectionGroup = r.u32(p + 4)
	g.SelectionFlags = r.u32(p + 8)
	p += 12
	if r.layout > Version {
		// Level of detail and name, then the extents.
		if err := r.need(p, oe, 84+mdxfmt.SizeExtent+4, "geoset"); err != nil {
			return 0, err
		}
		g.LOD = r.i32(p)
		g.Name = r.str(p+4, 80)
		p += 84
	}
	g.Extent = r.extent(p)
	ne := r.u32(p + mdxfmt.SizeExtent)
	p += mdxfmt.SizeExtent + 4
	if uint64(ne)*mdxfmt.SizeExtent > uint64(oe-p) {
		return 0, r.fail(p-4, "geoset: %d sequence extents exceed the %d bytes left", ne, oe-p)
	}
	if ne > 0 {
		g.SeqExtents = make([]wc3.Extent, ne)
		for i := range g.SeqExtents {
			g.SeqExtents[i] = r.extent(p)
			p += mdxfmt.SizeExtent
		}
	}
	// Reforged: tangents and skin weights, each optional, before the texture coordinates.
	for r.layout > Version && oe-p >= 8 && r.u32(p) != mdxfmt.TagUVAS {
		switch r.u32(p) {
		case mdxfmt.TagTANG:
			if n, p, err = r.array(p, oe, mdxfmt.TagTANG, 16); err != nil {
				return 0, err
			}
			if n > 0 {
				g.Tangents = make([][4]float32, n)
				le.Get(g.Tangents, r.d[p:p+16*n], 4)
				p += 16 * n
			}
		case mdxfmt.TagSKIN:
			if n, p, err = r.array(p, oe, mdxfmt.TagSKIN, 1); err != nil {
				return 0, err
			}
			if n > 0 {
				g.Skin = make([]uint8, n)
				copy(g.Skin, r.d[p:p+n])
				p += n
			}
		default:
			return 0, r.fail(p, "geoset: found %s, want \"TANG\", \"SKIN\" or \"UVAS\"", r.tagName(p))
		}
	}
	if n, p, err = r.array(p, oe, mdxfmt.TagUVAS, 8); err != nil {
		return 0, err
	}
	if n > 0 {
		g.UVSets = make([][][2]float32, n)
		for i := range g.UVSets {
			var c int
			if c, p, err = r.array(p, oe, mdxfmt.TagUVBS, 8); err != nil {
				return 0, err
			}
			if c > 0 {
				uv := make([][2]float32, c)
				le.Get(uv, r.d[p:p+8*c], 4)
				g.UVSets[i] = uv
				p += 8 * c
			}
		}
	}
	if p < oe {
		r.warn("offset %d: geoset: %d unread bytes skipped", p, oe-p)
	}
	return oe, nil
}

// bindPoses reads BPOS: a count, then a 3×4 matrix (12 floats) per object.
func (r *reader) bindPoses(pos, end int) error {
	if err := r.need(pos, end, 4, "BPOS"); err != nil {
		return err
	}
	n := r.u32(pos)
	if uint64(n)*48 > uint64(end-pos-4) {
		return r.fail(pos, "BPOS: %d matrices of 48 bytes exceed the chunk's %d bytes", n, end-pos-4)
	}
	if n > 0 {
		r.m.BindPoses = make([][12]float32, n)
		for i := range r.m.BindPoses {
			r.values(r.m.BindPoses[i][:], pos+4+48*i, false)
		}
	}
	if rest := end - pos - 4 - 48*int(n); rest > 0 {
		r.warn("offset %d: BPOS: %d bytes after the matrices skipped", pos+4+48*int(n), rest)
	}
	return nil
}

// faceEffects reads FAFX: records of an 80-byte target and a 260-byte path.
func (r *reader) faceEffects(pos, end int) error {
	n, err := r.records(pos, end, 340, "FAFX")
	if err != nil {
		return err
	}
	for i := range n {
		p := pos + 340*i
		r.m.FaceEffects = append(r.m.FaceEffects, wc3.FaceEffect{Target: r.str(p, 80), Path: r.str(p+80, 260)})
	}
	return nil
}

// popcorn reads one CORN emitter as far as the .json records it: its node, and the effect file
// named after eight numbers.
func (r *reader) popcorn(pos, end int) (int, error) {
	var n wc3.Node
	oe, p, err := r.framed(pos, end, &n, 0, "popcorn emitter")
	if err != nil {
		return 0, err
	}
	rec := wc3.PopcornRecord{Name: n.Name, ObjectID: n.ObjectID}
	if oe-p >= 32+260 {
		rec.Path = r.str(p+32, 260)
	}
	r.m.Popcorns = append(r.m.Popcorns, rec)
	return oe, nil
}

func (r *reader) u32Array(pos, end int, tag uint32) ([]uint32, int, error) {
	n, p, err := r.array(pos, end, tag, 4)
	if err != nil || n == 0 {
		return nil, p, err
	}
	a := make([]uint32, n)
	le.Get(a, r.d[p:p+4*n], 4)
	return a, p + 4*n, nil
}

// getVec3s decodes len(dst) little-endian float triples from src.
func getVec3s(dst [][3]float32, src []byte) { le.Get(dst, src[:12*len(dst)], 4) }

func (r *reader) geosetAnim(pos, end int) (int, error) {
	oe, err := r.sized(pos, end, 28, "geoset animation")
	if err != nil {
		return 0, err
	}
	ga := wc3.GeosetAnim{Alpha: r.f32(pos + 4), Flags: r.u32(pos + 8), Color: r.vec3(pos + 12), GeosetID: r.i32(pos + 24)}
	err = r.tracks(pos+28, oe, "geoset animation", []slot{{mdxfmt.KGAO, &ga.AlphaTrack}, {mdxfmt.KGAC, &ga.ColorTrack}})
	if err != nil {
		return 0, err
	}
	r.m.GeosetAnims = append(r.m.GeosetAnims, ga)
	return oe, nil
}

func (r *reader) bone(pos, end int) (int, error) {
	var b wc3.Bone
	ne, err := r.node(pos, end, &b.Node, "bone")
	if err != nil {
		return 0, err
	}
	if err := r.need(ne, end, 8, "bone"); err != nil {
		return 0, err
	}
	b.GeosetID = r.i32(ne)
	b.GeosetAnimID = r.i32(ne + 4)
	r.m.Bones = append(r.m.Bones, b)
	return ne + 8, nil
}

func (r *reader) helper(pos, end int) (int, error) {
	var h wc3.Node
	ne, err := r.node(pos, end, &h, "helper")
	if err != nil {
		return 0, err
	}
	r.m.Helpers = append(r.m.Helpers, h)
	return ne, nil
}

// framed reads an object that starts with its own inclusive size, then a node, then fixed
// bytes; it returns the object's end and the offset of the fixed part.
func (r *reader) framed(pos, end int, n *wc3.Node, fixed int, what string) (oe, p int, err error) {
	if oe, err = r.sized(pos, end, 4+mdxfmt.SizeNode+fixed, what); err != nil {
		return 0, 0, err
	}
	if p, err = r.node(pos+4, oe, n, what); err != nil {
		return 0, 0, err
	}
	if err = r.need(p, oe, fixed, what); err != nil {
		return 0, 0, err
	}
	return oe, p, nil
}

func (r *reader) light(pos, end int) (int, error) {
	var l wc3.Light
	oe, p, err := r.framed(pos, end, &l.Node, 44, "light")
	if err != nil {
		return 0, err
	}
	l.Type = r.u32(p)
	l.AttenuationStart = r.f32(p + 4)
	l.AttenuationEnd = r.f32(p + 8)
	l.Color = r.vec3(p + 12)
	l.Intensity = r.f32(p + 24)
	l.AmbColor = r.vec3(p + 28)
	l.AmbIntensity = r.f32(p + 40)
	p += 44
	if r.layout >= mdxfmt.V1200 {
		if err := r.need(p, oe, 4, "light"); err != nil {
			return 0, err
		}
		v := r.f32(p)
		l.ShadowIntensity = &v
		p += 4
	}
	err = r.tracks(p, oe, "light", []slot{
		{mdxfmt.KLAS, &l.AttenuationStartTrack}, {mdxfmt.KLAE, &l.AttenuationEndTrack}, {mdxfmt.KLAC, &l.ColorTrack},
		{mdxfmt.KLAI, &l.IntensityTrack}, {mdxfmt.KLBI, &l.AmbIntensityTrack}, {mdxfmt.KLBC, &l.AmbColorTrack},
		{mdxfmt.KLAV, &l.Visibility}})
	if err != nil {
		return 0, err
	}
	r.m.Lights = append(r.m.Lights, l)
	return oe, nil
}

func (r *reader) attachment(pos, end int) (int, error) {
	var a wc3.Attachment
	oe, p, err := r.framed(pos, end, &a.Node, 264, "attachment")
	if err != nil {
		return 0, err
	}
	a.Path = r.str(p, 260)
	a.AttachmentID = r.i32(p + 260)
	if err = r.tracks(p+264, oe, "attachment", []slot{{mdxfmt.KATV, &a.Visibility}}); err != nil {
		return 0, err
	}
	r.m.Attachments = append(r.m.Attachments, a)
	return oe, nil
}

func (r *reader) emitter1(pos, end int) (int, error) {
	var e wc3.ParticleEmitter
	oe, p, err := r.framed(pos, end, &e.Node, 284, "particle emitter")
	if err != nil {
		return 0, err
	}
	e.EmissionRate = r.f32(p)
	e.Gravity = r.f32(p + 4)
	e.Longitude = r.f32(p + 8)
	e.Latitude = r.f32(p + 12)
	e.Path = r.str(p+16, 260)
	e.LifeSpan = r.f32(p + 276)
	e.InitVelocity = r.f32(p + 280)
	err = r.tracks(p+284, oe, "particle emitter", []slot{
		{mdxfmt.KPEE, &e.EmissionRateTrack}, {mdxfmt.KPEG, &e.GravityTrack}, {mdxfmt.KPLN, &e.LongitudeTrack},
		{mdxfmt.KPLT, &e.LatitudeTrack}, {mdxfmt.KPEL, &e.LifeSpanTrack}, {mdxfmt.KPES, &e.InitVelocityTrack},
		{mdxfmt.KPEV, &e.Visibility}})
	if err != nil {
		return 0, err
	}
	r.m.ParticleEmitters = append(r.m.ParticleEmitters, e)
	return oe, nil
}

func (r *reader) emitter2(pos, end int) (int, error) {
	var e wc3.ParticleEmitter2
	oe, p, err := r.framed(pos, end, &e.Node, 171, "particle emitter 2")
	if err != nil {
		return 0, err
	}
	e.Speed = r.f32(p)
	e.Variation = r.f32(p + 4)
	e.Latitude = r.f32(p + 8)
	e.Gravity = r.f32(p + 12)
	e.LifeSpan = r.f32(p + 16)
	e.EmissionRate = r.f32(p + 20)
	e.Width = r.f32(p + 24)
	e.Length = r.f32(p + 28)
	e.FilterMode = r.u32(p + 32)
	e.Rows = r.u32(p + 36)
	e.Columns = r.u32(p + 40)
	e.HeadOrTail = r.u32(p + 44)
	e.TailLength = r.f32(p + 48)
	e.Time = r.f32(p + 52)
	q := p + 56
	for i := range e.SegmentColor {
		e.SegmentColor[i] = r.vec3(q)
		q += 12
	}
	copy(e.SegmentAlpha[:], r.d[q:q+3])
	q += 3
	e.SegmentScaling = r.vec3(q)
	q += 12
	for _, iv := range []*[2][3]uint32{&e.HeadIntervals, &e.TailIntervals} {
		for i := range iv {
			for j := range iv[i] {
				iv[i][j] = r.u32(q)
				q += 4
			}
		}
	}
	e.TextureID = r.i32(q)
	e.Squirt = r.u32(q + 4)
	e.PriorityPlane = r.i32(q + 8)
	e.ReplaceableID = r.u32(q + 12)
	err = r.tracks(q+16, oe, "particle emitter 2", []slot{
		{mdxfmt.KP2S, &e.SpeedTrack}, {mdxfmt.KP2R, &e.VariationTrack}, {mdxfmt.KP2L, &e.LatitudeTrack},
		{mdxfmt.KP2G, &e.GravityTrack}, {mdxfmt.KP2E, &e.EmissionRateTrack}, {mdxfmt.KP2N, &e.WidthTrack},
		{mdxfmt.KP2W, &e.LengthTrack}, {mdxfmt.KP2V, &e.Visibility}})
	if err != nil {
		return 0, err
	}
	r.m.ParticleEmitters2 = append(r.m.ParticleEmitters2, e)
	return oe, nil
}

func (r *reader) ribbon(pos, end int) (int, error) {
	var e wc3.RibbonEmitter
	oe, p, err := r.framed(pos, end, &e.Node, 52, "ribbon emitter")
	if err != nil {
		return 0, err
	}
	e.HeightAbove = r.f32(p)
	e.HeightBelow = r.f32(p + 4)
	e.Alpha = r.f32(p + 8)
	e.Color = r.vec3(p + 12)
	e.LifeSpan = r.f32(p + 24)
	e.TextureSlot = r.u32(p + 28)
	e.EmissionRate = r.u32(p + 32)
	e.Rows = r.u32(p + 36)
	e.Columns = r.u32(p + 40)
	e.MaterialID = r.i32(p + 44)
	e.Gravity = r.f32(p + 48)
	err = r.tracks(p+52, oe, "ribbon emitter", []slot{
		{mdxfmt.KRHA, &e.HeightAboveTrack}, {mdxfmt.KRHB, &e.HeightBelowTrack}, {mdxfmt.KRAL, &e.AlphaTrack},
		{mdxfmt.KRCO, &e.ColorTrack}, {mdxfmt.KRTX, &e.TextureSlotTrack}, {mdxfmt.KRVS, &e.Visibility}})
	if err != nil {
		return 0, err
	}
	r.m.RibbonEmitters = append(r.m.RibbonEmitters, e)
	return oe, nil
}

func (r *reader) camera(pos, end int) (int, error) {
	oe, err := r.sized(pos, end, 120, "camera")
	if err != nil {
		return 0, err
	}
	c := wc3.Camera{
		Name:           r.str(pos+4, 80),
		Position:       r.vec3(pos + 84),
		FieldOfView:    r.f32(pos + 96),
		FarClip:        r.f32(pos + 100),
		NearClip:       r.f32(pos + 104),
		TargetPosition: r.vec3(pos + 108),
	}
	err = r.tracks(pos+120, oe, "camera", []slot{
		{mdxfmt.KCTR, &c.Translation}, {mdxfmt.KCRL, &c.Rotation}, {mdxfmt.KTTR, &c.TargetTranslation}})
	if err != nil {
		return 0, err
	}
	r.m.Cameras = append(r.m.Cameras, c)
	return oe, nil
}

func (r *reader) event(pos, end int) (int, error) {
	e := wc3.EventObject{GlobalSeq: -1}
	p, err := r.node(pos, end, &e.Node, "event object")
	if err != nil {
		return 0, err
	}
	if end-p >= 4 && r.u32(p) == mdxfmt.TagKEVT {
		if err := r.need(p, end, 12, "event object: KEVT"); err != nil {
			return 0, err
		}
		n := r.u32(p + 4)
		e.GlobalSeq = r.i32(p + 8)
		p += 12
		if uint64(n)*4 > uint64(end-p) {
			return 0, r.fail(p-8, "event object: KEVT: %d keys exceed the %d bytes left", n, end-p)
		}
		e.Frames = make([]uint32, n)
		for i := range e.Frames {
			e.Frames[i] = r.u32(p)
			p += 4
		}
	}
	r.m.Events = append(r.m.Events, e)
	return p, nil
}

func (r *reader) collision(pos, end int) (int, error) {
	var c wc3.CollisionShape
	p, err := r.node(pos, end, &c.Node, "collision shape")
	if err != nil {
		return 0, err
	}
	if err := r.need(p, end, 4, "collision shape"); err != nil {
		return 0, err
	}
	c.Type = r.u32(p)
	nv, radius, ok := mdxfmt.ShapeLayout(c.Type)
	if !ok {
		return 0, r.fail(p, "collision shape: unknown type %d", c.Type)
	}
	p += 4
	size := 12 * nv
	if radius {
		size += 4
	}
	if err := r.need(p, end, size, "collision shape"); err != nil {
		return 0, err
	}
	c.Vertices = make([][3]float32, nv)
	getVec3s(c.Vertices, r.d[p:])
	p += 12 * nv
	if radius {
		c.BoundsRadius = r.f32(p)
		p += 4
	}
	r.m.CollisionShapes = append(r.m.CollisionShapes, c)
	return p, nil
}

// check adds warnings for counts that do not agree; it never fails.
func (r *reader) check() {
	m := r.m
	for i, g := range m.Geosets {
		nv := len(g.Vertices)
		if len(g.Normals) != nv {
			r.warn("geoset %d: %d normals for %d vertices", i, len(g.Normals), nv)
		}
		if len(g.VertexGroups) != nv {
			r.warn("geoset %d: %d vertex groups for %d vertices", i, len(g.VertexGroups), nv)
		}
		for j, uv := range g.UVSets {
			if len(uv) != nv {
				r.warn("geoset %d: UV set %d has %d coordinates for %d vertices", i, j, len(uv), nv)
			}
		}
		var sum uint64
		for _, c := range g.FaceCounts {
			sum += uint64(c)
		}
		if sum != uint64(len(g.Faces)) {
			r.warn("geoset %d: face groups count %d indices, PVTX has %d", i, sum, len(g.Faces))
		}
		sum = 0
		for _, c := range g.GroupSizes {
			sum += uint64(c)
		}
		if sum != uint64(len(g.Matrices)) {
			r.warn("geoset %d: matrix groups count %d entries, MATS has %d", i, sum, len(g.Matrices))
		}
		if g.Tangents != nil && len(g.Tangents) != nv {
			r.warn("geoset %d: %d tangents for %d vertices", i, len(g.Tangents), nv)
		}
		if g.Skin != nil && len(g.Skin) != 8*nv {
			r.warn("geoset %d: %d bytes of skin weights for %d vertices (8 each)", i, len(g.Skin), nv)
		}
	}
	nodes := len(m.Bones) + len(m.Lights) + len(m.Helpers) + len(m.Attachments) +
		len(m.ParticleEmitters) + len(m.ParticleEmitters2) + len(m.RibbonEmitters) +
		len(m.Events) + len(m.CollisionShapes) + len(m.Popcorns)
	if nodes != len(m.PivotPoints) {
		r.warn("%d pivot points for %d objects", len(m.PivotPoints), nodes)
	}
}

// slot binds a track kind to the field of the object being read.
type slot struct {
	mdxfmt.Kind
	dst **wc3.Track
}
