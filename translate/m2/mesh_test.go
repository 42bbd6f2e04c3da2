package m2

import (
	"math/rand"
	"slices"
	"testing"
)

// TestRepeatedTrianglesAgainstPairs checks repeatedTriangles, with its tables reused from one
// list to the next, against comparing every triangle with every earlier one.
func TestRepeatedTrianglesAgainstPairs(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var sc triScratch
	for round := 0; round < 200; round++ {
		nv := 3 + r.Intn(12)
		var indices []uint32
		for len(indices) < 3*r.Intn(60) {
			a, b, c := uint32(r.Intn(nv)), uint32(r.Intn(nv)), uint32(r.Intn(nv))
			if a != b && b != c && a != c {
				indices = append(indices, a, b, c)
			}
		}
		var want []int
		for i := 0; 3*i < len(indices); i++ {
			ti := slices.Sorted(slices.Values(indices[3*i : 3*i+3]))
			for j := 0; j < i; j++ {
				if slices.Contains(want, j) {
					continue
				}
				if slices.Equal(ti, slices.Sorted(slices.Values(indices[3*j:3*j+3]))) {
					want = append(want, i)
					break
				}
			}
		}
		if got := repeatedTriangles(indices, nv, &sc); !slices.Equal(got, want) {
			t.Fatalf("round %d: %v: repeats %v, want %v", round, indices, got, want)
		}
	}
}
