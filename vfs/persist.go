package vfs

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"time"

	"github.com/modelfs/modelfs/translate"
)

// The tree's journal in the disk tier keeps what the mount learnt across remounts: every
// version (its key, deps, sizes) and every file's state (identity and sum). A remount reads it
// back, so that an unchanged tree is listed, sized and served without reading a source again,
// let alone translating one. It is named after the machine and SRC's path: identities belong to
// one machine's view of one tree, while the entries it points to are shared by content.
//
// Records (each a journal record):
//
//	'T' | host | SRC | translator version        the tree: the first record
//	'V' | path | key | mtime | sizes | meta        a version of the source at path (meta: encodeMeta)
//	'F' | path | identity | sum | racy | real | acl        a file's state
const (
	recTree    = 'T'
	recVersion = 'V'
	recFile    = 'F'
)

// JournalName returns the name of the journal of the tree at src (an absolute path) on this
// machine.
func JournalName(src string) string {
	host, _ := os.Hostname()
	s := sha256.Sum256([]byte(host + "\x00" + src))
	return "tree-" + hex.EncodeToString(s[:8])
}

func treeRecord(src string) []byte {
	host, _ := os.Hostname()
	b := []byte{recTree}
	b = appendString(b, host)
	b = appendString(b, src)
	b = appendString(b, translate.Version)
	return appendString(b, journalFormat)
}

// journalFormat names the layout of the journal's records; a journal of another is started
// over (the disk entries it pointed to are found again by content).
const journalFormat = "2"

// openIndex opens the tree's journal and loads what it holds, reading at most a quarter of the
// memory budget of it: what it loads is kept in memory. The journal is compacted (written
// anew from what was loaded) when most of its records were superseded, or when it was longer
// than that.
func (f *Tree) openIndex(absSrc string) error {
	head := treeRecord(absSrc)
	ours := false
	n := 0
	j, got, err := f.disk.OpenJournal(JournalName(absSrc), head, f.journalLimit(), func(r []byte) {
		if n++; n == 1 {
			ours = string(r) == string(head)
			return
		}
		if !ours {
			return
		}
		d := decoder{b: r}
		kind := d.byte()
		p := d.string()
		if !d.bad {
			f.loadRecord(kind, p, d)
		}
	})
	if err != nil {
		return err
	}
	f.index = j
	if !ours {
		// New, or another tree's or translator's: start over.
		f.versions, f.files = newBounded[*Version](maxVersions), newBounded[fileState](maxVersions)
		return j.Rewrite([][]byte{head})
	}
	live := 1 + f.versions.len() + f.files.len()
	if got.Cut {
		f.opt.Logger.Warn("the cache's journal of this tree is larger than a quarter of --cache-size: read in part, and compacted",
			"read", got.Bytes, "cache-size", f.opt.CacheBytes)
	}
	if got.Cut || got.Records > 2*live+1024 {
		return j.Rewrite(f.indexRecords(head))
	}
	return nil
}

// journalLimit is how much of the tree's journal openIndex reads.
func (f *Tree) journalLimit() int64 { return max(f.opt.CacheBytes/4, 4<<20) }

// indexRecords returns the journal's records of what the tree knows, its head first.
func (f *Tree) indexRecords(head []byte) [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	recs := [][]byte{head}
	for _, m := range []map[string]fileState{f.files.old, f.files.young} {
		for name, st := range m {
			recs = append(recs, fileRecord(name, st))
		}
	}
	for _, m := range []map[string]*Version{f.versions.old, f.versions.young} {
		for src, v := range m {
			if v.persist {
				recs = append(recs, versionRecord(src, v))
			}
		}
	}
	return recs
}

// loadRecord takes in one record of the journal; it reports false for one it cannot read.
func (f *Tree) loadRecord(kind byte, p string, d decoder) bool {
	switch kind {
	case recFile:
		st := fileState{id: readIdentity(&d)}
		n := copy(st.sum[:], d.string())
		st.racy = d.byte() != 0
		st.real = d.string()
		st.acl = d.byte() != 0
		if d.bad || n != len(st.sum) || len(d.b) != 0 {
			return false
		}
		f.files.put(p, st)
	case recVersion:
		v := &Version{persist: true}
		if copy(v.key[:], d.string()) != len(v.key) {
			return false
		}
		v.mtime = d.varint()
		for i := range v.sizes {
			if v.sizes[i] = d.varint(); v.sizes[i] < sizeUnknown {
				return false
			}
		}
		var err error
		if v.deps, v.fails, err = decodeMeta([]byte(d.string())); err != nil || d.bad || len(d.b) != 0 {
			return false
		}
		v.deps = f.intern(v.deps)
		v.seal()
		v.checked.Store(-int64(time.Hour)) // checked against the tree at its first use
		f.versions.put(p, v)
	}
	return true
}

