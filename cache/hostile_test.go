//go:build linux

package cache

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// nobody is the user the tests give files to, as another user sharing the directory would
// make them.
const nobody = 65534

// outside makes a folder beside the cache directory with a file in it, and returns a check
// that the folder still holds exactly that file, unchanged.
func outside(t *testing.T) (dir string, unchanged func()) {
	t.Helper()
	dir = t.TempDir()
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("root's own\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour) // older than any temporary file the cache keeps
	os.Chtimes(secret, old, old)
	return dir, func() {
		t.Helper()
		ents, _ := os.ReadDir(dir)
		b, err := os.ReadFile(secret)
		if len(ents) != 1 || err != nil || string(b) != "root's own\n" {
			t.Errorf("the folder outside the cache changed: %d names, %q, %v", len(ents), b, err)
		}
	}
}

// refusals collects what a Disk reports refusing.
type refusals struct{ errs []error }

func (r *refusals) add(err error) { r.errs = append(r.errs, err) }

func openHostile(t *testing.T, dir string, r *refusals) (*Disk, error) {
	t.Helper()
	d, err := OpenDisk(DiskOptions{Dir: dir, MaxBytes: 64 << 20, OnRefuse: r.add})
	if err == nil {
		t.Cleanup(func() { d.Close() })
	}
	return d, err
}

// TestHostileCacheDir plays someone who may write the cache directory against a Disk: each
// attack costs at most the cache (a refusal, reported once), never a read, write or removal
// outside the directory, a hang, or bytes the Disk did not write.
func TestHostileCacheDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make files of another user")
	}
	fresh := func(t *testing.T) string {
		dir := t.TempDir()
		d := openT(t, dir, 64<<20)
		if err := d.Put(testKey(1), testMeta(1), testParts(1)); err != nil {
			t.Fatal(err)
		}
		d.Close()
		return dir
	}
	t.Run("tmp is a symlink", func(t *testing.T) {
		dir := fresh(t)
		out, unchanged := outside(t)
		os.RemoveAll(filepath.Join(dir, "tmp"))
		os.Symlink(out, filepath.Join(dir, "tmp"))
		defer func(d time.Duration) { tmpMinAge = d }(tmpMinAge)
		tmpMinAge = 0
		var r refusals
		if _, err := openHostile(t, dir, &r); !errors.Is(err, ErrUntrusted) {
			t.Errorf("OpenDisk: %v, want ErrUntrusted", err)
		}
		unchanged()
	})
	t.Run("journal and shard are symlinks", func(t *testing.T) {
		dir := fresh(t)
		out, unchanged := outside(t)
		os.Symlink(filepath.Join(out, "secret"), filepath.Join(dir, "index", "tree-1"))
		os.Symlink(filepath.Join(out, "new"), filepath.Join(dir, "index", "tree-2"))
		k := testKey(2)
		os.Symlink(out, filepath.Join(dir, "data", k.String()[:2]))
		var r refusals
		d, err := openHostile(t, dir, &r)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"tree-1", "tree-2"} {
			if _, _, err := d.OpenJournal(name, []byte("head"), 1<<20, func([]byte) {}); !errors.Is(err, ErrUntrusted) {
				t.Errorf("journal %s through a symlink: %v, want ErrUntrusted", name, err)
			}
		}
		if err := d.Put(k, nil, testParts(2)); !errors.Is(err, ErrUntrusted) {
			t.Errorf("an entry in a symlinked shard: %v, want ErrUntrusted", err)
		}
		if err := d.Put(testKey(3), nil, testParts(3)); err != nil {
			t.Errorf("a refusal paused the writes to the rest: %v", err)
		}
		unchanged()
		if len(r.errs) == 0 {
			t.Error("nothing was reported refused")
		}
	})
	t.Run("crafted entry", func(t *testing.T) {
		// An entry under a real key, made whole by a cache with another secret: what anyone
		// can do who may write the folder and knows the layout.
		dir := fresh(t)
		other := openT(t, t.TempDir(), 64<<20)
		k := testKey(1)
		bad := []Part{{"gltf", []byte("crafted")}}
		if err := other.Put(k, testMeta(1), bad); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(entryPath(other, k))
		var r refusals
		d, err := openHostile(t, dir, &r)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(entryPath(d, k), b, 0o600)
		if e, err := d.Get(k); !errors.Is(err, ErrCorrupt) {
			if err == nil {
				got, _ := e.Read("gltf")
				e.Close()
				t.Fatalf("a crafted entry was taken: %q", got)
			}
			t.Fatalf("a crafted entry: %v, want ErrCorrupt", err)
		}
		if _, err := os.Lstat(entryPath(d, k)); !errors.Is(err, fs.ErrNotExist) {
			t.Error("the crafted entry was left in place")
		}
	})
	t.Run("files of another user, hard links, FIFOs", func(t *testing.T) {
		dir := fresh(t)
		out, unchanged := outside(t)
		k1, k2, k3 := testKey(1), testKey(5), testKey(6)
		os.Chown(entryPath(&Disk{dir: dir}, k1), nobody, nobody)
		os.MkdirAll(filepath.Dir(entryPath(&Disk{dir: dir}, k2)), 0o700)
		os.MkdirAll(filepath.Dir(entryPath(&Disk{dir: dir}, k3)), 0o700)
		if err := os.Link(filepath.Join(out, "secret"), entryPath(&Disk{dir: dir}, k2)); err != nil {
			t.Fatal(err)
		}
		syscall.Mkfifo(entryPath(&Disk{dir: dir}, k3), 0o600)
		syscall.Mkfifo(filepath.Join(dir, "index", "tree-fifo"), 0o600)
		syscall.Mkfifo(filepath.Join(dir, "state", budgetState), 0o600)
		var r refusals
		d, err := openHostile(t, dir, &r)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			for _, k := range []Key{k1, k2, k3} {
				if _, err := d.Get(k); !errors.Is(err, ErrUntrusted) {
					t.Errorf("entry %s: %v, want ErrUntrusted", k.String()[:8], err)
				}
			}
			if _, _, err := d.OpenJournal("tree-fifo", nil, 1<<20, func([]byte) {}); !errors.Is(err, ErrUntrusted) {
				t.Errorf("a FIFO journal: %v, want ErrUntrusted", err)
			}
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatal("a FIFO in the cache directory blocked")
		}
		if d.Stats().Max != 64<<20 {
			t.Errorf("budget %d", d.Stats().Max)
		}
		if st := d.Stats(); st.Entries != 0 || st.Refused == 0 {
			t.Errorf("stats %+v: want no entry taken and the refusals counted", st)
		}
		d.Clear()
		unchanged()
		if b, _ := os.ReadFile(filepath.Join(out, "secret")); !bytes.Equal(b, []byte("root's own\n")) {
			t.Error("the hard-linked file changed")
		}
	})
	t.Run("folders of another user", func(t *testing.T) {
		dir := fresh(t)
		os.Chown(filepath.Join(dir, "data"), nobody, nobody)
		var r refusals
		if _, err := openHostile(t, dir, &r); !errors.Is(err, ErrUntrusted) {
			t.Errorf("a data folder of another user: %v, want ErrUntrusted", err)
		}
	})
	t.Run("huge journal", func(t *testing.T) {
		dir := fresh(t)
		var r refusals
		d, err := openHostile(t, dir, &r)
		if err != nil {
			t.Fatal(err)
		}
		j, _, err := d.OpenJournal("tree", []byte("head"), 1<<20, func([]byte) {})
		if err != nil {
			t.Fatal(err)
		}
		j.Append([]byte("a record"))
		j.Close()
		f, err := os.OpenFile(filepath.Join(dir, "index", "tree"), os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Truncate(8 << 30) // sparse
		f.Close()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		n := 0
		_, got, err := d.OpenJournal("tree", []byte("head"), 16<<20, func([]byte) { n++ })
		runtime.ReadMemStats(&after)
		if err != nil || !got.Cut || got.Bytes != 16<<20 || n != 2 {
			t.Errorf("an 8 GiB journal read with a 16 MiB limit: %+v, %d records, %v", got, n, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
			t.Errorf("reading it allocated %d MiB", grew>>20)
		}
	})
	t.Run("marker removed", func(t *testing.T) {
		// A crash before the marker was written, or someone who may write the folder
		// removed it: a folder holding the layout alone is the cache still.
		dir := fresh(t)
		os.Remove(filepath.Join(dir, markerName))
		var r refusals
		d, err := openHostile(t, dir, &r)
		if err != nil {
			t.Fatalf("a cache without its marker: %v", err)
		}
		if !checkEntry(t, d, 1) {
			t.Error("the entry is gone")
		}
		// With something else there too, in a folder of another user's: refused as
		// untrusted (the mount comes up without it), not a misconfiguration.
		d.Close()
		os.Remove(filepath.Join(dir, markerName))
		os.WriteFile(filepath.Join(dir, "planted"), nil, 0o644)
		os.Chown(dir, nobody, nobody)
		if _, err := openHostile(t, dir, &r); !errors.Is(err, ErrUntrusted) {
			t.Errorf("another user's folder with a file planted and no marker: %v, want ErrUntrusted", err)
		}
	})
	t.Run("secret cut short", func(t *testing.T) {
		dir := fresh(t)
		os.WriteFile(filepath.Join(dir, "state", secretName), []byte("short"), 0o600)
		var r refusals
		d, err := openHostile(t, dir, &r)
		if err != nil {
			t.Fatalf("a secret cut short: %v", err)
		}
		if _, err := d.Get(testKey(1)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("an entry made under the lost secret: %v, want ErrCorrupt", err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "state", secretName)); len(b) != secretLen {
			t.Errorf("the secret made anew has %d bytes", len(b))
		}
	})
	t.Run("mount point inside", func(t *testing.T) {
		dir := fresh(t)
		shard := filepath.Dir(entryPath(&Disk{dir: dir}, testKey(1)))
		if err := syscall.Mount("tmpfs", shard, "tmpfs", 0, "mode=0700"); err != nil {
			t.Skipf("cannot mount a tmpfs: %v", err)
		}
		defer syscall.Unmount(shard, syscall.MNT_DETACH)
		var r refusals
		d, err := openHostile(t, dir, &r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Get(testKey(1)); !errors.Is(err, ErrUntrusted) {
			t.Errorf("an entry in a mounted folder: %v, want ErrUntrusted", err)
		}
		if err := d.Clear(); err == nil {
			t.Error("Clear went into a mounted folder, or removed it")
		}
	})
	t.Run("group read", func(t *testing.T) {
		dir := t.TempDir()
		d, err := OpenDisk(DiskOptions{Dir: dir, GroupRead: true})
		if err != nil {
			t.Fatal(err)
		}
		d.Put(testKey(1), nil, testParts(1))
		d.Close()
		for p, want := range map[string]os.FileMode{filepath.Join(dir, "state", secretName): 0o600, entryPath(d, testKey(1)): 0o640, filepath.Join(dir, "data"): 0o750} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: %v, want %v", p, fi.Mode(), want)
			}
		}
		// Looking at it leaves its modes alone.
		i, err := OpenDisk(DiskOptions{Dir: dir, Inspect: true})
		if err != nil {
			t.Fatal(err)
		}
		i.Close()
		if fi, _ := os.Stat(filepath.Join(dir, "data")); fi.Mode().Perm() != 0o750 {
			t.Errorf("inspecting made data %v", fi.Mode())
		}
		// A mount without it puts everything right, the entries too (finding 10 of the third
		// trust pass), and reads them.
		d = openT(t, dir, 64<<20)
		for p, want := range map[string]os.FileMode{entryPath(d, testKey(1)): 0o600, filepath.Join(dir, "data"): 0o700, filepath.Dir(entryPath(d, testKey(1))): 0o700} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
				t.Errorf("after a mount without group read, %s: %v, want %v", p, fi.Mode(), want)
			}
		}
		if e, err := d.Get(testKey(1)); err != nil {
			t.Errorf("the entry made for the group: %v", err)
		} else {
			e.Close()
		}
	})
	t.Run("secret others may read", func(t *testing.T) {
		dir := t.TempDir()
		d := openT(t, dir, 64<<20)
		d.Put(testKey(1), testMeta(1), testParts(1))
		d.Close()
		key := filepath.Join(dir, "state", secretName)
		old, _ := os.ReadFile(key)
		os.Chmod(key, 0o644)
		var r refusals
		d, err := openHostile(t, dir, &r)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.errs) != 1 || !errors.Is(r.errs[0], ErrUntrusted) || !strings.Contains(r.errs[0].Error(), "readable by others (mode 0644)") {
			t.Errorf("refusals %v; want one saying the secret was exposed", r.errs)
		}
		now, _ := os.ReadFile(key)
		if fi, err := os.Stat(key); err != nil || fi.Mode().Perm() != 0o600 || bytes.Equal(now, old) || len(now) != secretLen {
			t.Errorf("the secret after: %v, changed %v", fi.Mode(), !bytes.Equal(now, old))
		}
		if e, err := d.Get(testKey(1)); err == nil {
			e.Close()
			t.Error("an entry sealed with the exposed secret is still served")
		}
		// Two processes opening it at once replace it once: they share the new secret.
		os.Chmod(key, 0o644)
		var wg sync.WaitGroup
		secrets := make([][]byte, 2)
		for i := range secrets {
			wg.Go(func() {
				var r refusals
				if d, err := openHostile(t, dir, &r); err == nil {
					secrets[i] = d.secret
				}
			})
		}
		wg.Wait()
		if secrets[0] == nil || !bytes.Equal(secrets[0], secrets[1]) {
			t.Error("two opens at once of a directory whose secret was exposed hold different secrets")
		}
	})
	t.Run("modes", func(t *testing.T) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "data"), 0o755) // as an older modelfs made it
		os.WriteFile(filepath.Join(dir, markerName), []byte(markerText), 0o644)
		d := openT(t, dir, 64<<20)
		d.Put(testKey(1), nil, testParts(1))
		d.WriteState("x", []byte("y"))
		filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			fi, _ := os.Lstat(p)
			switch {
			case p == dir, filepath.Base(p) == markerName, filepath.Base(p) == "CACHEDIR.TAG":
			case e.IsDir() && fi.Mode().Perm() != 0o700, !e.IsDir() && fi.Mode().Perm() != 0o600:
				t.Errorf("%s: mode %v, want 0700 folders and 0600 files", p, fi.Mode())
			}
			return nil
		})
	})
}

// A journal read in pieces gives every record whole, in order, wherever the pieces end.
func TestJournalReadInPieces(t *testing.T) {
	d := openT(t, t.TempDir(), 0)
	j, _, err := readJournal(d, "big", nil)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]byte
	for i := range 20000 { // 5 MB: several pieces
		rec := bytes.Repeat([]byte{byte(i)}, 1+i%500)
		want = append(want, rec)
		if err := j.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	big := bytes.Repeat([]byte("x"), maxRecord) // as long as a record may be
	want = append(want, big)
	j.Append(big)
	j.Close()
	_, got, err := readJournal(d, "big", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("record %d differs", i)
		}
	}
}
