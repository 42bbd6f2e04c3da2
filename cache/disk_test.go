package cache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// TestMain doubles as the writer that TestKilledWriter kills.
func TestMain(m *testing.M) {
	if dir := os.Getenv("MODELFS_CACHE_TEST_WRITER"); dir != "" {
		writeForever(dir)
	}
	os.Exit(m.Run())
}

// testKey is the key of entry i; testParts its parts, which depend on nothing else, so that
// whatever survives can be checked.
func testKey(i int) Key { return sha256.Sum256([]byte("entry " + strconv.Itoa(i))) }

func testParts(i int) []Part {
	rng := rand.New(rand.NewPCG(uint64(i), 2))
	var parts []Part
	for _, name := range []string{"gltf", "glb", "json"} {
		b := make([]byte, 1000+rng.IntN(60000))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		parts = append(parts, Part{name, b})
	}
	return parts
}

func testMeta(i int) []byte { return []byte("meta of " + strconv.Itoa(i)) }

// writeForever writes entries and journal records into dir until it is killed.
func writeForever(dir string) {
	d, err := OpenDisk(DiskOptions{Dir: dir, MaxBytes: 8 << 20})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	j, _, err := readJournal(d, "test", nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println("ready")
	for i := 0; ; i = (i + 1) % 500 {
		d.Put(testKey(i), testMeta(i), testParts(i))
		j.Append(bytes.Repeat([]byte{byte(i)}, 100+i))
	}
}

// readJournal opens the journal name of d and returns its records.
func readJournal(d *Disk, name string, head []byte) (*Journal, [][]byte, error) {
	var recs [][]byte
	j, _, err := d.OpenJournal(name, head, 1<<30, func(rec []byte) { recs = append(recs, bytes.Clone(rec)) })
	return j, recs, err
}

// entryPath is where the entry of k is.
func entryPath(d *Disk, k Key) string {
	return filepath.Join(d.Dir(), "data", k.String()[:2], k.String())
}

func openT(t *testing.T, dir string, max int64) *Disk {
	t.Helper()
	d, err := OpenDisk(DiskOptions{Dir: dir, MaxBytes: max})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// checkEntry reads entry i back, if present, and fails unless it is exactly what was put.
func checkEntry(t *testing.T, d *Disk, i int) bool {
	t.Helper()
	e, err := d.Get(testKey(i))
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		t.Fatalf("entry %d: %v", i, err)
	}
	defer e.Close()
	if !bytes.Equal(e.Meta, testMeta(i)) {
		t.Fatalf("entry %d: meta %q", i, e.Meta)
	}
	for _, p := range testParts(i) {
		if n, ok := e.Size(p.Name); !ok || n != int64(len(p.Data)) {
			t.Fatalf("entry %d: %s has size %d, %v", i, p.Name, n, ok)
		}
		got, err := e.Read(p.Name)
		if err != nil || !bytes.Equal(got, p.Data) {
			t.Fatalf("entry %d: %s: %v", i, p.Name, err)
		}
	}
	return true
}

func TestDiskRoundTrip(t *testing.T) {
	dir := t.TempDir()
	d := openT(t, dir, 64<<20)
	for i := range 10 {
		if err := d.Put(testKey(i), testMeta(i), testParts(i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		if !checkEntry(t, d, i) {
			t.Fatalf("entry %d missing", i)
		}
	}
	if _, err := d.Get(testKey(99)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent key: %v", err)
	}
	e, _ := d.Get(testKey(0))
	if _, err := e.Read("obj"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent part: %v", err)
	}
	if names := fmt.Sprint(e.Names()); names != "[gltf glb json]" {
		t.Errorf("names %s", names)
	}
	e.Close()
	// Replacing an entry keeps one copy.
	if err := d.Put(testKey(0), testMeta(0), testParts(0)); err != nil {
		t.Fatal(err)
	}
	st := d.Stats()
	if st.Entries != 10 || st.Writes != 11 || st.Hits != 11 || st.Misses != 1 {
		t.Errorf("stats %+v", st)
	}
	// Another Disk on the directory (a remount, another process) finds everything.
	d2 := openT(t, dir, 64<<20)
	for i := range 10 {
		if !checkEntry(t, d2, i) {
			t.Fatalf("after reopening, entry %d missing", i)
		}
	}
	if got := d2.Stats(); got.Entries != 10 || got.Bytes != st.Bytes {
		t.Errorf("reopened: %d entries, %d bytes; want 10, %d", got.Entries, got.Bytes, st.Bytes)
	}
}

// Every way an entry file can be damaged is caught on read, and the entry removed.
func TestDiskDamage(t *testing.T) {
	dir := t.TempDir()
	d := openT(t, dir, 64<<20)
	damages := map[string]func([]byte) []byte{
		"empty":             func(b []byte) []byte { return nil },
		"preamble only":     func(b []byte) []byte { return b[:preamble] },
		"cut in a part":     func(b []byte) []byte { return b[:preamble+10] },
		"cut in the header": func(b []byte) []byte { return b[:len(b)-trailer-3] },
		"cut in the last":   func(b []byte) []byte { return b[:len(b)-1000] },
		"one byte longer":   func(b []byte) []byte { return append(b, 0) },
		"bad magic":         func(b []byte) []byte { b[0] = 'X'; return b },
		"other layout":      func(b []byte) []byte { b[4] = 9; return b },
		"no end mark":       func(b []byte) []byte { b[len(b)-1] = 'X'; return b },
		"header bit":        func(b []byte) []byte { b[len(b)-trailer-5] ^= 1; return b },
		"header length":     func(b []byte) []byte { b[len(b)-trailer+2] = 0x7f; return b },
		"header checksum":   func(b []byte) []byte { b[len(b)-trailer+4] ^= 1; return b },
		"part bit":          func(b []byte) []byte { b[preamble+40] ^= 0x80; return b },
		"last part bit":     func(b []byte) []byte { b[len(b)-trailer-200] ^= 0x80; return b },
	}
	i := 0
	for name, damage := range damages {
		i++
		if err := d.Put(testKey(i), testMeta(i), testParts(i)); err != nil {
			t.Fatal(err)
		}
		p := entryPath(d, testKey(i))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, damage(b), 0o644); err != nil {
			t.Fatal(err)
		}
		e, err := d.Get(testKey(i))
		if err == nil {
			_, err = e.Read("gltf")
			if err == nil {
				_, err = e.Read("json")
			}
			e.Close()
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v; want ErrCorrupt", name, err)
		}
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: the damaged entry was not removed", name)
		}
	}
	// A file under another key's name is refused too.
	if err := d.Put(testKey(100), testMeta(100), testParts(100)); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(entryPath(d, testKey(101))), 0o755)
	os.Rename(entryPath(d, testKey(100)), entryPath(d, testKey(101)))
	if _, err := d.Get(testKey(101)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("misnamed entry: %v", err)
	}
	if st := d.Stats(); st.Corrupt != int64(len(damages)+1) {
		t.Errorf("%d damaged entries counted; want %d", st.Corrupt, len(damages)+1)
	}
}