func appendIdentity(b []byte, id identity) []byte {
	b = binary.AppendVarint(b, id.size)
	b = binary.AppendVarint(b, id.mtime)
	b = binary.AppendVarint(b, id.ctime)
	b = binary.AppendUvarint(b, id.ino)
	b = binary.AppendUvarint(b, id.dev)
	b = binary.AppendUvarint(b, uint64(id.mode))
	b = binary.AppendUvarint(b, uint64(id.uid))
	return binary.AppendUvarint(b, uint64(id.gid))
}

func readIdentity(d *decoder) identity {
	return identity{size: d.varint(), mtime: d.varint(), ctime: d.varint(), ino: d.uvarint(), dev: d.uvarint(),
		mode: uint32(d.uvarint()), uid: uint32(d.uvarint()), gid: uint32(d.uvarint())}
}

// journal records the version of src.
func (f *Tree) journal(src string, v *Version) {
	if f.index == nil || !v.persist {
		return
	}
	f.diskError(f.index.Append(versionRecord(src, v)))
}

func versionRecord(src string, v *Version) []byte {
	b := []byte{recVersion}
	b = appendString(b, src)
	b = appendString(b, string(v.key[:]))
	b = binary.AppendVarint(b, v.mtime)
	for i := range v.sizes {
		b = binary.AppendVarint(b, v.sizes[i])
	}
	return appendString(b, string(encodeMeta(v.deps, v.fails))) // as a disk entry holds them
}

// journalFile records the state of the file at name.
func (f *Tree) journalFile(name string, st fileState) {
	if f.index == nil {
		return
	}
	f.diskError(f.index.Append(fileRecord(name, st)))
}

func fileRecord(name string, st fileState) []byte {
	b := []byte{recFile}
	b = appendString(b, name)
	b = appendIdentity(b, st.id)
	b = appendString(b, string(st.sum[:]))
	b = append(b, boolByte(st.racy))
	b = appendString(b, st.real)
	return append(b, boolByte(st.acl))
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// MountRecord is what a mount leaves in the disk tier when it ends, for `modelfs cache stats`.
type MountRecord struct {
	Src          string    `json:"src"`
	MountPoint   string    `json:"mountpoint"`
	Started      time.Time `json:"started"`
	Ended        time.Time `json:"ended"`
	Translations int64     `json:"translations"`
	Failures     int64     `json:"failures"`
	Reused       int64     `json:"reused"`     // versions taken from the cache directory, not translated
	MemoryHits   int64     `json:"memoryHits"` // documents read from memory
	MemoryMisses int64     `json:"memoryMisses"`
	DiskReads    int64     `json:"diskReads"` // documents read from the disk tier
	DiskMisses   int64     `json:"diskMisses"`
}

// MountRecordName is the state name under which a mount of src leaves its MountRecord.
func MountRecordName(src string) string { return "mount-" + JournalName(src)[len("tree-"):] }

// record leaves the mount's counters in the disk tier.
func (f *Tree) record(src, mnt string) {
	if f.disk == nil {
		return
	}
	st := f.stats()
	rec := MountRecord{Src: src, MountPoint: mnt, Started: f.started, Ended: time.Now(),
		Translations: st.Translations, Failures: st.Failures, Reused: st.Reused,
		MemoryHits: st.Memory.Hits, MemoryMisses: st.Memory.Misses, DiskReads: st.Disk.Hits, DiskMisses: st.Disk.Misses}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err == nil {
		err = f.disk.WriteState(MountRecordName(src), append(b, '\n'))
	}
	f.diskError(err)
}

// stats returns the counters.
func (f *Tree) stats() Stats {
	st := Stats{
		Translations: f.translations.Load(),
		Failures:     f.failures.Load(),
		Reused:       f.reused.Load(),
		Memory:       f.mem.Stats(),
	}
	if f.disk != nil {
		st.Disk = f.disk.Stats()
	}
	st.Versions = f.versionCount()
	return st
}
