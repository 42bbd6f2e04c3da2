package meteor

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/modelfs/modelfs/internal/textnum"
)

// FormatPOS is the format name used in errors about action tables.
const FormatPOS = "meteor-pos"

// maxBlockDepth caps the nesting of { } blocks in a .pos.
const maxBlockDepth = 8

// Window is a frame window of an Action or Blend block with its speed multiplier.
type Window struct {
	Start int     `json:"start"`
	End   int     `json:"end"`
	Speed float64 `json:"speed"` // 1 when not stated
}

// Field is one "key values…" line of a .pos block.
type Field struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
	Line   int      `json:"-"`
}

// Block is a named { … } block inside a pose (Attack, Drag, NextPose, …), kept as written.
type Block struct {
	Kind   string  `json:"type"`
	Fields []Field `json:"fields"`
	Blocks []Block `json:"blocks,omitempty"`
	Line   int     `json:"line"`
}

// Pose is one entry of a .pos action table.
type Pose struct {
	Number int
	// Comment is the pose's comment decoded to UTF-8 (bytes no encoding explains are kept as
	// \xNN escapes); CommentRaw is the comment as stored, trimmed.
	Comment    string
	CommentRaw []byte
	// CommentEncoding is "big5" or "gbk" for a comment with non-ASCII text, else "".
	CommentEncoding string
	Empty           bool // the pose has an empty body ({})
	// Source is 0 for the shared character.amb, 1 for the character's own .amb, -1 when absent.
	Source               int
	Start, End           int
	HasRange             bool
	LoopStart, LoopEnd   int
	EffectType, EffectID string
	Link                 string
	Actions, Blends      []Window
	Blocks               []Block // other blocks: Attack, Drag, NextPose, …
	Fields               []Field // top-level lines with unknown keys
	Line                 int
}

// Looping reports whether the pose loops (both loop bounds non-zero).
func (p *Pose) Looping() bool { return p.LoopStart != 0 && p.LoopEnd != 0 }

// PoseTable is a parsed .pos.
type PoseTable struct {
	Poses []Pose
	// Encoding names how comments were decoded: "ascii", "big5", "gbk" or "big5+gbk" when
	// comments differ.
	Encoding string
	Warnings []string
}

// scalarKeys take exactly one value, so that several may share a line (ASCII
// case-insensitively). The keys a pose reads itself come first, so that their numbers here are
// their numbers in poseKeys.
var scalarKeys = newKeywordSet("source", "start", "end", "loopstart", "loopend", "effecttype", "effectid",
	"link", "speed", "time", "attacktype", "checkfriend", "targetvalue", "targetmove", "targetpose",
	"targetposefront", "targetposeback", "targetposeleft", "targetposeright", "defensevalue", "defensemove")

// arena hands out short slices from shared chunks, so that thousands of small lists cost a few
// allocations. Each slice's capacity ends at its length: appending to one never writes into
// another.
type arena[T any] struct {
	buf []T
	// next is the size of the next chunk: first a guess from the size of the file, so that
	// one or two chunks hold a table, then growing.
	next int
}

// maxChunk caps the chunks of an arena.
const maxChunk = 16384

// sized returns an arena whose first chunk holds what dataLen bytes of a table usually need,
// at perByte elements per byte.
func sized[T any](dataLen int, perByte float64) arena[T] {
	return arena[T]{next: min(max(int(float64(dataLen)*perByte), 16), maxChunk)}
}

// alloc returns a zeroed slice of n elements.
func (a *arena[T]) alloc(n int) []T {
	if cap(a.buf)-len(a.buf) < n {
		size := max(a.next, n, 16)
		a.buf = make([]T, 0, size)
		a.next = min(2*size, maxChunk)
	}
	k := len(a.buf)
	a.buf = a.buf[:k+n]
	return a.buf[k : k+n : k+n]
}

// keep returns a copy of s (nil when empty).
func (a *arena[T]) keep(s []T) []T {
	if len(s) == 0 {
		return nil
	}
	out := a.alloc(len(s))
	copy(out, s)
	return out
}

// span is a stretch of the data: a key or a value.
type span struct{ start, end int }

// rawField is a field being read: its key (and its number in scalarKeys, 0 for others), its
// line and its values vals[v0:v1] of the posParser. Fields become Fields (strings, slices) only
// where they are kept: rawFields hold no pointers, so stacking and copying them costs no write
// barriers.
type rawField struct {
	key    span
	id     int
	line   int
	v0, v1 int
}

// rawWindow is an Action or Blend block of the pose being read, which the pose turns into a
// Window: its kind (actionWindow or blendWindow), its name as written and its fields
// winFields[f0:f1] of the posParser.
type rawWindow struct {
	kind   int
	name   span
	f0, f1 int
}