// The budget holds: entries are evicted least recently used first, and one read moves an entry
// to the front.
func TestDiskBudget(t *testing.T) {
	dir := t.TempDir()
	const max = 4 << 20
	d := openT(t, dir, max)
	for i := range 200 {
		if i > 0 {
			checkEntry(t, d, 0) // entry 0 stays in use
		}
		if err := d.Put(testKey(i), testMeta(i), testParts(i)); err != nil {
			t.Fatal(err)
		}
		if u := du(t, dir); u > max {
			t.Fatalf("after %d entries the directory holds %d bytes, over the %d budget", i+1, u, max)
		}
	}
	st := d.Stats()
	if st.Evictions == 0 || st.Entries >= 200 {
		t.Fatalf("stats %+v: want evictions", st)
	}
	if !checkEntry(t, d, 0) {
		t.Error("the entry in use was evicted")
	}
	if checkEntry(t, d, 1) {
		t.Error("the oldest unused entry survived")
	}
	if u := du(t, dir); u > st.Bytes+blockSize || st.Bytes > u+blockSize*int64(st.Entries) {
		t.Errorf("charged %d bytes; du says %d", st.Bytes, u)
	}
	// A smaller budget at the next open evicts down to it.
	d2 := openT(t, dir, MinDiskBytes)
	if u := du(t, dir); u > MinDiskBytes {
		t.Errorf("reopened with %d bytes of budget, the directory holds %d", MinDiskBytes, u)
	}
	if d2.Stats().Bytes > MinDiskBytes {
		t.Errorf("charged %d", d2.Stats().Bytes)
	}
	// An entry larger than half the budget is not stored.
	if err := d2.Put(testKey(1000), nil, []Part{{"big", make([]byte, 3<<20)}}); !errors.Is(err, ErrEntryTooLarge) {
		t.Fatalf("an oversized entry: %v; want ErrEntryTooLarge", err)
	}
	if _, err := d2.Get(testKey(1000)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an oversized entry: %v", err)
	}
}

