// Package cache keeps translated documents in memory under a byte budget.
//
// Entries are evicted least recently used first. Concurrent requests for one missing key are
// coalesced into a single load (golang.org/x/sync/singleflight), and the number of loads running
// at once is bounded. Failed loads are remembered like successes, so a broken model is not
// translated again on every read; the key should change when the source does. An entry larger
// than the whole budget is returned to its caller but not kept.
//
// The LRU list is written here rather than taken from a library because it needs byte weights,
// negative entries and exact accounting together; the well-kept LRU packages offer counts, not
// weights, and the weighted ones use admission policies that may refuse a fresh entry.
package cache

import (
	"container/list"
	"context"
	"runtime"
	"sync"

	"golang.org/x/sync/singleflight"
)

// Options configure a Cache. The zero value means the defaults.
type Options struct {
	MaxBytes    int64 // byte budget; default DefaultMaxBytes
	MaxParallel int   // loads running at once; default runtime.NumCPU()
}

// DefaultMaxBytes is the default byte budget: 256 MiB.
const DefaultMaxBytes = 256 << 20

// entryOverhead is the bytes charged per entry on top of its data, for the key and bookkeeping.
const entryOverhead = 256

// Stats are counters since the cache was made.
type Stats struct {
	Hits      int64 // Get served from memory
	Misses    int64 // Get that had to wait for a load (its own or a coalesced one)
	Loads     int64 // load functions actually run
	Failures  int64 // loads that returned an error
	Evictions int64 // entries dropped to stay in budget
	Entries   int   // entries held now
	Bytes     int64 // bytes charged now
}

type entry struct {
	key  string
	data []byte
	err  error
	size int64
}

// Cache is a byte-budgeted LRU cache with coalesced, bounded loads. It is safe for concurrent use.
type Cache struct {
	opt   Options
	group singleflight.Group
	slots chan struct{}

	mu    sync.Mutex
	lru   *list.List // front = most recently used; values are *entry
	items map[string]*list.Element
	stats Stats
}

// New returns an empty cache.
func New(opt Options) *Cache {
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	if opt.MaxParallel <= 0 {
		opt.MaxParallel = runtime.NumCPU()
	}
	return &Cache{
		opt:   opt,
		slots: make(chan struct{}, opt.MaxParallel),
		lru:   list.New(),
		items: make(map[string]*list.Element),
	}
}

// Peek returns a cached result without loading or counting a hit; ok is false when key is absent.
func (c *Cache) Peek(key string) (data []byte, err error, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, found := c.items[key]; found {
		e := el.Value.(*entry)
		return e.data, e.err, true
	}
	return nil, nil, false
}

// Get returns the data for key, running load at most once for all concurrent callers of a
// missing key. The returned slice is shared and must not be modified. ctx bounds only the wait
// for a free load slot; a load that has started runs to completion.
func (c *Cache) Get(ctx context.Context, key string, load func() ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	if el, ok := c.items[key]; ok {
		c.lru.MoveToFront(el)
		c.stats.Hits++
		e := el.Value.(*entry)
		c.mu.Unlock()
		return e.data, e.err
	}
	c.stats.Misses++
	c.mu.Unlock()

	v, err, _ := c.group.Do(key, func() (any, error) {
		// Another caller may have stored the entry between our miss and this flight.
		if data, err, ok := c.Peek(key); ok {
			return data, err
		}
		select {
		case c.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		data, err := load()
		<-c.slots
		c.put(key, data, err)
		return data, err
	})
	data, _ := v.([]byte)
	return data, err
}

// put stores a load result and evicts from the cold end until the budget holds.
func (c *Cache) put(key string, data []byte, err error) {
	size := int64(len(data)) + entryOverhead
	if err != nil {
		size += int64(len(err.Error()))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Loads++
	if err != nil {
		c.stats.Failures++
	}
	if size > c.opt.MaxBytes {
		return // served to the callers of this flight, never kept
	}
	if el, ok := c.items[key]; ok {
		c.removeLocked(el)
	}
	c.items[key] = c.lru.PushFront(&entry{key: key, data: data, err: err, size: size})
	c.stats.Bytes += size
	c.stats.Entries++
	for c.stats.Bytes > c.opt.MaxBytes {
		c.removeLocked(c.lru.Back())
		c.stats.Evictions++
	}
}

func (c *Cache) removeLocked(el *list.Element) {
	e := c.lru.Remove(el).(*entry)
	delete(c.items, e.key)
	c.stats.Bytes -= e.size
	c.stats.Entries--
}

// Remove drops key from the cache, if present.
func (c *Cache) Remove(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.removeLocked(el)
	}
}

// Stats returns a snapshot of the counters.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}
