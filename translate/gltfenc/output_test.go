package gltfenc

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"
	"unsafe"

	"github.com/modelfs/modelfs/translate/gltfenc/gltfjson"
)

// TestPooledGarbage builds every scene into a buffer full of stale bytes, as a pooled one may
// be, and checks that none survives (the result equals the one built in zeroed memory) and that
// plannedSize was enough (the buffer was never regrown).
func TestPooledGarbage(t *testing.T) {
	for _, tc := range testScenes() {
		for _, images := range []bool{false, true} {
			s := tc.s
			if images {
				s = withImages(t, s)
			}
			for _, opt := range []Options{{}, {Binary: true}, {EmbedImages: true}} {
				name := fmt.Sprintf("%s images=%v %+v", tc.name, images, opt)
				want, err := Document(s, opt)
				if err != nil {
					t.Fatal(err)
				}
				planned := plannedSize(s, opt)
				stale := bytes.Repeat([]byte{0xa5}, planned)
				e := newEncoder(s, opt, stale[:0], new(docMem))
				if err := e.build(); err != nil {
					t.Fatal(err)
				}
				if len(e.bin.b) > planned || len(e.bin.b) > 0 && unsafe.SliceData(e.bin.b) != unsafe.SliceData(stale) {
					t.Errorf("%s: buffer of %d bytes outgrew the planned %d", name, len(e.bin.b), planned)
				}
				var wantData []byte
				if len(want.Buffers) > 0 {
					wantData = want.Buffers[0].Data
				}
				if got := slices.Concat(append([][]byte{e.bin.b}, e.tail()...)...); !bytes.Equal(got, wantData) {
					t.Errorf("%s: stale bytes reached the buffer", name)
				}
				for _, binary := range []bool{false, true} {
					a, errA := gltfjson.WriteParts(e.doc, binary, e.tail())
					b, errB := gltfjson.Write(want, binary)
					if errA != nil || errB != nil || !bytes.Equal(a, b) {
						t.Errorf("%s binary=%v: output differs (%v, %v)", name, binary, errA, errB)
					}
				}
			}
		}
	}
}

// TestOutputOwned checks that Encode's result and Document's buffer share no memory with the
// pools: later encodings, which reuse the pooled memory, leave them unchanged.
func TestOutputOwned(t *testing.T) {
	scenes := testScenes()
	type kept struct {
		name       string
		out, clone []byte
	}
	var all []kept
	for round := range 3 {
		for _, tc := range scenes {
			for _, opt := range []Options{{}, {Binary: true}} {
				out := encode(t, tc.s, opt.Binary)
				all = append(all, kept{fmt.Sprintf("%s %+v round %d", tc.name, opt, round), out, bytes.Clone(out)})
				doc, err := Document(tc.s, opt)
				if err != nil {
					t.Fatal(err)
				}
				if len(doc.Buffers) > 0 {
					d := doc.Buffers[0].Data
					all = append(all, kept{fmt.Sprintf("%s %+v round %d document", tc.name, opt, round), d, bytes.Clone(d)})
				}
			}
		}
	}
	for _, k := range all {
		if !bytes.Equal(k.out, k.clone) {
			t.Errorf("%s: changed by later encodings", k.name)
		}
	}
}

// TestJointOutOfRange checks the error for a joint beyond the skin, found by a quick scan of
// the largest joint first.
func TestJointOutOfRange(t *testing.T) {
	s := skinnedScene()
	s.Meshes[0].Joints[0][2] = [4]uint16{1, 9, 0, 0}
	s.Meshes[0].Joints[0][3] = [4]uint16{7, 0, 0, 0}
	_, err := Encode(s, Options{})
	if want := "gltfenc: mesh 0 uses joint 9 of 2"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// EncodeTo writes exactly what Encode returns, and reports a failing writer's error.
func TestEncodeTo(t *testing.T) {
	for _, tc := range testScenes() {
		s := withImages(t, tc.s)
		for _, opt := range []Options{{}, {Binary: true}, {EmbedImages: true}} {
			want, err := Encode(s, opt)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := EncodeTo(&got, s, opt); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s %+v: EncodeTo wrote %d bytes unlike Encode's %d", tc.name, opt, got.Len(), len(want))
			}
			if err := EncodeTo(failingWriter{}, s, opt); !errors.Is(err, errFailingWriter) {
				t.Errorf("%s %+v: a failing writer gave %v", tc.name, opt, err)
			}
		}
	}
}

var errFailingWriter = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errFailingWriter }
