package gltfsample

import (
	"math"
	"testing"
)

func near(a []float64, b ...float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-6 {
			return false
		}
	}
	return len(a) == len(b)
}

func TestSample(t *testing.T) {
	h := float32(math.Sqrt(0.5))
	tests := []struct {
		name   string
		interp string
		times  []float32
		values []float32
		width  int
		t      float32
		want   []float64
	}{
		{"step before", Step, []float32{1, 2}, []float32{5, 7}, 1, 0, []float64{5}},
		{"step mid", Step, []float32{1, 2}, []float32{5, 7}, 1, 1.9, []float64{5}},
		{"step at key", Step, []float32{1, 2}, []float32{5, 7}, 1, 2, []float64{7}},
		{"linear mid", Linear, []float32{0, 2}, []float32{0, 10, 4, 20}, 2, 0.5, []float64{1, 12.5}},
		{"linear after", Linear, []float32{0, 2}, []float32{0, 10, 4, 20}, 2, 3, []float64{4, 20}},
		{"slerp 90° half", Linear, []float32{0, 1}, []float32{0, 0, 0, 1, 0, 0, h, h}, 4, 0.5,
			[]float64{0, 0, math.Sin(math.Pi / 8), math.Cos(math.Pi / 8)}},
		{"slerp short way", Linear, []float32{0, 1}, []float32{0, 0, 0, 1, 0, 0, -h, -h}, 4, 0.5,
			[]float64{0, 0, math.Sin(math.Pi / 8), math.Cos(math.Pi / 8)}},
		// p(s) = s² on [0, 2] seconds: value 0 → 4, derivative 0 → 4 per second.
		{"cubic", CubicSpline, []float32{0, 2}, []float32{9, 0, 0, 4, 4, 9}, 1, 1, []float64{1}},
	}
	for _, tc := range tests {
		got, err := Sample(tc.interp, tc.times, tc.values, tc.width, tc.t)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !near(got, tc.want...) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSampleErrors(t *testing.T) {
	tests := []struct {
		name   string
		interp string
		times  []float32
		values []float32
	}{
		{"no keys", Linear, nil, nil},
		{"short values", CubicSpline, []float32{0}, []float32{1}},
		{"unsorted", Step, []float32{1, 1}, []float32{1, 2}},
		{"bad mode", "SPLINE", []float32{0}, []float32{1}},
	}
	for _, tc := range tests {
		if _, err := Sample(tc.interp, tc.times, tc.values, 1, 0); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
