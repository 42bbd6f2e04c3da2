//go:build linux || darwin

package fusefs

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/modelfs/modelfs/vfs"
)

// Server is a mounted modelfs.
type Server struct {
	src, mnt string
	tree     *vfs.Tree
	srv      *fuse.Server
	log      *slog.Logger
	done     chan struct{}
	mu       sync.Mutex // serialises Unmount
}

// Mount shows the tree at src on the directory mnt and serves it in the background until it is
// unmounted (Unmount, or umount from outside). It mounts with mount(2) when running as root and
// through fusermount3 (or fusermount) otherwise.
func Mount(src, mnt string, opt vfs.Options) (*Server, error) {
	opt, err := opt.WithDefaults()
	if err != nil {
		return nil, err
	}
	// An archive mounts as the tree of its members: the tree core is its folder's.
	src, rootArchive := vfs.SplitSource(src)
	absSrc, err := vfs.CheckDir(src)
	if err != nil {
		return nil, err
	}
	if err := prepareMountPoint(mnt, opt.Logger); err != nil {
		return nil, err
	}
	absMnt, err := vfs.CheckDir(mnt)
	if err != nil {
		return nil, err
	}
	if err := checkApart(absSrc, absMnt); err != nil {
		return nil, err
	}
	tree, err := vfs.Open(absSrc, opt)
	if err != nil {
		return nil, err
	}
	m := &mount{tree: tree, attrTimeout: opt.AttrTimeout, entryTimeout: opt.EntryTimeout, log: opt.Logger, closed: make(chan struct{})}
	// The top is SRC's folder; or the archive mounted; or, for a game's data folder, the
	// merged tree of its archives.
	view, err := tree.Shown(rootArchive)
	if err != nil {
		tree.Close()
		return nil, err
	}
	top, err := view.Top()
	if err != nil {
		tree.Close()
		return nil, err
	}
	newTop := func() gofs.InodeEmbedder { return &dirNode{node{m: m, vn: *top}} }
	neg := opt.NegativeTimeout
	mo := fuse.MountOptions{
		FsName:     "modelfs:" + absSrc,
		Name:       "modelfs",
		AllowOther: opt.AllowOther,
		Options:    []string{"ro", "default_permissions"},
		// READDIRPLUS stays on: the kernel then gets each entry's attributes with the listing
		// (one round trip per batch instead of one per entry for `ls -l`), except for a
		// virtual file whose size is not known yet: READDIRPLUS never translates, so that
		// entry goes without attributes and its lookup by name, when someone uses it,
		// translates the model.
		DirectMountFlags: directMountFlags,
		Debug:            opt.Debug,
		Logger:           log.New(&slogWriter{opt.Logger}, "", 0),
	}
	fo := &gofs.Options{
		MountOptions:    mo,
		NegativeTimeout: &neg, // entry and attribute timeouts are set per reply
		// Modes as given: an entry of mode 0000 in SRC is 0000 here, not go-fuse's default.
		NullPermissions: true,
		Logger:          log.New(&slogWriter{opt.Logger}, "", 0),
	}
	var srv *fuse.Server
	var directErr error
	if os.Geteuid() == 0 {
		// mount(2) itself, and no fallback inside go-fuse, so that unmounting reports EBUSY
		// as an errno rather than as a missing fusermount.
		fo.DirectMountStrict = true
		srv, directErr = fuse.NewServer(gofs.NewNodeFS(newTop(), fo), absMnt, &fo.MountOptions)
		fo.DirectMountStrict = false
	}
	if srv == nil {
		// Not root, or mount(2) refused (no CAP_SYS_ADMIN in a container): use fusermount3.
		srv, err = fuse.NewServer(gofs.NewNodeFS(newTop(), fo), absMnt, &fo.MountOptions)
		if err != nil && directErr != nil {
			err = fmt.Errorf("mount(2): %v; fusermount: %w", directErr, err)
		}
	}
	if err != nil {
		tree.Close()
		return nil, fmt.Errorf("mount %s on %s: %w", absSrc, absMnt, err)
	}
	go srv.Serve()
	if err := srv.WaitMount(); err != nil {
		srv.Unmount()
		tree.Close()
		return nil, fmt.Errorf("mount %s on %s: %w", absSrc, absMnt, err)
	}
	s := &Server{src: absSrc, mnt: absMnt, tree: tree, srv: srv, log: opt.Logger, done: make(chan struct{})}
	shown := absSrc
	if rootArchive != "" {
		shown = filepath.Join(absSrc, rootArchive)
	}
	s.log.Info("mounted", "src", shown, "mountpoint", absMnt, "kinds", fmt.Sprint(opt.Kinds),
		"cache", opt.CacheBytes, "cache-dir", opt.CacheDir, "parallel", opt.MaxParallel,
		"known", tree.Stats().Versions)
	go s.watchSource(sourceCheck)
	go func() {
		srv.Wait()
		close(m.closed)
		tree.Record(absMnt)
		st := s.Stats()
		tree.Close()
		s.log.Info("unmounted", "mountpoint", absMnt, "translations", st.Translations, "failures", st.Failures,
			"reused", st.Reused)
		close(s.done)
	}()
	return s, nil
}

// sourceCheck is how often a mount checks that its SRC is still where it was mounted from.
var sourceCheck = 5 * time.Second

