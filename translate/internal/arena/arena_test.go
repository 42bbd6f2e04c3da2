package arena

import "testing"

// TestReuse checks that slices do not overlap, that a reset arena hands out the same memory
// again, and that one that ran short makes a single block of what was used next time.
func TestReuse(t *testing.T) {
	var a Arena[int]
	x, y := a.Take(10), a.Take(20)
	if cap(x) != 10 || cap(y) != 20 || &x[9] == &y[0] {
		t.Fatalf("slices of capacity %d and %d; want 10 and 20, apart", cap(x), cap(y))
	}
	for i := range x {
		x[i] = i
	}
	a.Reset()
	if z := a.Take(10); &z[0] != &x[0] || z[9] != 9 {
		t.Errorf("after a reset, the first take is not the first block's memory")
	}
	a.Take(1000) // more than the first block holds: a second block
	a.Reset()
	if a.Bytes() < 1010*8 {
		t.Errorf("Bytes = %d after using 1010 ints; want at least %d", a.Bytes(), 1010*8)
	}
	first := a.Take(1010)
	a.Reset()
	if again := a.Take(1010); &again[0] != &first[0] {
		t.Errorf("the block made for what the last use took is not reused")
	}
	var b Arena[byte]
	b.Reserve(5000)
	p, q := b.Take(3000), b.Take(2000)
	if &p[2999] != &b.head[2999] || &q[0] != &b.head[3000] {
		t.Errorf("takes after Reserve do not share its block")
	}
}

// A set of arenas over the pool's limit is dropped; one within it is reset and kept.
func TestPoolLimit(t *testing.T) {
	type set struct{ a, b Arena[int64] }
	p := Pool[set]{Limit: 1 << 10}
	small := p.Get()
	small.a.Take(10)
	p.Put(small, &small.a, &small.b)
	if small.a.used != 0 {
		t.Fatal("Put did not reset the arenas")
	}
	big := new(set)
	big.b.Take(1 << 10) // 8 KiB
	p.Put(big, &big.a, &big.b)
	for range 10 {
		if p.Get() == big {
			t.Fatal("a set over the limit went back to the pool")
		}
	}
}
