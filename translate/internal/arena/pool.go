package arena

import "sync"

// Pool keeps sets of arenas (T is a struct of Arena fields) for reuse from model to model,
// each only up to a size limit, so that one huge model does not pin its memory for the life
// of the process. The zero value with Limit set is ready to use.
type Pool[T any] struct {
	Limit int // bytes
	pool  sync.Pool
}

// Get returns a set of arenas, reused when the pool has one.
func (p *Pool[T]) Get() *T {
	if m, ok := p.pool.Get().(*T); ok {
		return m
	}
	return new(T)
}

// Put resets the arenas of m and keeps m for reuse if together they hold no more than the
// limit. Nothing taken from m may be used afterwards.
func (p *Pool[T]) Put(m *T, arenas ...resetter) {
	n := 0
	for _, a := range arenas {
		a.Reset()
		n += a.Bytes()
	}
	if n <= p.Limit {
		p.pool.Put(m)
	}
}

// resetter is an Arena of any element type.
type resetter interface {
	Reset()
	Bytes() int
}
