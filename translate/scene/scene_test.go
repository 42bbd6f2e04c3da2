package scene

import "testing"

// TestRelease checks that Release runs the decoder's function once, and that a scene without
// one can be released too.
func TestRelease(t *testing.T) {
	var s Scene
	s.Release()
	n := 0
	s.OnRelease(func() { n++ })
	s.Release()
	s.Release()
	if n != 1 {
		t.Errorf("the release function ran %d times; want 1", n)
	}
}
