package fusefs

import (
	"fmt"
	"os/exec"
	"strings"

	"golang.org/x/sys/unix"
)

// directMountFlags are unused on macOS, where macFUSE always mounts through its own helper.
const directMountFlags = 0

// lazyKeepsOpenFiles tells whether files open in a lazily unmounted mount keep reading: not
// on macOS, which has no lazy detach.
const lazyKeepsOpenFiles = false

// lazyUnmount forces the unmount of dir (macOS has no lazy detach): unmount(2) with MNT_FORCE,
// which the user who mounted may do, else umount -f.
func lazyUnmount(dir string) error {
	err := unix.Unmount(dir, unix.MNT_FORCE)
	if err == nil {
		return nil
	}
	if out, uerr := exec.Command("umount", "-f", dir).CombinedOutput(); uerr != nil {
		return fmt.Errorf("unmount: %v; umount -f: %v %s", err, uerr, strings.TrimSpace(string(out)))
	}
	return nil
}

// callerDying reports whether the process pid that made a request is gone: macOS has no /proc
// to tell a pending fatal signal, so an interrupted request waits for its answer (a
// translation, which ends) unless its caller has already exited.
func callerDying(pid uint32) bool {
	return pid != 0 && unix.Kill(int(pid), 0) == unix.ESRCH
}
