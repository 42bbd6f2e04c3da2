package fusefs

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
	"github.com/modelfs/modelfs/vfs"
)

// readmeShare returns the smb.conf share the README documents, its path set to dir.
func readmeShare(t *testing.T, name, dir string) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(corpus.RepoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```ini\n[models]\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README.md: no ```ini block starting with [models]")
	}
	path := regexp.MustCompile(`(?m)^\s*path = .*$`)
	if !path.MatchString(block) {
		t.Fatal("README.md: the [models] share has no path line")
	}
	return "[" + name + "]\n" + path.ReplaceAllLiteralString(block, "   path = "+dir)
}

// need returns the path of the program name, or skips the test (fails it under CI, which
// installs it: .ci/run).
func need(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		p, err = exec.LookPath("/usr/sbin/" + name) // daemons, outside a user's PATH
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not installed: %v", name, err)
		}
		t.Skipf("%s not installed", name)
	}
	return p
}

// smbServer is an smbd the test started on a loopback port.
type smbServer struct {
	port int
	out  *lockedBuffer // smbd's log, written while it runs
}

// log returns what smbd logged so far.
func (s *smbServer) log() string { return s.out.String() }

// lockedBuffer is a bytes.Buffer a process's output goroutine writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startSmbd runs smbd in the foreground on a free loopback port with shares, its state in a
// temporary directory, and stops it when the test ends. The port is free when chosen, but
// another process may take it before smbd binds it: then it tries another.
func startSmbd(t *testing.T, smbd string, shares ...string) *smbServer {
	t.Helper()
	var why string
	for range 3 {
		srv, err := trySmbd(t, smbd, shares)
		if err == nil {
			return srv
		}
		why = err.Error()
	}
	t.Fatalf("smbd: %s", why)
	return nil
}