// watchSource logs, once each time it happens, that SRC's path no longer leads to the directory
// the mount serves (removed, or replaced by another): the mount goes on showing what remains
// of the one it opened, which a user seeing an empty mount would not guess.
func (s *Server) watchSource(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	gone := false
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
		}
		reason, lost, closed := s.tree.Moved()
		if closed {
			return // unmounting
		}
		if lost && !gone {
			s.log.Warn("the source tree is gone from its path; the mount shows what remains of the one it opened: remount to show a new one",
				"src", s.src, "reason", reason)
		}
		gone = lost
	}
}

// prepareMountPoint readies mnt for a mount: a stale FUSE mount left there by a daemon that
// died (every request fails with ENOTCONN) is lazily unmounted and logged; a live FUSE mount
// there is refused, as stacking a second one would hide it.
func prepareMountPoint(mnt string, log *slog.Logger) error {
	abs, err := filepath.Abs(mnt)
	if err != nil {
		return err
	}
	// The mount table names real paths; the mount point itself may not answer a stat.
	if parent, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(parent, filepath.Base(abs))
	}
	fstype, mounted := mountedAt(abs)
	if !mounted || !strings.HasPrefix(fstype, "fuse") {
		return nil
	}
	var st syscall.Statfs_t
	err = syscall.Statfs(abs, &st)
	if !errors.Is(err, syscall.ENOTCONN) {
		return fmt.Errorf("%s already has a FUSE file system mounted on it (another modelfs?): unmount it first (fusermount3 -u %s)", mnt, mnt)
	}
	if uerr := LazyUnmount(abs); uerr != nil {
		return fmt.Errorf("%s is a stale mount left by a file system whose daemon died, and unmounting it failed (%v): run `fusermount3 -uz %s` (as root: `umount -l %s`), then mount again", mnt, uerr, mnt, mnt)
	}
	log.Warn("unmounted a stale mount left by a daemon that died", "mountpoint", abs)
	return nil
}

// mountedAt reports whether a file system is mounted on dir (an absolute path), and its type,
// from /proc/self/mountinfo: the last mount there is the one on top.
func mountedAt(dir string) (fstype string, ok bool) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(string(data), "\n") {
		// id parent major:minor root mountpoint options [optional fields] - fstype source super
		f := strings.Fields(line)
		sep := slices.Index(f, "-")
		if len(f) < 5 || sep < 0 || sep+1 >= len(f) || unescapeMountinfo(f[4]) != dir {
			continue
		}
		fstype, ok = f[sep+1], true
	}
	return fstype, ok
}

// unescapeMountinfo undoes the octal escapes (\040 for a space…) of a mountinfo path.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// LazyUnmount detaches the mount at dir at once, even while files in it are open. On Linux
// those keep working until closed (umount2 with MNT_DETACH as root, else fusermount3 -uz);
// macOS has no lazy detach, so there the unmount is forced and open files fail.
func LazyUnmount(dir string) error { return lazyUnmount(dir) }

// ForceUnmount detaches the mount at once (see LazyUnmount); the server stops once the files
// still open in it are closed.
func (s *Server) ForceUnmount() error { return LazyUnmount(s.mnt) }

// LazyKeepsOpenFiles tells whether files open in the mount keep reading after ForceUnmount
// (Linux), or fail (macOS).
const LazyKeepsOpenFiles = lazyKeepsOpenFiles

// checkApart refuses a mount point inside the tree it would show, where the tree would contain
// itself without end (find and grep -r would never finish), and one above it, which would hide
// the tree from everyone and from the mount's own checks of it.
func checkApart(src, mnt string) error {
	rs, err := filepath.EvalSymlinks(src)
	if err != nil {
		return err
	}
	rm, err := filepath.EvalSymlinks(mnt)
	if err != nil {
		return err
	}
	if within(rs, rm) {
		return fmt.Errorf("mount point %s is inside the tree %s it would show, which would then contain itself: mount it outside", mnt, src)
	}
	if within(rm, rs) {
		return fmt.Errorf("the tree %s is inside the mount point %s, which would hide it: mount it elsewhere", src, mnt)
	}
	return nil
}

// within reports whether the path p is dir or inside it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Unmount asks the kernel to unmount. While files are open or a process has its working
// directory inside, it fails with an error that matches syscall.EBUSY; callers may retry.
func (s *Server) Unmount() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.done:
		return nil
	default:
	}
	err := s.srv.Unmount()
	if err != nil && !errors.Is(err, syscall.EBUSY) && strings.Contains(strings.ToLower(err.Error()), "busy") {
		err = fmt.Errorf("%w: %v", syscall.EBUSY, err) // fusermount reports it as text
	}
	if err != nil {
		return fmt.Errorf("unmount %s: %w", s.mnt, err)
	}
	<-s.done
	return nil
}

// Wait blocks until the file system is unmounted.
func (s *Server) Wait() { <-s.done }

// Done is closed when the file system has been unmounted.
func (s *Server) Done() <-chan struct{} { return s.done }

// MountPoint returns the absolute path the tree is mounted on.
func (s *Server) MountPoint() string { return s.mnt }

// Stats returns the translation and cache counters.
func (s *Server) Stats() vfs.Stats { return s.tree.Stats() }

// slogWriter turns go-fuse's log lines into debug records.
type slogWriter struct{ l *slog.Logger }

func (w *slogWriter) Write(p []byte) (int, error) {
	w.l.Log(context.Background(), slog.LevelDebug, strings.TrimRight(string(p), "\n"), "from", "go-fuse")
	return len(p), nil
}
