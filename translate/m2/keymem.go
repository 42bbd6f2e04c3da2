package m2

import (
	"sync"
	"unsafe"
)

// keyArena hands out slices carved from large blocks, so that the many small arrays of a model
// cost a few allocations: for the key data the parser decodes (keyMem) and for the scene's
// arrays (sceneMem). Its memory is reused once reset: the slices it hands out hold stale data,
// and every caller writes every element it takes.
type keyArena[T any] struct {
	head []T // the first block since the last reset, reused after the next
	free []T // the unused part of the current block
	used int // elements handed out since the last reset
	want int // after a reset that found head short: the size of the next first block
}

// take returns n elements of stale memory, with their own capacity (appending to the slice
// never reaches into its neighbour).
func (a *keyArena[T]) take(n int) []T {
	if n > len(a.free) {
		// Blocks double, so that a model takes a few; the first after a reset holds what the
		// last model used.
		blk := make([]T, max(n, 2*a.used, a.want, 256))
		a.want = 0
		if a.head == nil {
			a.head = blk
		}
		a.free = blk
	}
	s := a.free[:n:n]
	a.free = a.free[n:]
	a.used += n
	return s
}

// reserve makes sure that the next takes, n elements in all, fit one block, so that they do
// not make several.
func (a *keyArena[T]) reserve(n int) {
	if n > len(a.free) {
		blk := make([]T, max(n, a.want))
		a.want = 0
		if a.head == nil {
			a.head = blk
		}
		a.free = blk
	}
}

// reset makes all memory handed out reusable; nothing taken before may be used afterwards.
func (a *keyArena[T]) reset() {
	if a.used > cap(a.head) {
		a.head, a.want = nil, a.used
	}
	a.free = a.head[:cap(a.head)]
	a.used = 0
}

// bytes is the memory the arena keeps across a reset.
func (a *keyArena[T]) bytes() int {
	var x T
	return max(cap(a.head), a.want) * int(unsafe.Sizeof(x))
}

// keyMem is the memory the parser decodes tracks and vertices into.
type keyMem struct {
	times    keyArena[uint32]
	values   keyArena[float32]
	ranges   keyArena[[2]uint32] // legacy tracks' sequence ranges
	keyLists keyArena[Keys]      // tracks' key lists
	vertices keyArena[Vertex]
}

// keyMemPool recycles the key memory of models that DecodeWith has built and dropped.
var keyMemPool sync.Pool // of *keyMem

// maxPooledKeys is the most key memory kept for reuse, so that one huge model does not pin its
// keys for the life of the process.
const maxPooledKeys = 64 << 20

// getKeyMem returns key memory for one model, reused when the pool has some.
func getKeyMem() *keyMem {
	if m, ok := keyMemPool.Get().(*keyMem); ok {
		return m
	}
	return &keyMem{}
}

// putKeyMem returns km to the pool. Nothing read into it (the model's tracks) may be used
// afterwards.
func putKeyMem(km *keyMem) {
	km.times.reset()
	km.values.reset()
	km.ranges.reset()
	km.keyLists.reset()
	km.vertices.reset()
	if km.times.bytes()+km.values.bytes()+km.ranges.bytes()+km.keyLists.bytes()+km.vertices.bytes() > maxPooledKeys {
		return
	}
	keyMemPool.Put(km)
}

// sceneMem is the memory Build carves a scene's large arrays from: key times and values and
// the meshes' vertex attributes and triangles. It is handed back through the scene's Release
// (scene.Scene.OnRelease), once the scene's outputs are made, and reused by the next Build, so
// that a translation allocates (and zeroes, and has the collector count) little beyond its
// output. Its arenas hand out stale memory: Build writes every element it takes.
type sceneMem struct {
	times, values keyArena[float32]
	vec3          keyArena[[3]float32] // positions and normals
	vec2          keyArena[[2]float32] // texture coordinates
	joints        keyArena[[4]uint16]
	weights       keyArena[[4]float32]
	indices       keyArena[uint32]
}

// sceneMemPool recycles the memory of released scenes.
var sceneMemPool sync.Pool // of *sceneMem

// maxPooledScene is the most scene memory kept for reuse, as maxPooledKeys is for key memory.
const maxPooledScene = 64 << 20

// getSceneMem returns memory for one scene, reused when a released scene left some.
func getSceneMem() *sceneMem {
	if m, ok := sceneMemPool.Get().(*sceneMem); ok {
		return m
	}
	return &sceneMem{}
}

// putSceneMem returns sm to the pool. Nothing carved from it (the scene's arrays) may be used
// afterwards.
func putSceneMem(sm *sceneMem) {
	sm.times.reset()
	sm.values.reset()
	sm.vec3.reset()
	sm.vec2.reset()
	sm.joints.reset()
	sm.weights.reset()
	sm.indices.reset()
	n := sm.times.bytes() + sm.values.bytes() + sm.vec3.bytes() + sm.vec2.bytes() +
		sm.joints.bytes() + sm.weights.bytes() + sm.indices.bytes()
	if n > maxPooledScene {
		return
	}
	sceneMemPool.Put(sm)
}