// trySmbd starts smbd on a port free a moment ago and waits until it listens there.
func trySmbd(t *testing.T, smbd string, shares []string) (*smbServer, error) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	state := t.TempDir()
	conf := fmt.Sprintf(`[global]
   server role = standalone server
   smb ports = %d
   interfaces = lo
   bind interfaces only = yes
   map to guest = Bad User
   guest account = nobody
   load printers = no
   printcap name = /dev/null
   disable spoolss = yes
`, port)
	for _, d := range []string{"pid directory", "lock directory", "state directory", "cache directory", "private dir", "ncalrpc dir"} {
		dir := filepath.Join(state, strings.ReplaceAll(d, " ", "-"))
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		conf += fmt.Sprintf("   %s = %s\n", d, dir)
	}
	conf += "\n" + strings.Join(shares, "\n")
	confPath := filepath.Join(state, "smb.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := &smbServer{port: port, out: &lockedBuffer{}}
	cmd := exec.Command(smbd, "--foreground", "--no-process-group", "--debug-stdout", "-s", confPath)
	cmd.Stdout, cmd.Stderr = srv.out, srv.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its per-client children go with it
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	// smbd that cannot bind its port logs so and goes on running: someone else listens there.
	const bindFailed = "open_socket_in failed"
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", l.Addr().String(), time.Second)
		if err == nil {
			c.Close()
			time.Sleep(200 * time.Millisecond) // for a bind failure to reach the log
		}
		if log := srv.log(); strings.Contains(log, bindFailed) {
			return nil, fmt.Errorf("port %d taken: %s", port, log) // the cleanup stops it
		} else if err == nil {
			return srv, nil
		}
		select {
		case <-exited:
			return nil, fmt.Errorf("exited: %s", srv.log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("smbd does not listen on port %d: %v\n%s", port, err, srv.log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// client runs smbclient's commands on share as a guest and returns its output.
func (s *smbServer) client(t *testing.T, smbclient, share, commands string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, smbclient, "//127.0.0.1/"+share, "-p", strconv.Itoa(s.port), "-N", "-c", commands)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// smbLsLine is one entry of smbclient's recursive ls: name, attributes, size, date.
var smbLsLine = regexp.MustCompile(`^  (.+?)\s+([A-Z]*)\s+(\d+)\s+\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$`)

// parseSmbLs returns the sizes of the files a recursive smbclient ls lists, by slash path.
func parseSmbLs(t *testing.T, out string) map[string]int64 {
	t.Helper()
	sizes := map[string]int64{}
	dir := ""
	for line := range strings.Lines(out) {
		line = strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(line, `\`) {
			dir = strings.TrimPrefix(strings.ReplaceAll(line, `\`, "/"), "/")
			continue
		}
		m := smbLsLine.FindStringSubmatch(line)
		if m == nil || strings.Contains(m[2], "D") {
			continue
		}
		n, err := strconv.ParseInt(m[3], 10, 64)
		if err != nil {
			t.Fatalf("smbclient ls: %q: %v", line, err)
		}
		sizes[filepath.ToSlash(filepath.Join(dir, m[1]))] = n
	}
	return sizes
}

// TestSambaShare shares a mount of the sample tree through smbd with the share the README
// documents and reads it with smbclient: every file the mount shows is listed with its size
// and copies with its bytes, the virtual documents of all four game families included. A
// mount without allow_other shares nothing, as the README says.
func TestSambaShare(t *testing.T) {
	smbd, smbclient := need(t, "smbd"), need(t, "smbclient")
	if os.Geteuid() != 0 {
		skipOrFail(t, "smbd needs root to serve as the guest account")
	}
	// smbd reads as nobody: the source and the mount point's parents must let it through.
	src := t.TempDir()
	if err := os.CopyFS(src, os.DirFS(sampleDir(t))); err != nil {
		t.Fatal(err)
	}
	openUp(t, src)
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			os.Chmod(p, map[bool]fs.FileMode{true: 0o755, false: 0o644}[d.IsDir()])
		}
		return err
	})
	shared := mountT(t, src, vfs.Options{AllowOther: true})
	closed := mountT(t, src, vfs.Options{})
	openUp(t, filepath.Dir(shared.dir)) // the mount points' folder: smbd must reach them
	srv := startSmbd(t, smbd, readmeShare(t, "models", shared.dir), readmeShare(t, "closed", closed.dir))

	// Listing first, through a fresh mount: smbd asks for every size before anything is read,
	// so the sizes it lists are the ones the mount computes cold.
	if n := shared.translations(); n != 0 {
		t.Fatalf("%d translations before the listing", n)
	}
	out, err := srv.client(t, smbclient, "models", "recurse on; ls")
	if err != nil {
		t.Fatalf("smbclient ls: %v\n%s\nsmbd: %s", err, out, srv.log())
	}
	if shared.translations() == 0 {
		t.Error("the listing translated nothing: its sizes did not come from the translations")
	}

	// The mount's files, as a local reader sees them.
	want := map[string][]byte{}
	err = filepath.WalkDir(shared.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(shared.dir, p)
		want[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{"Units/Swinger.mdx.gltf", "Units/Crate.mdl.glb", "Creature/TestBeast/TestBeast.m2.gltf",
		"MeteorBlade/pmodel/p9.skc.gltf", "Elfreina/skinned.elem.gltf", "Textures/Crate.blp.png"} {
		if len(want[doc]) == 0 {
			t.Errorf("%s: not in the mount", doc)
		}
	}
	t.Logf("%d files in the mount", len(want))

	sizes := parseSmbLs(t, out)
	for rel, data := range want {
		if n, ok := sizes[rel]; !ok {
			t.Errorf("%s: not listed over SMB", rel)
		} else if n != int64(len(data)) {
			t.Errorf("%s: listed over SMB with %d bytes, the mount has %d", rel, n, len(data))
		}
	}
	if len(sizes) != len(want) {
		t.Errorf("SMB lists %d files, the mount %d", len(sizes), len(want))
	}

	got := t.TempDir()
	out, err = srv.client(t, smbclient, "models", "prompt off; recurse on; lcd "+got+"; mget *")
	if err != nil {
		t.Fatalf("smbclient mget: %v\n%s\nsmbd: %s", err, out, srv.log())
	}
	for rel, data := range want {
		b, err := os.ReadFile(filepath.Join(got, filepath.FromSlash(rel)))
		if err != nil {
			t.Errorf("%s: not copied over SMB: %v", rel, err)
		} else if !bytes.Equal(b, data) {
			t.Errorf("%s: %d bytes over SMB differ from the mount's %d", rel, len(b), len(data))
		}
	}

	// Without allow_other the guest is shut out of the mount, as FUSE does to every other user.
	out, err = srv.client(t, smbclient, "closed", "ls")
	if err == nil || !strings.Contains(out, "NT_STATUS_ACCESS_DENIED") {
		t.Errorf("a share of a mount without allow_other: err %v, want NT_STATUS_ACCESS_DENIED\n%s", err, out)
	}
}
