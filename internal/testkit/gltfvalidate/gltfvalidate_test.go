package gltfvalidate

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

const validGLTF = `{"asset":{"version":"2.0"},"scenes":[{"nodes":[0]}],"scene":0,"nodes":[{"name":"n"}]}`

// brokenGLTF has a node with both a matrix and a translation, and a scene naming a missing node.
const brokenGLTF = `{"asset":{"version":"2.0"},"scenes":[{"nodes":[0, 7]}],"nodes":[{"matrix":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1],"translation":[1,2,3]}]}`

func write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReports(t *testing.T) {
	good := write(t, "good.gltf", validGLTF)
	bad := write(t, "bad.gltf", brokenGLTF)
	junk := write(t, "junk.glb", "not a model at all")
	rs := Reports(t, good, bad, junk)
	if len(rs) != 3 {
		t.Fatalf("%d reports", len(rs))
	}
	if rs[0].File != good || rs[0].Errors != 0 {
		t.Errorf("valid file: %+v", rs[0])
	}
	if rs[1].Errors < 2 || !slices.Contains(rs[1].Codes(SeverityError), "NODE_MATRIX_TRS") {
		t.Errorf("broken file: %+v", rs[1])
	}
	if rs[2].Errors == 0 {
		t.Errorf("junk file: %+v", rs[2])
	}
	for _, m := range rs[1].Messages {
		if m.Severity == SeverityError && m.Pointer == "" {
			t.Errorf("error without pointer: %s", m)
		}
	}
}

func TestCheckValid(t *testing.T) {
	rs := Check(t, write(t, "good.gltf", validGLTF))
	if len(rs) != 1 || rs[0].Errors != 0 {
		t.Errorf("%+v", rs)
	}
}

// TestCheckFails runs Check on a broken file against a recorder and expects it to fail.
func TestCheckFails(t *testing.T) {
	bad := write(t, "bad.gltf", brokenGLTF)
	rec := &recorder{TB: t}
	Check(rec, bad)
	if !rec.failed {
		t.Error("Check passed a broken file")
	}
}

// recorder is a testing.TB that notes Errorf instead of failing the real test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.TB.Logf("(expected) "+format, args...)
}
func (r *recorder) Helper() {}
