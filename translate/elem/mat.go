package elem

import "math"

// mat4 is a 4×4 matrix in glTF's column-major, column-vector layout: element (row r, column c)
// is m[4c+r]. A Direct3D row-major, row-vector matrix read in file order is already one.
type mat4 [16]float64

func identity() mat4 { return mat4{0: 1, 5: 1, 10: 1, 15: 1} }

func fromFile(a [16]float32) mat4 {
	var m mat4
	for i, v := range a {
		m[i] = float64(v)
	}
	return m
}

func (m mat4) f32() [16]float32 {
	var out [16]float32
	for i, v := range m {
		out[i] = float32(v)
	}
	return out
}

// mul returns m·n.
func (m mat4) mul(n mat4) mat4 {
	var r mat4
	for c := 0; c < 4; c++ {
		for row := 0; row < 4; row++ {
			var s float64
			for k := 0; k < 4; k++ {
				s += m[4*k+row] * n[4*c+k]
			}
			r[4*c+row] = s
		}
	}
	return r
}

// mirrorZ returns S·m·S with S = diag(1, 1, −1, 1): the same transform seen with Z negated.
// The elements with exactly one index equal to 2 change sign.
func mirrorZ(m mat4) mat4 {
	for _, i := range [...]int{2, 6, 8, 9, 11, 14} {
		m[i] = -m[i]
	}
	return m
}

// invert returns the inverse of m, false when m is singular.
func invert(m mat4) (mat4, bool) {
	var inv mat4
	inv[0] = m[5]*m[10]*m[15] - m[5]*m[11]*m[14] - m[9]*m[6]*m[15] + m[9]*m[7]*m[14] + m[13]*m[6]*m[11] - m[13]*m[7]*m[10]
	inv[4] = -m[4]*m[10]*m[15] + m[4]*m[11]*m[14] + m[8]*m[6]*m[15] - m[8]*m[7]*m[14] - m[12]*m[6]*m[11] + m[12]*m[7]*m[10]
	inv[8] = m[4]*m[9]*m[15] - m[4]*m[11]*m[13] - m[8]*m[5]*m[15] + m[8]*m[7]*m[13] + m[12]*m[5]*m[11] - m[12]*m[7]*m[9]
	inv[12] = -m[4]*m[9]*m[14] + m[4]*m[10]*m[13] + m[8]*m[5]*m[14] - m[8]*m[6]*m[13] - m[12]*m[5]*m[10] + m[12]*m[6]*m[9]
	inv[1] = -m[1]*m[10]*m[15] + m[1]*m[11]*m[14] + m[9]*m[2]*m[15] - m[9]*m[3]*m[14] - m[13]*m[2]*m[11] + m[13]*m[3]*m[10]
	inv[5] = m[0]*m[10]*m[15] - m[0]*m[11]*m[14] - m[8]*m[2]*m[15] + m[8]*m[3]*m[14] + m[12]*m[2]*m[11] - m[12]*m[3]*m[10]
	inv[9] = -m[0]*m[9]*m[15] + m[0]*m[11]*m[13] + m[8]*m[1]*m[15] - m[8]*m[3]*m[13] - m[12]*m[1]*m[11] + m[12]*m[3]*m[9]
	inv[13] = m[0]*m[9]*m[14] - m[0]*m[10]*m[13] - m[8]*m[1]*m[14] + m[8]*m[2]*m[13] + m[12]*m[1]*m[10] - m[12]*m[2]*m[9]
	inv[2] = m[1]*m[6]*m[15] - m[1]*m[7]*m[14] - m[5]*m[2]*m[15] + m[5]*m[3]*m[14] + m[13]*m[2]*m[7] - m[13]*m[3]*m[6]
	inv[6] = -m[0]*m[6]*m[15] + m[0]*m[7]*m[14] + m[4]*m[2]*m[15] - m[4]*m[3]*m[14] - m[12]*m[2]*m[7] + m[12]*m[3]*m[6]
	inv[10] = m[0]*m[5]*m[15] - m[0]*m[7]*m[13] - m[4]*m[1]*m[15] + m[4]*m[3]*m[13] + m[12]*m[1]*m[7] - m[12]*m[3]*m[5]
	inv[14] = -m[0]*m[5]*m[14] + m[0]*m[6]*m[13] + m[4]*m[1]*m[14] - m[4]*m[2]*m[13] - m[12]*m[1]*m[6] + m[12]*m[2]*m[5]
	inv[3] = -m[1]*m[6]*m[11] + m[1]*m[7]*m[10] + m[5]*m[2]*m[11] - m[5]*m[3]*m[10] - m[9]*m[2]*m[7] + m[9]*m[3]*m[6]
	inv[7] = m[0]*m[6]*m[11] - m[0]*m[7]*m[10] - m[4]*m[2]*m[11] + m[4]*m[3]*m[10] + m[8]*m[2]*m[7] - m[8]*m[3]*m[6]
	inv[11] = -m[0]*m[5]*m[11] + m[0]*m[7]*m[9] + m[4]*m[1]*m[11] - m[4]*m[3]*m[9] - m[8]*m[1]*m[7] + m[8]*m[3]*m[5]
	inv[15] = m[0]*m[5]*m[10] - m[0]*m[6]*m[9] - m[4]*m[1]*m[10] + m[4]*m[2]*m[9] + m[8]*m[1]*m[6] - m[8]*m[2]*m[5]
	det := m[0]*inv[0] + m[1]*inv[4] + m[2]*inv[8] + m[3]*inv[12]
	if det == 0 || math.IsNaN(det) || math.IsInf(det, 0) {
		return mat4{}, false
	}
	for i := range inv {
		inv[i] /= det
	}
	return inv, true
}

