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

// sceneMem is the memory Build carves a scene's large arrays from: key times and values and
// the meshes' vertex attributes and triangles. It is handed back through the scene's Release
// (scene.Scene.OnRelease), once the scene's outputs are made, and reused by the next Build, so
// that a translation allocates (and zeroes, and has the collector count) little beyond its
// output. Its arenas hand out stale memory: Build writes every element it takes.
type sceneMem struct {
	times, values arena.Arena[float32]
	vec3          arena.Arena[[3]float32] // positions and normals
	vec2          arena.Arena[[2]float32] // texture coordinates
	joints        arena.Arena[[4]uint16]
	weights       arena.Arena[[4]float32]
	indices       arena.Arena[uint32]
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
	sm.times.Reset()
	sm.values.Reset()
	sm.vec3.Reset()
	sm.vec2.Reset()
	sm.joints.Reset()
	sm.weights.Reset()
	sm.indices.Reset()
	n := sm.times.Bytes() + sm.values.Bytes() + sm.vec3.Bytes() + sm.vec2.Bytes() +
		sm.joints.Bytes() + sm.weights.Bytes() + sm.indices.Bytes()
	if n > maxPooledScene {
		return
	}
	sceneMemPool.Put(sm)
}
