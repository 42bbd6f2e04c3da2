//go:build linux || darwin

// Package fusefs serves a tree core (package vfs) as a read-only FUSE file system: go-fuse nodes
// that answer each kernel request from the tree, one file per family of operations (dir.go:
// lookups and listings; open.go: opens and reads; attr.go: attributes; refuse.go: everything
// that would write), the mount's lifecycle (mount.go) and the one place its errors become
// errnos (errno.go).
package fusefs
