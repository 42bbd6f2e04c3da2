// Package ziptest writes zip archives byte for byte for tests: what a member's headers say is
// what the test says, true or not — sizes that lie, members that share one stream, checksums
// that are wrong, zip64 fields, data descriptors.
package ziptest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/klauspost/compress/flate"
)

// Member is one member of an archive Zip writes byte for byte: what its headers say is
// what the test says, true or not.
type Member struct {
	Name   string
	Method uint16
	Flags  uint16
	CRC    uint32
	CSize  uint64
	USize  uint64
	Data   []byte // its stored bytes
	// At, when set, makes the central record point at the local header of the member of that
	// index (plus one) instead of its own, whose bytes are then not written.
	At int
	// Zip64 writes the sizes in a zip64 extra field of the central record.
	Zip64 bool
	// Descriptor, when set, follows the data.
	Descriptor []byte
	// LocalSizes, when set, are the sizes (stored, unpacked) and checksum the local header
	// says instead.
	LocalSizes *[3]uint64
}

// True returns a true member: its bytes deflated (or stored) and its headers saying so.
func True(name string, body []byte, method uint16) Member {
	data := body
	if method == 8 {
		data = Deflate(body)
	}
	return Member{Name: name, Method: method, CRC: crc32.ChecksumIEEE(body), CSize: uint64(len(data)), USize: uint64(len(body)), Data: data}
}

// Deflate compresses b as a zip's deflated member is.
func Deflate(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// Zip writes the members as a zip archive.
func Zip(members ...Member) []byte { return write(members, false) }

// Zip64 writes the members as a zip64 archive: a zip64 end record and its locator before the
// end record, whose counts and offsets say to look there.
func Zip64(members ...Member) []byte { return write(members, true) }

func write(members []Member, zip64 bool) []byte {
	var out bytes.Buffer
	u16 := func(v uint16) { binary.Write(&out, binary.LittleEndian, v) }
	u32 := func(v uint32) { binary.Write(&out, binary.LittleEndian, v) }
	offs := make([]int, len(members))
	for i, m := range members {
		if m.At > 0 {
			continue
		}
		offs[i] = out.Len()
		crc, csize, usize := uint64(m.CRC), m.CSize, m.USize
		if m.LocalSizes != nil {
			crc, csize, usize = m.LocalSizes[2], m.LocalSizes[0], m.LocalSizes[1]
		}
		u32(0x04034b50)
		u16(20)
		u16(m.Flags)
		u16(m.Method)
		u16(0)
		u16(0x21)
		u32(uint32(crc))
		u32(uint32(min(csize, 0xffffffff)))
		u32(uint32(min(usize, 0xffffffff)))
		u16(uint16(len(m.Name)))
		u16(0)
		out.WriteString(m.Name)
		out.Write(m.Data)
		out.Write(m.Descriptor)
	}
	cd := out.Len()
	for i, m := range members {
		off := offs[i]
		if m.At > 0 {
			off = offs[m.At-1]
		}
		var extra []byte
		csize, usize := uint32(min(m.CSize, 0xffffffff)), uint32(min(m.USize, 0xffffffff))
		if m.Zip64 {
			csize, usize = 0xffffffff, 0xffffffff
			extra = binary.LittleEndian.AppendUint16(extra, 1)
			extra = binary.LittleEndian.AppendUint16(extra, 16)
			extra = binary.LittleEndian.AppendUint64(extra, m.USize)
			extra = binary.LittleEndian.AppendUint64(extra, m.CSize)
		}
		u32(0x02014b50)
		u16(20)
		u16(20)
		u16(m.Flags)
		u16(m.Method)
		u16(0)
		u16(0x21)
		u32(m.CRC)
		u32(csize)
		u32(usize)
		u16(uint16(len(m.Name)))
		u16(uint16(len(extra)))
		u16(0)
		u16(0)
		u16(0)
		u32(0)
		u32(uint32(off))
		out.WriteString(m.Name)
		out.Write(extra)
	}
	end := out.Len()
	records, size, at := uint16(len(members)), uint32(end-cd), uint32(cd)
	if zip64 {
		u64 := func(v uint64) { binary.Write(&out, binary.LittleEndian, v) }
		u32(0x06064b50)
		u64(44) // the size of what follows
		u16(45)
		u16(45)
		u32(0)
		u32(0)
		u64(uint64(len(members)))
		u64(uint64(len(members)))
		u64(uint64(end - cd))
		u64(uint64(cd))
		u32(0x07064b50)
		u32(0)
		u64(uint64(end))
		u32(1)
		records, size, at = 0xffff, 0xffffffff, 0xffffffff
	}
	u32(0x06054b50)
	u16(0)
	u16(0)
	u16(records)
	u16(records)
	u32(size)
	u32(at)
	u16(0)
	return out.Bytes()
}

// Overlapping returns the members of the zip bomb of many members over one stream: n members
// named m000.mdx, m001.mdx, …, each a central record pointing at the first one's local header,
// whose stream deflates size bytes of zeros.
func Overlapping(n, size int) []Member {
	stream := True("m000.mdx", make([]byte, size), 8)
	ms := []Member{stream}
	for i := 1; i < n; i++ {
		m := stream
		m.Name, m.At = fmt.Sprintf("m%03d.mdx", i), 1
		ms = append(ms, m)
	}
	return ms
}
