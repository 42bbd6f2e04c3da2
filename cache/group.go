package cache

import (
	"context"
	"fmt"

	"golang.org/x/sync/singleflight"
)

// Group coalesces loads: while a load of a key runs, every other caller asking for that key
// waits for its result instead of starting another. Each caller waits on its own context and may
// give up alone; the load itself runs to completion, undisturbed, so its result is not lost to
// the callers still waiting or to the next one. The zero Group is ready for use.
type Group[T any] struct {
	sf singleflight.Group
}

// PanicError is what a load that panicked returns to its callers.
type PanicError struct{ Value any }

func (e *PanicError) Error() string { return fmt.Sprintf("load panicked: %v", e.Value) }

// Do returns the result of load for key, running it unless a load of key is already running,
// in which case it waits for that one. It returns ctx.Err() when ctx ends first. A panic in load
// becomes a *PanicError for every caller rather than ending the process.
func (g *Group[T]) Do(ctx context.Context, key string, load func() (T, error)) (T, error) {
	ch := g.sf.DoChan(key, func() (v any, err error) {
		defer func() {
			if p := recover(); p != nil {
				v, err = nil, &PanicError{Value: p}
			}
		}()
		return load()
	})
	select {
	case r := <-ch:
		v, _ := r.Val.(T)
		return v, r.Err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
