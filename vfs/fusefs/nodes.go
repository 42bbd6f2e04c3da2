//go:build linux || darwin

package fusefs

import (
	"log/slog"
	"sync"
	"syscall"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/modelfs/modelfs/vfs"
)

// node is what every node of the mount shares: the tree's node it shows (an entry of SRC or
// of an archive, or a document), its attributes, and the read-only refusals.
type node struct {
	gofs.Inode
	m  *mount
	vn vfs.Node
}

// mount is what every node of one mount shares: the tree core, and the timeouts the kernel
// is told.
type mount struct {
	tree                      *vfs.Tree
	attrTimeout, entryTimeout time.Duration
	log                       *slog.Logger
	closed                    chan struct{} // closed when the kernel's connection ends
}

// dirNode is a folder: of SRC, or an archive's (the archive itself too).
type dirNode struct{ node }

// fileNode is a file of SRC, served byte for byte; the kernel keeps the pages it cached while
// the file's content is the same.
type fileNode struct {
	node
	cacheState[any]
}

// fixedNode is a file whose content never changes under its node (vfs.Node.Fixed): an
// archive's member, or a document beside a model or texture. A document's node shows one
// version of it, the one its lookup found: the kernel keeps pages and a size per inode, so a
// new version gets a new node (see vfs.Node.Same), and a node asked about after its version
// was superseded answers ESTALE, on which the kernel looks the name up again and gets the new
// one, while handles opened on the old node read the old version to its end.
type fixedNode struct{ node }

// linkNode is a symlink of SRC, shown as stored.
type linkNode struct{ node }

// newNode is the node showing vn, whose attributes are st.
func newNode(m *mount, vn vfs.Node, st vfs.Stat) gofs.InodeEmbedder {
	switch fileType(st.Mode) {
	case syscall.S_IFDIR:
		return &dirNode{node{m: m, vn: vn}}
	case syscall.S_IFREG:
		if vn.Fixed() {
			return &fixedNode{node{m: m, vn: vn}}
		}
		return &fileNode{node: node{m: m, vn: vn}}
	case syscall.S_IFLNK:
		return &linkNode{node{m: m, vn: vn}}
	}
	return &node{m: m, vn: vn} // a FIFO, socket or device: attributes only
}

// shown returns the tree's node n shows.
func (n *node) shown() *vfs.Node { return &n.vn }

// OnForget notes that the kernel let go of the node, and of what it held of the tree (an
// archive file since replaced closes once no node holds it). A lookup may revive the node
// meanwhile (go-fuse allows it): it answers ESTALE wherever it would need its archive, and
// is not counted among the nodes held any more, which costs the cache budget nothing.
func (n *node) OnForget() {
	if n.vn.Drop() {
		n.m.tree.Hold(-1)
	}
}

// cacheState remembers the content of a file's last open, so that the kernel keeps its cached
// pages only while the content is unchanged (FOPEN_KEEP_CACHE). A folder of 10,000 models has
// 60,000 of these.
type cacheState[K comparable] struct {
	mu   sync.Mutex
	last K
	set  bool
}

// openFlags returns the FUSE open flags for content named key and remembers key.
func (c *cacheState[K]) openFlags(key K) uint32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	keep := c.set && c.last == key
	c.last, c.set = key, true
	if keep {
		return fuse.FOPEN_KEEP_CACHE
	}
	return 0
}

var (
	_ gofs.NodeLookuper       = (*dirNode)(nil)
	_ gofs.NodeReaddirer      = (*dirNode)(nil)
	_ gofs.NodeOpendirHandler = (*dirNode)(nil)
	_ gofs.NodeStatfser       = (*dirNode)(nil)
	_ gofs.NodeOpener         = (*fileNode)(nil)
	_ gofs.NodeOpener         = (*fixedNode)(nil)
	_ gofs.NodeReadlinker     = (*linkNode)(nil)
	_ gofs.NodeGetattrer      = (*node)(nil)

	_ gofs.NodeSetattrer      = (*node)(nil)
	_ gofs.NodeSetxattrer     = (*node)(nil)
	_ gofs.NodeRemovexattrer  = (*node)(nil)
	_ gofs.NodeCreater        = (*node)(nil)
	_ gofs.NodeMkdirer        = (*node)(nil)
	_ gofs.NodeMknoder        = (*node)(nil)
	_ gofs.NodeUnlinker       = (*node)(nil)
	_ gofs.NodeRmdirer        = (*node)(nil)
	_ gofs.NodeRenamer        = (*node)(nil)
	_ gofs.NodeLinker         = (*node)(nil)
	_ gofs.NodeSymlinker      = (*node)(nil)
	_ gofs.NodeCopyFileRanger = (*node)(nil)
	_ gofs.NodeAllocater      = (*node)(nil)
	_ gofs.NodeOnForgetter    = (*node)(nil)
)
