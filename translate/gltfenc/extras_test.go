package gltfenc

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/modelfs/modelfs/translate/scene"
)

// TestNonFiniteExtras: NaN and infinities in extras (a corrupt file's raw values, carried in a
// decoder's structs) become null in both containers once the extras are plain (as the pipeline
// makes them); the document is written anyway, and the rest of its extras are unchanged.
func TestNonFiniteExtras(t *testing.T) {
	type layer struct {
		Alpha  float32 `json:"alpha"`
		Speeds []float64
	}
	s := triangleScene()
	s.Nodes[0].Extras = scene.Extras{"objectId": 7, "pivot": []float32{1, float32(math.Inf(1)), 3}}
	s.Materials[0].Extras = scene.Extras{"layers": []layer{{Alpha: float32(math.NaN()), Speeds: []float64{2, math.Inf(-1)}}}}
	if _, err := Encode(s, Options{}); err == nil {
		t.Error("extras not plain: no error")
	}
	s.MakePlain()
	for _, binary := range []bool{false, true} {
		out := encode(t, s, binary)
		doc := decode(t, out)
		node, err := json.Marshal(doc.Nodes[0].Extras)
		if err != nil || !bytes.Equal(node, []byte(`{"kind":"root","objectId":7,"pivot":[1,null,3]}`)) {
			t.Errorf("binary=%v: node extras %s, %v", binary, node, err)
		}
		mat, err := json.Marshal(doc.Materials[0].Extras)
		if err != nil || !bytes.Contains(mat, []byte(`"layers":[{"Speeds":[2,null],"alpha":null}]`)) {
			t.Errorf("binary=%v: material extras %s, %v", binary, mat, err)
		}
		if again := encode(t, s, binary); !bytes.Equal(again, out) {
			t.Errorf("binary=%v: two encodings differ", binary)
		}
	}
	// Extras that cannot be written at all (a cycle) still give an error, not a hang.
	cycle := map[string]any{}
	cycle["self"] = cycle
	s.Materials[0].Extras = scene.Extras{"c": cycle}
	if _, err := Encode(s, Options{}); err == nil {
		t.Error("cyclic extras: no error")
	}
}
