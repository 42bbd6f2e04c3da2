package gltfenc

// slab hands out pointers to elements of large blocks, so that the many small objects of a
// document (accessors, samplers, channels, indices) cost a few allocations rather than one
// each. Every element is handed out once, zeroed; a block stays alive while any of its elements
// is referenced, which for a document is as long as the document.
type slab[T any] struct {
	block   []T
	size    int  // elements in the next block
	started bool // the first block is made
}

// newSlab returns a slab whose first block holds n elements (at least 16), an estimate of all
// that will be taken: later blocks hold a quarter of that each.
func newSlab[T any](n int) slab[T] {
	return slab[T]{size: max(n, 16)}
}

// refill starts a new block with room for at least n elements: the estimate for the first
// block, a quarter of it for the others.
func (s *slab[T]) refill(n int) {
	if s.size < 16 {
		s.size = 64 // a zero slab: no estimate
	}
	s.block = make([]T, max(s.size, n))
	if !s.started {
		s.started = true
		s.size = max(s.size/4, 16)
	}
}

// new returns a pointer to a fresh zero element.
func (s *slab[T]) new() *T {
	if len(s.block) == 0 {
		s.refill(1)
	}
	p := &s.block[0]
	s.block = s.block[1:]
	return p
}

// take returns n fresh zero elements as a slice of their own capacity (appending to it never
// reaches a neighbour).
func (s *slab[T]) take(n int) []T {
	if n > len(s.block) {
		s.refill(n)
	}
	out := s.block[:n:n]
	s.block = s.block[n:]
	return out
}
