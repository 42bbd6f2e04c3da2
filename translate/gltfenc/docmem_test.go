package gltfenc

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/qmuntal/gltf"

	"github.com/modelfs/modelfs/translate/gltfenc/gltfjson"
	"github.com/modelfs/modelfs/translate/scene"
)

// TestDocMemReuse encodes every test scene in the memory of every other one, as Encode does with
// its pooled docMem, and checks that nothing of the earlier scene reaches the output (it equals
// the output of a fresh Document) and that, once reset, the docMem keeps nothing reachable but
// its own zeroed blocks and empty maps.
func TestDocMemReuse(t *testing.T) {
	scenes := testScenes()
	mem := new(docMem)
	encodeIn := func(name string, s *scene.Scene, opt Options) ([]byte, error) {
		t.Helper()
		e := newEncoder(s, opt, make([]byte, 0, plannedSize(s, opt)), mem)
		err := e.build()
		var out []byte
		if err == nil {
			out, err = gltfjson.Write(e.doc, opt.Binary)
		}
		mem.reset()
		checkCleared(t, name, mem)
		return out, err
	}
	for _, opt := range []Options{{}, {Binary: true}, {EmbedImages: true}} {
		for _, a := range scenes {
			for _, b := range scenes {
				name := fmt.Sprintf("%+v: %s after %s", opt, b.name, a.name)
				_, _ = encodeIn(name, a.s, opt) // only what it leaves in mem matters
				got, err := encodeIn(name, b.s, opt)
				doc, errWant := Document(b.s, opt)
				var want []byte
				if errWant == nil {
					want, errWant = gltfjson.Write(doc, opt.Binary)
				}
				if fmt.Sprint(err) != fmt.Sprint(errWant) || !bytes.Equal(got, want) {
					t.Errorf("%s: differs from a fresh encoding (%v, %v)", name, err, errWant)
				}
			}
		}
	}
}

// checkCleared fails unless every block of m is zero up to its capacity and every map is empty.
func checkCleared(t *testing.T, name string, m *docMem) {
	t.Helper()
	v := reflect.ValueOf(m).Elem()
	for i := range v.NumField() {
		f, field := v.Field(i), v.Type().Field(i).Name
		switch f.Kind() {
		case reflect.Slice:
			if field == "maps" {
				for j := range f.Len() {
					if n := f.Index(j).Len(); n != 0 {
						t.Fatalf("%s: extras map %d keeps %d entries", name, j, n)
					}
				}
				continue
			}
			all := f.Slice3(0, f.Cap(), f.Cap())
			for j := range all.Len() {
				if !all.Index(j).IsZero() {
					t.Fatalf("%s: %s[%d] of %d is not zero", name, field, j, f.Cap())
				}
			}
		case reflect.Map:
			if f.Len() != 0 {
				t.Fatalf("%s: %s keeps %d entries", name, field, f.Len())
			}
		case reflect.Int:
			if f.Int() != 0 {
				t.Fatalf("%s: %s is %d", name, field, f.Int())
			}
		default:
			t.Fatalf("%s: field %s of kind %s is not checked", name, field, f.Kind())
		}
	}
}

// TestDocumentNotPooled checks that a Document's objects are its own: encodings after it, which
// reuse pooled memory, leave what it writes unchanged.
func TestDocumentNotPooled(t *testing.T) {
	scenes := testScenes()
	type kept struct {
		name string
		doc  *gltf.Document
		text []byte
	}
	var docs []kept
	for _, tc := range scenes {
		doc, err := Document(tc.s, Options{Binary: true})
		if err != nil {
			continue
		}
		text, err := gltfjson.Write(doc, true)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, kept{tc.name, doc, text})
		for _, other := range scenes {
			Encode(other.s, Options{Binary: true})
			Encode(other.s, Options{})
		}
	}
	for _, k := range docs {
		text, err := gltfjson.Write(k.doc, true)
		if err != nil || !bytes.Equal(text, k.text) {
			t.Errorf("%s: document changed by later encodings (%v)", k.name, err)
		}
	}
}