// posParser holds the state of one ParsePOS.
type posParser struct {
	lx posLexer
	// src is the data as one string: every key and value is a substring of it, which costs one
	// copy of the file instead of an allocation per token.
	src string
	// fields and blocks are stacks of the fields and the finished sub-blocks of the blocks being
	// read; vals holds the values of the pose's fields.
	fields []rawField
	blocks []Block
	vals   []span
	// windows and winFields are the pose's Action and Blend blocks.
	windows   []rawWindow
	winFields []rawField
	// unknown, actions and blends collect a pose's parts while it is filled.
	unknown         []rawField
	actions, blends []Window
	fieldArena      arena[Field]
	blockArena      arena[Block]
	listArena       arena[string]
	winArena        arena[Window]
	byteArena       arena[byte]
}

// str returns the text of s.
func (ps *posParser) str(s span) string { return ps.src[s.start:s.end] }

// value returns the first value of f, or "" when it has none.
func (ps *posParser) value(f *rawField) string {
	if f.v1 == f.v0 {
		return ""
	}
	return ps.str(ps.vals[f.v0])
}

// materialize turns raw fields into Fields.
func (ps *posParser) materialize(raw []rawField) []Field {
	if len(raw) == 0 {
		return nil
	}
	out := ps.fieldArena.alloc(len(raw))
	for i := range raw {
		r := &raw[i]
		values := []string{} // a field without values still has a list
		if n := r.v1 - r.v0; n > 0 {
			values = ps.listArena.alloc(n)
			for j, v := range ps.vals[r.v0:r.v1] {
				values[j] = ps.str(v)
			}
		}
		// Field by field: assigning a whole Field would copy it through a bulk write barrier.
		f := &out[i]
		f.Key, f.Values, f.Line = ps.str(r.key), values, r.line
	}
	return out
}

// bytesPerPose sizes the pose slice from the data: the game's tables hold a pose per 480 bytes
// or so. A wrong guess costs only the slice's growing, or some unused room.
const bytesPerPose = 480

// ParsePOS reads an action table (.pos). Errors are *translate.FormatError naming file and line.
func ParsePOS(data []byte, file string) (*PoseTable, error) {
	ps := &posParser{lx: posLexer{data: data, file: file, line: 1, newLine: true}, src: string(data),
		// The game's tables hold a kept field per 51 bytes, a value per 38, a block per 410, a
		// window per 280 and a byte of pose comment per 100: guess a little more.
		fieldArena: sized[Field](len(data), 1.0/46), listArena: sized[string](len(data), 1.0/35),
		blockArena: sized[Block](len(data), 1.0/370), winArena: sized[Window](len(data), 1.0/250),
		byteArena: sized[byte](len(data), 1.0/90)}
	lx := &ps.lx
	pt := &PoseTable{Poses: make([]Pose, 0, len(data)/bytesPerPose+8)}
	for {
		tok, ok, err := lx.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if !lx.is(&tok, "Pose") {
			return nil, lx.errorf(tok.line, "expected Pose, found %q", clip(lx.text(&tok)))
		}
		if len(pt.Poses) >= len(data)/4+1 {
			return nil, lx.errorf(tok.line, "too many poses")
		}
		n, err := lx.int("pose number", 0, 1<<30)
		if err != nil {
			return nil, err
		}
		// The pose is read in place, in the zeroed room at the end of the slice (never used
		// before): copying a Pose in costs a bulk write barrier while the GC runs.
		if len(pt.Poses) == cap(pt.Poses) {
			pt.Poses = slices.Grow(pt.Poses, 1)
		}
		pt.Poses = pt.Poses[:len(pt.Poses)+1]
		p := &pt.Poses[len(pt.Poses)-1]
		p.Number, p.Source, p.Line = n, -1, tok.line
		if _, _, err := lx.peek(); err != nil {
			return nil, err
		}
		// The pose's comment is the last one before the token after its number, if on its line.
		if c, ok := lx.lastComment(lx.base + lx.i); ok && c.line == tok.line {
			// As []byte(strings.TrimSpace(string(comment))): never nil, even when empty.
			p.CommentRaw = ps.byteArena.keep(bytes.TrimSpace(data[c.start:c.end]))
			if p.CommentRaw == nil {
				p.CommentRaw = []byte{}
			}
		}
		if err := lx.expect("{"); err != nil {
			return nil, err
		}
		ps.vals, ps.windows, ps.winFields = ps.vals[:0], ps.windows[:0], ps.winFields[:0]
		if err := ps.body("Pose", tok.line, 1); err != nil {
			return nil, err
		}
		if err := ps.fill(p); err != nil {
			return nil, err
		}
		ps.fields, ps.blocks = ps.fields[:0], ps.blocks[:0]
	}
	raws := make([][]byte, len(pt.Poses))
	for i := range pt.Poses {
		raws[i] = pt.Poses[i].CommentRaw
	}
	comments, encs, enc := decodeComments(raws)
	pt.Encoding = enc
	for i := range pt.Poses {
		pt.Poses[i].Comment, pt.Poses[i].CommentEncoding = comments[i], encs[i]
	}
	pt.Warnings = duplicatePoses(pt.Poses, file)
	return pt, nil
}

