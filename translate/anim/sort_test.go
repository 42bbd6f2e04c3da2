package anim

import (
	"slices"
	"testing"
)

// SortKeys orders keys by frame, keeping file order among equal frames, and carries values
// and tangents along.
func TestSortKeys(t *testing.T) {
	tr := &Track{Interp: Hermite, Width: 1, Frames: []int64{0, 2000, 1000, 1000},
		Values: []float32{0, 20, 10, 11}, InTans: []float32{0, 2, 1, 1.1}, OutTans: []float32{0, -2, -1, -1.1}, Default: []float32{0}}
	if moved := tr.SortKeys(); moved != 3 {
		t.Errorf("moved %d keys, want 3", moved)
	}
	if !slices.Equal(tr.Frames, []int64{0, 1000, 1000, 2000}) || !slices.Equal(tr.Values, []float32{0, 10, 11, 20}) ||
		!slices.Equal(tr.InTans, []float32{0, 1, 1.1, 2}) || !slices.Equal(tr.OutTans, []float32{0, -1, -1.1, -2}) {
		t.Errorf("sorted: %v %v %v %v", tr.Frames, tr.Values, tr.InTans, tr.OutTans)
	}
	if err := tr.Check(); err != nil {
		t.Error(err)
	}
	if moved := tr.SortKeys(); moved != 0 {
		t.Errorf("sorted twice: moved %d", moved)
	}
}
