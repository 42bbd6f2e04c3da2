package gltfenc

// slab hands out pointers to elements of large blocks, so that the many small objects of a
// document (accessors, samplers, channels, indices) cost a few allocations rather than one
// each. Every element is handed out once, zeroed. The first block comes from the encoder's
// docMem (pooled for Encode); later ones, needed only when the first was estimated too small,
// are allocated and stay alive while any of their elements is referenced.
type slab[T any] struct {
	block []T
	size  int // elements in the next block
}

// slabOf returns a slab whose first block is first (zeroed), an estimate of all that will be
// taken: later blocks hold a quarter of that each (at least 16 elements).
func slabOf[T any](first []T) slab[T] {
	return slab[T]{block: first, size: max(len(first)/4, 16)}
}

// refill starts a new block with room for at least n elements.
func (s *slab[T]) refill(n int) {
	s.block = make([]T, max(s.size, n))
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