// duplicatePoses warns about each pose whose number an earlier pose has.
func duplicatePoses(poses []Pose, file string) []string {
	var warnings []string
	top := 0
	for i := range poses {
		top = max(top, poses[i].Number)
	}
	// Pose numbers are small in real tables: a bitmap then, a map for odd ones.
	var bits []uint64
	var seen map[int]bool
	if top < 64*len(poses)+4096 {
		bits = make([]uint64, top/64+1)
	} else {
		seen = make(map[int]bool, len(poses))
	}
	for i := range poses {
		n := poses[i].Number
		dup := false
		if bits != nil {
			dup = bits[n/64]&(1<<(n%64)) != 0
			bits[n/64] |= 1 << (n % 64)
		} else {
			dup = seen[n]
			seen[n] = true
		}
		if dup {
			warnings = append(warnings, fmt.Sprintf("%s: line %d: pose %d defined again", file, poses[i].Line, n))
		}
	}
	return warnings
}

// body reads the fields and blocks of a block whose "{" has been consumed, up to and including
// its "}", and leaves them on top of the fields and blocks stacks; a pose's own Action and Blend
// blocks (depth 1 is the pose) go to windows instead.
func (ps *posParser) body(kind string, line, depth int) error {
	lx := &ps.lx
	if depth > maxBlockDepth {
		return lx.errorf(line, "blocks nest deeper than %d", maxBlockDepth)
	}
	for {
		// Tokens are taken straight from the lexer's batch: a pointer into it is valid until the
		// next ready, so the key's parts are copied out first.
		if !lx.ready() {
			if lx.err != nil {
				return lx.err
			}
			return lx.eof(`"}"`)
		}
		tok := &lx.buf[lx.i]
		lx.i++
		if lx.isByte(tok, '}') {
			return nil
		}
		if tok.quoted || lx.isPunct(tok) {
			return lx.errorf(tok.line, "expected a keyword in %s, found %q", kind, clip(lx.text(tok)))
		}
		key, keyLine := span{tok.start, tok.end}, tok.line
		// The token after the key tells a block from a field; it stays unread for the field.
		ok := lx.ready()
		if !ok && lx.err != nil {
			return lx.err
		}
		var nt *ptok
		if ok {
			nt = &lx.buf[lx.i]
		}
		if ok && lx.isByte(nt, '{') {
			lx.i++
			name := ps.str(key)
			fb, bb := len(ps.fields), len(ps.blocks)
			if err := ps.body(name, keyLine, depth+1); err != nil {
				return err
			}
			if w := windowKinds.findFold(lx.data[key.start:key.end], name); depth == 1 && w != 0 {
				// Only the fields matter (any blocks inside are dropped with the block).
				f0 := len(ps.winFields)
				ps.winFields = append(ps.winFields, ps.fields[fb:]...)
				ps.windows = append(ps.windows, rawWindow{kind: w, name: key, f0: f0, f1: len(ps.winFields)})
				ps.fields, ps.blocks = ps.fields[:fb], ps.blocks[:bb]
				continue
			}
			sub := Block{Kind: name, Fields: ps.materialize(ps.fields[fb:]), Blocks: ps.blockArena.keep(ps.blocks[bb:]), Line: keyLine}
			ps.fields, ps.blocks = ps.fields[:fb], ps.blocks[:bb]
			ps.blocks = append(ps.blocks, sub)
			continue
		}
		v0 := len(ps.vals)
		if id := scalarKeys.find(lx.data[key.start:key.end]); id != 0 {
			if !ok {
				return lx.eof("a value")
			}
			lx.i++
			if lx.isPunct(nt) {
				return lx.errorf(nt.line, "%s: expected a value, found %q", ps.str(key), lx.text(nt))
			}
			ps.vals = append(ps.vals, span{nt.start, nt.end})
			ps.fields = append(ps.fields, rawField{key: key, id: id, line: keyLine, v0: v0, v1: v0 + 1})
			continue
		}
		// Any other key takes the rest of its line; a list ending in a comma goes on.
		cont := false
		for ok {
			v := &lx.buf[lx.i]
			if (v.first && !cont) || lx.isByte(v, '{') || lx.isByte(v, '}') {
				break
			}
			lx.i++
			cont = lx.isByte(v, ',')
			if !cont && !lx.isByte(v, '=') {
				ps.vals = append(ps.vals, span{v.start, v.end})
			}
			if ok = lx.ready(); !ok && lx.err != nil {
				return lx.err
			}
		}
		ps.fields = append(ps.fields, rawField{key: key, line: keyLine, v0: v0, v1: len(ps.vals)})
	}
}

