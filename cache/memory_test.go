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

func TestMemoryEvictsLeastRecentlyUsed(t *testing.T) {
	const size = 1000
	charge := int64(size + 1 + entryOverhead)
	m := NewMemory(3 * charge)
	for _, k := range []string{"a", "b", "c"} {
		m.Put(k, make([]byte, size))
	}
	if _, ok := m.Get("a"); !ok { // a is now the most recent; b the least
		t.Fatal("a missing")
	}
	m.Put("d", make([]byte, size))
	if _, ok := m.Get("b"); ok {
		t.Error("b survived; it was the least recently used")
	}
	for _, k := range []string{"a", "c", "d"} {
		if _, ok := m.Get(k); !ok {
			t.Errorf("%s evicted", k)
		}
	}
	st := m.Stats()
	if st.Entries != 3 || st.Bytes != 3*charge || st.Evictions != 1 || st.Hits != 4 || st.Misses != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestMemoryReplaceAndTooLarge(t *testing.T) {
	m := NewMemory(4096)
	m.Put("k", []byte("one"))
	m.Put("k", []byte("two, longer"))
	if got, _ := m.Get("k"); string(got) != "two, longer" {
		t.Errorf("got %q", got)
	}
	if st := m.Stats(); st.Entries != 1 || st.Bytes != int64(len("two, longer")+1+entryOverhead) {
		t.Errorf("after replacing: %+v", st)
	}
	m.Put("k", make([]byte, 8192)) // larger than the budget: not kept, and the old one goes
	if _, ok := m.Get("k"); ok {
		t.Error("a document larger than the budget was kept")
	}
	if st := m.Stats(); st.Entries != 0 || st.Bytes != 0 {
		t.Errorf("after an oversized put: %+v", st)
	}
	m.Put("x", []byte("x"))
	m.Remove("x")
	m.Remove("never")
	if st := m.Stats(); st.Entries != 0 || st.Bytes != 0 {
		t.Errorf("after Remove: %+v", st)
	}
}

func TestGroupCoalesces(t *testing.T) {
	var g Group[string]
	var loads atomic.Int32
	release := make(chan struct{})
	load := func() (string, error) {
		loads.Add(1)
		<-release
		return "made", nil
	}
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			if v, err := g.Do(context.Background(), "k", load); err != nil || v != "made" {
				t.Errorf("Do = %q, %v", v, err)
			}
		})
	}
	time.Sleep(20 * time.Millisecond) // let the callers pile up on the one load
	close(release)
	wg.Wait()
	if n := loads.Load(); n != 1 {
		t.Fatalf("%d loads for 32 concurrent callers; want 1", n)
	}
}

// A caller that gives up leaves alone: the others get the result, and the load is not
// cancelled on their behalf.
func TestGroupCallersWaitOnTheirOwnContext(t *testing.T) {
	var g Group[int]
	release := make(chan struct{})
	done := make(chan struct{})
	load := func() (int, error) {
		<-release
		close(done)
		return 7, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		_, err := g.Do(ctx, "k", load)
		first <- err
	}()
	time.Sleep(10 * time.Millisecond)
	second := make(chan int, 1)
	go func() {
		v, err := g.Do(context.Background(), "k", func() (int, error) { t.Error("a second load ran"); return 0, nil })
		if err != nil {
			t.Error(err)
		}
		second <- v
	}()
	time.Sleep(10 * time.Millisecond)
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled caller got %v", err)
	}
	close(release)
	if v := <-second; v != 7 {
		t.Fatalf("the patient caller got %d", v)
	}
	<-done
}

func TestGroupPanic(t *testing.T) {
	var g Group[int]
	_, err := g.Do(context.Background(), "k", func() (int, error) { panic("boom") })
	var pe *PanicError
	if !errors.As(err, &pe) || fmt.Sprint(pe.Value) != "boom" {
		t.Fatalf("err = %v; want a PanicError", err)
	}
	if v, err := g.Do(context.Background(), "k", func() (int, error) { return 1, nil }); v != 1 || err != nil {
		t.Fatalf("after a panic: %d, %v", v, err)
	}
}

func TestMemoryReserve(t *testing.T) {
	m := NewMemory(10000)
	for i := range 4 {
		m.Put(fmt.Sprint(i), make([]byte, 2000))
	}
	m.SetReserve(6000) // room for one document now
	if st := m.Stats(); st.Entries != 1 || st.Bytes+st.Reserved > 10000 || st.Reserved != 6000 {
		t.Fatalf("after reserving: %+v", st)
	}
	if _, ok := m.Get("3"); !ok {
		t.Error("the most recent document was evicted")
	}
	m.Put("big", make([]byte, 5000)) // fits the budget, not what the reserve leaves
	if _, ok := m.Get("big"); ok {
		t.Error("a document larger than what the reserve leaves was kept")
	}
	m.SetReserve(1 << 40)
	if st := m.Stats(); st.Entries != 0 || st.Reserved != 10000 {
		t.Fatalf("reserving everything: %+v", st)
	}
}

func TestMemoryPutIfRoom(t *testing.T) {
	m := NewMemory(3000)
	m.Put("read", make([]byte, 1500))
	if !m.PutIfRoom("maybe", make([]byte, 500)) {
		t.Error("a document that fits was refused")
	}
	if m.PutIfRoom("too much", make([]byte, 1500)) {
		t.Error("a document that needs an eviction was stored")
	}
	if _, ok := m.Get("read"); !ok {
		t.Error("PutIfRoom evicted")
	}
}
