package cache

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"sync"
)

// A journal is a file of records, each appended with one write:
//
//	"MFSJ" | u32 payload length | u32 CRC-32C of the payload | payload
//
// A record cut short by a crash, or overwritten halfway, fails its length or checksum; reading
// skips to the next "MFSJ" after it, so one damaged record costs only itself.
const (
	journalMagic = "MFSJ"
	recordHead   = 12
	maxRecord    = 16 << 20
)

var journalName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,127}$`)

// Journal is an append-only file of small records that a process keeps across runs in the
// cache directory (the mount's index of what it has made). Records are opaque to the cache.
// It is safe for concurrent use; processes appending to one journal at once each add whole
// records.
type Journal struct {
	d    *Disk
	path string
	head []byte // the record a journal made anew starts with

	mu sync.Mutex
	f  *os.File
}

// OpenJournal opens the journal called name (lower-case letters, digits, '.', '_', '-'),
// making it when absent, and returns it with every sound record it holds, oldest first. head,
// when not nil, is the record that a journal made anew — now, or after another process
// rewrote or cleared it — is given first.
func (d *Disk) OpenJournal(name string, head []byte) (*Journal, [][]byte, error) {
	if !journalName.MatchString(name) {
		return nil, nil, fmt.Errorf("disk cache: bad journal name %q", name)
	}
	j := &Journal{d: d, path: filepath.Join(d.dir, "index", name), head: head}
	data, err := os.ReadFile(j.path)
	if err != nil && !os.IsNotExist(err) {
		return nil, nil, err
	}
	if j.f, err = os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
		return nil, nil, err
	}
	recs := parseRecords(data)
	if len(data) == 0 && head != nil {
		if _, err := j.f.Write(frame(nil, head)); err != nil {
			j.f.Close()
			return nil, nil, err
		}
		recs = [][]byte{head}
	}
	return j, recs, nil
}

// parseRecords returns the sound records of a journal's bytes.
func parseRecords(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := bytes.Index(data, []byte(journalMagic))
		if i < 0 {
			break
		}
		data = data[i:]
		if len(data) >= recordHead {
			n := binary.LittleEndian.Uint32(data[4:])
			if n <= maxRecord && int(n) <= len(data)-recordHead {
				rec := data[recordHead : recordHead+int(n)]
				if crc32.Checksum(rec, castagnoli) == binary.LittleEndian.Uint32(data[8:]) {
					out = append(out, rec)
					data = data[recordHead+int(n):]
					continue
				}
			}
		}
		data = data[1:] // not a sound record: look for the next one
	}
	return out
}

func frame(buf, rec []byte) []byte {
	buf = append(buf, journalMagic...)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(rec)))
	buf = binary.LittleEndian.AppendUint32(buf, crc32.Checksum(rec, castagnoli))
	return append(buf, rec...)
}

// Append adds records to the end of the journal, each with a single write. When another
// process has replaced the journal (Rewrite) or removed it (Clear) since, it appends to the
// journal now in its place.
func (j *Journal) Append(recs ...[]byte) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.follow(); err != nil {
		return err
	}
	var buf []byte
	for _, rec := range recs {
		if len(rec) > maxRecord {
			return fmt.Errorf("journal %s: record of %d bytes (at most %d)", j.path, len(rec), maxRecord)
		}
		buf = frame(buf[:0], rec)
		if _, err := j.f.Write(buf); err != nil {
			return err
		}
		j.d.grow(int64(len(buf)))
	}
	return nil
}

// follow reopens the journal when its name no longer leads to the file open, starting a
// journal made anew with its head.
func (j *Journal) follow() error {
	open, err := j.f.Stat()
	if err != nil {
		return err
	}
	now, err := os.Stat(j.path)
	if err == nil && os.SameFile(open, now) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(j.path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	j.f.Close()
	j.f = f
	if fi, err := f.Stat(); err == nil && fi.Size() == 0 && j.head != nil {
		_, err = f.Write(frame(nil, j.head))
		return err
	}
	return nil
}

// Rewrite replaces the journal, atomically, with exactly recs: its compaction. A record
// another process appends to the old file while this one writes the new is lost, which costs
// nothing but time; its later records go to the new file (see Append).
func (j *Journal) Rewrite(recs [][]byte) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	var buf []byte
	for _, rec := range recs {
		buf = frame(buf, rec)
	}
	old, _ := j.f.Stat()
	if err := writeAtomic(j.d.dir, j.path, buf); err != nil {
		return err
	}
	f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	j.f.Close()
	j.f = f
	if old != nil {
		j.d.grow(-blocks(old.Size()))
	}
	j.d.grow(blocks(int64(len(buf))))
	return nil
}

// grow charges n more bytes (fewer when negative) of journals, which are not entries.
func (d *Disk) grow(n int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.used += n
	d.fixed += n
}

// Close closes the journal's file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.f.Close()
}

// WriteState stores a small named file (a mount's closing counters, say) in the cache
// directory, atomically.
func (d *Disk) WriteState(name string, data []byte) error {
	if !journalName.MatchString(name) {
		return fmt.Errorf("disk cache: bad state name %q", name)
	}
	return writeAtomic(d.dir, filepath.Join(d.dir, "state", name), data)
}

// ReadState returns a file stored by WriteState.
func (d *Disk) ReadState(name string) ([]byte, error) {
	if !journalName.MatchString(name) {
		return nil, fmt.Errorf("disk cache: bad state name %q", name)
	}
	return os.ReadFile(filepath.Join(d.dir, "state", name))
}

// States returns the names of the files stored by WriteState.
func (d *Disk) States() []string {
	ents, _ := os.ReadDir(filepath.Join(d.dir, "state"))
	var out []string
	for _, e := range ents {
		if journalName.MatchString(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// Clear removes every entry, journal and state file: the directory is left an empty cache.
// Processes using it meanwhile lose what they had on disk and make it again.
func (d *Disk) Clear() error {
	var first error
	for _, sub := range []string{"data", "index", "state", "tmp"} {
		p := filepath.Join(d.dir, sub)
		if err := os.RemoveAll(p); err != nil && first == nil {
			first = err
		}
		if err := os.MkdirAll(p, 0o755); err != nil && first == nil {
			first = err
		}
	}
	d.rescan()
	return first
}
