package vfs

import (
	"path"
	"strings"
	"syscall"
)

// Who may read a virtual file: no one the source tree would stop. A virtual file is made of its
// source and of every file its translation read (textures, companions), each behind the folders
// that lead to it; its read bits are those every one of them grants, class by class, as seen
// from the virtual file's owner and group (the source's). With allow_other and
// default_permissions the kernel enforces them against every user.

// access returns the read bits (within 0444) of the documents of v, the version of src: those
// the source, every file it read and each folder on the way to such a file (its search bit)
// grant alike. A file that cannot be looked at grants nothing; the next check of the version
// finds why.
func (f *fsys) access(src string, v *version) uint32 {
	fi, err := f.sourceInfo(src)
	if err != nil {
		return 0
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	uid, gid := st.Uid, st.Gid
	mask := grants(st, uid, gid, 4)
	srcDir := path.Dir(src)
	var dirs map[string]bool
	for _, d := range v.deps {
		if d.op != depFile || len(d.val) != len(digest{}) { // not read: an error state
			continue
		}
		fi, err := f.root.Stat(d.name)
		if err != nil {
			return 0
		}
		mask &= grants(fi.Sys().(*syscall.Stat_t), uid, gid, 4)
		// The folders the source's own path does not cross: the kernel checks those.
		for dir := path.Dir(d.name); dir != "." && dir != srcDir && !strings.HasPrefix(srcDir, dir+"/"); dir = path.Dir(dir) {
			if dirs[dir] {
				break
			}
			if dirs == nil {
				dirs = map[string]bool{}
			}
			dirs[dir] = true
			di, err := f.root.Stat(dir)
			if err != nil {
				return 0
			}
			mask &= grants(di.Sys().(*syscall.Stat_t), uid, gid, 1)
		}
	}
	return mask
}

// grants returns, as read bits (0400 owner, 0040 group, 0004 others), whether each class of a
// file owned by uid and gid is sure to have permission bit (4 read, 1 search) on the entry st:
// a class gets it only when every class of st its members may fall in grants it. The owner
// may or may not be in st's group when st is someone else's; a member of the group may be st's
// owner; anyone else may be either.
func grants(st *syscall.Stat_t, uid, gid uint32, bit uint32) uint32 {
	m := st.Mode
	u, g, o := m>>6&bit != 0, m>>3&bit != 0, m&bit != 0
	sameU, sameG := st.Uid == uid, st.Gid == gid
	owner := sameU && u || !sameU && g && o
	group := (sameU || u) && (sameG && g || !sameG && g && o)
	other := (sameU || u) && (sameG || g) && o
	var r uint32
	if owner {
		r |= 0o400
	}
	if group {
		r |= 0o040
	}
	if other {
		r |= 0o004
	}
	return r
}
