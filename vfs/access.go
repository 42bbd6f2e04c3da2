package vfs

import (
	"os"
	"os/user"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Who may read a virtual file: no one the source tree would stop. A virtual file is made of its
// source and of every file its translation read (textures, companions), each behind the folders
// that lead to it; its read bits are those every one of them grants, class by class, as seen
// from the virtual file's owner and group (the source's). With allow_other and
// default_permissions the kernel enforces them against every user.

// access returns the read bits (within 0444) of the documents of v, the version of src: those
// the source, every file it read and each folder on the way to such a file (its search bit)
// grant alike. The folders are those of the file's real path (symlinks resolved) that the
// source's own path in the mount does not cross: the kernel checks those. It takes the modes
// the checks of the version just saw (the file states, the listings), so that it costs no
// system call of its own in the common case. A file that cannot be looked at grants nothing;
// the next check of the version finds why.
func (f *Tree) access(src string, v *Version) uint32 {
	own, ok := f.stateOf(src)
	if !ok {
		return 0
	}
	uid, gid := own.id.uid, own.id.gid
	srcDir := path.Dir(src)
	var dirs []string
	mask := uint32(0o444)
	take := func(name string, st fileState) bool {
		mask &= f.grants(st.id, st.acl, uid, gid, 4)
		real := name
		if st.real != "" {
			real = st.real
		}
		for dir := path.Dir(real); dir != "." && dir != srcDir && !strings.HasPrefix(srcDir, dir+"/"); dir = path.Dir(dir) {
			if slices.Contains(dirs, dir) {
				break
			}
			dirs = append(dirs, dir)
			id, acl, ok := f.dirAccess(dir)
			if !ok {
				return false
			}
			mask &= f.grants(id, acl, uid, gid, 1)
		}
		return true
	}
	if !take(src, own) {
		return 0
	}
	for _, d := range v.deps {
		if d.op != depFile || len(d.val) != len(digest{}) { // not read: an error state
			continue
		}
		st, ok := f.stateOf(d.name)
		if !ok || !take(d.name, st) {
			return 0
		}
	}
	return mask
}

// stateOf returns the state of the file name: the one the mount knows, else one made from a
// fresh look at it.
func (f *Tree) stateOf(name string) (fileState, bool) {
	st, ok := f.fileOf(name)
	if ok && st.id.mode != 0 {
		return st, true
	}
	file, err := f.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fileState{}, false
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return fileState{}, false
	}
	st = fileState{id: identityOf(fi)}
	st.real, st.acl = f.whereAndACL(file, name)
	return st, true
}

// whereAndACL returns the real path inside SRC of the open file, when it is not name, and
// whether the file has an access ACL. A file whose real path cannot be told (no /proc, or a
// system that does not say) is taken to be where its name says.
func (f *Tree) whereAndACL(file *os.File, name string) (real string, acl bool) {
	acl = hasACL(file)
	if f.realSrc == "" {
		return "", acl
	}
	p, err := openedPath(file)
	if err != nil {
		return "", acl
	}
	rel, err := filepath.Rel(f.realSrc, p)
	rel = filepath.ToSlash(rel)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return ".", acl // not inside SRC as the mount knows it: its folders are the root's
	}
	if rel != name {
		return rel, acl
	}
	return "", acl
}

// dirState is what access knows of a directory: its identity, and whether it has an ACL.
type dirState struct {
	id  identity
	acl bool
}

// dirAccess returns the identity of the directory dir and whether it has an access ACL: its
// listing's identity while that is recent (see dirRecheck), else a fresh Stat's; the ACL is
// looked up once per identity.
func (f *Tree) dirAccess(dir string) (identity, bool, bool) {
	id, recent := f.dirs.recent(dir)
	if !recent {
		fi, err := f.root.Stat(dir)
		if err != nil {
			return identity{}, false, false
		}
		id = identityOf(fi)
	}
	ds, ok := f.dirACL(dir)
	if ok && ds.id == id {
		return id, ds.acl, true
	}
	d, err := f.root.OpenFile(dir, os.O_RDONLY|oDirectory|syscall.O_NONBLOCK, 0)
	if err != nil {
		return identity{}, false, false
	}
	ds = dirState{id: id, acl: hasACL(d)}
	d.Close()
	f.putDirACL(dir, ds)
	return id, ds.acl, true
}

// recent returns the identity of the listing of dir while it is recent (see dirRecheck).
func (d *dirs) recent(dir string) (identity, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	l := d.m[dir]
	if l == nil || time.Since(l.checked) >= dirRecheck {
		return identity{}, false
	}
	return l.id, true
}

func (f *Tree) dirACL(dir string) (dirState, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dirACLs.get(dir)
}

func (f *Tree) putDirACL(dir string, ds dirState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dirACLs.put(dir, ds)
}

// grants returns, as read bits (0400 owner, 0040 group, 0004 others), whether each class of a
// file owned by uid and gid is sure to have permission bit (4 read, 1 search) on the entry id:
// a class gets it only when every class of id its members may fall in grants it. The owner is
// in id's group or not as the user database says (both are assumed when it cannot tell); a
// member of the group may be id's owner; anyone else may be either. An entry with an ACL may
// deny any user but its owner: it grants only its owner's class.
func (f *Tree) grants(id identity, acl bool, uid, gid uint32, bit uint32) uint32 {
	m := id.mode
	u, g, o := m>>6&bit != 0, m>>3&bit != 0, m&bit != 0
	sameU, sameG := id.uid == uid, id.gid == gid
	if acl {
		g, o = false, false
	}
	var owner bool
	switch {
	case sameU:
		owner = u
	default:
		switch f.member(uid, id.gid) {
		case memberYes:
			owner = g
		case memberNo:
			owner = o
		default:
			owner = g && o
		}
	}
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

// Whether a user is a member of a group.
const (
	memberUnknown = iota
	memberYes
	memberNo
)

// member tells whether the user uid is in the group gid, from the user database, asked once
// per user for the mount's life (a user's groups change rarely, and a change shows at the next
// mount).
func (f *Tree) member(uid, gid uint32) int {
	groups, ok := f.groupsOf(uid)
	if !ok {
		groups = nil
		if u, err := user.LookupId(strconv.FormatUint(uint64(uid), 10)); err == nil {
			if ids, err := u.GroupIds(); err == nil {
				groups = make(map[uint32]bool, len(ids))
				for _, id := range ids {
					if n, err := strconv.ParseUint(id, 10, 32); err == nil {
						groups[uint32(n)] = true
					}
				}
			}
		}
		f.putGroups(uid, groups)
	}
	switch {
	case groups == nil:
		return memberUnknown
	case groups[gid]:
		return memberYes
	}
	return memberNo
}

func (f *Tree) groupsOf(uid uint32) (map[uint32]bool, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	g, ok := f.groups[uid]
	return g, ok
}

func (f *Tree) putGroups(uid uint32, groups map[uint32]bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.groups[uid] = groups
}

// OthersReach reports whether users other than the owners may reach the entry rel of the
// tree, symlinks resolved: every folder on its real path inside SRC lets them search it. A
// front end that follows symlinks itself for such a client (WebDAV) asks it: the folders of
// the path as written are not the ones the kernel would check. An entry that cannot be
// opened is not reached.
func (f *Tree) OthersReach(rel string) bool {
	file, err := f.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	real, _ := f.whereAndACL(file, rel)
	file.Close()
	if real == "" {
		real = rel
	}
	for dir := path.Dir(real); ; dir = path.Dir(dir) {
		fi, err := f.root.Lstat(dir)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		if dir == "." {
			return true
		}
	}
}
