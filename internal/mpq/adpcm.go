package mpq

import "errors"

// IMA ADPCM as MPQ stores sound: a byte (unused), the shift (compression level − 1), the first
// sample of each channel as int16, then one byte per sample, the channels taking turns. 0x80
// repeats a channel's last sample with a smaller step; 0x81 raises the step and gives the same
// channel the next byte.

var adpcmSteps = [89]int32{
	7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45, 50, 55, 60, 66, 73, 80, 88, 97, 107, 118, 130, 143,
	157, 173, 190, 209, 230, 253, 279, 307, 337, 371, 408, 449, 494, 544, 598, 658, 724, 796, 876, 963, 1060, 1166, 1282, 1411,
	1552, 1707, 1878, 2066, 2272, 2499, 2749, 3024, 3327, 3660, 4026, 4428, 4871, 5358, 5894, 6484, 7132, 7845, 8630, 9493,
	10442, 11487, 12635, 13899, 15289, 16818, 18500, 20350, 22385, 24623, 27086, 29794, 32767,
}

var adpcmIndex = [32]int32{
	-1, 0, -1, 4, -1, 2, -1, 6, -1, 1, -1, 5, -1, 3, -1, 7,
	-1, 1, -1, 5, -1, 3, -1, 7, -1, 2, -1, 4, -1, 6, -1, 8,
}

func unADPCM(in []byte, limit, channels int) ([]byte, error) {
	if len(in) < 2+2*channels {
		return nil, errors.New("shorter than its header")
	}
	shift := uint(in[1])
	var pred, idx [2]int32
	out := make([]byte, 0, limit)
	emit := func(s int32) bool {
		if limit-len(out) < 2 {
			return false
		}
		out = append(out, byte(s), byte(s>>8))
		return true
	}
	for c := 0; c < channels; c++ {
		pred[c] = int32(int16(le.Uint16(in[2+2*c:])))
		idx[c] = 44
		if !emit(pred[c]) {
			return out, nil
		}
	}
	ch := channels - 1
	for _, e := range in[2+2*channels:] {
		ch = (ch + 1) % channels
		switch e {
		case 0x80:
			if idx[ch] > 0 {
				idx[ch]--
			}
			if !emit(pred[ch]) {
				return out, nil
			}
		case 0x81:
			idx[ch] = min(idx[ch]+8, 88)
			ch = (ch + 1) % channels
		default:
			step := adpcmSteps[idx[ch]]
			diff := step >> min(shift, 31)
			for b := uint(0); b < 6; b++ {
				if e&(1<<b) != 0 {
					diff += step >> b
				}
			}
			p := pred[ch]
			if e&0x40 != 0 {
				p = max(p-diff, -32768)
			} else {
				p = min(p+diff, 32767)
			}
			pred[ch] = p
			if !emit(p) {
				return out, nil
			}
			idx[ch] = min(max(idx[ch]+adpcmIndex[e&0x1F], 0), 88)
		}
	}
	return out, nil
}
