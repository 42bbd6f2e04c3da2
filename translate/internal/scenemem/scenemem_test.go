package scenemem

import (
	"testing"

	"github.com/modelfs/modelfs/translate/scene"
)

// TestAttach checks that a scene's Release hands its memory back for the next Get, and that a
// Mem grown past the pool's limit is left to the garbage collector.
func TestAttach(t *testing.T) {
	m := Get()
	v := m.Vec3.Take(100)
	var s scene.Scene
	m.Attach(&s)
	s.Release()
	// sync.Pool may drop what it holds at any garbage collection, so reuse is likely, not
	// certain: only a reused Mem is checked.
	if again := Get(); again == m {
		if w := again.Vec3.Take(100); &w[0] != &v[0] {
			t.Errorf("a released scene's memory is not handed out again")
		}
	}
	big := new(Mem)
	big.Values.Take(pool.Limit/4 + 1)
	big.Put()
	for range 3 {
		if Get() == big {
			t.Fatal("memory above the limit went back to the pool")
		}
	}
}
