package fusefs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
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

// callerDying reports whether the thread pid, which made a request, is being killed (a fatal
// signal pending: the kernel turns one into SIGKILL for every thread of the process) or is
// gone. When /proc does not show the thread (mounted with hidepid, or the caller in another
// namespace) it is gone only if a signal cannot reach it: a caller this process cannot see
// counts as alive, and waits for its answer.
func callerDying(pid uint32) bool {
	if pid == 0 {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.FormatUint(uint64(pid), 10) + "/status")
	if err != nil {
		return errors.Is(syscall.Kill(int(pid), 0), syscall.ESRCH)
	}
	return statusDying(b)
}

// statusDying reports whether a /proc/PID/status says the thread is exiting or has SIGKILL
// pending.
func statusDying(b []byte) bool {
	const sigkill = 1 << (syscall.SIGKILL - 1)
	for _, line := range strings.Split(string(b), "\n") {
		name, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch name {
		case "State":
			if strings.HasPrefix(val, "Z") || strings.HasPrefix(val, "X") {
				return true
			}
		case "SigPnd", "ShdPnd":
			if mask, err := strconv.ParseUint(val, 16, 64); err == nil && mask&sigkill != 0 {
				return true
			}
		}
	}
	return false
}
