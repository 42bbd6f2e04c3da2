package meteor

import (
	"fmt"
)

// FormatSKC is the registry name of the skin format.
const FormatSKC = "skc"

// MaxInfluences is the most bone influences one .skc vertex may carry.
const MaxInfluences = 8

// Material is one .skc material as written.
type Material struct {
	Texture  string
	ColorKey [4]float64
	Ambient  [3]float64
	Diffuse  [3]float64
	Specular [3]float64
	Emissive [3]float64
	Opacity  float64
	Option   string // NONE or ALPHA in real files
	TwoSide  bool
	Line     int
}

// Vertex is one .skc vertex: bind-space position (source axes), texture coordinate (origin
// bottom-left) and its bone influences.
type Vertex struct {
	Pos     [3]float32
	UV      [2]float32
	N       int // number of influences
	Bones   [MaxInfluences]int32
	Weights [MaxInfluences]float32
}

// Triangle is one .skc face: a material index and three vertex indices, as written.
type Triangle struct {
	Material int32
	V        [3]uint32
}

// SkinPart is one "Static Skin" block.
type SkinPart struct {
	Name      string
	Materials []Material
	Vertices  []Vertex
	Triangles []Triangle
}

// Skin is a parsed .skc.
type Skin struct {
	StaticSkins, DynamicSkins int // as the header states them
	Parts                     []SkinPart
	Warnings                  []string
}

// ParseSKC reads a skin (.skc). Errors are *translate.FormatError naming file.
func ParseSKC(data []byte, file string) (*Skin, error) {
	lx := newLexer(data, FormatSKC, file)
	sk := &Skin{StaticSkins: -1, DynamicSkins: -1}
	for {
		tok, ok, err := lx.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		switch {
		case tok.is("Static") || tok.is("Dynamic"):
			kind := string(tok.text)
			next, err := lx.need("Skins: or Skin")
			if err != nil {
				return nil, err
			}
			switch {
			case next.is("Skins:"):
				n, err := lx.int(kind+" skin count", 0, 1<<16)
				if err != nil {
					return nil, err
				}
				if tok.is("Static") {
					sk.StaticSkins = n
				} else {
					sk.DynamicSkins = n
				}
			case next.is("Skin") && tok.is("Static"):
				part, err := parsePart(lx, len(data))
				if err != nil {
					return nil, err
				}
				sk.Parts = append(sk.Parts, part)
			case next.is("Skin"):
				name, _ := lx.need("a name")
				sk.Warnings = append(sk.Warnings, fmt.Sprintf("%s: line %d: dynamic skin %q is not supported; skipped", file, tok.line, clip(name.text)))
				if err := skipBlock(lx); err != nil {
					return nil, err
				}
			default:
				return nil, lx.errorf(next.line, "expected Skins: or Skin after %s, found %q", kind, clip(next.text))
			}
		default:
			return nil, lx.errorf(tok.line, "unexpected %q", clip(tok.text))
		}
	}
	if len(sk.Parts) == 0 {
		return nil, lx.errorf(lx.line, "no static skin")
	}
	if sk.StaticSkins >= 0 && sk.StaticSkins != len(sk.Parts) {
		sk.Warnings = append(sk.Warnings, fmt.Sprintf("%s: header says %d static skins, file has %d", file, sk.StaticSkins, len(sk.Parts)))
	}
	return sk, nil
}

// skipBlock skips a { … } block, nested blocks included.
func skipBlock(lx *lexer) error {
	if err := lx.expect("{"); err != nil {
		return err
	}
	depth := 1
	for depth > 0 {
		tok, err := lx.need(`"}"`)
		if err != nil {
			return err
		}
		switch {
		case tok.is("{"):
			depth++
		case tok.is("}"):
			depth--
		}
	}
	return nil
}

// parsePart reads "NAME { Materials: … Vertices: … Triangles: … }".
func parsePart(lx *lexer, size int) (SkinPart, error) {
	var p SkinPart
	name, err := lx.need("a skin name")
	if err != nil {
		return p, err
	}
	if name.is("{") {
		lx.pk, lx.peeked = name, &lx.pk
	} else {
		p.Name = string(name.text)
	}
	if err := lx.expect("{"); err != nil {
		return p, err
	}
	for {
		tok, err := lx.need(`"}"`)
		if err != nil {
			return p, err
		}
		switch {
		case tok.is("}"):
			return p, nil
		case tok.is("Materials:"):
			// Each material takes at least ~20 bytes; the count is checked against the size.
			n, err := lx.int("material count", 0, size/8+1)
			if err != nil {
				return p, err
			}
			p.Materials = make([]Material, 0, n)
			for range n {
				m, err := parseMaterial(lx)
				if err != nil {
					return p, err
				}
				p.Materials = append(p.Materials, m)
			}
		case tok.is("Vertices:"):
			n, err := lx.int("vertex count", 0, size/16+1)
			if err != nil {
				return p, err
			}
			p.Vertices = make([]Vertex, n)
			for i := range p.Vertices {
				if err := parseVertex(lx, &p.Vertices[i]); err != nil {
					return p, err
				}
			}
		case tok.is("Triangles:"):
			n, err := lx.int("triangle count", 0, size/10+1)
			if err != nil {
				return p, err
			}
			p.Triangles = make([]Triangle, n)
			for i := range p.Triangles {
				if err := parseTriangle(lx, &p.Triangles[i], i, len(p.Vertices)); err != nil {
					return p, err
				}
			}
		default:
			return p, lx.errorf(tok.line, "unexpected %q in skin %q", clip(tok.text), p.Name)
		}
	}
}

