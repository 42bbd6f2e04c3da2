package meteor

import "math"

// Axes: 3ds Max is right-handed Z-up, glTF right-handed Y-up. The proper rotation
// (x, y, z) → (x, z, −y) converts positions and translations; conjugating a rotation by it maps
// a quaternion's vector part the same way.

// Axes describes the source frame and the conversion applied.
const Axes = "Z-up right-handed (3ds Max), converted to Y-up by (x, y, z) → (x, z, −y); UV v → 1 − v"

func convPos32(v [3]float32) [3]float32 { return [3]float32{v[0], v[2], -v[1]} }

func convPos(v [3]float64) [3]float64 { return [3]float64{v[0], v[2], -v[1]} }

// quat is a rotation as x, y, z, w in glTF axes.
type quat [4]float64

// convQuat takes a source quaternion written w, x, y, z, normalises it and converts it to glTF
// axes as x, y, z, w. A zero quaternion becomes the identity.
func convQuat(w, x, y, z float64) quat {
	n := math.Sqrt(w*w + x*x + y*y + z*z)
	if !(n > 1e-12) || math.IsInf(n, 0) {
		return quat{0, 0, 0, 1}
	}
	return quat{x / n, z / n, -y / n, w / n}
}

func (q quat) f32() [4]float32 {
	return [4]float32{float32(q[0]), float32(q[1]), float32(q[2]), float32(q[3])}
}

// rigid is a rotation (3×3, row-major) plus a translation.
type rigid struct {
	r [9]float64
	t [3]float64
}

// fromTR builds T(t)·R(q).
func fromTR(t [3]float64, q quat) rigid {
	x, y, z, w := q[0], q[1], q[2], q[3]
	return rigid{
		r: [9]float64{
			1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w),
			2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w),
			2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y),
		},
		t: t,
	}
}

// mul returns a·b.
func (a rigid) mul(b rigid) rigid {
	var c rigid
	for i := range 3 {
		for j := range 3 {
			c.r[3*i+j] = a.r[3*i]*b.r[j] + a.r[3*i+1]*b.r[3+j] + a.r[3*i+2]*b.r[6+j]
		}
		c.t[i] = a.r[3*i]*b.t[0] + a.r[3*i+1]*b.t[1] + a.r[3*i+2]*b.t[2] + a.t[i]
	}
	return c
}

// inverse returns the inverse of a rigid transform: (Rᵀ, −Rᵀt).
func (a rigid) inverse() rigid {
	var c rigid
	for i := range 3 {
		for j := range 3 {
			c.r[3*i+j] = a.r[3*j+i]
		}
	}
	for i := range 3 {
		c.t[i] = -(c.r[3*i]*a.t[0] + c.r[3*i+1]*a.t[1] + c.r[3*i+2]*a.t[2])
	}
	return c
}

// mat4 returns the transform as a column-major 4×4 float32 matrix.
func (a rigid) mat4() [16]float32 {
	r := a.r
	return [16]float32{
		float32(r[0]), float32(r[3]), float32(r[6]), 0,
		float32(r[1]), float32(r[4]), float32(r[7]), 0,
		float32(r[2]), float32(r[5]), float32(r[8]), 0,
		float32(a.t[0]), float32(a.t[1]), float32(a.t[2]), 1,
	}
}
