package vfs

import (
	"errors"
	"io/fs"
	"path"
	"slices"
	"sync"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/metajson"
)

// recorder wraps a Source's companion opener and remembers what was read, as it was just before
// reading (so a change during the read shows up as a new key, never as a stale one).
type recorder struct {
	f     *fsys
	mu    sync.Mutex
	comps []companion
}

func (r *recorder) open(name string) ([]byte, error) {
	r.note(name)
	return translate.ReadFileIn(r.f.root, name)
}

// note records name's current identity, once.
func (r *recorder) note(name string) {
	c := r.f.statCompanion(name)
	if clean, ok := cleanCompanion(name); ok {
		c.name = clean
	}
	r.mu.Lock()
	if !slices.ContainsFunc(r.comps, func(o companion) bool { return o.name == c.name }) {
		r.comps = append(r.comps, c)
	}
	r.mu.Unlock()
}

// readdir lists a directory for a decoder looking for companions by name, recording the
// directory's identity: adding, removing or renaming an entry changes its mtime, so a model
// whose companion search could now find something else is translated again.
func (r *recorder) readdir(dir string) ([]string, error) {
	r.note(dir)
	return translate.RootLister(r.f.root)(dir)
}

// list returns the companions read, sorted by name.
func (r *recorder) list() []companion {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.comps)
	slices.SortFunc(out, func(a, b companion) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	return out
}

// translate reads the model of k and encodes it as kind: exactly what
// `modelfs convert --root SRC SRC/<k.src> -o NAME.kind` writes. A model that cannot be read,
// decoded or encoded is a *failure, except that its .json is the error document.
func (f *fsys) translate(k *modelKey, kind translate.Kind) ([]byte, []companion, error) {
	f.translations.Add(1)
	if f.opt.OnTranslate != nil {
		f.opt.OnTranslate(k.src, kind)
	}
	rec := &recorder{f: f}
	data, format, err := f.encode(k.src, kind, rec)
	if err == nil {
		return data, rec.list(), nil
	}
	var fe *failure
	if !errors.As(err, &fe) {
		return nil, rec.list(), err // the source went away since its key was made
	}
	f.failures.Add(1)
	f.logFailure(k, format, err)
	if kind == translate.JSON {
		return metajson.EncodeError(k.src, format, err), rec.list(), nil
	}
	return nil, rec.list(), &failure{path: k.src, format: format, err: err}
}

// encode runs the pipeline. Errors other than a vanished source are returned as *failure.
func (f *fsys) encode(src string, kind translate.Kind, rec *recorder) (data []byte, format string, err error) {
	raw, err := translate.ReadFileIn(f.root, src)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", err
		}
		return nil, "", &failure{path: src, err: err}
	}
	if kind == translate.PNG {
		out, err := translate.ConvertTexture(src, raw)
		if err != nil {
			return nil, "texture", &failure{path: src, format: "texture", err: err}
		}
		return out, "texture", nil
	}
	source := translate.Source{Name: src, Data: raw, Open: rec.open, List: rec.readdir, Options: f.opt.DecoderOptions}
	s, ft, err := translate.Decode(source)
	if ft != nil {
		format = ft.Name
	}
	if err != nil {
		return nil, format, &failure{path: src, format: format, err: err}
	}
	out, err := translate.Output(source, s, kind, translate.EncodeOptions{MTLName: path.Base(src) + ".mtl"})
	s.Release() // out is a copy; the decoder may reuse the scene's memory
	if err != nil {
		return nil, format, &failure{path: src, format: format, err: err}
	}
	return out, format, nil
}

// logFailure logs a failed model once per model identity (not per kind or read).
func (f *fsys) logFailure(k *modelKey, format string, err error) {
	var fe *failure
	if errors.As(err, &fe) {
		err = fe.err
	}
	f.mu.Lock()
	_, done := f.logged[k.model]
	if !done {
		if len(f.logged) >= maxLogged {
			clear(f.logged)
		}
		f.logged[k.model] = struct{}{}
	}
	f.mu.Unlock()
	if !done {
		msg := "model failed to translate"
		if format == "texture" {
			msg = "texture failed to decode"
		}
		f.opt.Logger.Warn(msg, "path", k.src, "format", format, "err", err)
	}
}
