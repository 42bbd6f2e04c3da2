// Package scratch keeps byte buffers for reuse from one document to the next: an encoder builds
// in one, copies what it made into its output, and hands it back.
package scratch

import "sync"

// Pool is a pool of buffers, each kept only up to a size limit, so that one huge document does
// not pin its scratch memory for the life of the process.
type Pool struct {
	Limit int
	pool  sync.Pool // of *[]byte
}

// Get returns an empty slice with capacity for at least n bytes, reusing a pooled one when it
// is big enough. Its contents are stale: every byte must be written before it is read.
func (p *Pool) Get(n int) []byte {
	if b, ok := p.pool.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]byte, 0, n)
}

// Put returns b to the pool. b must not be used, nor be reachable from anything handed to a
// caller, afterwards.
func (p *Pool) Put(b []byte) {
	if cap(b) == 0 || cap(b) > p.Limit {
		return
	}
	b = b[:0]
	p.pool.Put(&b)
}
