package wc3_test

import (
	"os"
	"sort"
	"testing"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/scene"
	"github.com/modelfs/modelfs/translate/wc3"
	"github.com/modelfs/modelfs/translate/wc3/mdl"
)

func TestZZDiag(t *testing.T) {
	data, _ := os.ReadFile(orcPath)
	m, err := mdl.Read("hce_orc.mdl", data)
	if err != nil {
		t.Fatal(err)
	}
	s, err := wc3.Build(m, translate.Source{Name: "x", Data: data}, "mdl")
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		anim string
		node int
		n    int
		dur  float32
	}
	var rows []row
	for _, a := range s.Animations {
		for _, ch := range a.Channels {
			if ch.Path == scene.PathRotation {
				rows = append(rows, row{a.Name, ch.Node, len(ch.Times), a.Duration})
			}
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].n > rows[j].n })
	for _, r := range rows[:15] {
		t.Logf("%s node %d (%s) keys %d dur %v", r.anim, r.node, s.Nodes[r.node].Name, r.n, r.dur)
	}
	t.Logf("seqs %d, rot channels %d", len(s.Animations), len(rows))
}
