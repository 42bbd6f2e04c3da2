package elem

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelfs/modelfs/translate"
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/gltfenc"
)

// generate writes a synthetic .elem of at least size bytes: a 32-bone chain, skinned grid
// meshes of 4096 vertices (positions, normals, two UV sets, two influences a vertex) and one
// animation keying every bone 64 times. Values are varied so that numbers have realistic lengths.
func generate(size int) []byte {
	const bones, side, keys = 32, 64, 64
	var sb strings.Builder
	sb.Grow(size + size/8)
	sb.WriteString(head + "Setting {\n\tElfreinaSoftVersion=1.10\n\tLoadType=\"View\"\n\tIsRightHand=False\n}\n")
	sb.WriteString("HierarchyList {\n")
	for i := range bones {
		fmt.Fprintf(&sb, "%sNode {\n%s\tNodeName=\"bone%d\"\n%s\tInitPostureMatrix=1:0:0:0:0:1:0:0:0:0:1:0:0:%g:0:1\n",
			strings.Repeat("\t", i+1), strings.Repeat("\t", i+1), i, strings.Repeat("\t", i+1), 0.25)
	}
	for i := bones - 1; i >= 0; i-- {
		sb.WriteString(strings.Repeat("\t", i+1) + "}\n")
	}
	sb.WriteString("}\n")
	// Animation.
	sb.WriteString("AnimationList {\n\tAnimationData {\n\t\tAnimationName=\"Bend\"\n\t\tAnimationTime=2000\n\t\tFrameParSecond=60\n\t\tLoop=True\n\t\tBoneAnimation {\n")
	for bn := range bones {
		fmt.Fprintf(&sb, "\t\t\tAnimationPart {\n\t\t\t\tNodeName=\"bone%d\"\n\t\t\t\tTimeKeys {\n", bn)
		for k := range keys {
			fmt.Fprintf(&sb, "\t\t\t\t\t%.6f\n", float64(k)/(keys-1))
		}
		sb.WriteString("\t\t\t\t}\n\t\t\t\tRotateKeys {\n")
		for k := range keys {
			a := 0.01 * float64((k*7+bn)%13)
			fmt.Fprintf(&sb, "\t\t\t\t\t%.6f:0.000000:%.6f:%.6f\n", a, a/2, 1-a*a*0.625)
		}
		sb.WriteString("\t\t\t\t}\n\t\t\t}\n")
	}
	sb.WriteString("\t\t}\n\t}\n}\n")
	sb.WriteString("MeshDatas {\n\tMeshContainer {\n\t\tName=\"Big\"\n\t\tBoneNames {\n")
	for i := range bones {
		fmt.Fprintf(&sb, "\t\t\t\"bone%d\"\n", i)
	}
	sb.WriteString("\t\t}\n\t\tOffsetMatrices {\n")
	for i := range bones {
		fmt.Fprintf(&sb, "\t\t\t1:0:0:0:0:1:0:0:0:0:1:0:0:%g:0:1\n", -0.25*float64(i+1))
	}
	sb.WriteString("\t\t}\n\t\tMaterials {\n\t\t\tMaterial {\n\t\t\t\tName=\"M\"\n\t\t\t\tDiffuse=1:1:1:1\n\t\t\t}\n\t\t}\n")
	nv := side * side
	for mesh := 0; sb.Len() < size; mesh++ {
		fmt.Fprintf(&sb, "\t\tMesh {\n\t\t\tName=\"part%d\"\n\t\t\tVertexCount=%d\n\t\t\tFaceCount=%d\n\t\t\tPositions {\n", mesh, nv, 2*(side-1)*(side-1))
		for v := range nv {
			x, y := v%side, v/side
			fmt.Fprintf(&sb, "\t\t\t\t%.6f:%.6f:%.6f\n", float64(x)*0.0123+float64(mesh), float64(y)*0.125, float64((x*y)%17)*0.0371)
		}
		sb.WriteString("\t\t\t}\n\t\t\tNormals {\n")
		for v := range nv {
			fmt.Fprintf(&sb, "\t\t\t\t0.000000:%.6f:-%.6f\n", 0.6, 0.8+float64(v%3)*0)
		}
		for set := 1; set <= 2; set++ {
			fmt.Fprintf(&sb, "\t\t\t}\n\t\t\tTexture%dUV {\n", set)
			for v := range nv {
				fmt.Fprintf(&sb, "\t\t\t\t%.6f:%.6f\n", float64(v%side)/side, float64(v/side)/side)
			}
		}
		sb.WriteString("\t\t\t}\n\t\t\tBlendList {\n")
		for bn := range bones {
			fmt.Fprintf(&sb, "\t\t\t\tBlendPart {\n\t\t\t\t\tBoneName=\"bone%d\"\n\t\t\t\t\tTransformIndex=%d\n\t\t\t\t\tVertexBlend {\n", bn, bn)
			for v := range nv {
				row := v / side * bones / side
				switch bn {
				case row:
					fmt.Fprintf(&sb, "\t\t\t\t\t\t%d,0.750000\n", v)
				case (row + 1) % bones:
					fmt.Fprintf(&sb, "\t\t\t\t\t\t\"%d,0.250000\"\n", v)
				}
			}
			sb.WriteString("\t\t\t\t\t}\n\t\t\t\t}\n")
		}
		sb.WriteString("\t\t\t}\n\t\t\tVertexIndices {\n")
		for y := range side - 1 {
			for x := range side - 1 {
				v := y*side + x
				fmt.Fprintf(&sb, "\t\t\t\t3,%d:%d:%d\n\t\t\t\t3,%d:%d:%d\n", v, v+side, v+side+1, v, v+side+1, v+1)
			}
		}
		sb.WriteString("\t\t\t}\n\t\t}\n")
	}
	sb.WriteString("\t}\n}\n")
	return []byte(sb.String())
}

func TestGenerated(t *testing.T) {
	data := generate(5 << 20)
	s, _, err := translate.Decode(codec.Source{Name: "big.elem", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings %q", s.Warnings)
	}
	if len(s.Meshes) < 5 || len(s.Animations) != 1 || len(s.Skins) != 1 {
		t.Errorf("%d meshes %d animations %d skins", len(s.Meshes), len(s.Animations), len(s.Skins))
	}
}

// BenchmarkDecodeEncode measures parse + build + validate + glTF encode of a generated ≥ 5 MB
// file, in source MB/s.
func BenchmarkDecodeEncode(b *testing.B) {
	data := generate(5 << 20)
	src := codec.Source{Name: "big.elem", Data: data}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer cpuRate(b, len(data))()
	for b.Loop() {
		s, _, err := translate.Decode(src)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := gltfenc.Encode(s, gltfenc.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRead measures the reader alone.
func BenchmarkRead(b *testing.B) {
	data := generate(5 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer cpuRate(b, len(data))()
	for b.Loop() {
		if _, err := Read("big.elem", data); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuRate reports MB per second of process CPU time ("MB/cpu-s") besides the wall-clock MB/s,
// which the shared machine's load distorts. Call it before the loop and defer the result.
func cpuRate(b *testing.B, size int) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
			return 0
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() {
		if d := cpu() - start; d > 0 {
			b.ReportMetric(float64(size)*float64(b.N)/1e6/d.Seconds(), "MB/cpu-s")
		}
	}
}
