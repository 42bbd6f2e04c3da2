//go:build unix && !linux

package cache

import (
	"os"
	"path"
)

// openBeneath opens the file at the slash path rel below d, as open does, one folder at a
// time (each checked as sub checks it).
func (d *folder) openBeneath(rel string, flag int) (*os.File, int64, error) {
	dir, name := path.Split(rel)
	if dir == "" {
		return d.open(name, flag)
	}
	sub, err := d.walk(path.Clean(dir))
	if err != nil {
		return nil, 0, err
	}
	defer sub.close()
	return sub.open(name, flag)
}
