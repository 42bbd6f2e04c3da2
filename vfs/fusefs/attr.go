//go:build linux || darwin

package fusefs

import (
	"context"
	"errors"
	"io/fs"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/modelfs/modelfs/vfs"
)

// setAttr fills out from an Lstat of SRC.
func setAttr(out *fuse.Attr, fi fs.FileInfo) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		out.FromStat(st)
	} else {
		*out = *fuse.ToAttr(fi)
	}
	out.Ino = 0 // the mount numbers its own inodes
}

// attrOf is the Getattr of every node mirroring SRC. An entry of that name that is not the
// node's (replaced since the lookup) answers ESTALE: the kernel then looks the name up again,
// as a native file system would have found the new entry. A directory replaced by another shows
// the new one's attributes, as its listings do: a shell sitting in it must not get ESTALE from
// every stat of ".".
func (n *passNode) attrOf(out *fuse.AttrOut) syscall.Errno {
	fi, err := n.m.tree.Lstat(n.rel)
	if err != nil {
		return toErrno(err)
	}
	if !n.same(fi) && (n.Mode() != syscall.S_IFDIR || !fi.IsDir()) {
		return syscall.ESTALE
	}
	setAttr(&out.Attr, fi)
	out.SetTimeout(n.m.attrTimeout)
	return 0
}

// same reports whether fi is of the entry the node mirrors.
func (n *passNode) same(fi fs.FileInfo) bool {
	dev, ino, _ := vfs.FileKey(fi)
	return dev == 0 && ino == 0 || n.dev == 0 && n.ino == 0 || dev == n.dev && ino == n.ino
}

// Getattr reports the directory's attributes as in SRC.
func (n *dirNode) Getattr(ctx context.Context, f gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	return n.attrOf(out)
}

// Getattr reports the file's attributes as in SRC: with a handle open, those of the file it
// reads, as fstat on a native file does after the name was given to another.
func (n *fileNode) Getattr(ctx context.Context, f gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if h, ok := f.(*fileHandle); ok {
		if fi, err := h.f.Stat(); err == nil {
			setAttr(&out.Attr, fi)
			out.SetTimeout(n.m.attrTimeout)
			return 0
		}
	}
	return n.attrOf(out)
}

// Getattr reports the symlink's attributes as in SRC.
func (n *linkNode) Getattr(ctx context.Context, f gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	return n.attrOf(out)
}

// Getattr reports the special file's attributes as in SRC.
func (n *specialNode) Getattr(ctx context.Context, f gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	return n.attrOf(out)
}

// Statfs reports the file system holding SRC.
func (n *dirNode) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	d, err := n.m.tree.OpenFile(".")
	if err != nil {
		return toErrno(err)
	}
	defer d.Close()
	var st syscall.Statfs_t
	if err := syscall.Fstatfs(int(d.Fd()), &st); err != nil {
		return toErrno(err)
	}
	out.FromStatfsT(&st)
	return 0
}

// Readlink returns the symlink's target as stored.
func (n *linkNode) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	target, err := n.m.tree.Readlink(n.rel)
	if err != nil {
		return nil, toErrno(err)
	}
	return []byte(target), 0
}

// fileType returns the S_IFMT bits of m.
func fileType(m fs.FileMode) uint32 {
	switch m.Type() {
	case fs.ModeDir:
		return syscall.S_IFDIR
	case fs.ModeSymlink:
		return syscall.S_IFLNK
	case fs.ModeNamedPipe:
		return syscall.S_IFIFO
	case fs.ModeSocket:
		return syscall.S_IFSOCK
	case fs.ModeDevice:
		return syscall.S_IFBLK
	case fs.ModeDevice | fs.ModeCharDevice:
		return syscall.S_IFCHR
	}
	return syscall.S_IFREG
}

// virtAttr fills out for the virtual document of kind of the model whose Lstat is fi and whose
// current version is v: the source's owner and times (mtime: the newest of source and what its
// translation read), the read bits the source and all it was made from grant (see access), one
// link, the document's size.
func virtAttr(out *fuse.Attr, fi fs.FileInfo, v *vfs.Version, kind vfs.Kind) {
	setAttr(out, fi)
	perm := uint32(fi.Mode().Perm()) & 0o444 // the source's as it is now: a chmod shows at once
	size, mtime, perm := v.Size(kind), max(fi.ModTime().UnixNano(), v.ModTime()), perm&v.Perm()
	out.Mode = syscall.S_IFREG | perm
	out.Size = uint64(size)
	out.Blocks = (uint64(size) + 511) / 512
	out.Nlink = 1
	out.Rdev = 0
	out.Mtime, out.Mtimensec = uint64(mtime/1e9), uint32(mtime%1e9)
}

// Getattr reports the document's exact size, translating the model unless its version is
// known. A model that fails to translate has size 0 here (and its open fails). With a handle
// open, the node shows the handle's version; else a node whose version was superseded answers
// ESTALE, and the kernel looks the name up again.
func (n *virtNode) Getattr(ctx context.Context, f gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	if h, ok := f.(*virtHandle); ok {
		out.Attr = h.attr
		out.SetTimeout(n.m.attrTimeout)
		return 0
	}
	fi, err := n.m.tree.SourceInfo(n.src)
	if err != nil {
		return toErrno(err)
	}
	if v := n.m.tree.Current(n.src, fi); v == nil || !v.Has(n.kind) {
		n.m.tree.ReadAhead(n.src)
	}
	v, _, err := n.m.tree.Document(ctx, n.src, fi, n.kind, vfs.NeedSize)
	var fe *vfs.TranslationError
	if v == nil || err != nil && !errors.As(err, &fe) {
		return toErrno(err)
	}
	if !n.shows(v) {
		return syscall.ESTALE
	}
	virtAttr(&out.Attr, fi, v, n.kind)
	out.SetTimeout(n.m.attrTimeout)
	return 0
}
