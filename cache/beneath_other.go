//go:build unix && !linux

package cache

import "os"

// openBeneath opens the file at the slash path rel below d, as open does, one folder at a
// time (each checked as sub checks it).
func (d *folder) openBeneath(rel string, flag int) (*os.File, int64, error) {
	return d.openStepwise(rel, flag)
}
