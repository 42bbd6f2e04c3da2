package m2

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/scene"
)

func init() {
	codec.Register(codec.Format{
		Name:        Format,
		Game:        "World of Warcraft",
		Description: "World of Warcraft model (M2, versions 256–272)",
		Exts:        []string{".m2"},
		Match:       func(head []byte) bool { return bytes.HasPrefix(head, []byte("MD20")) },
		Decode:      Decode,
		Options: []codec.Option{
			{Name: "geosets", Help: "all keeps every character geoset (hairstyles…), default the game's default set",
				Check: func(v string) error { _, err := parseGeosets(v); return err }},
			{Name: "profile", Help: "N picks skin profile N (0–99) when the model has it",
				Check: func(v string) error { _, err := parseProfile(v); return err }},
			codec.Effects,
		},
	})
}

// Decode decodes src with the options it carries (see ParseOptions; other formats' options are
// ignored).
func Decode(src codec.Source) (*scene.Scene, error) {
	mine := map[string]string{}
	for _, k := range []string{"geosets", "profile"} {
		if v, ok := src.Options[k]; ok {
			mine[k] = v
		}
	}
	opt, err := ParseOptions(mine)
	if err != nil {
		return nil, &codec.FormatError{Format: Format, File: src.Name, Offset: -1, Msg: "bad option", Err: err}
	}
	return DecodeWith(src, opt)
}

// DecodeWith decodes src: the .m2 with its skin profile and .anim files, opened through
// src.Companion (so the mount records them and re-translates when they change).
func DecodeWith(src codec.Source, opt Options) (*scene.Scene, error) {
	var open CompanionFunc
	if src.FS != nil {
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
	var err error
	for k, v := range kv {
		switch k {
		case "geosets":
			o.AllGeosets, err = parseGeosets(v)
		case "profile":
			o.Profile, err = parseProfile(v)
		default:
			return o, fmt.Errorf("unknown m2 option %q (known: geosets, profile)", k)
		}
		if err != nil {
			return o, fmt.Errorf("m2 option %s=%q: %w", k, v, err)
		}
	}
	return o, nil
}

func parseGeosets(v string) (all bool, err error) {
	switch v {
	case "all":
		return true, nil
	case "default", "":
		return false, nil
	}
	return false, errors.New("want all or default")
}

func parseProfile(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 99 {
		return 0, errors.New("want a number 0–99")
	}
	return n, nil
}