// The keys a pose reads itself, numbered as in poseKeys and scalarKeys, and speed, numbered as
// in scalarKeys.
const (
	keyOther = iota
	keySource
	keyStart
	keyEnd
	keyLoopStart
	keyLoopEnd
	keyEffectType
	keyEffectID
	keyLink
	keySpeed
)

var poseKeys = newKeywordSet("source", "start", "end", "loopstart", "loopend", "effecttype", "effectid", "link")

// poseKey tells which key of poseKeys f has, as strings.EqualFold does.
func (ps *posParser) poseKey(f *rawField) int {
	switch {
	case f.id > keyLink:
		return keyOther
	case f.id != 0:
		return f.id // an ASCII key, which scalarKeys has found
	}
	return poseKeys.findFold(ps.lx.data[f.key.start:f.key.end], ps.str(f.key))
}

// Kinds of the blocks a pose turns into windows, numbered as in windowKinds (0 for others).
const (
	actionWindow = 1 + iota
	blendWindow
)

var windowKinds = newKeywordSet("action", "blend")

// windowKeys are the keys a window reads, numbered as keyStart, keyEnd and keySpeed.
var windowKeys = newKeywordSet("", "start", "end", "", "", "", "", "", "speed")

// windowKey tells which of keyStart, keyEnd and keySpeed f's key is, as strings.EqualFold does.
func (ps *posParser) windowKey(f *rawField) int {
	switch f.id {
	case keyStart, keyEnd, keySpeed:
		return f.id
	case 0:
		return windowKeys.findFold(ps.lx.data[f.key.start:f.key.end], ps.str(f.key))
	}
	return keyOther
}

// fill interprets the body of pose p just read: its fields and blocks on the stacks, and its
// windows.
func (ps *posParser) fill(p *Pose) error {
	lx := &ps.lx
	fields, blocks := ps.fields, ps.blocks
	p.Empty = len(fields) == 0 && len(blocks) == 0 && len(ps.windows) == 0
	var haveStart, haveEnd bool
	ps.unknown = ps.unknown[:0]
	for i := range fields {
		f := &fields[i]
		val := ps.value(f)
		var dst *int // the number the key sets
		switch ps.poseKey(f) {
		case keySource:
			dst = &p.Source
		case keyStart:
			dst = &p.Start
			haveStart = true
		case keyEnd:
			dst = &p.End
			haveEnd = true
		case keyLoopStart:
			dst = &p.LoopStart
		case keyLoopEnd:
			dst = &p.LoopEnd
		case keyEffectType:
			p.EffectType = val
		case keyEffectID:
			p.EffectID = val
		case keyLink:
			p.Link = val
		default:
			ps.unknown = append(ps.unknown, *f)
		}
		if dst != nil {
			n, ok := atoi(val)
			if !ok {
				return lx.errorf(f.line, "pose %d: %s %q is not an integer", p.Number, ps.str(f.key), clip([]byte(val)))
			}
			*dst = n
		}
	}
	p.Fields = ps.materialize(ps.unknown)
	p.HasRange = haveStart && haveEnd
	ps.actions, ps.blends = ps.actions[:0], ps.blends[:0]
	for _, b := range ps.windows {
		w := Window{Speed: 1}
		for i := b.f0; i < b.f1; i++ {
			f := &ps.winFields[i]
			key, val := ps.str(f.key), ps.value(f)
			switch k := ps.windowKey(f); k {
			case keyStart, keyEnd:
				n, ok := atoi(val)
				if !ok {
					return lx.errorf(f.line, "pose %d: %s %s %q is not an integer", p.Number, ps.str(b.name), key, clip([]byte(val)))
				}
				if k == keyStart {
					w.Start = n
				} else {
					w.End = n
				}
			case keySpeed:
				s, ok := textnum.ParseFloat64(val)
				if !ok {
					return lx.errorf(f.line, "pose %d: %s speed %q is not a number", p.Number, ps.str(b.name), clip([]byte(val)))
				}
				w.Speed = s
			}
		}
		if b.kind == actionWindow {
			ps.actions = append(ps.actions, w)
		} else {
			ps.blends = append(ps.blends, w)
		}
	}
	p.Actions = ps.winArena.keep(ps.actions)
	p.Blends = ps.winArena.keep(ps.blends)
	p.Blocks = ps.blockArena.keep(blocks)
	return nil
}
