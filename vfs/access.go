package vfs

import (
	"path"
	"slices"
	"strings"
	"time"
)

// Who may read a virtual file: no one the source tree would stop. A virtual file is made of its
// source and of every file its translation read (textures, companions), each behind the folders
// that lead to it; its read bits are those every one of them grants, class by class, as seen
// from the virtual file's owner and group (the source's). With allow_other and
// default_permissions the kernel enforces them against every user.

// access returns the read bits (within 0444) of the documents of v, the version of src: those
// the source, every file it read and each folder on the way to such a file (its search bit)
// grant alike. It takes the modes the checks of the version just saw (the file states, the
// listings), so that it costs no system call of its own in the common case. A file that cannot
// be looked at grants nothing; the next check of the version finds why.
func (f *fsys) access(src string, v *version) uint32 {
	own, ok := f.stateOf(src)
	if !ok {
		return 0
	}
	mask := grants(own, own.uid, own.gid, 4)
	srcDir := path.Dir(src)
	var dirs []string
	for _, d := range v.deps {
		if d.op != depFile || len(d.val) != len(digest{}) { // not read: an error state
			continue
		}
		id, ok := f.stateOf(d.name)
		if !ok {
			return 0
		}
		mask &= grants(id, own.uid, own.gid, 4)
		// The folders the source's own path does not cross: the kernel checks those.
		for dir := path.Dir(d.name); dir != "." && dir != srcDir && !strings.HasPrefix(srcDir, dir+"/"); dir = path.Dir(dir) {
			if slices.Contains(dirs, dir) {
				break
			}
			dirs = append(dirs, dir)
			id, ok := f.dirIdentity(dir)
			if !ok {
				return 0
			}
			mask &= grants(id, own.uid, own.gid, 1)
		}
	}
	return mask
}

// stateOf returns the identity of the file name: the one its state holds when the mount knows
// it, else a fresh Stat's.
func (f *fsys) stateOf(name string) (identity, bool) {
	f.mu.Lock()
	st, ok := f.files.get(name)
	f.mu.Unlock()
	if ok && st.id.mode != 0 {
		return st.id, true
	}
	fi, err := f.root.Stat(name)
	if err != nil {
		return identity{}, false
	}
	return identityOf(fi), true
}

// dirIdentity returns the identity of the directory dir: its listing's while that is recent
// (see dirRecheck), else a fresh Stat's.
func (f *fsys) dirIdentity(dir string) (identity, bool) {
	f.dirs.mu.Lock()
	l := f.dirs.m[dir]
	recent := l != nil && time.Since(l.checked) < dirRecheck
	var id identity
	if recent {
		id = l.id
	}
	f.dirs.mu.Unlock()
	if recent {
		return id, true
	}
	fi, err := f.root.Stat(dir)
	if err != nil {
		return identity{}, false
	}
	return identityOf(fi), true
}

// grants returns, as read bits (0400 owner, 0040 group, 0004 others), whether each class of a
// file owned by uid and gid is sure to have permission bit (4 read, 1 search) on the entry id:
// a class gets it only when every class of id its members may fall in grants it. The owner
// may or may not be in id's group when id is someone else's; a member of the group may be id's
// owner; anyone else may be either.
func grants(id identity, uid, gid uint32, bit uint32) uint32 {
	m := id.mode
	u, g, o := m>>6&bit != 0, m>>3&bit != 0, m&bit != 0
	sameU, sameG := id.uid == uid, id.gid == gid
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
