package cache

import (
	"container/list"
	"sync"
)

// DefaultMaxBytes is the default budget of a Memory: 256 MiB.
const DefaultMaxBytes = 256 << 20

// entryOverhead is the bytes charged per entry on top of its data, for the key and bookkeeping.
const entryOverhead = 128

// MemoryStats are a Memory's counters since it was made, and what it holds now.
type MemoryStats struct {
	Hits      int64 // Get that found the key
	Misses    int64 // Get that did not
	Evictions int64 // entries dropped to stay in budget
	Entries   int   // entries held now
	Bytes     int64 // bytes charged now, overhead included
	Reserved  int64 // bytes of the budget set aside for other things (SetReserve)
}

type memEntry struct {
	key  string
	data []byte
	size int64
}

// Memory is a byte-budgeted LRU of immutable documents. It is safe for concurrent use.
type Memory struct {
	max int64

	mu    sync.Mutex
	lru   *list.List // front = most recently used; values are *memEntry
	items map[string]*list.Element
	stats MemoryStats
}

// NewMemory returns an empty Memory holding at most maxBytes (DefaultMaxBytes when ≤ 0).
func NewMemory(maxBytes int64) *Memory {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Memory{max: maxBytes, lru: list.New(), items: make(map[string]*list.Element)}
}

// Get returns the document stored under key. The slice is shared and must not be modified.
func (m *Memory) Get(key string) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.items[key]
	if !ok {
		m.stats.Misses++
		return nil, false
	}
	m.lru.MoveToFront(el)
	m.stats.Hits++
	return el.Value.(*memEntry).data, true
}

// Put stores data under key, replacing what was there, and evicts from the cold end until the
// budget holds. A document larger than the whole budget is not kept. data must not be modified
// afterwards. It is charged its capacity, the memory it holds.
func (m *Memory) Put(key string, data []byte) {
	size := int64(cap(data)+len(key)) + entryOverhead
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.items[key]; ok {
		m.removeLocked(el)
	}
	if size > m.max-m.stats.Reserved {
		return
	}
	m.items[key] = m.lru.PushFront(&memEntry{key: key, data: data, size: size})
	m.stats.Bytes += size
	m.stats.Entries++
	m.evictLocked()
}

// PutIfRoom stores data under key like Put, but only when it fits without evicting anything:
// for a document kept in case it is asked for, which must not push out one that was. It
// reports whether it stored it.
func (m *Memory) PutIfRoom(key string, data []byte) bool {
	size := int64(cap(data)+len(key)) + entryOverhead
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.items[key]; ok || m.stats.Bytes+size > m.max-m.stats.Reserved {
		return false
	}
	m.items[key] = m.lru.PushFront(&memEntry{key: key, data: data, size: size})
	m.stats.Bytes += size
	m.stats.Entries++
	return true
}

// SetReserve sets aside n bytes of the budget for memory the owner holds besides documents,
// evicting documents until the rest holds them.
func (m *Memory) SetReserve(n int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stats.Reserved = min(max(n, 0), m.max)
	m.evictLocked()
}

func (m *Memory) evictLocked() {
	for m.stats.Bytes > m.max-m.stats.Reserved && m.lru.Len() > 0 {
		m.removeLocked(m.lru.Back())
		m.stats.Evictions++
	}
}

// Remove drops key, if present.
func (m *Memory) Remove(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.items[key]; ok {
		m.removeLocked(el)
	}
}

func (m *Memory) removeLocked(el *list.Element) {
	e := m.lru.Remove(el).(*memEntry)
	delete(m.items, e.key)
	m.stats.Bytes -= e.size
	m.stats.Entries--
}

// Stats returns a snapshot of the counters.
func (m *Memory) Stats() MemoryStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stats
}
