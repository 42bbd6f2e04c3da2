package meteor

import "math"

// The .bnc prints pivots with three decimals and quaternions with five, while the .amb stores
// floats; frame 0 of a character's .amb is its bind pose (see the format notes). bindPose takes
// the bind pose from frame 0 when every value there agrees with the .bnc to the .bnc's printed
// precision, so that the rest pose, the inverse bind matrices and the animations agree exactly
// instead of to the third decimal.

// Tolerances of the comparison: half a unit in the last printed place, plus room for float32
// rounding of values up to a few hundred units.
const (
	bindPivotTolerance = 0.0005 + 5e-5
	bindQuatTolerance  = 0.000005 + 5e-6
)

// bindPose returns every joint's pivot and rotation (w, x, y, z; source axes) from frame 0 of f:
// the root bone's translation, every bone's rotation and every dummy's transform; the other
// bones' pivots, which the .amb does not hold, are the .bnc's. Both are nil when f is nil, has
// no frame 0, or disagrees with the .bnc anywhere beyond the tolerances above.
func bindPose(sk *Skeleton, f *frames) (pivots [][3]float64, quats [][4]float64) {
	if f == nil || !f.dummies || f.a.Bones != sk.Bones || sk.Bones == 0 {
		return nil, nil
	}
	a := f.a
	r, ok := a.Record(0)
	if !ok {
		return nil, nil
	}
	n := len(sk.Joints)
	pivots, quats = make([][3]float64, n), make([][4]float64, n)
	for i := range sk.Joints {
		pivots[i], quats[i] = sk.Joints[i].Pivot, sk.Joints[i].Quat
	}
	setPivot := func(i int, p [3]float32) bool {
		for k := range p {
			if math.Abs(float64(p[k])-pivots[i][k]) > bindPivotTolerance {
				return false
			}
			pivots[i][k] = float64(p[k])
		}
		return true
	}
	setQuat := func(i int, q [4]float32) bool {
		if !sameQuat(q, quats[i]) {
			return false
		}
		for k := range q {
			quats[i][k] = float64(q[k])
		}
		return true
	}
	if !setPivot(0, a.RootPos(r)) {
		return nil, nil
	}
	for i := range sk.Bones {
		if !setQuat(i, a.BoneQuat(r, i)) {
			return nil, nil
		}
	}
	for d := range a.Dummies {
		df := a.Dummy(r, d)
		if !setPivot(sk.Bones+d, df.Pos) || !setQuat(sk.Bones+d, df.Quat) {
			return nil, nil
		}
	}
	return pivots, quats
}

// sameQuat reports whether got and want agree within bindQuatTolerance per component, up to
// sign.
func sameQuat(got [4]float32, want [4]float64) bool { return quatDiff(got, want) <= bindQuatTolerance }

// quatDiff is the largest difference between the components of two quaternions written in the
// same order, up to sign (q and −q are one rotation).
func quatDiff(got [4]float32, want [4]float64) float64 {
	pos, neg := 0.0, 0.0
	for k := range got {
		g := float64(got[k])
		pos = max(pos, math.Abs(g-want[k]))
		neg = max(neg, math.Abs(g+want[k]))
	}
	return min(pos, neg)
}
