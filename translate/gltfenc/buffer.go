package gltfenc

import (
	"strconv"
	"unsafe"

	"github.com/modelfs/modelfs/internal/le"
	"github.com/modelfs/modelfs/internal/textnum"
	"github.com/modelfs/modelfs/translate/internal/scratch"
)

// align4 rounds n up to a multiple of 4.
func align4(n int) int { return (n + 3) &^ 3 }

// binWriter appends little-endian data to the one glTF buffer.
type binWriter struct {
	b []byte
}

// pad appends zero bytes up to the next multiple of 4.
func (w *binWriter) pad() {
	for len(w.b)%4 != 0 {
		w.b = append(w.b, 0)
	}
}

// grow extends the buffer by n bytes and returns them for filling.
func (w *binWriter) grow(n int) []byte {
	start := len(w.b)
	if cap(w.b)-start < n {
		nb := make([]byte, start, 2*cap(w.b)+n)
		copy(nb, w.b)
		w.b = nb
	}
	w.b = w.b[:start+n]
	return w.b[start:]
}

// f32s appends float32 values.
func (w *binWriter) f32s(v []float32) {
	putF32s(w.grow(len(v)*4), v)
}

// putF32s stores v little-endian into dst, which holds at least 4·len(v) bytes.
func putF32s(dst []byte, v []float32) { le.Put(dst, v, 4) }

// u32s appends uint32 values.
func (w *binWriter) u32s(v []uint32) { le.Put(w.grow(len(v)*4), v, 4) }

// u32sAsU16 appends uint32 values narrowed to uint16 and returns the largest value before
// narrowing, so that the caller can check they fit without another pass.
func (w *binWriter) u32sAsU16(v []uint32) (largest uint32) {
	dst := w.grow(len(v) * 2)
	dst = dst[:len(v)*2]
	for i, x := range v {
		largest = max(largest, x)
		d := dst[i*2 : i*2+2 : i*2+2]
		d[0], d[1] = byte(x), byte(x>>8)
	}
	return largest
}

// flat2, flat3, flat4 view a slice of small float arrays as one flat float slice. Go lays
// arrays of arrays out contiguously, without padding.
func flat2(v [][2]float32) []float32 {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice(&v[0][0], len(v)*2)
}

func flat3(v [][3]float32) []float32 {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice(&v[0][0], len(v)*3)
}

func flat4(v [][4]float32) []float32 {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice(&v[0][0], len(v)*4)
}

func flat4u16(v [][4]uint16) []uint16 {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice(&v[0][0], len(v)*4)
}

func flat16(v [][16]float32) []float32 {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice(&v[0][0], len(v)*16)
}

// bounds returns the per-component minimum and maximum of flat, which holds width floats per
// element, rounded for JSON (see r32); both are carved from the encoder's slab.
func (e *encoder) bounds(flat []float32, width int) (lo, hi []float64) {
	mn, mx, ok := minMax(flat, width)
	if !ok {
		return nil, nil
	}
	both := e.f64s.take(2 * width)
	lo, hi = both[:width:width], both[width:]
	for c := 0; c < width; c++ {
		lo[c], hi[c] = e.r32(mn[c]), e.r32(mx[c])
	}
	return lo, hi
}

// r32 is r32 remembering its results: bounds repeat (the ends of key times are the clips'
// durations) and r32 formats and parses a decimal.
func (e *encoder) r32(f float32) float64 {
	if f == 0 {
		return 0
	}
	if v, ok := e.mem.r32s[f]; ok {
		return v
	}
	if e.mem.r32s == nil {
		e.mem.r32s = make(map[float32]float64)
	}
	v := r32(f)
	e.mem.r32s[f] = v
	return v
}

// minMax returns the per-component minimum and maximum of flat, which holds width (at most 16)
// floats per element, as the min and max builtins give them except that a zero bound may have
// either sign (bounds only go through r32, which drops it); ok is false when flat holds no
// element.
func minMax(flat []float32, width int) (mn, mx [16]float32, ok bool) {
	if len(flat) < width {
		return mn, mx, false
	}
	copy(mn[:width], flat[:width])
	copy(mx[:width], flat[:width])
	// The common widths keep their running bounds in locals, which the compiler holds in
	// registers; min and max keep the builtins' rules (a NaN wins, -0 is below 0).
	switch width {
	case 1:
		lo, hi := mn[0], mx[0]
		for _, v := range flat {
			lo, hi = min(lo, v), max(hi, v)
		}
		mn[0], mx[0] = lo, hi
	case 3:
		lx, ly, lz, hx, hy, hz := mn[0], mn[1], mn[2], mx[0], mx[1], mx[2]
		for len(flat) >= 3 {
			v := flat[:3:3]
			lx, hx = min(lx, v[0]), max(hx, v[0])
			ly, hy = min(ly, v[1]), max(hy, v[1])
			lz, hz = min(lz, v[2]), max(hz, v[2])
			flat = flat[3:]
		}
		mn[0], mn[1], mn[2], mx[0], mx[1], mx[2] = lx, ly, lz, hx, hy, hz
	default:
		for i := 0; i+width <= len(flat); i += width {
			for c := 0; c < width; c++ {
				mn[c], mx[c] = min(mn[c], flat[i+c]), max(mx[c], flat[i+c])
			}
		}
	}
	return mn, mx, true
}

// r32 widens f to float64 so that JSON prints the shortest decimal that reads back as the same
// float32 ("0.1" rather than "0.10000000149011612").
func r32(f float32) float64 {
	if f == 0 {
		return 0 // also turns -0 into 0
	}
	// A whole number below 2^24 is its own shortest decimal: float32 spacing there is at most
	// 1, so no shorter decimal reads back as it.
	if i := int32(f); float32(i) == f && i > -1<<24 && i < 1<<24 {
		return float64(i)
	}
	// The shortest decimal that reads back as f, read as a float64: textnum gives
	// strconv.ParseFloat's result, by one exact step for these short decimals.
	var buf [32]byte
	v, ok := textnum.ParseFloat64(strconv.AppendFloat(buf[:0], float64(f), 'e', -1, 32))
	if !ok {
		return float64(f)
	}
	return v
}

// The binary buffer is built in scratch memory taken from a pool; writing copies it into the
// output. Pooled memory is not zeroed, so every byte of the buffer must be written by the
// encoder (TestPooledGarbage checks that no stale byte reaches the output).

// maxPooledBin is the largest scratch buffer kept for reuse, so that one huge model does not pin
// its scratch memory for the life of the process.
const maxPooledBin = 64 << 20

var binPool = scratch.Pool{Limit: maxPooledBin}
