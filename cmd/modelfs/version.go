package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/modelfs/modelfs/translate"
)

// versionText is what --version prints: the module version (or the commit built from), the
// translator's version (which the cache keys name) and the Go toolchain.
func versionText() string {
	version, commit, dirty := "(devel)", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if commit != "" {
		version += " commit " + commit
		if dirty {
			version += " (modified)"
		}
	}
	return fmt.Sprintf("modelfs %s, translator %s, %s %s/%s", version, translate.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