// du returns the bytes the files and directories under dir take on disk, as du(1) counts them.
func du(t *testing.T, dir string) int64 {
	t.Helper()
	out, err := exec.Command("du", "-s", "-B1", dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	fmt.Sscan(string(out), &n)
	return n
}

func TestDiskRefusesOtherDirectories(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "thesis.tex"), []byte("mine"), 0o644)
	if _, err := OpenDisk(DiskOptions{Dir: dir}); !errors.Is(err, ErrNotCacheDir) {
		t.Fatalf("a folder of other files: %v", err)
	}
	if _, err := OpenDisk(DiskOptions{Dir: t.TempDir(), MaxBytes: 1000}); err == nil {
		t.Fatal("a budget below the minimum was accepted")
	}
	empty := filepath.Join(t.TempDir(), "new", "cache")
	d := openT(t, empty, 0)
	if st := d.Stats(); st.Max != DefaultDiskBytes {
		t.Errorf("default budget %d", st.Max)
	}
	for _, f := range []string{"CACHEDIR.TAG", markerName, "state/" + lockName, "state/" + secretName} {
		if _, err := os.Stat(filepath.Join(empty, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestDiskClearAndTmp(t *testing.T) {
	dir := t.TempDir()
	d := openT(t, dir, 64<<20)
	d.Put(testKey(1), nil, testParts(1))
	j, _, _ := readJournal(d, "x", nil)
	j.Append([]byte("rec"))
	j.Close()
	d.WriteState("last", []byte("state"))
	stale := filepath.Join(dir, "tmp", ".left-by-a-killed-writer")
	old := filepath.Join(dir, "tmp", ".old")
	fresh := filepath.Join(dir, "tmp", ".being-written")
	os.WriteFile(stale, []byte("x"), 0o644)
	os.WriteFile(old, []byte("x"), 0o644)
	long := time.Now().Add(-time.Hour)
	os.Chtimes(old, long, long)
	while := time.Now().Add(-time.Minute) // older than a writer takes to lock its file
	os.Chtimes(stale, while, while)
	young := filepath.Join(dir, "tmp", ".just-made")
	os.WriteFile(young, []byte("x"), 0o644) // not locked yet by its writer
	f, err := os.Create(fresh)
	if err != nil {
		t.Fatal(err)
	}
	holdWhileWriting(f) // a live writer's
	openT(t, dir, 64<<20)
	f.Close()
	if _, err := os.Stat(old); !errors.Is(err, fs.ErrNotExist) {
		t.Error("an old temporary file was kept")
	}
	if _, err := os.Stat(stale); runtime.GOOS == "linux" && !errors.Is(err, fs.ErrNotExist) {
		t.Error("a temporary file no writer holds was kept")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a live writer's temporary file was removed")
	}
	if _, err := os.Stat(young); err != nil {
		t.Error("a temporary file just made (not locked yet) was removed")
	}
	if err := d.Clear(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Get(testKey(1)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Clear: %v", err)
	}
	if _, err := d.ReadState("last"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("state after Clear: %v", err)
	}
	if st := d.Stats(); st.Entries != 0 {
		t.Errorf("after Clear: %+v", st)
	}
}

// A write that fails pauses writing, so that a full disk costs one error, not one per model.
func TestDiskPausesAfterAFailedWrite(t *testing.T) {
	dir := t.TempDir()
	d := openT(t, dir, 64<<20)
	k := testKey(1)
	os.MkdirAll(filepath.Join(entryPath(d, k), "in the way"), 0o700) // the rename into place fails
	if err := d.Put(k, nil, testParts(1)); err == nil || errors.Is(err, ErrPaused) {
		t.Fatalf("first failing write: %v", err)
	}
	if err := d.Put(testKey(2), nil, testParts(2)); !errors.Is(err, ErrPaused) {
		t.Fatalf("next write: %v; want ErrPaused", err)
	}
	if st := d.Stats(); st.Bytes != d.fixed {
		t.Errorf("failed writes left %d bytes charged (fixed %d)", st.Bytes, d.fixed)
	}
}

func TestLockExcludes(t *testing.T) {
	dir := t.TempDir()
	a, b, c := openT(t, dir, 0), openT(t, dir, 0), openT(t, dir, 0)
	k := testKey(1)
	unlock, err := a.Lock(context.Background(), k)
	if err != nil {
		t.Fatal(err)
	}
	if u, err := b.Lock(context.Background(), testKey(2)); err != nil {
		t.Fatalf("another key: %v", err)
	} else {
		u()
	}
	got := make(chan error, 1)
	go func() {
		u, err := c.Lock(context.Background(), k)
		if err == nil {
			u()
		}
		got <- err
	}()
	time.Sleep(20 * time.Millisecond)
	unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the lock was not handed over")
	}
}

func TestJournal(t *testing.T) {
	dir := t.TempDir()
	d := openT(t, dir, 0)
	j, recs, err := readJournal(d, "root-1", nil)
	if err != nil || len(recs) != 0 {
		t.Fatalf("new journal: %d records, %v", len(recs), err)
	}
	for i := range 5 {
		if err := j.Append([]byte(fmt.Sprintf("record %d", i))); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	p := filepath.Join(dir, "index", "root-1")
	b, _ := os.ReadFile(p)
	// Damage the second record, and cut the last one short.
	b[recordHead+len("record 0")+recordHead+2] ^= 1
	os.WriteFile(p, b[:len(b)-3], 0o644)
	j, recs, err = readJournal(d, "root-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%q", recs); got != `["record 0" "record 2" "record 3"]` {
		t.Errorf("records %s", got)
	}
	j.Append([]byte("after the damage"))
	if err := j.Rewrite([][]byte{[]byte("compacted")}); err != nil {
		t.Fatal(err)
	}
	j.Append([]byte("appended"))
	j.Close()
	_, recs, _ = readJournal(d, "root-1", nil)
	if got := fmt.Sprintf("%q", recs); got != `["compacted" "appended"]` {
		t.Errorf("after Rewrite: %s", got)
	}
	if _, _, err := readJournal(d, "../escape", nil); err == nil {
		t.Error("a journal name with a path was accepted")
	}
}

// A writer killed at twenty random moments never leaves an entry that reads wrong: every entry
// present is exactly what was put, the journal's sound records are whole, and the directory
// stays usable.
func TestKilledWriter(t *testing.T) {
	defer func(d time.Duration) { tmpMinAge = d }(tmpMinAge)
	tmpMinAge = 0 // the writers are dead by the time the directory is opened again
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 1))
	for round := range 20 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "MODELFS_CACHE_TEST_WRITER="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 6)
		if _, err := out.Read(buf); err != nil {
			t.Fatalf("round %d: the writer did not start: %v", round, err)
		}
		time.Sleep(time.Duration(5+rng.IntN(60)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
	}
	killed, _ := os.ReadDir(filepath.Join(dir, "tmp"))
	d := openT(t, dir, 8<<20)
	if left, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(left) != 0 && runtime.GOOS == "linux" {
		t.Errorf("%d temporary files of killed writers left after reopening", len(left))
	}
	if u := du(t, dir); u > 8<<20 {
		t.Errorf("after the kills and a reopen, the directory holds %d bytes, over its budget", u)
	}
	found := 0
	for i := range 500 {
		if checkEntry(t, d, i) {
			found++
		}
	}
	_, recs, err := readJournal(d, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if len(r) < 100 || !bytes.Equal(r, bytes.Repeat(r[:1], len(r))) || len(r) != 100+int(r[0]) && len(r) != 100+int(r[0])+256 {
			t.Fatalf("a journal record of %d bytes is not one that was written", len(r))
		}
	}
	if found == 0 || len(recs) == 0 {
		t.Fatalf("%d entries and %d records survived twenty kills; the writer wrote nothing?", found, len(recs))
	}
	if st := d.Stats(); st.Corrupt != 0 {
		t.Errorf("%d damaged entries found after kills (writes are atomic: want none)", st.Corrupt)
	}
	t.Logf("%d entries and %d journal records after 20 kills; %d writes cut short", found, len(recs), len(killed))
	if err := d.Put(testKey(1000), testMeta(1000), testParts(1000)); err != nil || !checkEntry(t, d, 1000) {
		t.Fatalf("the directory is not usable after the kills: %v", err)
	}
}

// Another process clearing the directory under a Disk does not stop it writing.
func TestDiskWritesAfterAnotherClears(t *testing.T) {
	dir := t.TempDir()
	a, b := openT(t, dir, 64<<20), openT(t, dir, 64<<20)
	if err := a.Put(testKey(1), testMeta(1), testParts(1)); err != nil {
		t.Fatal(err)
	}
	if err := b.Clear(); err != nil {
		t.Fatal(err)
	}
	i := 2 // an entry in the same subdirectory as the first, which a knows of
	for testKey(i).String()[:2] != testKey(1).String()[:2] {
		i++
	}
	if err := a.Put(testKey(i), testMeta(i), testParts(i)); err != nil {
		t.Fatalf("a write after another Disk cleared the directory: %v", err)
	}
	if !checkEntry(t, a, i) {
		t.Fatal("the entry written after the clear is missing")
	}
}

// A budget given once is the directory's: a process that names none keeps to it, instead of
// trimming what another filled to its own default.
func TestDiskRemembersItsBudget(t *testing.T) {
	dir := t.TempDir()
	openT(t, dir, 8<<20)
	if got := openT(t, dir, 0).Stats().Max; got != 8<<20 {
		t.Errorf("a Disk naming no budget has %d; want the directory's 8 MiB", got)
	}
	openT(t, dir, 16<<20)
	if got := openT(t, dir, 0).Stats().Max; got != 16<<20 {
		t.Errorf("after a new budget: %d; want 16 MiB", got)
	}
	if got := openT(t, t.TempDir(), 0).Stats().Max; got != DefaultDiskBytes {
		t.Errorf("a new directory: %d; want the default", got)
	}
}

// A journal another process rewrote or cleared is followed: appends go to the file in its
// place, a journal made anew starting with its head.
func TestJournalFollowsReplacement(t *testing.T) {
	dir := t.TempDir()
	a, b := openT(t, dir, 0), openT(t, dir, 0)
	ja, recs, err := readJournal(a, "tree", []byte("head"))
	if err != nil || fmt.Sprintf("%q", recs) != `["head"]` {
		t.Fatalf("new journal: %q, %v", recs, err)
	}
	ja.Append([]byte("a1"))
	jb, _, _ := readJournal(b, "tree", []byte("head"))
	if err := jb.Rewrite([][]byte{[]byte("head"), []byte("a1")}); err != nil { // compaction
		t.Fatal(err)
	}
	ja.Append([]byte("a2"))
	if err := b.Clear(); err != nil {
		t.Fatal(err)
	}
	ja.Append([]byte("a3"))
	ja.Close()
	jb.Close()
	_, recs, _ = readJournal(openT(t, dir, 0), "tree", []byte("head"))
	if got := fmt.Sprintf("%q", recs); got != `["head" "a3"]` {
		t.Errorf("after a rewrite and a clear by another: %s; want the head and a3", got)
	}
}

// A writer that is given parts one at a time can take them back when the entry cannot be kept.
func TestWriterRecover(t *testing.T) {
	d := openT(t, t.TempDir(), MinDiskBytes)
	w, err := d.Create(testKey(1))
	if err != nil {
		t.Fatal(err)
	}
	parts := testParts(1)
	for _, p := range parts {
		if err := w.Part(p.Name, p.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Part("huge", make([]byte, MinDiskBytes)); !errors.Is(err, ErrEntryTooLarge) {
		t.Fatalf("a part past half the budget: %v", err)
	}
	got := w.Recover()
	for _, p := range parts {
		if !bytes.Equal(got[p.Name], p.Data) {
			t.Errorf("part %s not recovered", p.Name)
		}
	}
	if _, err := d.Get(testKey(1)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a recovered entry was kept: %v", err)
	}
	if st := d.Stats(); st.Bytes != d.fixed || d.reserved != 0 {
		t.Errorf("after recovering: %d bytes charged (fixed %d), %d reserved", st.Bytes, d.fixed, d.reserved)
	}
	if left, _ := os.ReadDir(filepath.Join(d.Dir(), "tmp")); len(left) != 0 {
		t.Errorf("%d temporary files left", len(left))
	}
}
