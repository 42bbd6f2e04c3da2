package zipfs_test

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelfs/modelfs/internal/archive"
	"github.com/modelfs/modelfs/internal/archive/zipfs"
	"github.com/modelfs/modelfs/internal/archive/zipfs/ziptest"
	"github.com/modelfs/modelfs/translate/codec"
)

// counting is an archive's bytes that count what is read of them.
type counting struct {
	r    io.ReaderAt
	read atomic.Int64
}

func (c *counting) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.read.Add(int64(n))
	return n, err
}

func openZip(t testing.TB, data []byte) (*zipfs.Archive, *counting) {
	t.Helper()
	c := &counting{r: bytes.NewReader(data)}
	a, err := zipfs.Open(c, int64(len(data)), archive.Options{Name: "t.zip"})
	if err != nil {
		t.Fatal(err)
	}
	return a, c
}

// readerAt opens name as the mount does, for reading at any offset.
func readerAt(t testing.TB, a *zipfs.Archive, name string) interface {
	io.ReaderAt
	io.Closer
} {
	t.Helper()
	f, err := a.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	return f.(interface {
		io.ReaderAt
		io.Closer
	})
}

// noise returns n bytes that do not compress.
func noise(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// bomb is a 500 KB zip whose member "bomb.bin" unpacks to 30 MiB of zeros (the rest of the
// archive is a member that does not compress, so that the bomb stays within what an archive
// of its size may unpack to), and the member's bytes.
func bomb(t testing.TB) ([]byte, []byte) {
	body := make([]byte, 30<<20)
	return ziptest.Zip(ziptest.True("bomb.bin", body, 8), ziptest.True("pad.bin", noise(470<<10), 0)), body
}

// Finding 2: a member is a stream. A reader of one byte inflates a few KiB of it, not the
// member; readers in order read each byte once; reads out of order within the window are
// served from it; the streams of many readers stay within their budget.
func TestZipMembersStream(t *testing.T) {
	data, body := bomb(t)
	a, c := openZip(t, data)
	defer func() {
		if got := archive.Charged(); got != 0 {
			t.Errorf("%d bytes charged after every reader closed", got)
		}
	}()
	before := c.read.Load()
	f := readerAt(t, a, "bomb.bin")
	var one [1]byte
	if n, err := f.ReadAt(one[:], 0); n != 1 || err != nil {
		t.Fatalf("ReadAt = %d, %v", n, err)
	}
	if read := c.read.Load() - before; read > 64<<10 {
		t.Errorf("reading 1 byte read %d bytes of the archive", read)
	}
	// Out of order as the kernel's read-ahead asks: 128 KiB ahead, then back.
	buf := make([]byte, 128<<10)
	for _, off := range []int64{256 << 10, 128 << 10, 384 << 10, 0} {
		if n, err := f.ReadAt(buf, off); n != len(buf) || err != nil || !bytes.Equal(buf, body[off:off+int64(n)]) {
			t.Fatalf("ReadAt(%d) = %d, %v", off, n, err)
		}
	}
	f.Close()

	// Open readers that are not read hold no more than the budget: the least recently read
	// lets its stream go, and starts again when read next.
	restore := zipfs.SetBudget(2 * zipfs.StateCost)
	restoreIdle := zipfs.SetIdleAfter(0)
	var idle []io.ReaderAt
	for i := range 8 {
		f := readerAt(t, a, "bomb.bin")
		defer f.Close()
		if _, err := f.ReadAt(buf, int64(i)<<20); err != nil {
			t.Fatal(err)
		}
		if got := archive.Charged(); got > 2*zipfs.StateCost {
			t.Errorf("%d idle readers hold %d bytes; the budget is %d", i+1, got, 2*zipfs.StateCost)
		}
		idle = append(idle, f)
	}
	for i, f := range idle {
		off := int64(i)<<20 + 1000
		if n, err := f.ReadAt(buf, off); n != len(buf) || err != nil || !bytes.Equal(buf, body[off:off+int64(n)]) {
			t.Errorf("reader %d after its stream was let go: %d, %v", i, n, err)
		}
	}
	restore()
	restoreIdle()

	// Four readers at once, each from start to end, with room for two streams: each reads
	// the stored bytes about once (a stream being read is not taken from its reader, which
	// would start it again at every read), and they allocate little.
	defer zipfs.SetBudget(2 * zipfs.StateCost)()
	before = c.read.Load()
	var wg sync.WaitGroup
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	allocBefore := ms.TotalAlloc
	for range 4 {
		wg.Go(func() {
			f := readerAt(t, a, "bomb.bin")
			defer f.Close()
			buf := make([]byte, 128<<10)
			for off := int64(0); ; off += int64(len(buf)) {
				n, err := f.ReadAt(buf, off)
				if !bytes.Equal(buf[:n], body[off:off+int64(n)]) {
					t.Errorf("bytes at %d differ", off)
					return
				}
				if err == io.EOF {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	runtime.ReadMemStats(&ms)
	stored := int64(len(data) - 470<<10)
	read, allocated := c.read.Load()-before, ms.TotalAlloc-allocBefore
	t.Logf("4 readers of a 30 MiB member: %d bytes of the archive read (%d stored), %d allocated", read, stored, allocated)
	if read > 5*stored {
		t.Errorf("4 readers read %d bytes of a member of %d stored bytes", read, stored)
	}
	if allocated > 16<<20 {
		t.Errorf("four readers of a 30 MiB member allocated %d bytes", allocated)
	}
}

// A stream whose stored bytes are damaged, or whose checksum is wrong, fails where it goes
// wrong, and every read after; one read whole does too.
func TestZipStreamChecks(t *testing.T) {
	body := bytes.Repeat([]byte("a model's bytes, "), 10000)
	good := ziptest.True("m.mdx", body, 8)
	badCRC := good
	badCRC.Name, badCRC.CRC = "crc.mdx", good.CRC^1
	short := ziptest.True("short.mdx", body[:1000], 8)
	short.Name, short.USize = "short.mdx", uint64(len(body[:1000])+10)
	long := ziptest.True("long.mdx", body, 8)
	long.USize -= 10
	storedCRC := ziptest.True("stored.bin", body, 0)
	storedCRC.CRC ^= 1
	a, _ := openZip(t, ziptest.Zip(good, badCRC, short, long, storedCRC))
	for _, c := range []struct{ name, want string }{
		{"crc.mdx", "checksum"},
		{"short.mdx", "end after"},
		{"long.mdx", "more than"},
		{"stored.bin", "checksum"},
	} {
		_, err := a.ReadFile(c.name)
		var fe *codec.FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) || !strings.Contains(fe.File, "t.zip:"+c.name) {
			t.Errorf("ReadFile(%s) = %v; want a zip error of the member saying %q", c.name, err, c.want)
		}
		f := readerAt(t, a, c.name)
		b, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<40))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s read in order: %d bytes, %v; want an error saying %q", c.name, len(b), err, c.want)
		}
		if _, err2 := f.ReadAt(make([]byte, 10), 0); err2 == nil {
			t.Errorf("%s: a read after the failure succeeded", c.name)
		}
		f.Close()
	}
	if b, err := a.ReadFile("m.mdx"); err != nil || !bytes.Equal(b, body) {
		t.Errorf("the sound member: %d bytes, %v", len(b), err)
	}
}

// Finding 3: 400 members over one stream (a 144 KB zip of 120 MiB) are refused when the
// archive opens, and listing and opening them reads nothing. So are two members of which one
// claims the other's bytes: the archive says two things of them.
func TestZipOverlappingMembers(t *testing.T) {
	ms := ziptest.Overlapping(400, 120<<20)
	data := ziptest.Zip(ms...)
	t.Logf("%d members over one stream of %d bytes, unpacking to 120 MiB: a zip of %d bytes", len(ms), len(ms[0].Data), len(data))
	a, c := openZip(t, data)
	opened := c.read.Load()
	ents, err := a.ReadDir(".")
	if err != nil || len(ents) != 400 {
		t.Fatalf("listing: %d entries, %v", len(ents), err)
	}
	for _, e := range ents {
		fi, _ := e.Info()
		if fi.Size() != 0 {
			t.Errorf("%s: size %d; a refused member is listed at 0", e.Name(), fi.Size())
		}
		_, err := a.Open(e.Name())
		if err == nil || e.Name() != "m000.mdx" && !strings.Contains(err.Error(), "zip bomb") {
			t.Errorf("%s: open gave %v", e.Name(), err)
		}
	}
	if read := c.read.Load() - opened; read != 0 {
		t.Errorf("listing and opening read %d bytes", read)
	}
	if w := fmt.Sprint(a.Warnings()); !strings.Contains(w, "400 member(s) refused") {
		t.Errorf("warnings %s", w)
	}

	// Members that overlap without sharing a header: the first member's bytes run into the
	// second's header.
	first, second := ziptest.True("a.bin", noise(1000), 0), ziptest.True("b.bin", noise(1000), 0)
	data = ziptest.Zip(first, second)
	// Make a's central record claim 500 bytes more, still within the archive.
	cd := bytes.Index(data, []byte("PK\x01\x02"))
	binary.LittleEndian.PutUint32(data[cd+20:], 1500)
	binary.LittleEndian.PutUint32(data[cd+24:], 1500)
	a, _ = openZip(t, data)
	for _, name := range []string{"a.bin", "b.bin"} {
		if _, err := a.Open(name); err == nil || !strings.Contains(err.Error(), "overlap") {
			t.Errorf("%s: open gave %v", name, err)
		}
	}
}

// Finding 6: sizes that lie are refused when the archive opens, listed at size 0, and say
// why when opened; so is a member claiming more than its archive could unpack to.
func TestZipSizesThatLie(t *testing.T) {
	body := noise(100)
	storedLong := ziptest.True("stored-long.bin", body, 0)
	storedLong.CSize, storedLong.USize = 1876, 1876 // its bytes would run into the central directory
	storedBoth := ziptest.True("stored-differ.bin", body, 0)
	storedBoth.USize = 1876
	tera := ziptest.True("tera.mdx", bytes.Repeat([]byte("x"), 1000), 8)
	tera.USize = 1 << 40
	huge64 := ziptest.True("huge64.mdx", []byte("small"), 8)
	huge64.USize, huge64.Zip64 = 1<<63+5, true
	ratio := ziptest.True("ratio.bin", make([]byte, 4<<20), 8) // 4 MiB of zeros in a tiny archive
	local := ziptest.True("local.bin", body, 0)
	local.LocalSizes = &[3]uint64{100, 100, uint64(local.CRC ^ 1)}
	descr := ziptest.True("descr.bin", []byte("described"), 0)
	descr.Flags = 8
	descr.Descriptor = []byte{0x50, 0x4b, 0x07, 0x08, 1, 2, 3, 4, 9, 0, 0, 0, 9, 0, 0, 0} // wrong checksum
	ok := ziptest.True("ok.bin", body, 0)
	a, _ := openZip(t, ziptest.Zip(storedBoth, tera, huge64, ratio, local, descr, ok, storedLong))
	for _, c := range []struct{ name, want string }{
		{"stored-long.bin", "past the central directory"},
		{"stored-differ.bin", "stored as is"},
		{"tera.mdx", "more than the"},
		{"huge64.mdx", "more than the"},
		{"ratio.bin", "may unpack to"},
		{"local.bin", "local header says"},
		{"descr.bin", "data descriptor"},
	} {
		fi, err := a.Stat(c.name)
		if err != nil {
			t.Errorf("stat %s: %v", c.name, err)
			continue
		}
		_, rerr := a.ReadFile(c.name)
		if rerr == nil || !strings.Contains(rerr.Error(), c.want) {
			t.Errorf("%s: ReadFile gave %v; want an error saying %q", c.name, rerr, c.want)
		}
		if strings.HasPrefix(c.name, "local") || strings.HasPrefix(c.name, "descr") {
			continue // found when read: listed at the size the central directory gives
		}
		if fi.Size() != 0 {
			t.Errorf("%s: size %d; a refused member is listed at 0", c.name, fi.Size())
		}
	}
	if b, err := a.ReadFile("ok.bin"); err != nil || !bytes.Equal(b, body) {
		t.Errorf("ok.bin: %v", err)
	}
}

// Finding 7: names as in MPQ. A NUL shows as ␀ and opens by that name; bytes that are not UTF-8
// show as Latin-1 characters, the same in listing and lookup; "." and ".." resolve inside the
// archive; any case finds a member.
func TestZipNames(t *testing.T) {
	a, _ := openZip(t, ziptest.Zip(
		ziptest.True("a\x00b.mdx", []byte("nul"), 0),
		ziptest.True("bad\xff\xfe.mdx", []byte("latin"), 0),
		ziptest.True("x/./y/../z.mdx", []byte("dots"), 0),
		ziptest.True("dot.mdx", []byte("case"), 8),
		ziptest.True("../evil.mdx", []byte("evil"), 0),
		ziptest.True(`Units\Footman.MDX`, []byte("back"), 0),
	))
	ents, err := a.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	want := []string{"Units", "a\u2400b.mdx", "bad\u00ff\u00fe.mdx", "dot.mdx", "x"}
	if fmt.Sprint(names) != fmt.Sprint(want) {
		t.Errorf("listing %q; want %q", names, want)
	}
	for name, body := range map[string]string{
		"a\u2400b.mdx":        "nul",
		"A\u2400B.MDX":        "nul",
		"bad\u00ff\u00fe.mdx": "latin",
		"BAD\u0178\u00de.MDX": "latin", // ÿ and þ in upper case
		"x/z.mdx":             "dots",
		"DOT.MDX":             "case",
		"units/footman.mdx":   "back",
	} {
		b, err := a.ReadFile(name)
		if err != nil || string(b) != body {
			t.Errorf("ReadFile(%q) = %q, %v; want %q", name, b, err, body)
		}
		if _, err := a.Stat(name); err != nil {
			t.Errorf("Stat(%q): %v", name, err)
		}
	}
	if got, ok := a.FindFold("UNITS/FOOTMAN.mdx"); !ok || got != "Units/Footman.MDX" {
		t.Errorf("FindFold = %q, %v", got, ok)
	}
	if _, err := a.Stat("evil.mdx"); err == nil {
		t.Error("a name climbing out of the archive is shown")
	}
	if w := fmt.Sprint(a.Warnings()); !strings.Contains(w, "../evil.mdx") {
		t.Errorf("no warning names the member left out: %s", w)
	}
}

// Finding 8: a million members cost memory in proportion to their names, and two members with
// names of 64 KiB, deep and in upper case, cost little more than their bytes.
func TestZipManyMembers(t *testing.T) {
	const n = 200000
	ms := make([]ziptest.Member, 0, n)
	for i := range n {
		ms = append(ms, ziptest.Member{Name: fmt.Sprintf("Units/M%07d.mdx", i), CRC: crc32.ChecksumIEEE(nil)})
	}
	data := ziptest.Zip(ms...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	a, _ := openZip(t, data)
	ents, err := a.ReadDir("Units")
	runtime.GC()
	runtime.ReadMemStats(&after)
	if err != nil || len(ents) != n {
		t.Fatalf("%d entries, %v", len(ents), err)
	}
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d members: %d bytes held after opening and listing (%d per member), %d allocated", n, held, held/n, after.TotalAlloc-before.TotalAlloc)
	if held/n > 200 {
		t.Errorf("%d bytes held per member", held/n)
	}
	runtime.KeepAlive(a)

	deep := strings.Repeat("A/", 32768)[:65535]
	deep2 := strings.Repeat("B/", 32768)[:65534] + "C"
	runtime.ReadMemStats(&before)
	a, _ = openZip(t, ziptest.Zip(ziptest.True(deep, []byte("x"), 0), ziptest.True(deep2, []byte("y"), 0)))
	a.ReadDir(".")
	if b, err := a.ReadFile(strings.ToLower(deep2)); err != nil || string(b) != "y" {
		t.Errorf("the deep member: %q, %v", b, err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("two names of 64 KiB: %d bytes allocated", got)
	}
}

// TestWriteAttackZips writes the zips of the third trust pass's attacks into
// $MODELFS_ATTACK_ZIPS, for scripts/bench-zip: bomb.zip (500 KB: 512 MiB of zeros in one
// member, refused as more than the archive may unpack to), stream.zip (500 KB: a 30 MiB member
// of zeros within that bound, and a member that does not compress) and overlap.zip (400 members
// over one stream of 120 MiB, 144 KB).
func TestWriteAttackZips(t *testing.T) {
	dir := os.Getenv("MODELFS_ATTACK_ZIPS")
	if dir == "" {
		t.Skip("MODELFS_ATTACK_ZIPS not set (used by scripts/bench-zip)")
	}
	s, _ := bomb(t)
	for name, data := range map[string][]byte{
		"bomb.zip":    ziptest.Zip(ziptest.True("bomb.bin", make([]byte, 512<<20), 8)),
		"stream.zip":  s,
		"overlap.zip": ziptest.Zip(ziptest.Overlapping(400, 120<<20)...),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// More readers than the budget holds streams for do not take one another's streams in the
// middle of a member (each would start again at every read, inflating the member over and
// over): the budget takes back only streams idle for a while, and is passed meanwhile.
func TestZipStreamsDoNotThrash(t *testing.T) {
	body := noise(8 << 20)
	a, c := openZip(t, ziptest.Zip(ziptest.True("noise.bin", body, 8)))
	defer zipfs.SetBudget(2 * zipfs.StateCost)()
	var readers []io.ReaderAt
	for range 3 {
		f := readerAt(t, a, "noise.bin")
		defer f.Close()
		readers = append(readers, f)
	}
	before := c.read.Load()
	buf := make([]byte, 128<<10)
	for off := int64(0); off < int64(len(body)); off += int64(len(buf)) {
		for i, f := range readers { // in turn: each read finds its stream the least recent
			n, err := f.ReadAt(buf, off)
			if err != nil && err != io.EOF || !bytes.Equal(buf[:n], body[off:off+int64(n)]) {
				t.Fatalf("reader %d at %d: %d bytes, %v", i, off, n, err)
			}
		}
	}
	read := c.read.Load() - before
	t.Logf("3 readers in turn of an 8 MiB member with room for 2 streams: %d MiB of the archive read", read>>20)
	if read > 4*int64(len(body)) {
		t.Errorf("3 readers read %d MiB of an 8 MiB member", read>>20)
	}
}

// Edges an independent review found: a member refused for its method or encryption whose size
// claims the archive does not refuse the members after it; a deflated member claiming no
// bytes is checked when read as a stream too; a member read after Close fails; an archive
// keeps a bounded number of warnings; naming an overlapping member's partner costs nothing
// per open (400,000 opens of a 200,000-member bomb); a zip64 archive with data prepended
// opens.
func TestZipReviewEdges(t *testing.T) {
	t.Run("refused member with a size that lies", func(t *testing.T) {
		enc := ziptest.True("enc.bin", []byte("secret"), 0)
		enc.Flags, enc.CSize, enc.USize = 1, 1<<40, 1<<40
		good := ziptest.True("good.txt", []byte("good"), 0)
		a, _ := openZip(t, ziptest.Zip(enc, good))
		if b, err := a.ReadFile("good.txt"); err != nil || string(b) != "good" {
			t.Errorf("the member after it: %q, %v", b, err)
		}
	})
	t.Run("no bytes claimed", func(t *testing.T) {
		m := ziptest.True("zero.bin", []byte("some bytes, not none"), 8)
		m.USize, m.CRC = 0, 0
		a, _ := openZip(t, ziptest.Zip(m))
		f := readerAt(t, a, "zero.bin")
		defer f.Close()
		if n, err := f.ReadAt(make([]byte, 10), 0); err == nil || err == io.EOF {
			t.Errorf("a member claiming no bytes with stored bytes that make some read %d, %v", n, err)
		}
	})
	t.Run("read after close", func(t *testing.T) {
		a, _ := openZip(t, ziptest.Zip(ziptest.True("a.txt", bytes.Repeat([]byte("abc"), 1000), 8)))
		f := readerAt(t, a, "a.txt")
		f.Close()
		if _, err := f.ReadAt(make([]byte, 10), 0); !errors.Is(err, fs.ErrClosed) {
			t.Errorf("a read after Close: %v", err)
		}
		if got := archive.Charged(); got != 0 {
			t.Errorf("%d bytes charged after a read after Close", got)
		}
	})
	t.Run("warnings bounded", func(t *testing.T) {
		var ms []ziptest.Member
		for i := range 5000 {
			ms = append(ms, ziptest.True(fmt.Sprintf("../out%d.txt", i), nil, 0))
		}
		a, _ := openZip(t, ziptest.Zip(ms...))
		w := a.Warnings()
		if len(w) > 101 || !strings.Contains(w[len(w)-1].Error(), "4900 more") {
			t.Errorf("%d warnings, the last %v", len(w), w[len(w)-1])
		}
	})
	t.Run("overlap partners named at no cost", func(t *testing.T) {
		ms := ziptest.Overlapping(200000, 1)
		ms[0], ms[len(ms)-1] = ms[len(ms)-1], ms[0] // the stream's owner last in the directory
		ms[0].At = len(ms)
		for i := 1; i < len(ms)-1; i++ {
			ms[i].At = len(ms)
		}
		ms[len(ms)-1].At = 0
		a, _ := openZip(t, ziptest.Zip(ms...))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range 200000 {
			if _, err := a.Open(fmt.Sprintf("m%03d.mdx", i)); err == nil {
				t.Fatalf("m%03d.mdx opened", i)
			}
		}
		runtime.ReadMemStats(&after)
		if per := (after.Mallocs - before.Mallocs) / 200000; per > 64 {
			t.Errorf("%d allocations an open", per)
		}
	})
	t.Run("zip64 with data prepended", func(t *testing.T) {
		m := ziptest.True("a.txt", []byte("sixty-four"), 0)
		m.Zip64 = true
		data := ziptest.Zip64(m)
		for _, z := range [][]byte{data, append([]byte("#!/bin/sh\nexit 0\n"), data...)} {
			a, _ := openZip(t, z)
			if b, err := a.ReadFile("a.txt"); err != nil || string(b) != "sixty-four" {
				t.Errorf("a zip64 archive of %d bytes: %q, %v", len(z), b, err)
			}
		}
	})
}
