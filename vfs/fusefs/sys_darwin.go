package fusefs

import "golang.org/x/sys/unix"

// directMountFlags are unused on macOS, where macFUSE always mounts through its own helper.
const directMountFlags = 0

// lazyUnmountFlags force the unmount: macOS has no lazy detach, so files still open fail.
const lazyUnmountFlags = unix.MNT_FORCE
