package gltfenc

import (
	"sync"
	"unsafe"

	"github.com/qmuntal/gltf"
)

// docMem holds the blocks a document's many small objects are carved from: accessors, index
// pointers, bounds, samplers, channels, nodes and the lists of pointers to them, and the
// encoder's maps. Encode writes its document and then throws it away, so it takes a docMem
// from a pool and returns it afterwards: a model with a thousand animation channels otherwise
// allocates about half a megabyte of pointerful memory per call, which the garbage collector
// must clear, scan and barrier. Document hands its document to the caller and takes a fresh
// docMem that it never returns.
//
// Every element of every block is zero while the docMem is in the pool (release clears what
// was handed out), so blocks are handed out as fresh zeroed memory, and pooled memory keeps no
// scene data, maps or other documents' objects reachable.
type docMem struct {
	accs        []gltf.Accessor
	accPtrs     []*gltf.Accessor
	ints        []int     // index pointers
	f64s        []float64 // accessor bounds
	samplers    []gltf.AnimationSampler
	channels    []gltf.AnimationChannel
	samplerPtrs []*gltf.AnimationSampler
	channelPtrs []*gltf.AnimationChannel
	seen        []int32 // animation targets seen (see animations)
	nodes       []gltf.Node
	nodePtrs    []*gltf.Node
	nodeInts    []int // children lists, their counting, the scene's roots
	views       []gltf.BufferView
	viewPtrs    []*gltf.BufferView
	times       map[string]int      // see encoder.times
	r32s        map[float32]float64 // see encoder.r32
	maps        []map[string]any    // extras maps; the first nmaps are handed out
	nmaps       int
}

// maxPooledDoc is the largest docMem (in bytes of its blocks) that goes back to the pool, so that
// one huge model does not pin its document's memory for the life of the process.
const maxPooledDoc = 16 << 20

var docPool sync.Pool // of *docMem

// getDocMem returns a pooled docMem, or a new one.
func getDocMem() *docMem {
	if m, ok := docPool.Get().(*docMem); ok {
		return m
	}
	return new(docMem)
}

// block returns n zero elements from *p, whose capacity is reused when it is enough and which
// otherwise is replaced by a new block of n. *p keeps the length handed out, so that release
// knows what to clear; the result's capacity is n, so that appending to it never writes past
// that.
func block[T any](p *[]T, n int) []T {
	if cap(*p) < n {
		*p = make([]T, n)
	}
	*p = (*p)[:n]
	return (*p)[:n:n]
}

// clearBlock zeroes the elements of *p handed out, counting their bytes into size.
func clearBlock[T any](p *[]T, size *int) {
	clear(*p)
	var zero T
	*size += cap(*p) * int(unsafe.Sizeof(zero))
}

// extras returns an empty map for an object's extras, with room for about n entries: a pooled
// one when there is one left (nodes' extras, one map each, are most of a document's maps).
func (m *docMem) extras(n int) map[string]any {
	if m.nmaps < len(m.maps) {
		x := m.maps[m.nmaps]
		m.nmaps++
		return x
	}
	x := make(map[string]any, n)
	m.maps = append(m.maps, x)
	m.nmaps++
	return x
}

// release clears m and returns it to the pool, unless it grew above maxPooledDoc. Nothing it
// handed out may be used afterwards.
func (m *docMem) release() {
	if m.reset() <= maxPooledDoc {
		docPool.Put(m)
	}
}

// reset zeroes all that m handed out and empties its maps, so that m keeps nothing reachable
// but its own blocks and maps, and returns about how many bytes it holds.
func (m *docMem) reset() (size int) {
	clearBlock(&m.accs, &size)
	clearBlock(&m.accPtrs, &size)
	clearBlock(&m.ints, &size)
	clearBlock(&m.f64s, &size)
	clearBlock(&m.samplers, &size)
	clearBlock(&m.channels, &size)
	clearBlock(&m.samplerPtrs, &size)
	clearBlock(&m.channelPtrs, &size)
	clearBlock(&m.seen, &size)
	clearBlock(&m.nodes, &size)
	clearBlock(&m.nodePtrs, &size)
	clearBlock(&m.nodeInts, &size)
	clearBlock(&m.views, &size)
	clearBlock(&m.viewPtrs, &size)
	// Cleared maps keep their room (and a map keeps no key or value once cleared); an entry
	// costs about as much as its key and value.
	size += len(m.times)*24 + len(m.r32s)*16
	clear(m.times)
	clear(m.r32s)
	for _, x := range m.maps[:m.nmaps] {
		size += 48 + len(x)*32
		clear(x)
	}
	m.nmaps = 0
	return size
}