func parseMaterial(lx *lexer) (Material, error) {
	m := Material{Opacity: 1, Option: "NONE"}
	tok, err := lx.need("Material")
	if err != nil {
		return m, err
	}
	if !tok.is("Material") {
		return m, lx.errorf(tok.line, "expected Material, found %q", clip(tok.text))
	}
	m.Line = tok.line
	vec := func(dst []float64, what string) error {
		for k := range dst {
			if dst[k], err = lx.float(what); err != nil {
				return err
			}
		}
		return nil
	}
	for {
		tok, ok, err := lx.peek()
		if err != nil || !ok {
			return m, err
		}
		switch {
		case tok.is("Texture"):
			lx.next()
			// The name is the rest of the line (file names may hold spaces).
			t, err := lx.need("a texture name")
			if err != nil {
				return m, err
			}
			name := string(t.text)
			for {
				nt, ok, err := lx.peek()
				if err != nil {
					return m, err
				}
				if !ok || nt.first {
					break
				}
				lx.next()
				name += " " + string(nt.text)
			}
			m.Texture = name
		case tok.is("ColorKey"):
			lx.next()
			err = vec(m.ColorKey[:], "ColorKey")
		case tok.is("Ambient"):
			lx.next()
			err = vec(m.Ambient[:], "Ambient")
		case tok.is("Diffuse"):
			lx.next()
			err = vec(m.Diffuse[:], "Diffuse")
		case tok.is("Specular"):
			lx.next()
			err = vec(m.Specular[:], "Specular")
		case tok.is("Emissive"):
			lx.next()
			err = vec(m.Emissive[:], "Emissive")
		case tok.is("Opacity"):
			lx.next()
			m.Opacity, err = lx.float("Opacity")
		case tok.is("Option"):
			lx.next()
			var t token
			if t, err = lx.need("an option"); err == nil {
				m.Option = string(t.text)
			}
		case tok.is("TwoSide"):
			lx.next()
			var t token
			if t, err = lx.need("TRUE or FALSE"); err == nil {
				switch {
				case t.is("TRUE"):
					m.TwoSide = true
				case t.is("FALSE"):
				default:
					err = lx.errorf(t.line, "TwoSide %q is neither TRUE nor FALSE", clip(t.text))
				}
			}
		default:
			return m, nil
		}
		if err != nil {
			return m, err
		}
	}
}

// parseVertex reads "v x y z vt u v Bones n b0 w0 …".
func parseVertex(lx *lexer, v *Vertex) error {
	if pos, ok := lx.start(); ok {
		if end, ok := fastVertex(lx.data, pos, v); ok {
			lx.took(end)
			return nil
		}
		*v = Vertex{} // as it was, for the general path
	}
	if err := lx.expect("v"); err != nil {
		return err
	}
	var err error
	for k := range 3 {
		if v.Pos[k], err = lx.float32("vertex position"); err != nil {
			return err
		}
	}
	if err := lx.expect("vt"); err != nil {
		return err
	}
	for k := range 2 {
		if v.UV[k], err = lx.float32("texture coordinate"); err != nil {
			return err
		}
	}
	if err := lx.expect("Bones"); err != nil {
		return err
	}
	if v.N, err = lx.int("influence count", 0, MaxInfluences); err != nil {
		return err
	}
	for k := 0; k < v.N; k++ {
		b, err := lx.int("bone index", 0, 1<<15)
		if err != nil {
			return err
		}
		v.Bones[k] = int32(b)
		if v.Weights[k], err = lx.float32("bone weight"); err != nil {
			return err
		}
	}
	return nil
}

