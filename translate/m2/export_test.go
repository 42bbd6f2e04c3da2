package m2

// RawRotations reads the model like Read, returning every compressed rotation key of its bones
// as stored (four int16s), for tests of the decoding.
func RawRotations(name string, data []byte, open OpenFunc) ([][4]int16, error) {
	m, err := read(name, data, open, Options{}, true)
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
