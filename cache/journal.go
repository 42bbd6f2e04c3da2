package cache

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"sync"
)

// A journal is a file of records, each appended with one write:
//
//	"MFSM" | u32 payload length | MAC of the payload (16 bytes) | payload
//
// A record cut short by a crash, overwritten halfway or not made with this directory's secret
// fails its length or MAC; reading skips to the next "MFSM" after it, so one damaged record
// costs only itself.
const (
	journalMagic = "MFSM"
	recordHead   = 4 + 4 + recMACLen
	maxRecord    = 1 << 20
	readChunk    = 1 << 20
)

var journalName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,127}$`)

// Journal is an append-only file of small records that a process keeps across runs in the
// cache directory (the mount's index of what it has made). Records are opaque to the cache.
// It is safe for concurrent use; processes appending to one journal at once each add whole
// records.
type Journal struct {
	d    *Disk
	name string
	head []byte // the record a journal made anew starts with

	mu    sync.Mutex
	f     *os.File
	index *folder // index/, held: opened again when another process removed it (Clear)
}

// JournalRead is what OpenJournal found in a journal.
type JournalRead struct {
	Records int   // sound records given
	Bytes   int64 // bytes read
	Cut     bool  // the journal was longer than the limit: the records past it were not read
}

// OpenJournal opens the journal called name (lower-case letters, digits, '.', '_', '-'),
// making it when absent, and gives each sound record it holds to each, oldest first, reading
// at most limit bytes of it: its records are what a process keeps in memory, and the journal
// is a file anyone who may write the directory could make huge. A record given to each is
// valid only during the call. head, when not nil, is the record that a journal made anew —
// now, or after another process rewrote or cleared it — is given first.
func (d *Disk) OpenJournal(name string, head []byte, limit int64, each func(rec []byte)) (*Journal, JournalRead, error) {
	var got JournalRead
	if !journalName.MatchString(name) {
		return nil, got, fmt.Errorf("disk cache: bad journal name %q", name)
	}
	index, err := d.top.sub("index", true)
	if err != nil {
		return nil, got, d.checked(err)
	}
	j := &Journal{d: d, name: name, head: head, index: index}
	defer func() {
		if j.f == nil {
			index.close()
		}
	}()
	switch f, _, err := index.open(name, os.O_RDONLY); {
	case err == nil:
		got, err = d.readRecords(f, limit, each)
		f.Close()
		if err != nil {
			return nil, got, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, got, d.checked(err)
	}
	if j.f, _, err = index.open(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE); err != nil {
		return nil, got, d.checked(err)
	}
	if got.Bytes == 0 && head != nil {
		if _, err := j.f.Write(d.frame(nil, head)); err != nil {
			j.f.Close()
			j.f = nil // and index/ is closed
			return nil, got, err
		}
		each(head)
		got.Records = 1
	}
	return j, got, nil
}

// readRecords reads the records of the journal r, at most limit bytes of it, in pieces.
func (d *Disk) readRecords(r io.Reader, limit int64, each func([]byte)) (JournalRead, error) {
	var got JournalRead
	lr := &io.LimitedReader{R: r, N: limit}
	// Room for a piece and for a record begun in the piece before.
	buf := make([]byte, 0, readChunk+recordHead+maxRecord)
	for {
		k, err := io.ReadFull(lr, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		got.Bytes += int64(k)
		final := err != nil
		if final && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return got, err
		}
		used := d.parseRecords(buf, final, func(rec []byte) {
			got.Records++
			each(rec)
		})
		buf = buf[:copy(buf, buf[used:])]
		if final {
			break
		}
	}
	if lr.N == 0 { // the limit: does the journal go on past it?
		var one [1]byte
		if n, _ := r.Read(one[:]); n > 0 {
			got.Cut = true
		}
	}
	return got, nil
}

// parseRecords gives each the sound records at the start of data and returns how many bytes
// it is done with: all of them at the end of the journal (final), else up to the first record
// that may go on past data.
func (d *Disk) parseRecords(data []byte, final bool, each func([]byte)) int {
	pos := 0
	for pos < len(data) {
		i := bytes.Index(data[pos:], []byte(journalMagic))
		if i < 0 {
			if final {
				return len(data)
			}
			return max(pos, len(data)-len(journalMagic)+1) // a magic may straddle the end
		}
		pos += i
		rest := data[pos:]
		if len(rest) < recordHead {
			if final {
				return len(data)
			}
			return pos
		}
		n := int(binary.LittleEndian.Uint32(rest[4:]))
		switch {
		case n > maxRecord:
		case recordHead+n > len(rest) && !final:
			return pos
		case recordHead+n <= len(rest):
			rec := rest[recordHead : recordHead+n]
			if d.sound(rest[8:recordHead], macRecord, rec) {
				each(rec)
				pos += recordHead + n
				continue
			}
		}
		pos++ // not a sound record: look for the next one
	}
	return pos
}

// frame appends rec as a record to buf.
func (d *Disk) frame(buf, rec []byte) []byte {
	buf = append(buf, journalMagic...)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(rec)))
	mac := d.mac(macRecord, rec)
	buf = append(buf, mac[:recMACLen]...)
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
			return fmt.Errorf("journal %s: record of %d bytes (at most %d)", j.name, len(rec), maxRecord)
		}
		buf = j.d.frame(buf[:0], rec)
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
	if j.index.sameFile(j.name, j.f) {
		return nil
	}
	if err := j.reopenIndex(); err != nil {
		return err
	}
	index := j.index
	f, size, err := index.open(j.name, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return j.d.checked(err)
	}
	j.f.Close()
	j.f = f
	if size == 0 && j.head != nil {
		_, err = f.Write(j.d.frame(nil, j.head))
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
		buf = j.d.frame(buf, rec)
	}
	old, _ := j.f.Stat()
	if err := j.reopenIndex(); err != nil {
		return err
	}
	index := j.index
	if err := j.d.writeAtomic(index, j.name, buf); err != nil {
		return err
	}
	f, _, err := index.open(j.name, os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return j.d.checked(err)
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

// reopenIndex opens index/ again, for the folder held may have been removed and made anew by
// another process (Clear).
func (j *Journal) reopenIndex() error {
	index, err := j.d.top.sub("index", true)
	if err != nil {
		return j.d.checked(err)
	}
	j.index.close()
	j.index = index
	return nil
}

// Close closes the journal's file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.index.close()
	return j.f.Close()
}

// WriteState stores a small named file (a mount's closing counters, say) in the cache
// directory, atomically.
func (d *Disk) WriteState(name string, data []byte) error {
	if !journalName.MatchString(name) {
		return fmt.Errorf("disk cache: bad state name %q", name)
	}
	if len(data) > maxState {
		return fmt.Errorf("disk cache: state %s of %d bytes (at most %d)", name, len(data), maxState)
	}
	state, err := d.top.sub("state", true)
	if err != nil {
		return d.checked(err)
	}
	defer state.close()
	return d.writeAtomic(state, name, data)
}

// ReadState returns a file stored by WriteState.
func (d *Disk) ReadState(name string) ([]byte, error) {
	if !journalName.MatchString(name) {
		return nil, fmt.Errorf("disk cache: bad state name %q", name)
	}
	state, err := d.top.sub("state", false)
	if err != nil {
		return nil, d.checked(err)
	}
	defer state.close()
	b, err := state.readSmall(name)
	return b, d.checked(err)
}

// States returns the names of the files stored by WriteState.
func (d *Disk) States() []string {
	state, err := d.top.sub("state", false)
	if err != nil {
		return nil
	}
	defer state.close()
	names, _ := state.names()
	var out []string
	for _, n := range names {
		if journalName.MatchString(n) {
			out = append(out, n)
		}
	}
	return out
}

// Clear removes every entry, journal and state file: the directory is left an empty cache,
// with its secret. Processes using it meanwhile lose what they had on disk and make it again.
// Nothing is followed out of the directory: a symlink in it is removed, not what it leads to.
func (d *Disk) Clear() error {
	var first error
	for _, name := range layout {
		var err error
		if name == "state" {
			err = d.clearState()
		} else {
			err = d.top.removeAll(name)
		}
		if err != nil && first == nil {
			first = err
		}
		sub, err := d.top.sub(name, true)
		if err != nil && first == nil {
			first = err
		}
		if sub != nil {
			sub.close()
		}
	}
	d.rescan()
	return first
}

// clearState removes the state files, keeping the secret and the lock file.
func (d *Disk) clearState() error {
	state, err := d.top.sub("state", false)
	if err != nil {
		return d.top.removeAll("state") // not the cache's own folder: nothing there is kept
	}
	defer state.close()
	names, err := state.names()
	for _, n := range names {
		if n != secretName && n != lockName {
			if rerr := state.removeAll(n); err == nil {
				err = rerr
			}
		}
	}
	return err
}