// parseTriangle reads "f 3 M i j k".
func parseTriangle(lx *lexer, t *Triangle, i, nv int) error {
	if pos, ok := lx.start(); ok {
		if end, ok := fastTriangle(lx.data, pos, t, nv); ok {
			lx.took(end)
			return nil
		}
	}
	if err := lx.expect("f"); err != nil {
		return err
	}
	tok, err := lx.need("a corner count")
	if err != nil {
		return err
	}
	if !tok.is("3") {
		return lx.errorf(tok.line, "face %d has %q corners; only triangles are supported", i, clip(tok.text))
	}
	m, err := lx.int("material index", 0, 1<<30)
	if err != nil {
		return err
	}
	t.Material = int32(m)
	for k := range 3 {
		n, err := lx.int("vertex index", 0, 1<<30)
		if err != nil {
			return err
		}
		if n >= nv {
			return lx.errorf(lx.line, "face %d names vertex %d of %d", i, n, nv)
		}
		t.V[k] = uint32(n)
	}
	return nil
}

// The fast paths below read a vertex or a face in one pass over the data when it has the
// exporter's plain form: one line, blanks between the words, numbers that scanFloat32 and
// scanUint take, counts and indices in range. On anything else they give up (ok false) and the
// general path reads the entry token by token, with its errors. They consume nothing then, and
// as they cross no line the lexer needs only its position moved when they succeed.

// sameLineGap skips the blanks (but not a new line) that must follow a word at d[i].
func sameLineGap(d []byte, i int) (int, bool) {
	start := i
	for i < len(d) && class[d[i]]&clSpace != 0 && d[i] != '\n' {
		i++
	}
	return i, i > start
}

// letterWord reports whether the bare word at d[i] is lower, a lower-case ASCII word, in any
// case, and returns its end. Setting bit 0x20 maps A–Z onto a–z and no other byte onto a letter.
func letterWord(d []byte, i int, lower string) (int, bool) {
	if len(d)-i < len(lower) {
		return 0, false
	}
	for k := 0; k < len(lower); k++ {
		if d[i+k]|0x20 != lower[k] {
			return 0, false
		}
	}
	return i + len(lower), stopsAt(d, i+len(lower))
}

// gapFloat32 reads the blanks and the number that follow a word ending at d[i].
func gapFloat32(d []byte, i int) (float32, int, bool) {
	i, ok := sameLineGap(d, i)
	if !ok {
		return 0, 0, false
	}
	f, n, ok := scanFloat32(d[i:])
	return f, i + n, ok
}

// gapUint reads the blanks and the unsigned integer of at most hi that follow a word ending at
// d[i].
func gapUint(d []byte, i, hi int) (int, int, bool) {
	i, ok := sameLineGap(d, i)
	if !ok {
		return 0, 0, false
	}
	v, n, ok := scanUint(d[i:])
	return v, i + n, ok && v <= hi
}

// fastVertex is parseVertex's fast path for the vertex at d[i].
func fastVertex(d []byte, i int, v *Vertex) (end int, ok bool) {
	if i, ok = letterWord(d, i, "v"); !ok {
		return 0, false
	}
	for k := range v.Pos {
		if v.Pos[k], i, ok = gapFloat32(d, i); !ok {
			return 0, false
		}
	}
	if i, ok = sameLineGap(d, i); !ok {
		return 0, false
	}
	if i, ok = letterWord(d, i, "vt"); !ok {
		return 0, false
	}
	for k := range v.UV {
		if v.UV[k], i, ok = gapFloat32(d, i); !ok {
			return 0, false
		}
	}
	if i, ok = sameLineGap(d, i); !ok {
		return 0, false
	}
	if i, ok = letterWord(d, i, "bones"); !ok {
		return 0, false
	}
	if v.N, i, ok = gapUint(d, i, MaxInfluences); !ok {
		return 0, false
	}
	for k := 0; k < v.N; k++ {
		var b int
		if b, i, ok = gapUint(d, i, 1<<15); !ok {
			return 0, false
		}
		v.Bones[k] = int32(b)
		if v.Weights[k], i, ok = gapFloat32(d, i); !ok {
			return 0, false
		}
	}
	return i, true
}

// fastTriangle is parseTriangle's fast path for the face at d[i], whose vertices must be below
// nv.
func fastTriangle(d []byte, i int, t *Triangle, nv int) (end int, ok bool) {
	if i, ok = letterWord(d, i, "f"); !ok {
		return 0, false
	}
	if i, ok = sameLineGap(d, i); !ok || i >= len(d) || d[i] != '3' || !stopsAt(d, i+1) {
		return 0, false
	}
	m, i, ok := gapUint(d, i+1, 1<<30)
	if !ok {
		return 0, false
	}
	var tri [3]uint32
	for k := range tri {
		var n int
		if n, i, ok = gapUint(d, i, nv-1); !ok {
			return 0, false
		}
		tri[k] = uint32(n)
	}
	t.Material, t.V = int32(m), tri
	return i, true
}
