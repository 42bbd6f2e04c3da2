package mpq

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// The load orders of the games, lowest priority first (a later archive overrides an earlier):
//
// World of Warcraft 1.x–3.x, from the client's own list of archives: the base archives of the
// Data folder (common, common-2, expansion, lichking), then those of the locale folder
// (locale-xxXX, speech-xxXX, expansion-locale-xxXX, expansion-speech-xxXX, lichking-locale-xxXX,
// lichking-speech-xxXX), then the patches of the Data folder (patch, patch-2, patch-3, …, and the
// lettered patch-A … patch-Z that the client's "patch-?.MPQ" pattern also loads, digits before
// letters), then the locale patches (patch-xxXX, patch-xxXX-2, …).
//
// Warcraft III: war3, war3x (The Frozen Throne), war3xlocal, then war3patch; a map's own
// archive comes after all of them.
//
// Archives with other names are loaded after the base archives and before the patches, in
// name order.

// rank places an archive (its path in the data folder) in the load order.
func rank(p string) (group int, key string) {
	stem := strings.ToLower(strings.TrimSuffix(path.Base(p), path.Ext(p)))
	inLocale := strings.Contains(p, "/")
	switch {
	case stem == "war3":
		return 0, stem
	case stem == "war3x":
		return 1, stem
	case stem == "war3xlocal":
		return 2, stem
	case stem == "war3patch":
		return 9, stem
	case stem == "common" || stem == "common-2":
		return 0, stem
	case stem == "expansion":
		return 1, stem
	case stem == "lichking":
		return 2, stem
	case strings.HasPrefix(stem, "locale-") || strings.HasPrefix(stem, "speech-"):
		return 3, stem
	case strings.HasPrefix(stem, "expansion-"):
		return 4, stem
	case strings.HasPrefix(stem, "lichking-"):
		return 5, stem
	case stem == "patch" || strings.HasPrefix(stem, "patch-"):
		if inLocale {
			return 8, stem
		}
		return 7, stem
	}
	return 6, stem
}

// LoadOrder sorts archive paths ('/'-separated, relative to a game's data folder) into the
// order the game loads them.
func LoadOrder(paths []string) []string {
	out := slices.Clone(paths)
	slices.SortStableFunc(out, func(a, b string) int {
		ga, ka := rank(a)
		gb, kb := rank(b)
		if ga != gb {
			return ga - gb
		}
		return strings.Compare(ka, kb)
	})
	return out
}

// GameArchives lists the archives of a game's data folder — World of Warcraft's Data folder
// with its locale subfolders, or Warcraft III's install folder — in load order, as paths
// relative to dir. Given World of Warcraft's install folder, it lists its Data folder's.
func GameArchives(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if e.IsDir() && strings.EqualFold(e.Name(), "Data") {
			names, err := GameArchives(filepath.Join(dir, e.Name()))
			for i := range names {
				names[i] = e.Name() + "/" + names[i]
			}
			return names, err
		}
	}
	var found []string
	for _, e := range ents {
		switch {
		case e.Type().IsRegular() && strings.EqualFold(path.Ext(e.Name()), ".mpq"):
			found = append(found, e.Name())
		case e.IsDir() && len(e.Name()) == 4: // a locale folder: enUS, deDE, …
			sub, err := os.ReadDir(filepath.Join(dir, e.Name()))
			if err != nil {
				continue
			}
			for _, s := range sub {
				if s.Type().IsRegular() && strings.EqualFold(path.Ext(s.Name()), ".mpq") {
					found = append(found, e.Name()+"/"+s.Name())
				}
			}
		}
	}
	return LoadOrder(found), nil
}
