package fusefs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/vfs"
	"github.com/modelfs/modelfs/vfs/vfstest"
)

// stressDuration is how long TestConcurrentChangeStress runs: MODELFS_STRESS seconds, default
// 10 (the acceptance run uses 60).
func stressDuration(t *testing.T) time.Duration {
	if s := os.Getenv("MODELFS_STRESS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("MODELFS_STRESS=%q: want a number of seconds", s)
		}
		return time.Duration(n) * time.Second
	}
	return 10 * time.Second
}

// stressTally counts what the readers of the stress test saw.
type stressTally struct {
	reads, mixed, short, sizeDiff, absent, stale, other atomic.Int64
	mu                                                  sync.Mutex
	firstBad                                            []string
}

func (s *stressTally) bad(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.firstBad) < 10 {
		s.firstBad = append(s.firstBad, fmt.Sprintf(format, args...))
	}
}

// TestConcurrentChangeStress has six readers hash whole files of the mount — virtual files of a
// model and its texture, and the sources themselves — while a writer changes the model and the
// texture in every way a user's tools do: atomic rename, rewrite in place, delete and add back.
// Every complete read must be exactly one version's bytes, of the size fstat gave; after the
// writer stops, every file shows the last version.
func TestConcurrentChangeStress(t *testing.T) {
	const model, texture = "Units/Swinger.mdl", "Textures/Swinger.tga"
	base, err := os.ReadFile(filepath.Join(sampleDir(t), model))
	if err != nil {
		t.Fatal(err)
	}
	tex, err := os.ReadFile(filepath.Join(sampleDir(t), texture))
	if err != nil {
		t.Fatal(err)
	}
	// Versions differ in one byte, so that a rewrite in place (one pwrite of that byte) never
	// leaves a source that is neither: a coordinate's first digit in the model, a pixel byte in
	// the texture.
	at := bytes.Index(base, []byte("Vertices 24 {"))
	at += bytes.IndexAny(base[at+len("Vertices 24 {"):], "123456789") + len("Vertices 24 {")
	models := [][]byte{base}
	for _, d := range []byte{'2', '3'} {
		if base[at] == d {
			d = '4'
		}
		m := bytes.Clone(base)
		m[at] = d
		models = append(models, m)
	}
	const texAt = 18 + 4*100
	textures := [][]byte{tex, bytes.Clone(tex)}
	textures[1][texAt] ^= 0x5a

	// What each version of each file may read as.
	kinds := []translate.Kind{translate.GLTF, translate.GLB, translate.OBJ, translate.JSON}
	want := map[string]map[string][]int{} // file → sum → the versions it has these bytes in
	add := func(file string, b []byte, v int) {
		if want[file] == nil {
			want[file] = map[string][]int{}
		}
		want[file][sum(b)] = append(want[file][sum(b)], v)
	}
	// A model's version is its own and its texture's, which may also be absent (deleted, not
	// added back yet).
	version := func(m, x int) int { return m*(len(textures)+1) + x }
	for m := range models {
		for x := range len(textures) + 1 {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, model), models[m])
			if x == len(textures) {
				for _, k := range kinds {
					add(model+"."+string(k), vfstest.MustConvert(t, dir, model, k), version(m, x))
				}
				continue
			}
			writeFile(t, filepath.Join(dir, texture), textures[x])
			for _, k := range kinds {
				add(model+"."+string(k), vfstest.MustConvert(t, dir, model, k), version(m, x))
			}
			png, err := translate.ConvertTexture(texture, textures[x])
			if err != nil {
				t.Fatal(err)
			}
			add(texture+".png", png, x)
		}
		add(model, models[m], m)
	}
	for x := range textures {
		add(texture, textures[x], x)
	}

	src := t.TempDir()
	staged := t.TempDir() // variants to link into place, on the same file system as SRC
	writeFile(t, filepath.Join(src, model), models[0])
	writeFile(t, filepath.Join(src, texture), textures[0])
	stage := func(name string, b []byte) string {
		p := filepath.Join(staged, fmt.Sprintf("%d-%s", rand.Int64(), filepath.Base(name)))
		writeFile(t, p, b)
		return p
	}
	m := mountT(t, src, vfs.Options{})
	files := []string{texture + ".png", model, texture}
	for _, k := range kinds {
		files = append(files, model+"."+string(k))
	}

	var tally stressTally
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for r := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(r), 1))
			buf := make([]byte, 4096)
			for {
				select {
				case <-stop:
					return
				default:
				}
				name := files[rng.IntN(len(files))]
				slow := rng.IntN(4) == 0 // reads spread over changes
				stressRead(m.path(name), name, want[name], buf, slow, &tally)
			}
		}()
	}
	// The writer.
	cur := [2]int{} // model, texture version
	ops := map[string]int{}
	deadline := time.Now().Add(stressDuration(t))
	rng := rand.New(rand.NewPCG(7, 7))
	for time.Now().Before(deadline) {
		which := rng.IntN(2)
		name, variants, off := model, models, at
		if which == 1 {
			name, variants, off = texture, textures, texAt
		}
		next := (cur[which] + 1 + rng.IntN(len(variants)-1)) % len(variants)
		dst := filepath.Join(src, name)
		switch op := rng.IntN(3); op {
		case 0:
			tmp := stage(name, variants[next])
			if err := os.Rename(tmp, dst); err != nil {
				t.Fatal(err)
			}
			ops["rename"]++
		case 1:
			f, err := os.OpenFile(dst, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt(variants[next][off:off+1], int64(off)); err != nil {
				t.Fatal(err)
			}
			f.Close()
			ops["in place"]++
		case 2:
			tmp := stage(name, variants[next])
			if err := os.Remove(dst); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Millisecond)
			if err := os.Link(tmp, dst); err != nil {
				t.Fatal(err)
			}
			os.Remove(tmp)
			ops["delete and add"]++
		}
		cur[which] = next
		time.Sleep(time.Duration(5+rng.IntN(30)) * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	t.Logf("writer: %v; reads %d: %d mixed, %d cut short, %d size ≠ bytes; %d opens found no file, %d ESTALE, %d other errors",
		ops, tally.reads.Load(), tally.mixed.Load(), tally.short.Load(), tally.sizeDiff.Load(), tally.absent.Load(), tally.stale.Load(), tally.other.Load())
	if tally.mixed.Load()+tally.short.Load()+tally.sizeDiff.Load()+tally.other.Load() > 0 {
		t.Errorf("bad reads, the first: %q", tally.firstBad)
	}

	// A reader after the changes gets the last version, however recent the change.
	time.Sleep(2 * vfs.DefaultTimeout)
	for _, name := range files {
		b, err := os.ReadFile(m.path(name))
		if err != nil {
			t.Errorf("%s after the changes: %v", name, err)
			continue
		}
		vs, ok := want[name][sum(b)]
		wantV := version(cur[0], cur[1])
		switch name {
		case model:
			wantV = cur[0]
		case texture, texture + ".png":
			wantV = cur[1]
		}
		if !slices.Contains(vs, wantV) {
			t.Errorf("%s after the changes: versions %v (known: %v), want %d", name, vs, ok, wantV)
		}
	}
}

// stressRead reads the whole file p once and records the outcome in tally.
func stressRead(p, name string, want map[string][]int, buf []byte, slow bool, tally *stressTally) {
	f, err := os.Open(p)
	if err != nil {
		switch {
		case errors.Is(err, os.ErrNotExist):
			tally.absent.Add(1)
		case errors.Is(err, syscall.ESTALE):
			tally.stale.Add(1)
		default:
			tally.other.Add(1)
			tally.bad("open %s: %v", name, err)
		}
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		tally.other.Add(1)
		tally.bad("fstat %s: %v", name, err)
		return
	}
	var got bytes.Buffer
	for {
		n, err := f.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			tally.other.Add(1)
			tally.bad("read %s: %v", name, err)
			return
		}
		if slow {
			time.Sleep(time.Millisecond)
		}
	}
	tally.reads.Add(1)
	_, known := want[sum(got.Bytes())]
	switch {
	case int64(got.Len()) < fi.Size():
		tally.short.Add(1)
		tally.bad("%s: read %d of %d bytes", name, got.Len(), fi.Size())
	case int64(got.Len()) != fi.Size():
		tally.sizeDiff.Add(1)
		tally.bad("%s: read %d bytes, fstat says %d", name, got.Len(), fi.Size())
	case !known:
		tally.mixed.Add(1)
		tally.bad("%s: %d bytes of no version", name, got.Len())
	}
}
