package fusefs

import "syscall"

// directMountFlags are the flags of mount(2) when mounting as root: read-only, no setuid
// programs, no device nodes.
const directMountFlags = syscall.MS_RDONLY | syscall.MS_NOSUID | syscall.MS_NODEV

// lazyUnmountFlags detach a mount at once while its open files keep working until closed.
const lazyUnmountFlags = syscall.MNT_DETACH
