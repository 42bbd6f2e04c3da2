//go:build unix

package cache

import (
	"io/fs"
	"syscall"
)

// allocated returns the bytes the file system allocated to fi (its blocks), 0 if unknown.
func allocated(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Blocks) * 512
	}
	return 0
}
