package translate

// Kind is one output document type, named by its file extension.
type Kind string

// Output kinds.
const (
	GLTF Kind = "gltf"
	GLB  Kind = "glb"
	OBJ  Kind = "obj"
	MTL  Kind = "mtl"
	JSON Kind = "json"
	PNG  Kind = "png" // the output of a texture, not of a model
)

// KindInfo describes an output kind: the one table the pipeline, the tree's per-kind slots, the
// servers and the command line read.
type KindInfo struct {
	Kind  Kind
	Model bool   // made from a model; else from a texture
	MIME  string // the media type a server gives the document
}

// kindTable is every output kind, at its index (KindIndex). Caches store kinds by index: a new
// kind goes at the end.
var kindTable = [...]KindInfo{
	{GLTF, true, "model/gltf+json"},
	{GLB, true, "model/gltf-binary"},
	{OBJ, true, "model/obj"},
	{MTL, true, "model/mtl"},
	{JSON, true, "application/json"},
	{PNG, false, "image/png"},
}

// NumKinds is the number of output kinds, the length of an array indexed by KindIndex.
const NumKinds = len(kindTable)

// AllKinds lists every output kind, in index order.
var AllKinds = func() []Kind {
	ks := make([]Kind, NumKinds)
	for i, k := range kindTable {
		ks[i] = k.Kind
	}
	return ks
}()

// Kinds lists every output kind of a model, in a stable order.
var Kinds = func() []Kind {
	var ks []Kind
	for _, k := range kindTable {
		if k.Model {
			ks = append(ks, k.Kind)
		}
	}
	return ks[:len(ks):len(ks)]
}()

// KindIndex returns k's index in AllKinds, or -1 when k is no output kind.
func KindIndex(k Kind) int {
	for i := range kindTable {
		if kindTable[i].Kind == k {
			return i
		}
	}
	return -1
}

// InfoOf returns what the table says of k.
func InfoOf(k Kind) (KindInfo, bool) {
	if i := KindIndex(k); i >= 0 {
		return kindTable[i], true
	}
	return KindInfo{}, false
}

// KindOf returns the output kind named by an extension such as ".gltf" or "png".
func KindOf(ext string) (Kind, bool) {
	if len(ext) > 0 && ext[0] == '.' {
		ext = ext[1:]
	}
	if i := KindIndex(Kind(ext)); i >= 0 {
		return kindTable[i].Kind, true
	}
	return "", false
}
