package gltfenc

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// r32Plain is r32 without its shortcuts: the definition it must agree with.
func r32Plain(f float32) float64 {
	if f == 0 {
		return 0
	}
	v, err := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
	if err != nil {
		return float64(f)
	}
	return v
}

func TestR32(t *testing.T) {
	check := func(f float32) {
		t.Helper()
		got, want := r32(f), r32Plain(f)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("r32(%v) = %v, want %v", f, got, want)
		}
	}
	// Whole numbers: small ones, those around 2^24 where the shortcut stops, random ones.
	for i := int32(-20000); i <= 20000; i++ {
		check(float32(i))
		check(float32(1<<24 + i))
		check(float32(-(1 << 24) + i))
	}
	for _, f := range []float32{1 << 24, -(1 << 24), 1<<24 + 2, 1 << 31, -(1 << 31), 3e9, 0.5, float32(math.Inf(1)), float32(math.NaN()), math.MaxFloat32, math.SmallestNonzeroFloat32} {
		check(f)
		check(-f)
	}
	r := rand.New(rand.NewPCG(9, 10))
	for range 50000 {
		check(math.Float32frombits(r.Uint32()))
		check(float32(r.NormFloat64() * 100))
		check(float32(r.Int32()))
	}
}

func TestIndexWriters(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for n := range 40 {
		ix := make([]uint32, n)
		var want uint32
		for i := range ix {
			ix[i] = r.Uint32N(65536)
			want = max(want, ix[i])
		}
		if got := maxIndex(ix); got != want {
			t.Errorf("maxIndex of %d: %d, want %d", n, got, want)
		}
		var w binWriter
		if got := w.u32sAsU16(ix); got != want || len(w.b) != 2*n {
			t.Errorf("u32sAsU16 of %d: largest %d, want %d; %d bytes", n, got, want, len(w.b))
		}
		for i, x := range ix {
			if got := binary.LittleEndian.Uint16(w.b[2*i:]); got != uint16(x) {
				t.Fatalf("u32sAsU16: index %d is %d, want %d", i, got, x)
			}
		}
	}
}

// writeInfluencesPlain is writeInfluences without its one-set shortcut: the general clean
// check, bulk copies when clean, per-vertex repairs otherwise.
func writeInfluencesPlain(jdst, wdst [][]byte, joints [][][4]uint16, weights [][][4]float32, small bool) {
	if influencesClean(joints, weights) {
		for s := range joints {
			for i, j := range flat4u16(joints[s]) {
				if small {
					jdst[s][i] = byte(j)
				} else {
					binary.LittleEndian.PutUint16(jdst[s][i*2:], j)
				}
			}
			putF32s(wdst[s], flat4(weights[s]))
		}
		return
	}
	// Two sets take writeInfluences' general path, which is the plain one; the second set is
	// all unused slots, so it changes nothing but the set count.
	sets := len(joints)
	js, ws := make([]uint16, sets*4), make([]float32, sets*4)
	for v := range joints[0] {
		for s := range sets {
			copy(js[s*4:], joints[s][v][:])
			copy(ws[s*4:], weights[s][v][:])
		}
		sanitizeInfluences(js, ws)
		for s := range sets {
			for c := range 4 {
				if small {
					jdst[s][v*4+c] = byte(js[s*4+c])
				} else {
					binary.LittleEndian.PutUint16(jdst[s][v*8+c*2:], js[s*4+c])
				}
				binary.LittleEndian.PutUint32(wdst[s][v*16+c*4:], math.Float32bits(ws[s*4+c]))
			}
		}
	}
}

// randomInfluences returns one vertex's influences, clean or not, from awkward weights.
func randomInfluences(r *rand.Rand) ([4]uint16, [4]float32) {
	weights := []float32{0, float32(math.Copysign(0, -1)), 1, 0.5, 0.25, 0.75, 1.0 / 3, 2.0 / 3, -0.5, 1.5, float32(math.NaN()), float32(math.Inf(1)), 0.5 + 1e-7, 0.5 - 1e-7, 0.2}
	var j [4]uint16
	var w [4]float32
	for c := range 4 {
		j[c] = uint16(r.IntN(3))
		w[c] = weights[r.IntN(len(weights))]
		if r.IntN(3) == 0 {
			w[c], j[c] = 0, 0
		}
	}
	if r.IntN(2) == 0 { // often make it sum to one
		w[3] = 1 - w[0] - w[1] - w[2]
	}
	return j, w
}

// TestCleanChecks holds the one-set checks to influencesClean's definition, vertex by vertex.
func TestCleanChecks(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	var clean, dirty, quick int
	for range 300000 {
		j, w := randomInfluences(r)
		want := influencesClean([][][4]uint16{{j}}, [][][4]float32{{w}})
		if got := vertexClean1(&j, &w); got != want {
			t.Fatalf("vertexClean1(%v, %v) = %v, want %v", j, w, got, want)
		}
		if quickClean(&j, &w) {
			quick++
			if !want {
				t.Fatalf("quickClean(%v, %v) passes a vertex that is not clean", j, w)
			}
		}
		if want {
			clean++
		} else {
			dirty++
		}
	}
	if clean < 1000 || dirty < 1000 || quick < clean/2 {
		t.Errorf("%d clean (%d passing quickClean), %d dirty vertices: the test does not exercise all", clean, quick, dirty)
	}
}

// TestWriteInfluences holds writeInfluences to writeInfluencesPlain on random meshes: clean
// ones, ones with a single bad vertex anywhere, ones with -0 weights (which only the repairs
// turn into +0), one and two sets, small and large joint indices.
func TestWriteInfluences(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for i := range 3000 {
		nv := r.IntN(20) + 1
		sets := 1 + r.IntN(4)/3
		js, ws := make([][][4]uint16, sets), make([][][4]float32, sets)
		for s := range sets {
			js[s], ws[s] = make([][4]uint16, nv), make([][4]float32, nv)
		}
		for v := range nv {
			switch r.IntN(4) {
			case 0:
				js[0][v], ws[0][v] = randomInfluences(r)
			default:
				js[0][v], ws[0][v] = [4]uint16{uint16(r.IntN(300)), 0, 0, 0}, [4]float32{1, 0, 0, 0}
				if r.IntN(5) == 0 {
					ws[0][v][2] = float32(math.Copysign(0, -1))
				}
			}
		}
		small := r.IntN(2) == 0
		jsize := 8
		if small {
			jsize = 4
			for s := range sets {
				for v := range nv {
					for c := range 4 {
						js[s][v][c] %= 256
					}
				}
			}
		}
		alloc := func() ([][]byte, [][]byte) {
			jd, wd := make([][]byte, sets), make([][]byte, sets)
			for s := range sets {
				jd[s], wd[s] = make([]byte, nv*jsize), make([]byte, nv*16)
			}
			return jd, wd
		}
		gotJ, gotW := alloc()
		wantJ, wantW := alloc()
		writeInfluences(gotJ, gotW, js, ws, small)
		writeInfluencesPlain(wantJ, wantW, js, ws, small)
		for s := range sets {
			if !bytes.Equal(gotJ[s], wantJ[s]) || !bytes.Equal(gotW[s], wantW[s]) {
				t.Fatalf("mesh %d set %d: joints % x weights % x, want % x and % x", i, s, gotJ[s], gotW[s], wantJ[s], wantW[s])
			}
		}
	}
}
