package scene

import "testing"

func TestPivotSkin(t *testing.T) {
	pivots := [][3]float32{{1, 2, 3}, {4, 5, 6}}
	one := PivotSkin("m", []Node{{Parent: -1}, {Parent: 0}}, pivots)
	if one.Skeleton != 0 || len(one.Joints) != 2 || one.Joints[1] != 1 {
		t.Errorf("one root: %+v", one)
	}
	if ib := one.InverseBind[1]; ib[12] != -4 || ib[13] != -5 || ib[14] != -6 || ib[0] != 1 || ib[15] != 1 {
		t.Errorf("inverse bind of joint 1: %v", ib)
	}
	if two := PivotSkin("m", []Node{{Parent: -1}, {Parent: -1}}, pivots); two.Skeleton != -1 {
		t.Errorf("two roots: skeleton %d, want -1", two.Skeleton)
	}
}
