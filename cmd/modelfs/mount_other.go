//go:build !linux && !darwin

package main

import "fmt"

// Run reports that there is no FUSE to mount with here; serve webdav shows the same tree.
func (c *mountCmd) Run(e *env) error {
	return fmt.Errorf("mount: FUSE is not available on this system; serve the tree over WebDAV instead (modelfs serve webdav %s) and connect to it as a network drive", string(c.Src))
}
