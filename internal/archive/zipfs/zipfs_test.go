package zipfs_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modelfs/modelfs/internal/archive"
	"github.com/modelfs/modelfs/internal/archive/zipfs"
	"github.com/modelfs/modelfs/internal/archive/zipfs/ziptest"
)

// zipOf returns a zip archive of the files, deflated, in the order given.
func zipOf(t testing.TB, files ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, f := range files {
		fw, err := w.Create(f[0])
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(f[1]))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A zip opens through the registry by its content, whatever its name, as a tree: folders,
// members, names found whatever their case, and what fstest asks of any fs.FS.
func TestZip(t *testing.T) {
	data := zipOf(t, [2]string{"Units/Crate.mdx", "model"}, [2]string{"Textures/Crate.BLP", "texture"}, [2]string{"readme.txt", "hi"})
	a, err := archive.Open(bytes.NewReader(data), int64(len(data)), archive.Options{Name: "Mods/Pack.w3mod"})
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := a.(archive.Formatted); !ok || f.FormatName() != "zip" || a.Name() != "Mods/Pack.w3mod" {
		t.Fatalf("opened as %T named %q", a, a.Name())
	}
	if err := fstest.TestFS(a, "Units/Crate.mdx", "Textures/Crate.BLP", "readme.txt"); err != nil {
		t.Fatal(err)
	}
	if b, err := a.ReadFile("Units/Crate.mdx"); err != nil || string(b) != "model" {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
	for name, want := range map[string]string{"textures/crate.blp": "Textures/Crate.BLP", "Units/Crate.mdx": "Units/Crate.mdx", "UNITS": "Units"} {
		if got, ok := a.FindFold(name); !ok || got != want {
			t.Errorf("FindFold(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	if _, ok := a.FindFold("../x"); ok {
		t.Error("FindFold took a name leaving the archive")
	}
	if !archive.IsArchiveName("Pack.ZIP") || !archive.IsArchiveName("x.w3mod") || archive.IsArchiveName("Pack.zip.json") {
		t.Error("IsArchiveName does not know zip's names")
	}
}

// A zip written carelessly still lists: the same name twice (the later shown), "./" and
// backslashed names, a member and a folder of one name (the folder); a name leaving the
// archive is left out. Members read at any offset, stored or deflated.
func TestZipCareless(t *testing.T) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	add := func(name, body string, method uint16) {
		fw, err := w.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(body))
	}
	add("Units/a.txt", "old", zip.Deflate)
	add("Units/a.txt", "new", zip.Deflate)
	add("./Units/b.txt", "b", zip.Store)
	add(`Textures\c.txt`, "c", zip.Deflate)
	add("../evil.txt", "evil", zip.Store)
	add("x", "a file", zip.Store)
	add("x/y.txt", "y", zip.Store)
	add("stored.bin", "0123456789", zip.Store)
	w.Close()
	a, err := archive.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), archive.Options{Name: "c.zip"})
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(a, "Units/a.txt", "Units/b.txt", "Textures/c.txt", "x/y.txt", "stored.bin"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"Units/a.txt": "new", "Units/b.txt": "b", "Textures/c.txt": "c", "x/y.txt": "y"} {
		if b, err := a.ReadFile(name); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
	if _, err := a.Stat("evil.txt"); err == nil {
		t.Error("a name leaving the archive is shown")
	}
	for _, name := range []string{"stored.bin", "Units/a.txt"} {
		f, err := a.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		ra, ok := f.(io.ReaderAt)
		if !ok {
			t.Fatalf("%s opens without ReadAt", name)
		}
		p := make([]byte, 2)
		if n, err := ra.ReadAt(p, 1); n != 2 || err != nil {
			t.Errorf("%s: ReadAt = %d, %v", name, n, err)
		}
		f.Close()
	}
}

// A member whose header claims more than MaxMember is refused before anything is allocated,
// and one whose bytes are damaged is an error, not bytes.
func TestZipHostile(t *testing.T) {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	fw, err := w.CreateRaw(&zip.FileHeader{Name: "huge.bin", Method: zip.Store, CompressedSize64: 4, UncompressedSize64: zipfs.MaxMember + 1})
	if err != nil {
		t.Fatal(err)
	}
	fw.Write([]byte("abcd"))
	w.Close()
	a, err := archive.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), archive.Options{Name: "h.zip"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.ReadFile("huge.bin"); err == nil {
		t.Error("a member claiming more than MaxMember was read")
	}
	// One claiming just under it, with four bytes: an error, and no memory for the claim.
	buf.Reset()
	w = zip.NewWriter(&buf)
	fw, err = w.CreateRaw(&zip.FileHeader{Name: "claim.bin", Method: zip.Store, CompressedSize64: 4, UncompressedSize64: zipfs.MaxMember - 1})
	if err != nil {
		t.Fatal(err)
	}
	fw.Write([]byte("abcd"))
	w.Close()
	a, err = archive.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), archive.Options{Name: "c.zip"})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := a.ReadFile("claim.bin"); err == nil {
		t.Error("a member shorter than its header says was read")
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("reading a 4-byte member claiming %d bytes allocated %d", zipfs.MaxMember-1, grew)
	}

	data := zipOf(t, [2]string{"a.txt", "some text that deflates"})
	i := bytes.Index(data, []byte("a.txt")) + len("a.txt") + 2 // into the deflated bytes
	data[i] ^= 0xff
	if a, err := archive.Open(bytes.NewReader(data), int64(len(data)), archive.Options{Name: "d.zip"}); err == nil {
		if b, err := a.ReadFile("a.txt"); err == nil {
			t.Errorf("a damaged member read as %q", b)
		}
	}
	if _, err := archive.Open(bytes.NewReader([]byte("PK\x03\x04 not really")), 16, archive.Options{Name: "x.zip"}); err == nil {
		t.Error("a truncated zip opened")
	}
	if _, err := archive.Open(bytes.NewReader([]byte("plain text")), 10, archive.Options{Name: "x.txt"}); !errors.Is(err, archive.ErrUnknown) {
		t.Errorf("plain text: %v, want ErrUnknown", err)
	}
}

