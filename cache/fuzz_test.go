package cache

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadEntry feeds arbitrary bytes to the entry reader as a file of the disk tier: it must
// refuse what is not a sound entry (ErrCorrupt), never panic, and allocate no more than the
// file's size allows.
func FuzzReadEntry(f *testing.F) {
	dir := f.TempDir()
	d, err := OpenDisk(DiskOptions{Dir: dir, MaxBytes: 64 << 20})
	if err != nil {
		f.Fatal(err)
	}
	for i := range 3 {
		if err := d.Put(testKey(i), testMeta(i), testParts(i)[:i+1]); err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(entryPath(d, testKey(i)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	p := filepath.Join(dir, "fuzzed")
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		file, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		e, err := d.readEntry(file, int64(len(b)), testKey(0))
		if err != nil {
			return
		}
		for _, part := range e.parts {
			if part.off < 0 || part.len < 0 || e.data+part.off+part.len > int64(len(b)) {
				t.Fatalf("part %s at %d+%d outside the %d-byte file", part.name, part.off, part.len, len(b))
			}
		}
	})
}

// FuzzJournal feeds arbitrary bytes to the journal parser: every record it returns must lie
// inside the input, and it must not panic.
func FuzzJournal(f *testing.F) {
	d, err := OpenDisk(DiskOptions{Dir: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	var j []byte
	for _, rec := range []string{"head", "a record", ""} {
		j = d.frame(j, []byte(rec))
	}
	f.Add(j)
	f.Add(j[:len(j)-3])
	f.Add([]byte("MFSM\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		total := 0
		d.parseRecords(b, true, func(r []byte) { total += len(r) + recordHead })
		if total > len(b) {
			t.Fatalf("%d bytes of records from %d bytes", total, len(b))
		}
	})
}
