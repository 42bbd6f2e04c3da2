package meteor

import (
	"encoding/binary"
	"errors"
	"github.com/modelfs/modelfs/translate/meteor/meteortest"
	"math"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/translate/codec"
)

func wantFormatError(t *testing.T, err error, format, msg string, line int, offset int64) {
	t.Helper()
	var fe *codec.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T), want a *codec.FormatError", err, err)
	}
	if fe.Format != format || !strings.Contains(fe.Msg, msg) {
		t.Errorf("error %v: want format %s and %q", err, format, msg)
	}
	if line > 0 && fe.Line != line {
		t.Errorf("error %v: line %d, want %d", err, fe.Line, line)
	}
	if offset >= 0 && fe.Offset != offset {
		t.Errorf("error %v: offset %d, want %d", err, fe.Offset, offset)
	}
}

func TestParseBNC(t *testing.T) {
	sk, err := ParseBNC(meteortest.BNC(), "p9.bnc")
	if err != nil {
		t.Fatal(err)
	}
	if sk.Bones != 6 || sk.Dummies() != 2 || len(sk.Warnings) != 0 {
		t.Fatalf("%d bones %d dummies, warnings %q", sk.Bones, sk.Dummies(), sk.Warnings)
	}
	if q := sk.Joints[0].Quat; q != [4]float64{-0.70711, 0, 0, 0.70711} {
		t.Errorf("quaternion %v read out of order", q)
	}
	for ref, want := range map[string]int{"b": 0, "b5": 5, "d0": 6, "d1": 7, "NULL": -1, "d_top": 7, "arm": 5} {
		if got, ok := sk.Index(ref); !ok || got != want {
			t.Errorf("Index(%q) = %d, %v; want %d", ref, got, ok, want)
		}
	}
	for _, ref := range []string{"b6", "d2", "b-1", "x", "b+1", ""} {
		if got, ok := sk.Index(ref); ok {
			t.Errorf("Index(%q) = %d, want no match", ref, got)
		}
	}
	// Keywords may share lines and any whitespace separates them.
	one := "Bones: 1 Dummey: 0\tbone b { parent NULL pivot 1 2 3 quaternion 1 0 0 0 children 0 }"
	if sk, err := ParseBNC([]byte(one), "x.bnc"); err != nil || sk.Joints[0].Pivot != [3]float64{1, 2, 3} || sk.Parents[0] != -1 {
		t.Errorf("one-line skeleton: %v %+v", err, sk)
	}
	// A header count that disagrees is a warning.
	if sk, err := ParseBNC([]byte(strings.Replace(one, "Bones: 1", "Bones: 2", 1)), "x.bnc"); err != nil || len(sk.Warnings) != 1 {
		t.Errorf("count mismatch: %v %+v", err, sk)
	}
	for _, c := range []struct {
		name, data, msg string
		line            int
	}{
		{"empty", "", "no bones", 0},
		{"unknown parent", "bone b\n{\n parent nobody\n pivot 0 0 0\n quaternion 1 0 0 0\n}\n", `parent "nobody" is no bone`, 1},
		{"self parent", "bone b\n{\n parent b\n pivot 0 0 0\n quaternion 1 0 0 0\n}\n", "its own parent", 1},
		{"cycle", "bone a { parent b pivot 0 0 0 quaternion 1 0 0 0 }\nbone b { parent a pivot 0 0 0 quaternion 1 0 0 0 }", "its own ancestor", 1},
		{"number", "bone b\n{\n parent NULL\n pivot 0 zero 0\n}", "not a finite number", 4},
		{"nan", "bone b\n{\n parent NULL\n pivot 0 NaN 0\n}", "not a finite number", 4},
		{"missing", "bone b\n{\n parent NULL\n}", "lacks its parent, pivot or quaternion", 4},
		{"unterminated", "bone b\n{\n parent NULL\n", "unexpected end of file", 0},
		{"keyword", "bone b\n{\n parnet NULL\n}", `unexpected "parnet"`, 3},
		{"top level", "Bonez: 3", `unexpected "Bonez:"`, 1},
		{"huge count", "Bones: 99999999", "out of range", 1},
		{"huge pivot", "bone b\n{\n parent NULL\n pivot 0 1e300 0\n}", "pivot 1e+300 out of range", 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseBNC([]byte(c.data), "x.bnc")
			wantFormatError(t, err, FormatBNC, c.msg, c.line, -1)
		})
	}
}

func TestParseAMB(t *testing.T) {
	data := meteortest.AMBWith(6, 2, 5, 10)
	a, err := ParseAMB(data, "x.amb")
	if err != nil {
		t.Fatal(err)
	}
	if a.Frames != 5 || a.First != 10 || a.Last != 14 || a.FPS != 30 {
		t.Fatalf("%+v", a)
	}
	if r, ok := a.Record(12); !ok || r != 2 || a.FrameNumber(r) != 12 {
		t.Errorf("Record(12) = %d, %v", r, ok)
	}
	if _, ok := a.Record(0); ok {
		t.Error("frame 0 found in a file starting at 10")
	}
	if d := a.Dummy(0, 1); d.Parent != "b2" || d.Pos != [3]float32{0, 0, 2} {
		t.Errorf("dummy %+v", d)
	}
	if p := a.RootPos(3); p != meteortest.Root(13) {
		t.Errorf("root %v", p)
	}
	stride := 20 + 16*6 + 33*2
	le := binary.LittleEndian
	set := func(off int, v uint32) []byte {
		d := append([]byte(nil), data...)
		le.PutUint32(d[off:], v)
		return d
	}
	for _, c := range []struct {
		name string
		data []byte
		msg  string
		off  int64
	}{
		{"short", data[:10], "shorter than the 21-byte header", 10},
		{"magic", append([]byte("BANIN"), data[5:]...), "magic", 0},
		{"truncated", data[:len(data)-1], "truncated", int64(len(data) - 1)},
		{"marker", set(ambHeader+3*stride, 0), "frame 3: marker 0 is not -1", int64(ambHeader + 3*stride)},
		{"bones", set(5, 0), "bone count 0", 5},
		{"dummies", set(9, 0xffffffff), "dummy count -1", 9},
		{"frames", set(13, 0x7fffffff), "truncated", int64(len(data))},
		{"negative frames", set(13, 0xffffffff), "negative frame count", 13},
		{"nan", set(ambHeader+2*stride+8, math.Float32bits(float32(math.NaN()))), "non-finite", int64(ambHeader + 2*stride + 8)},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseAMB(c.data, "x.amb")
			wantFormatError(t, err, FormatAMB, c.msg, 0, c.off)
		})
	}
	// Trailing bytes are tolerated with a warning.
	if a, err := ParseAMB(append(data, 1, 2, 3), "x.amb"); err != nil || len(a.Warnings) != 1 {
		t.Errorf("trailing bytes: %v %+v", err, a)
	}
}

