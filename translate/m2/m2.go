package m2

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/scene"
)

func init() {
	translate.Register(translate.Format{
		Name:        Format,
		Description: "World of Warcraft model (M2, versions 256–272)",
		Exts:        []string{".m2"},
		Match:       func(head []byte) bool { return bytes.HasPrefix(head, []byte("MD20")) },
		Decode:      Decode,
	})
}

// Decode decodes src with the options it carries (see ParseOptions; other formats' options are
// ignored).
func Decode(src translate.Source) (*scene.Scene, error) {
	mine := map[string]string{}
	for _, k := range []string{"geosets", "profile"} {
		if v, ok := src.Options[k]; ok {
			mine[k] = v
		}
	}
	opt, err := ParseOptions(mine)
	if err != nil {
		return nil, &translate.FormatError{Format: Format, File: src.Name, Offset: -1, Msg: "bad option", Err: err}
	}
	return DecodeWith(src, opt)
}

// DecodeWith decodes src: the .m2 with its skin profile and .anim files, opened through
// src.Companion (so the mount records them and re-translates when they change).
func DecodeWith(src translate.Source, opt Options) (*scene.Scene, error) {
	var open OpenFunc
	if src.Open != nil {
		open = src.Companion
	}
	// The model is dropped once built, so its key memory goes back to a pool for the next one:
	// Build copies what the scene keeps of it.
	km := getKeyMem()
	m, err := read(src.Name, src.Data, open, opt, false, km)
	if err != nil {
		putKeyMem(km)
		return nil, err
	}
	s, err := Build(m, src.Name, opt)
	putKeyMem(km) // m is not used after this

	if err != nil {
		return nil, err
	}
	guessSkins(src, s)
	return s, nil
}

// ParseOptions reads decoder options given as name=value pairs (as a command line or mount
// option would pass them): geosets=all|default, profile=N.
func ParseOptions(kv map[string]string) (Options, error) {
	var o Options
	for k, v := range kv {
		switch k {
		case "geosets":
			switch v {
			case "all":
				o.AllGeosets = true
			case "default", "":
			default:
				return o, fmt.Errorf("m2 option geosets=%q: want all or default", v)
			}
		case "profile":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 99 {
				return o, fmt.Errorf("m2 option profile=%q: want a number 0–99", v)
			}
			o.Profile = n
		default:
			return o, fmt.Errorf("unknown m2 option %q (known: geosets, profile)", k)
		}
	}
	return o, nil
}
