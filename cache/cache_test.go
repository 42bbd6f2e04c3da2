package cache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCoalescesConcurrentLoads(t *testing.T) {
	c := New(Options{MaxBytes: 1 << 20})
	var loads atomic.Int32
	release := make(chan struct{})
	load := func() ([]byte, error) {
		loads.Add(1)
		<-release
		return []byte("translated"), nil
	}
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := c.Get(context.Background(), "k", load)
			if err != nil || string(got) != "translated" {
				t.Errorf("Get = %q, %v", got, err)
			}
		}()
	}
	time.Sleep(20 * time.Millisecond) // let the readers pile up on the one flight
	close(release)
	wg.Wait()
	if n := loads.Load(); n != 1 {
		t.Fatalf("%d loads for 32 concurrent readers; want 1", n)
	}
	if _, err := c.Get(context.Background(), "k", load); err != nil || loads.Load() != 1 {
		t.Fatalf("warm Get reloaded (%d loads, %v)", loads.Load(), err)
	}
}

func TestEvictsLeastRecentlyUsed(t *testing.T) {
	const size = 1000
	c := New(Options{MaxBytes: 3 * (size + entryOverhead)})
	var loads atomic.Int32
	get := func(k string) {
		t.Helper()
		got, err := c.Get(context.Background(), k, func() ([]byte, error) {
			loads.Add(1)
			return make([]byte, size), nil
		})
		if err != nil || len(got) != size {
			t.Fatalf("Get(%s) = %d bytes, %v", k, len(got), err)
		}
	}
	get("a")
	get("b")
	get("c")
	get("a") // a is now the most recent; b the coldest
	get("d") // evicts b
	if _, _, ok := c.Peek("b"); ok {
		t.Fatal("b should have been evicted")
	}
	for _, k := range []string{"a", "c", "d"} {
		if _, _, ok := c.Peek(k); !ok {
			t.Fatalf("%s evicted; want it kept", k)
		}
	}
	before := loads.Load()
	get("b") // re-translated after eviction
	if loads.Load() != before+1 {
		t.Fatal("evicted entry was not loaded again")
	}
	st := c.Stats()
	if st.Bytes > 3*(size+entryOverhead) || st.Entries != 3 || st.Evictions != 2 {
		t.Fatalf("stats %+v", st)
	}
}

func TestOversizeServedNotKept(t *testing.T) {
	c := New(Options{MaxBytes: 100})
	got, err := c.Get(context.Background(), "big", func() ([]byte, error) { return make([]byte, 1000), nil })
	if err != nil || len(got) != 1000 {
		t.Fatalf("Get = %d bytes, %v", len(got), err)
	}
	if st := c.Stats(); st.Entries != 0 || st.Bytes != 0 {
		t.Fatalf("oversize entry kept: %+v", st)
	}
}

func TestRemembersFailures(t *testing.T) {
	c := New(Options{})
	var loads atomic.Int32
	bad := errors.New("corrupt model")
	for i := 0; i < 3; i++ {
		_, err := c.Get(context.Background(), "broken", func() ([]byte, error) {
			loads.Add(1)
			return nil, bad
		})
		if !errors.Is(err, bad) {
			t.Fatalf("err = %v", err)
		}
	}
	if loads.Load() != 1 || c.Stats().Failures != 1 {
		t.Fatalf("failure not remembered: %d loads", loads.Load())
	}
	c.Remove("broken")
	c.Get(context.Background(), "broken", func() ([]byte, error) { loads.Add(1); return []byte("ok"), nil })
	if loads.Load() != 2 {
		t.Fatal("Remove did not drop the entry")
	}
}

func TestBoundsParallelLoads(t *testing.T) {
	c := New(Options{MaxParallel: 2})
	var running, peak atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Get(context.Background(), fmt.Sprint(i), func() ([]byte, error) {
				n := running.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				time.Sleep(5 * time.Millisecond)
				running.Add(-1)
				return []byte{1}, nil
			})
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > 2 {
		t.Fatalf("%d loads ran at once; limit is 2", p)
	}
}

func TestContextCancelWhileWaiting(t *testing.T) {
	c := New(Options{MaxParallel: 1})
	block := make(chan struct{})
	go c.Get(context.Background(), "slow", func() ([]byte, error) { <-block; return nil, nil })
	time.Sleep(10 * time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Get(ctx, "other", func() ([]byte, error) { return nil, nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
	close(block)
	if _, _, ok := c.Peek("other"); ok {
		t.Fatal("a cancelled wait must not be cached")
	}
}

func BenchmarkGetHit(b *testing.B) {
	c := New(Options{})
	data := make([]byte, 1<<20)
	c.Get(context.Background(), "k", func() ([]byte, error) { return data, nil })
	b.ReportAllocs()
	for b.Loop() {
		c.Get(context.Background(), "k", nil)
	}
}