func TestParsePOS(t *testing.T) {
	pt, err := ParsePOS(meteortest.POS(), "x.pos")
	if err != nil {
		t.Fatal(err)
	}
	if len(pt.Poses) != 7 || pt.Encoding != "big5+gbk" {
		t.Fatalf("%d poses, encoding %q", len(pt.Poses), pt.Encoding)
	}
	p0, p3, p6 := pt.Poses[0], pt.Poses[3], pt.Poses[6]
	if p0.Source != 1 || p0.Start != 1 || p0.End != 10 || !p0.Looping() || !p0.HasRange || p0.Comment != "" {
		t.Errorf("pose 0: %+v", p0)
	}
	if pt.Poses[1].Comment != "測試" || pt.Poses[1].CommentEncoding != "big5" || p3.Comment != "調息" || p3.CommentEncoding != "gbk" {
		t.Errorf("comments %q (%s), %q (%s)", pt.Poses[1].Comment, pt.Poses[1].CommentEncoding, p3.Comment, p3.CommentEncoding)
	}
	if !pt.Poses[2].Empty {
		t.Error("pose 2 is not empty")
	}
	if len(p3.Actions) != 1 || p3.Actions[0] != (Window{Start: 13, End: 16, Speed: 2}) || p3.Link != "004" || p3.EffectID != "Pos003" {
		t.Errorf("pose 3: %+v", p3)
	}
	if len(p3.Blocks) != 1 || p3.Blocks[0].Kind != "Attack" {
		t.Fatalf("pose 3 blocks %+v", p3.Blocks)
	}
	if f := p3.Blocks[0].Fields[0]; f.Key != "bone" || strings.Join(f.Values, "|") != "b one|spine|head" {
		t.Errorf("attack bones %+v", f)
	}
	if f := p3.Blocks[0].Fields[1]; f.Key != "Start" || f.Values[0] != "12" {
		t.Errorf("attack start %+v", f)
	}
	if p6.Start != 22 || p6.End != 39 || p6.Source != 1 || p6.Comment != "plain" {
		t.Errorf("pose 6: %+v", p6)
	}
	if f := p6.Blocks[0].Fields[0]; f.Key != "Color" || strings.Join(f.Values, " ") != "255 255 198" {
		t.Errorf("drag colour %+v", f)
	}
	for _, c := range []struct {
		name, data, msg string
		line            int
	}{
		{"keyword", "Pose 0\n{\n}\nPoze 1\n{}", `expected Pose, found "Poze"`, 4},
		{"number", "Pose x\n{}", "pose number", 1},
		{"start", "Pose 0\n{\n  Start 1x\n}", `Start "1x" is not an integer`, 3},
		{"speed", "Pose 0\n{\n  Action\n  {\n    speed fast\n  }\n}", `speed "fast" is not a number`, 5},
		{"unterminated", "Pose 0\n{\n  Start 1\n", "unexpected end of file", 0},
		{"value", "Pose 0\n{\n  Start }\n}", "expected a value", 3},
		{"quote", "Pose 0\n{\n  Attack\n  {\n    bone = \"a\n  }\n}", "unterminated quoted string", 5},
		{"deep", "Pose 0 {" + strings.Repeat(" a {", 10) + strings.Repeat("}", 11), "nest deeper", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParsePOS([]byte(c.data), "x.pos")
			wantFormatError(t, err, FormatPOS, c.msg, c.line, -1)
		})
	}
}

func TestDecodeComments(t *testing.T) {
	for _, c := range []struct {
		raw, want, enc string
	}{
		{"plain", "plain", ""},
		{"\xb4\xfa\xb8\xd5", "測試", "big5"},
		{"\xd5\x7b\xcf\xa2  \xb5\xc0\xbe\xdf", "調息  道具", "gbk"}, // GBK that Big5 reads as rare characters
		{"\xae\x90\xb3\xa3\xa0\xee\x91\x42", "異常狀態", "gbk"},     // undecodable in Big5
		{"\xb0\xb5\xc6\xf7\xd6\xd8\xad\xab", "暗器重重", "gbk"},     // GBK with one Big5 pair left over
		{"a\xffb", `a\xffb`, "gbk"},                             // neither: escaped
		{"\xa4", `\xa4`, "big5"},                                // a lone lead byte
	} {
		out, encs, _ := decodeComments([][]byte{[]byte(c.raw)})
		if out[0] != c.want || encs[0] != c.enc {
			t.Errorf("decode %q = %q (%s), want %q (%s)", c.raw, out[0], encs[0], c.want, c.enc)
		}
	}
}