// FuzzZip opens arbitrary bytes as a zip and reads every member, whole and as a stream at a
// few offsets: errors, never a panic, a hang or an allocation beyond MaxMember.
func FuzzZip(f *testing.F) {
	f.Add(zipOf(f, [2]string{"Units/Crate.mdx", "model"}, [2]string{"a/b/c.txt", "x"}))
	f.Add([]byte("PK\x05\x06" + string(make([]byte, 18))))
	body := bytes.Repeat([]byte("a model's bytes "), 64)
	lying := ziptest.True("lie.mdx", body, 8)
	lying.USize += 7
	shared := ziptest.True("b.mdx", body, 0)
	shared.At = 1
	described := ziptest.True("d.bin", body, 8)
	described.Flags, described.Descriptor = 8, []byte{0x50, 0x4b, 0x07, 0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	wide := ziptest.True("z64.bin", body, 8)
	wide.Zip64 = true
	f.Add(ziptest.Zip(ziptest.True("a\x00b/../c.mdx", body, 8), lying, shared, described, wide))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := archive.Open(bytes.NewReader(data), int64(len(data)), archive.Options{Name: "f.zip"})
		if err != nil {
			return
		}
		var names []string
		fs.WalkDir(a, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				names = append(names, p)
			}
			return nil
		})
		for _, n := range slices.Clip(names) {
			a.ReadFile(n)
			a.FindFold(strings.ToUpper(n))
			f, err := a.Open(n)
			if err != nil {
				continue
			}
			ra := f.(io.ReaderAt)
			p := make([]byte, 100)
			for _, off := range []int64{50, 0, 1 << 20, 10} {
				ra.ReadAt(p, off)
			}
			f.Close()
		}
	})
}