type vec3 = [3]float64
type quat = [4]float64 // x, y, z, w

// compose returns T(t)·R(q)·S(s).
func compose(t vec3, q quat, s vec3) mat4 {
	x, y, z, w := q[0], q[1], q[2], q[3]
	r := [9]float64{ // row-major rotation
		1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w),
		2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w),
		2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y),
	}
	var m mat4
	for c := 0; c < 3; c++ {
		for row := 0; row < 3; row++ {
			m[4*c+row] = r[3*row+c] * s[c]
		}
	}
	m[12], m[13], m[14], m[15] = t[0], t[1], t[2], 1
	return m
}

// decompose splits m into T·R·S. exact reports whether that reproduces m (no shear, no
// projection, no zero scale) to within 1e-4 relative; a mirroring matrix gets a negative X scale.
func decompose(m mat4) (t vec3, q quat, s vec3, exact bool) {
	t = vec3{m[12], m[13], m[14]}
	var cols [3]vec3
	for c := 0; c < 3; c++ {
		cols[c] = vec3{m[4*c], m[4*c+1], m[4*c+2]}
		s[c] = math.Sqrt(dot(cols[c], cols[c]))
	}
	q = quat{0, 0, 0, 1}
	if s[0] == 0 || s[1] == 0 || s[2] == 0 || !finite(s[0]+s[1]+s[2]) {
		return t, q, s, false
	}
	if dot(cross(cols[0], cols[1]), cols[2]) < 0 {
		s[0] = -s[0]
	}
	var r [9]float64 // row-major
	for c := 0; c < 3; c++ {
		for row := 0; row < 3; row++ {
			r[3*row+c] = cols[c][row] / s[c]
		}
	}
	q = quatFromRot(r)
	back := compose(t, q, s)
	scale := max(1, math.Abs(t[0]), math.Abs(t[1]), math.Abs(t[2]), math.Abs(s[0]), math.Abs(s[1]), math.Abs(s[2]))
	exact = true
	for i := range m {
		if math.Abs(back[i]-m[i]) > 1e-4*scale {
			exact = false
		}
	}
	return t, q, s, exact
}

