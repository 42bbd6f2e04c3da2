package m2

import (
	"sync"

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
	km.times.Reset()
	km.values.Reset()
	km.ranges.Reset()
	km.keyLists.Reset()
	km.vertices.Reset()
	if km.times.Bytes()+km.values.Bytes()+km.ranges.Bytes()+km.keyLists.Bytes()+km.vertices.Bytes() > maxPooledKeys {
		return
	}
	keyMemPool.Put(km)
}
