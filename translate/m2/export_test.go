package m2

import "math"

// RawRotations reads the model like Read, returning every compressed rotation key of its bones
// as stored (four int16s), for tests of the decoding.
func RawRotations(name string, data []byte, open CompanionFunc) ([][4]int16, error) {
	m, err := read(name, data, open, Options{}, true, &keyMem{})
	if err != nil {
		return nil, err
	}
	var out [][4]int16
	if !m.Layout.CompressedQuats {
		return nil, nil
	}
	for i := range m.Bones {
		for _, k := range m.Bones[i].Rotation.Keys {
			for j := 0; j+4 <= len(k.Values); j += 4 {
				out = append(out, [4]int16{int16(k.Values[j]), int16(k.Values[j+1]), int16(k.Values[j+2]), int16(k.Values[j+3])})
			}
		}
	}
	return out, nil
}

// PoisonKeyMem puts into the pool key memory whose every block is filled with garbage, as
// stale memory from earlier models would be, so that tests can check that decoding writes
// everything it reads.
func PoisonKeyMem(elems int) {
	km := &keyMem{}
	t := km.times.Take(elems)
	for i := range t {
		t[i] = 0xdeadbeef
	}
	nan := float32(math.NaN())
	v := km.values.Take(4 * elems)
	for i := range v {
		v[i] = nan
	}
	r := km.ranges.Take(elems)
	for i := range r {
		r[i] = [2]uint32{7, 3}
	}
	k := km.keyLists.Take(elems)
	for i := range k {
		k[i] = Keys{Times: []uint32{1, 2}, Values: []float32{nan}}
	}
	vs := km.vertices.Take(elems)
	for i := range vs {
		vs[i] = Vertex{Pos: [3]float32{nan, nan, nan}, Weights: [4]uint8{9, 9, 9, 9}, Bones: [4]uint8{200, 200, 200, 200}}
	}
	putKeyMem(km)
}