// quatFromRot converts a row-major rotation matrix to a unit quaternion with w ≥ 0.
func quatFromRot(r [9]float64) quat {
	var q quat
	tr := r[0] + r[4] + r[8]
	switch {
	case tr > 0:
		k := 0.5 / math.Sqrt(tr+1)
		q = quat{(r[7] - r[5]) * k, (r[2] - r[6]) * k, (r[3] - r[1]) * k, 0.25 / k}
	case r[0] > r[4] && r[0] > r[8]:
		k := 2 * math.Sqrt(1+r[0]-r[4]-r[8])
		q = quat{0.25 * k, (r[1] + r[3]) / k, (r[2] + r[6]) / k, (r[7] - r[5]) / k}
	case r[4] > r[8]:
		k := 2 * math.Sqrt(1+r[4]-r[0]-r[8])
		q = quat{(r[1] + r[3]) / k, 0.25 * k, (r[5] + r[7]) / k, (r[2] - r[6]) / k}
	default:
		k := 2 * math.Sqrt(1+r[8]-r[0]-r[4])
		q = quat{(r[2] + r[6]) / k, (r[5] + r[7]) / k, 0.25 * k, (r[3] - r[1]) / k}
	}
	q = normQuat(q)
	if q[3] < 0 {
		q = quat{-q[0], -q[1], -q[2], -q[3]}
	}
	return q
}

func normQuat(q quat) quat {
	l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if l == 0 || !finite(l) {
		return quat{0, 0, 0, 1}
	}
	return quat{q[0] / l, q[1] / l, q[2] / l, q[3] / l}
}

// quatMul returns a·b (apply b, then a).
func quatMul(a, b quat) quat {
	return quat{
		a[3]*b[0] + a[0]*b[3] + a[1]*b[2] - a[2]*b[1],
		a[3]*b[1] - a[0]*b[2] + a[1]*b[3] + a[2]*b[0],
		a[3]*b[2] + a[0]*b[1] - a[1]*b[0] + a[2]*b[3],
		a[3]*b[3] - a[0]*b[0] - a[1]*b[1] - a[2]*b[2],
	}
}

// rotate returns v rotated by the unit quaternion q.
func rotate(q quat, v vec3) vec3 {
	u := vec3{q[0], q[1], q[2]}
	t := cross(u, v)
	t = vec3{2 * t[0], 2 * t[1], 2 * t[2]}
	c := cross(u, t)
	return vec3{v[0] + q[3]*t[0] + c[0], v[1] + q[3]*t[1] + c[1], v[2] + q[3]*t[2] + c[2]}
}

func dot(a, b vec3) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

func cross(a, b vec3) vec3 {
	return vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// transformPoint returns m·(p, 1).
func transformPoint(m mat4, p [3]float32) [3]float32 {
	x, y, z := float64(p[0]), float64(p[1]), float64(p[2])
	return [3]float32{
		float32(m[0]*x + m[4]*y + m[8]*z + m[12]),
		float32(m[1]*x + m[5]*y + m[9]*z + m[13]),
		float32(m[2]*x + m[6]*y + m[10]*z + m[14]),
	}
}

// transformNormal returns the unit normal n transformed by the inverse transpose of a matrix
// whose inverse is inv.
func transformNormal(inv mat4, n [3]float32) [3]float32 {
	x, y, z := float64(n[0]), float64(n[1]), float64(n[2])
	v := vec3{inv[0]*x + inv[1]*y + inv[2]*z, inv[4]*x + inv[5]*y + inv[6]*z, inv[8]*x + inv[9]*y + inv[10]*z}
	l := math.Sqrt(dot(v, v))
	if l == 0 || !finite(l) {
		return n
	}
	return [3]float32{float32(v[0] / l), float32(v[1] / l), float32(v[2] / l)}
}

// finiteMat reports whether every element of m is finite.
func finiteMat(m mat4) bool {
	for _, v := range m {
		if !finite(v) {
			return false
		}
	}
	return true
}

// f32AsF64 rounds m to float32 precision (overflowing elements become infinite).
func (m mat4) f32AsF64() mat4 {
	for i, v := range m {
		m[i] = float64(float32(v))
	}
	return m
}

// finiteF32 reports whether t and s stay finite in float32.
func finiteF32(t, s vec3) bool {
	for _, v := range [...]float64{t[0], t[1], t[2], s[0], s[1], s[2]} {
		if !finite(float64(float32(v))) {
			return false
		}
	}
	return true
}
