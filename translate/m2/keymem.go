package m2

import (
	"github.com/modelfs/modelfs/translate/internal/arena"
)

// keyMem is the memory the parser decodes tracks and vertices into.
type keyMem struct {
	times    arena.Arena[uint32]
	values   arena.Arena[float32]
	ranges   arena.Arena[[2]uint32] // legacy tracks' sequence ranges
	keyLists arena.Arena[Keys]      // tracks' key lists
	vertices arena.Arena[Vertex]
}

// keyMemPool recycles the key memory of models that DecodeWith has built and dropped, up to
// 64 MiB each.
var keyMemPool = arena.Pool[keyMem]{Limit: 64 << 20}

// getKeyMem returns key memory for one model, reused when the pool has some.
func getKeyMem() *keyMem { return keyMemPool.Get() }

// putKeyMem returns km to the pool. Nothing read into it (the model's tracks) may be used
// afterwards.
func putKeyMem(km *keyMem) {
	keyMemPool.Put(km, &km.times, &km.values, &km.ranges, &km.keyLists, &km.vertices)
}
