//go:build linux

package fusefs

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/vfs"
)

// The users the mixed-owner test reads as: two in one group, and nobody, in no group of theirs.
const (
	ownersGroup = "modelfs-test"
	userA       = "modelfs-test-a"
	userB       = "modelfs-test-b"
)

// op is one call a user makes through the mount, and what came of it.
type op struct {
	Path  string        `json:"path"`
	Read  bool          `json:"read"` // read the whole file, else stat it
	OK    bool          `json:"ok"`
	Errno string        `json:"errno,omitempty"`
	Took  time.Duration `json:"took"`
}

// The helper process of TestMixedOwners: run as a user, it makes the calls listed in the file
// MODELFS_TEST_OPS and writes what came of each back to it.
func init() {
	file := os.Getenv("MODELFS_TEST_OPS")
	if file == "" {
		return
	}
	b, err := os.ReadFile(file + ".in")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var ops []op
	json.Unmarshal(b, &ops)
	for i := range ops {
		start := time.Now()
		if ops[i].Read {
			_, err = os.ReadFile(ops[i].Path)
		} else {
			_, err = os.Stat(ops[i].Path)
		}
		ops[i].Took, ops[i].OK = time.Since(start), err == nil
		if err != nil {
			ops[i].Errno = err.Error()
		}
	}
	b, _ = json.Marshal(ops)
	if err := os.WriteFile(file+".out", b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(0)
}

// ensureUser makes the user name (in group, which it makes too) unless it exists, and returns
// its uid and gid.
func ensureUser(t *testing.T, name, group string) (int, int) {
	t.Helper()
	if _, err := user.LookupGroup(group); err != nil {
		if out, err := exec.Command("groupadd", group).CombinedOutput(); err != nil {
			t.Fatalf("groupadd %s: %v %s", group, err, out)
		}
	}
	u, err := user.Lookup(name)
	if err != nil {
		if out, err := exec.Command("useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", "--gid", group, name).CombinedOutput(); err != nil {
			t.Fatalf("useradd %s: %v %s", name, err, out)
		}
		if u, err = user.Lookup(name); err != nil {
			t.Fatal(err)
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return uid, gid
}

// TestMixedOwners is a studio's tree: models and textures of two users of one group, each
// 0600, 0640 or 0644, mounted with allow_other. Each of three users — the two, and nobody,
// who is in neither's group — makes 1,000 stats and reads in random order, all three at once:
// each gets exactly what the modes allow (a model's documents, what both the model and its
// texture allow), and no call takes more than 2 s.
func TestMixedOwners(t *testing.T) {
	if os.Geteuid() != 0 {
		skipOrFail(t, "needs root to make users and read as them")
	}
	uidA, gid := ensureUser(t, userA, ownersGroup)
	uidB, _ := ensureUser(t, userB, ownersGroup)
	crate, err := os.ReadFile(filepath.Join(sampleDir(t), "Units/Crate.mdl"))
	if err != nil {
		t.Fatal(err)
	}
	blp, err := os.ReadFile(filepath.Join(sampleDir(t), "Textures/Crate.blp"))
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	type file struct {
		rel  string
		uid  int
		mode os.FileMode
	}
	put := func(f file, data []byte) {
		p := filepath.Join(src, f.rel)
		writeFile(t, p, data)
		if err := os.Chown(p, f.uid, gid); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, f.mode); err != nil {
			t.Fatal(err)
		}
	}
	owners := []int{uidA, uidB}
	modes := []os.FileMode{0o600, 0o640, 0o644}
	type model struct{ model, texture file }
	var models []model
	n := 0
	for _, mo := range owners {
		for _, mm := range modes {
			for _, to := range owners {
				for _, tm := range modes {
					// Each model finds its texture in the folder beside its own.
					m := model{file{fmt.Sprintf("c%02d/u/Crate.mdl", n), mo, mm}, file{fmt.Sprintf("c%02d/t/Crate.blp", n), to, tm}}
					put(m.model, crate)
					put(m.texture, blp)
					models = append(models, m)
					n++
				}
			}
		}
	}
	openUp(t, src)
	m := mountT(t, src, vfs.Options{AllowOther: true})
	readers := []struct {
		name     string
		uid, gid int
		groups   []int
	}{{userA, uidA, gid, []int{gid}}, {userB, uidB, gid, []int{gid}}, {"nobody", nobody, nobody, nil}}
	mayRead := func(uid int, inGroup bool, f file) bool {
		switch {
		case uid == f.uid:
			return f.mode&0o400 != 0
		case inGroup:
			return f.mode&0o040 != 0
		}
		return f.mode&0o004 != 0
	}
	// The calls: every source and texture, every document, stat or read. A file of SRC is
	// readable as its mode says. A document is readable as its own mode says (the kernel
	// checks it), and never by a user who cannot read both the model and its texture. Its mode
	// is one for all: a class of users gets its read bit only when every user the class may
	// hold can read both (see vfs.Tree.access), so a user who could read both may be refused
	// where another of the class could not: those are counted.
	type target struct {
		rel   string
		shown file                             // the document's owner and mode, as the mount shows them
		can   func(uid int, inGroup bool) bool // whether the user can read all it is made of
	}
	var targets []target
	shownAs := func(rel string) file {
		fi, err := os.Stat(m.path(rel))
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if int(st.Gid) != gid {
			t.Fatalf("%s: group %d, want its source's %d", rel, st.Gid, gid)
		}
		return file{rel, int(st.Uid), fi.Mode().Perm()}
	}
	for _, md := range models {
		for _, f := range []file{md.model, md.texture} {
			targets = append(targets, target{f.rel, f, func(uid int, g bool) bool { return mayRead(uid, g, f) }})
		}
		both := func(uid int, g bool) bool { return mayRead(uid, g, md.model) && mayRead(uid, g, md.texture) }
		for _, k := range []string{".gltf", ".glb", ".obj", ".mtl", ".json"} {
			targets = append(targets, target{md.model.rel + k, shownAs(md.model.rel + k), both})
		}
		png := md.texture.rel + ".png"
		targets = append(targets, target{png, shownAs(png), func(uid int, g bool) bool { return mayRead(uid, g, md.texture) }})
	}
	work := t.TempDir()
	openUp(t, work)
	exe := filepath.Join(work, "fusefs.test")
	if b, err := os.ReadFile(os.Args[0]); err != nil || os.WriteFile(exe, b, 0o755) != nil {
		t.Fatalf("copying the test binary: %v", err)
	}
	type run struct {
		cmd  *exec.Cmd
		file string
		ops  []op
	}
	runs := make([]run, len(readers))
	rng := rand.New(rand.NewPCG(27, 2))
	for i, r := range readers {
		ops := make([]op, 1000)
		for j := range ops {
			tg := targets[rng.IntN(len(targets))]
			ops[j] = op{Path: m.path(tg.rel), Read: rng.IntN(2) == 0}
		}
		file := filepath.Join(work, r.name)
		b, _ := json.Marshal(ops)
		if err := os.WriteFile(file+".in", b, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "MODELFS_TEST_OPS="+file)
		cmd.Dir = work
		cmd.Stderr = os.Stderr
		groups := make([]uint32, len(r.groups))
		for k, g := range r.groups {
			groups[k] = uint32(g)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(r.uid), Gid: uint32(r.gid), Groups: groups}}
		runs[i] = run{cmd: cmd, file: file, ops: ops}
	}
	os.Chmod(work, 0o777) // the helpers write their results there
	for _, r := range runs {
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range runs {
		if err := r.cmd.Wait(); err != nil {
			t.Fatalf("%s's calls: %v", readers[i].name, err)
		}
	}
	want := map[string]target{}
	for _, tg := range targets {
		want[m.path(tg.rel)] = tg
	}
	for i, r := range runs {
		b, err := os.ReadFile(r.file + ".out")
		if err != nil {
			t.Fatal(err)
		}
		var got []op
		if err := json.Unmarshal(b, &got); err != nil || len(got) != len(r.ops) {
			t.Fatalf("%s: %d results, %v", readers[i].name, len(got), err)
		}
		var slowest time.Duration
		wrong, refused := 0, 0
		uid, inGroup := readers[i].uid, readers[i].gid == gid
		for _, o := range got {
			slowest = max(slowest, o.Took)
			tg := want[o.Path]
			expect := true // a stat needs only the folders, which are open to all
			if o.Read {
				expect = mayRead(uid, inGroup, tg.shown)
				if expect && !tg.can(uid, inGroup) {
					t.Errorf("%s: %s shows mode %v to uid %d, who cannot read all it is made of", readers[i].name, tg.rel, tg.shown.mode, uid)
				}
				if !expect && tg.can(uid, inGroup) {
					refused++
				}
			}
			if o.OK != expect {
				if wrong++; wrong <= 10 {
					t.Errorf("%s: %s of %s: ok %v (%s), want %v", readers[i].name, map[bool]string{true: "read", false: "stat"}[o.Read], o.Path, o.OK, o.Errno, expect)
				}
			}
		}
		if slowest > 2*time.Second {
			t.Errorf("%s: a call took %v, more than 2 s", readers[i].name, slowest)
		}
		t.Logf("%s: %d calls, %d not as the modes say, slowest %v; %d reads refused that another of the user's class could not make", readers[i].name, len(got), wrong, slowest, refused)
	}
}
