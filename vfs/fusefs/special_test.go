//go:build linux

package fusefs

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/modelfs/modelfs/vfs"
)

// TestSpecialFilesNeverOpened puts a FIFO, a socket and a device node beside models, where
// their textures are looked for, and in the place of a model: every virtual file answers within
// a second, and the daemon opens none of them (inotify sees every open in their folders).
func TestSpecialFilesNeverOpened(t *testing.T) {
	src := sampleTree(t)
	crate := mustRead(t, filepath.Join(src, "Units/Crate.mdl"))
	// The texture the model names, at the root, is a FIFO.
	if err := os.Remove(filepath.Join(src, "Textures/Crate.blp")); err != nil {
		t.Fatal(err)
	}
	specials := map[string]string{} // path → what it is
	mkfifo := func(rel string) {
		if err := syscall.Mkfifo(filepath.Join(src, rel), 0o644); err != nil {
			t.Fatal(err)
		}
		specials[rel] = "fifo"
	}
	mkfifo("Textures/Crate.blp")
	// A model whose texture is looked for in its own folder and the folders beside it: each
	// holds something that must not be opened.
	writeFile(t, filepath.Join(src, "Game/u/Crate.mdl"), bytes.Replace(crate, []byte(`Textures\Crate.blp`), []byte(`Textures\Other.blp`), 1))
	mkfifo("Game/pipe")
	os.MkdirAll(filepath.Join(src, "Game/t"), 0o755)
	l, err := net.Listen("unix", filepath.Join(src, "Game/t/Other.blp"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	specials["Game/t/Other.blp"] = "socket"
	if err := syscall.Mknod(filepath.Join(src, "Game/t/Other.jpg"), syscall.S_IFCHR|0o644, 1<<8|3); err == nil {
		specials["Game/t/Other.jpg"] = "device" // /dev/null's numbers
	} else if os.Getenv("CI") == "true" {
		t.Fatalf("mknod: %v", err)
	} else {
		t.Logf("no device node (%v)", err)
	}
	// Specials named as models and textures.
	mkfifo("Units/Pipe.mdl")
	mkfifo("Textures/Pipe.tga")

	watch := watchOpens(t, filepath.Join(src, "Textures"), filepath.Join(src, "Game/u"), filepath.Join(src, "Game/t"),
		filepath.Join(src, "Game"), filepath.Join(src, "Units"))
	m := mountT(t, src, vfs.Options{})

	// Each special shows with its type.
	for rel, what := range specials {
		fi, err := os.Lstat(m.path(rel))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		if want := map[string]os.FileMode{"fifo": os.ModeNamedPipe, "socket": os.ModeSocket, "device": os.ModeDevice | os.ModeCharDevice}[what]; fi.Mode().Type() != want {
			t.Errorf("%s: type %v, want %v", rel, fi.Mode().Type(), want)
		}
	}
	// Every virtual file answers, and quickly.
	for _, rel := range []string{"Units/Crate.mdl.gltf", "Units/Crate.mdl.glb", "Units/Crate.mdl.json",
		"Game/u/Crate.mdl.gltf", "Game/u/Crate.mdl.glb", "Game/u/Crate.mdl.json"} {
		done := make(chan error, 1)
		go func() {
			_, err := os.ReadFile(m.path(rel))
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: %v", rel, err)
			}
		case <-time.After(time.Second):
			t.Fatalf("%s: no answer within a second", rel)
		}
	}
	for rel, warning := range map[string]string{
		"Units/Crate.mdl.json":  "open Textures/Crate.blp: not a regular file",
		"Game/u/Crate.mdl.json": "open Game/t/Other.blp: not a regular file", // found in a folder beside
	} {
		if doc := mustRead(t, m.path(rel)); !bytes.Contains(doc, []byte(warning)) {
			t.Errorf("%s does not say %q:\n%s", rel, warning, doc)
		}
	}
	for _, rel := range []string{"Units/Pipe.mdl.gltf", "Textures/Pipe.tga.png", "Textures/Crate.blp.png"} {
		if _, err := os.Lstat(m.path(rel)); !os.IsNotExist(err) {
			t.Errorf("%s: %v, want no virtual file beside a special file", rel, err)
		}
	}
	for _, name := range watch() {
		for rel := range specials {
			if filepath.Base(rel) == name {
				t.Errorf("%s was opened", rel)
			}
		}
	}
}

// watchOpens watches dirs for opens of their entries; the function it returns stops and says
// which names were opened.
func watchOpens(t *testing.T, dirs ...string) func() []string {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, err := syscall.InotifyAddWatch(fd, d, syscall.IN_OPEN); err != nil {
			t.Fatal(err)
		}
	}
	return func() []string {
		defer syscall.Close(fd)
		var opened []string
		buf := make([]byte, 64<<10)
		for {
			n, err := syscall.Read(fd, buf)
			if n <= 0 || err != nil {
				return opened
			}
			for off := 0; off+syscall.SizeofInotifyEvent <= n; {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
				opened = append(opened, strings.TrimRight(string(name), "\x00"))
				off += syscall.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}
}
