package m2

import (
	"fmt"
	"slices"
	"testing"
)

// TestFileNamesAsFormatted checks the hand-built companion names against fmt's formatting.
func TestFileNamesAsFormatted(t *testing.T) {
	for _, id := range []uint16{0, 4, 99, 1234, 9999, 10000, 65535} {
		for _, v := range []uint16{0, 1, 9, 10, 99, 100, 65535} {
			if got, want := AnimFileName("Rabbit", id, v), fmt.Sprintf("%s%04d-%02d.anim", "Rabbit", id, v); got != want {
				t.Errorf("AnimFileName(%d, %d) = %q, want %q", id, v, got, want)
			}
		}
	}
	for _, i := range []int{-100, -10, -9, -1, 0, 1, 9, 10, 99, 100, 12345} {
		if got, want := SkinFileName("Rabbit", i), fmt.Sprintf("%s%02d.skin", "Rabbit", i); got != want {
			t.Errorf("SkinFileName(%d) = %q, want %q", i, got, want)
		}
	}
}

// TestFlagNamesAsFormatted checks flagNames against naming every bit in turn.
func TestFlagNamesAsFormatted(t *testing.T) {
	for _, f := range []uint32{0, 1, 0x20, 0x41, 0x8000_0000, 0xffff_ffff, 0x1234_5678} {
		want := []string{}
		for bit := uint32(1); bit != 0; bit <<= 1 {
			if f&bit == 0 {
				continue
			}
			if n, ok := boneFlagNames[bit]; ok {
				want = append(want, n)
			} else {
				want = append(want, fmt.Sprintf("0x%x", bit))
			}
		}
		if got := flagNames(f, boneFlagNames); !slices.Equal(got, want) || got == nil {
			t.Errorf("flagNames(%#x) = %q, want %q", f, got, want)
		}
	}
}
