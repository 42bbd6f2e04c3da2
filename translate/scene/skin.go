package scene

// PivotSkin returns the skin whose joints are all of nodes, bound at their pivots: joint i is
// node i, its inverse bind matrix the translation by −pivots[i] (the bind pose of formats that
// store vertices in model space and bones as pivot points). The skeleton is the single root
// node, or -1 when there are several.
func PivotSkin(name string, nodes []Node, pivots [][3]float32) Skin {
	n := len(nodes)
	sk := Skin{Name: name, Joints: make([]int, n), InverseBind: make([][16]float32, n), Skeleton: -1}
	roots := 0
	for i := range n {
		sk.Joints[i] = i
		p := pivots[i]
		sk.InverseBind[i] = [16]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -p[0], -p[1], -p[2], 1}
		if nodes[i].Parent < 0 {
			roots++
			sk.Skeleton = i
		}
	}
	if roots != 1 {
		sk.Skeleton = -1
	}
	return sk
}
