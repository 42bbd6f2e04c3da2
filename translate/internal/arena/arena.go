// Package arena hands out slices carved from large blocks of memory that is reused from one
// model to the next, so that a decoder's many arrays cost a few allocations, and none once the
// memory of an earlier model is handed back. The slices it hands out hold stale data: every
// caller writes every element it takes.
package arena

import "unsafe"

// Arena carves slices of T from blocks it keeps across Reset. The zero value is ready to use.
// An Arena is not safe for concurrent use.
type Arena[T any] struct {
	head []T // the first block since the last reset, reused after the next
	free []T // the unused part of the current block
	used int // elements handed out since the last reset
	want int // after a reset that found head short: the size of the next first block
}

// Take returns n elements of stale memory, with their own capacity (appending to the slice
// never reaches into its neighbour).
func (a *Arena[T]) Take(n int) []T {
	if n > len(a.free) {
		// Blocks double, so that a model takes a few; the first after a reset holds what the
		// last model used.
		a.start(max(n, 2*a.used, a.want, 256))
	}
	s := a.free[:n:n]
	a.free = a.free[n:]
	a.used += n
	return s
}

// Reserve makes sure that the next takes, n elements in all, fit one block, so that they do
// not make several.
func (a *Arena[T]) Reserve(n int) {
	if n > len(a.free) {
		a.start(max(n, a.want))
	}
}

// start begins a new block of n elements.
func (a *Arena[T]) start(n int) {
	blk := make([]T, n)
	a.want = 0
	if a.head == nil {
		a.head = blk
	}
	a.free = blk
}

// Reset makes all memory handed out reusable; nothing taken before may be used afterwards.
func (a *Arena[T]) Reset() {
	if a.used > cap(a.head) {
		a.head, a.want = nil, a.used
	}
	a.free = a.head[:cap(a.head)]
	a.used = 0
}

// Bytes is the memory the arena keeps across a Reset.
func (a *Arena[T]) Bytes() int {
	var x T
	return max(cap(a.head), a.want) * int(unsafe.Sizeof(x))
}
