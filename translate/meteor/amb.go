package meteor

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/modelfs/modelfs/translate/codec"
)

// FormatAMB is the format name used in errors about animation frames.
const FormatAMB = "meteor-amb"

// ambMagic opens every .amb file.
const ambMagic = "BANIM"

// ambHeader is the size of the .amb header.
const ambHeader = 21

// DummyFrame is one dummy's transform in one frame.
type DummyFrame struct {
	Parent string     // parent tag as written ("NULL", "b13", "d3", …)
	Pos    [3]float32 // local translation, source axes
	Quat   [4]float32 // local rotation w, x, y, z
}

// Animation is a parsed .amb. Frame data stays in the file's bytes and is read on demand by
// the accessors, so a large file costs no more than the frames that are used.
type Animation struct {
	Bones, Dummies int
	Frames         int // number of frame records
	FPS            int // frames per second as stored
	data           []byte
	stride         int
	// Index maps a frame number (the frameIndex field) to its record; nil when record i has
	// frame number i for every i.
	index map[int32]int
	// First and Last are the smallest and largest frame numbers.
	First, Last int32
	Warnings    []string
}

// ParseAMB reads an animation file (.amb). Errors are *codec.FormatError naming file and
// the byte offset of the problem.
func ParseAMB(data []byte, file string) (*Animation, error) {
	fail := func(off int, format string, args ...any) error {
		return &codec.FormatError{Format: FormatAMB, File: file, Offset: int64(off), Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) < ambHeader {
		return nil, fail(int(len(data)), "%d bytes is shorter than the %d-byte header", len(data), ambHeader)
	}
	if string(data[:5]) != ambMagic {
		return nil, fail(0, "magic %q is not %q", data[:5], ambMagic)
	}
	le := binary.LittleEndian
	a := &Animation{data: data}
	nb, nd := int32(le.Uint32(data[5:])), int32(le.Uint32(data[9:]))
	nf, fps := int32(le.Uint32(data[13:])), int32(le.Uint32(data[17:]))
	if nb < 1 || nb > maxJoints {
		return nil, fail(5, "bone count %d out of range [1, %d]", nb, maxJoints)
	}
	if nd < 0 || nd > maxJoints-nb {
		return nil, fail(9, "dummy count %d out of range [0, %d]", nd, maxJoints-nb)
	}
	a.Bones, a.Dummies, a.FPS = int(nb), int(nd), int(fps)
	a.stride = 20 + 16*a.Bones + 33*a.Dummies
	if nf < 0 {
		return nil, fail(13, "negative frame count %d", nf)
	}
	body := len(data) - ambHeader
	if int64(nf)*int64(a.stride) > int64(body) {
		return nil, fail(len(data), "truncated: %d frames of %d bytes need %d bytes after the header, file has %d",
			nf, a.stride, int64(nf)*int64(a.stride), body)
	}
	a.Frames = int(nf)
	if extra := body - a.Frames*a.stride; extra > 0 {
		a.Warnings = append(a.Warnings, fmt.Sprintf("%s: %d bytes after the last frame ignored", file, extra))
	}
	contiguous := true
	for f := range a.Frames {
		off := ambHeader + f*a.stride
		if m := int32(le.Uint32(data[off:])); m != -1 {
			return nil, fail(off, "frame %d: marker %d is not -1", f, m)
		}
		idx := int32(le.Uint32(data[off+4:]))
		if f == 0 || idx < a.First {
			a.First = idx
		}
		if f == 0 || idx > a.Last {
			a.Last = idx
		}
		contiguous = contiguous && idx == int32(f)
	}
	if !contiguous {
		a.index = make(map[int32]int, a.Frames)
		for f := range a.Frames {
			idx := int32(le.Uint32(data[ambHeader+f*a.stride+4:]))
			if _, dup := a.index[idx]; dup {
				a.Warnings = append(a.Warnings, fmt.Sprintf("%s: frame number %d appears twice; the first is used", file, idx))
				continue
			}
			a.index[idx] = f
		}
	}
	// Every value must be finite: check once so that the accessors need not.
	for f := range a.Frames {
		off := ambHeader + f*a.stride + 8
		// The root translation and the bone rotations are one run of floats.
		run := data[off : off+4*(3+4*a.Bones)]
		for k := 0; k+4 <= len(run); k += 4 {
			if !finiteBits(le.Uint32(run[k:])) {
				return nil, fail(off+k, "frame %d: non-finite value", f)
			}
		}
		off += len(run)
		for d := 0; d < a.Dummies; d++ {
			dummy := data[off+5 : off+33]
			for k := 0; k+4 <= len(dummy); k += 4 {
				if !finiteBits(le.Uint32(dummy[k:])) {
					return nil, fail(off+5+k, "frame %d: dummy %d: non-finite value", f, d)
				}
			}
			off += 33
		}
	}
	return a, nil
}

func finiteBits(b uint32) bool { return b&0x7f800000 != 0x7f800000 }

// Record returns the record index of frame number n.
func (a *Animation) Record(n int) (int, bool) {
	if a.index == nil {
		return n, n >= 0 && n < a.Frames
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return 0, false
	}
	r, ok := a.index[int32(n)]
	return r, ok
}

func (a *Animation) f32(off int) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(a.data[off:]))
}

// FrameNumber returns the frame number stored in record r.
func (a *Animation) FrameNumber(r int) int {
	return int(int32(binary.LittleEndian.Uint32(a.data[ambHeader+r*a.stride+4:])))
}

// RootPos returns the translation of bone 0 in record r (source axes).
func (a *Animation) RootPos(r int) [3]float32 {
	off := ambHeader + r*a.stride + 8
	return [3]float32{a.f32(off), a.f32(off + 4), a.f32(off + 8)}
}

// BoneQuat returns the rotation (w, x, y, z) of bone b in record r.
func (a *Animation) BoneQuat(r, b int) [4]float32 {
	off := ambHeader + r*a.stride + 20 + 16*b
	return [4]float32{a.f32(off), a.f32(off + 4), a.f32(off + 8), a.f32(off + 12)}
}

// Dummy returns dummy d of record r.
func (a *Animation) Dummy(r, d int) DummyFrame {
	off := ambHeader + r*a.stride + 20 + 16*a.Bones + 33*d
	tag := a.data[off : off+5]
	n := 0
	for n < len(tag) && tag[n] != 0 {
		n++
	}
	off += 5
	return DummyFrame{
		Parent: string(tag[:n]),
		Pos:    [3]float32{a.f32(off), a.f32(off + 4), a.f32(off + 8)},
		Quat:   [4]float32{a.f32(off + 12), a.f32(off + 16), a.f32(off + 20), a.f32(off + 24)},
	}
}

// dummyTag returns the raw parent tag of dummy d in record r, without allocating.
func (a *Animation) dummyTag(r, d int) []byte {
	off := ambHeader + r*a.stride + 20 + 16*a.Bones + 33*d
	tag := a.data[off : off+5]
	n := 0
	for n < len(tag) && tag[n] != 0 {
		n++
	}
	return tag[:n]
}
