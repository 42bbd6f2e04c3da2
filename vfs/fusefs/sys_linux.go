package fusefs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// directMountFlags are the flags of mount(2) when mounting as root: read-only, no setuid
// programs, no device nodes.
const directMountFlags = syscall.MS_RDONLY | syscall.MS_NOSUID | syscall.MS_NODEV

// lazyKeepsOpenFiles tells whether files open in a lazily unmounted mount keep reading.
const lazyKeepsOpenFiles = true

// lazyUnmount detaches the mount at dir while its open files keep working until closed:
// umount2 with MNT_DETACH as root, else fusermount3 -uz.
func lazyUnmount(dir string) error {
	if os.Geteuid() == 0 {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err == nil || !errors.Is(err, syscall.EPERM) {
			return err
		}
	}
	var errs []error
	for _, prog := range []string{"fusermount3", "fusermount"} {
		out, err := exec.Command(prog, "-u", "-z", dir).CombinedOutput()
		if err == nil {
			return nil
		}
		errs = append(errs, fmt.Errorf("%s: %v %s", prog, err, strings.TrimSpace(string(out))))
	}
	return errors.Join(errs...)
}
