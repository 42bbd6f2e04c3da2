package cache

import (
	"crypto/sha256"
	"strconv"
	"testing"
)

// BenchmarkDiskGet reads entries back from the disk tier, as a remount or a memory eviction
// does: a large document (MB/s), and the open and header check of a small entry (per op).
func BenchmarkDiskGet(b *testing.B) {
	d, err := OpenDisk(DiskOptions{Dir: b.TempDir(), MaxBytes: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	key := func(i int) Key { return sha256.Sum256([]byte("bench " + strconv.Itoa(i))) }
	large := make([]byte, 27<<20) // a large .glb
	for i := range large {
		large[i] = byte(i * 31)
	}
	if err := d.Put(key(-1), []byte("meta"), []Part{{"glb", large}}); err != nil {
		b.Fatal(err)
	}
	const small = 1000
	for i := range small {
		if err := d.Put(key(i), []byte("meta"), []Part{{"json", make([]byte, 2000)}}); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("large", func(b *testing.B) {
		b.SetBytes(int64(len(large)))
		for b.Loop() {
			e, err := d.Get(key(-1))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := e.Read("glb"); err != nil {
				b.Fatal(err)
			}
			e.Close()
		}
	})
	b.Run("small", func(b *testing.B) {
		i := 0
		for b.Loop() {
			e, err := d.Get(key(i % small))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := e.Read("json"); err != nil {
				b.Fatal(err)
			}
			e.Close()
			i++
		}
	})
}
