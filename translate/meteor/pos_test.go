package meteor

import (
	"reflect"
	"testing"
)

// TestParsePOSFolding pins down how keys are compared: scalar keys by ASCII case only, the keys
// a pose reads itself as strings.EqualFold does (ſ and the Kelvin sign fold onto s and k).
func TestParsePOSFolding(t *testing.T) {
	data := "Pose 0 # c\n{\n  \u017fource 1 Start 3\n  END 9\n  lin\u212a 004 5\n  ACTION\n  {\n    \u017ftart 4\n    end 6\n    SPEED 2\n  }\n" +
		"  blend { start 7 end 8 }\n  Attack\n  {\n    Action { start 1 }\n  }\n}\n"
	pt, err := ParsePOS([]byte(data), "x.pos")
	if err != nil {
		t.Fatal(err)
	}
	p := pt.Poses[0]
	if p.Source != 1 || p.Start != 0 || p.End != 9 || p.HasRange || p.Link != "004" || p.Comment != "c" {
		t.Errorf("pose %+v", p)
	}
	// "ſource" is no scalar key: it takes the rest of its line.
	if len(p.Fields) != 0 {
		t.Errorf("fields %+v", p.Fields)
	}
	if want := []Window{{Start: 4, End: 6, Speed: 2}}; !reflect.DeepEqual(p.Actions, want) {
		t.Errorf("actions %+v", p.Actions)
	}
	if want := []Window{{Start: 7, End: 8, Speed: 1}}; !reflect.DeepEqual(p.Blends, want) {
		t.Errorf("blends %+v", p.Blends)
	}
	// An Action below another block is kept as written.
	if len(p.Blocks) != 1 || len(p.Blocks[0].Blocks) != 1 || p.Blocks[0].Blocks[0].Kind != "Action" {
		t.Errorf("blocks %+v", p.Blocks)
	}
}
