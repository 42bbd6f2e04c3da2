package scratch

import "testing"

// A buffer over the limit is not kept; one within it comes back with its capacity, emptied.
func TestPoolLimit(t *testing.T) {
	p := Pool{Limit: 1 << 10}
	b := p.Get(100)
	if len(b) != 0 || cap(b) < 100 {
		t.Fatalf("Get(100): len %d cap %d", len(b), cap(b))
	}
	p.Put(append(b, 1, 2, 3))
	if c := p.Get(50); len(c) != 0 || cap(c) < 50 {
		t.Fatalf("Get(50) after Put: len %d cap %d", len(c), cap(c))
	}
	p.Put(make([]byte, 0, 1<<11)) // over the limit: dropped
	if c := p.Get(1 << 11); cap(c) < 1<<11 {
		t.Fatalf("Get(2048): cap %d", cap(c))
	}
}
