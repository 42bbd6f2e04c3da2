package metajsontest

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelfs/modelfs/translate/internal/testkit/testscene"
	"github.com/modelfs/modelfs/translate/metajson"
)

// Every test scene's document, odd strings included, conforms to the schema.
func TestDocumentsConform(t *testing.T) {
	for _, c := range testscene.All() {
		c.Scene.MakePlain() // as the pipeline does
		out, err := metajson.Encode(c.Scene)
		if err != nil {
			t.Fatal(err)
		}
		if err := Validate(out); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}

// So does every error document, whatever the path and message hold.
func TestErrorDocumentsConform(t *testing.T) {
	for _, tc := range []struct {
		path, format string
		err          error
	}{
		{"units/a.mdx", "mdx", errors.New("units/a.mdx: mdx: offset 12 (0xc): bad chunk")},
		{"b\xff.mdl", "", nil},
		{"", "mdl", errors.New("line 3:\n\"quoted\"\t\x00")},
	} {
		doc := metajson.EncodeError(tc.path, tc.format, tc.err)
		if err := Validate(doc); err != nil {
			t.Errorf("%q: %v\n%s", tc.path, err, doc)
		}
		var d struct {
			Modelfs int
			Error   string
			Source  struct{ Path, Format string }
		}
		if err := json.Unmarshal(doc, &d); err != nil {
			t.Fatal(err)
		}
		if d.Modelfs != metajson.DocVersion || d.Error == "" || d.Source.Format != tc.format {
			t.Errorf("%+v", d)
		}
	}
}

// A document that breaks the schema, or is not JSON, is refused.
func TestSchemaRejects(t *testing.T) {
	good, err := metajson.Encode(testscene.Animated())
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(good, &doc); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(d map[string]any){
		"missing counts":      func(d map[string]any) { delete(d, "counts") },
		"extra top-level key": func(d map[string]any) { d["surprise"] = 1 },
		"wrong version":       func(d map[string]any) { d["modelfs"] = 2 },
		"extra source key":    func(d map[string]any) { d["source"].(map[string]any)["x"] = 1 },
		"bad alpha mode":      func(d map[string]any) { d["materials"].([]any)[0].(map[string]any)["alphaMode"] = "ADD" },
		"short vector":        func(d map[string]any) { d["nodes"].([]any)[0].(map[string]any)["scale"] = []any{1, 1} },
		"negative count":      func(d map[string]any) { d["counts"].(map[string]any)["keys"] = -1 },
		"extras not object":   func(d map[string]any) { d["extras"] = []any{} },
		"error plus document": func(d map[string]any) { d["error"] = "x" },
	} {
		var d map[string]any
		_ = json.Unmarshal(good, &d)
		edit(d)
		b, _ := json.Marshal(d)
		if Validate(b) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for _, bad := range []string{"", "{", `{"modelfs":1}`, "[]", "{} {}", "\"\xff\""} {
		if Validate([]byte(bad)) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
