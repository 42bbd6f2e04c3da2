//go:build linux || darwin

package fusefs

import (
	"io/fs"
	"log/slog"
	"sync"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/modelfs/modelfs/vfs"
)

// node is what every node of the tree shares: its place in SRC and the read-only refusals.
type node struct {
	gofs.Inode
	m   *mount
	rel string // slash-separated path relative to SRC; "." for the root; "" for a virtual document
}

// mount is what every node of one mount shares: the tree core, and the timeouts the kernel
// is told.
type mount struct {
	tree                      *vfs.Tree
	attrTimeout, entryTimeout time.Duration
	log                       *slog.Logger
}

// passNode is a node mirroring an entry of SRC; dev and ino tell whether a later lookup still
// finds the same entry.
type passNode struct {
	node
	dev, ino uint64
}

// dirNode is a directory of SRC.
type dirNode struct{ passNode }

// fileNode is a regular file of SRC, served byte for byte.
type fileNode struct {
	passNode
	cacheState[identity]
}

// identity is what tells whether a file's content may have changed: its inode, size and times.
type identity struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64
}

func identityOf(fi fs.FileInfo) identity {
	id := identity{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	id.dev, id.ino, id.ctime = vfs.FileKey(fi)
	return id
}

// linkNode is a symlink of SRC, shown as stored.
type linkNode struct{ passNode }

// specialNode is a FIFO, socket or device node of SRC: attributes only.
type specialNode struct{ passNode }

// virtNode is a virtual document NAME.EXT.KIND beside the model NAME.EXT. Each node shows one
// version of the document, the one its lookup found: the kernel keeps pages and a size per
// inode, so a new version gets a new inode (see lookupVirtual), and a node asked about after its
// version was superseded answers ESTALE, on which the kernel looks the name up again and gets
// the new one, while handles opened on the old node read the old version to its end.
type virtNode struct {
	node
	src  string // the model's path, relative to SRC
	kind vfs.Kind

	id vfs.VersionID // the id of the version shown
}

// shows reports whether n shows v.
func (n *virtNode) shows(v *vfs.Version) bool { return n.id == v.ID() }

// cacheState remembers the content of a file's last open — a passthrough file's identity, a
// virtual document's key — so that the kernel keeps its cached pages only while the content is
// unchanged (FOPEN_KEEP_CACHE). It holds the key itself, not a string of it: a folder of 10,000
// models has 60,000 of these.
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
	_ gofs.NodeGetattrer      = (*dirNode)(nil)
	_ gofs.NodeStatfser       = (*dirNode)(nil)
	_ gofs.NodeOpener         = (*fileNode)(nil)
	_ gofs.NodeGetattrer      = (*fileNode)(nil)
	_ gofs.NodeReadlinker     = (*linkNode)(nil)
	_ gofs.NodeGetattrer      = (*linkNode)(nil)
	_ gofs.NodeGetattrer      = (*specialNode)(nil)
	_ gofs.NodeOpener         = (*virtNode)(nil)
	_ gofs.NodeGetattrer      = (*virtNode)(nil)

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
