package translate

import (
	"slices"
	"testing"
)

// The kinds table: indices are stable (caches store kinds by index), every kind is found by
// its extension, with or without the dot, and a model's kinds are the table's model kinds.
func TestKinds(t *testing.T) {
	stored := []Kind{GLTF, GLB, OBJ, MTL, JSON, PNG} // as caches hold them: never reorder
	if !slices.Equal(AllKinds[:len(stored)], stored) || len(AllKinds) != NumKinds {
		t.Fatalf("AllKinds = %v; the first must stay %v", AllKinds, stored)
	}
	for i, k := range AllKinds {
		info, ok := InfoOf(k)
		if KindIndex(k) != i || !ok || info.Kind != k || info.MIME == "" {
			t.Errorf("%s: index %d, info %+v", k, KindIndex(k), info)
		}
		for _, ext := range []string{string(k), "." + string(k)} {
			if got, ok := KindOf(ext); !ok || got != k {
				t.Errorf("KindOf(%q) = %q, %v", ext, got, ok)
			}
		}
		if slices.Contains(Kinds, k) != info.Model {
			t.Errorf("%s: in Kinds %v, a model's kind %v", k, slices.Contains(Kinds, k), info.Model)
		}
	}
	for _, ext := range []string{"", ".", "fbx", ".GLTF", "gltf.", ".glb.png"} {
		if k, ok := KindOf(ext); ok || KindIndex(Kind(ext)) != -1 {
			t.Errorf("KindOf(%q) = %q", ext, k)
		}
	}
	if cap(Kinds) != len(Kinds) {
		t.Error("appending to Kinds could write into the table's memory")
	}
}
