package meteor

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
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

// scalarKeys take exactly one value, so that several may share a line.
var scalarKeys = []string{
	"source", "start", "end", "loopstart", "loopend", "effecttype", "effectid", "link", "speed", "time",
	"attacktype", "checkfriend", "targetvalue", "targetmove", "targetpose", "targetposefront",
	"targetposeback", "targetposeleft", "targetposeright", "defensevalue", "defensemove",
}

// scalarByFirst indexes scalarKeys by their first letter.
var scalarByFirst = func() (t [256][]string) {
	for _, k := range scalarKeys {
		t[k[0]] = append(t[k[0]], k)
	}
	return t
}()

func isScalarKey(t token) bool {
	if len(t.text) == 0 {
		return false
	}
	for _, k := range scalarByFirst[lower(t.text[0])] {
		if t.is(k) {
			return true
		}
	}
	return false
}

// strs hands out strings for tokens, sharing equal short ones (keywords and small numbers
// repeat thousands of times in a table), and one-element value lists from a shared backing array.
type strs struct {
	interned [512]string // direct-mapped: a slot holds the last string hashed to it
	lists    []string
	// fields is a stack of the fields of the blocks being read; a finished block's fields are
	// copied out of it into fieldArena, which hands out right-sized slices.
	fields     []Field
	fieldArena []Field
}

// keep copies fs into the arena and returns the copy (nil when empty).
func (st *strs) keep(fs []Field) []Field {
	if len(fs) == 0 {
		return nil
	}
	if cap(st.fieldArena)-len(st.fieldArena) < len(fs) {
		st.fieldArena = make([]Field, 0, max(1024, len(fs)))
	}
	n := len(st.fieldArena)
	st.fieldArena = append(st.fieldArena, fs...)
	return st.fieldArena[n : n+len(fs) : n+len(fs)]
}

func (st *strs) str(b []byte) string {
	if len(b) == 0 || len(b) > 24 {
		return string(b)
	}
	h := uint(len(b))*131 + uint(b[0])*31 + uint(b[len(b)-1])*7 + uint(b[len(b)/2])
	slot := &st.interned[h%uint(len(st.interned))]
	if *slot == string(b) {
		return *slot
	}
	s := string(b)
	*slot = s
	return s
}

func (st *strs) one(s string) []string {
	if len(st.lists) == cap(st.lists) {
		st.lists = make([]string, 0, 512)
	}
	st.lists = append(st.lists, s)
	n := len(st.lists)
	return st.lists[n-1 : n : n]
}

// ParsePOS reads an action table (.pos). Errors are *translate.FormatError naming file and line.
func ParsePOS(data []byte, file string) (*PoseTable, error) {
	lx := newLexer(data, FormatPOS, file)
	st := &strs{}
	var comment []byte
	commentLine := 0
	lx.comment = func(text []byte, line int) { comment, commentLine = text, line }
	pt := &PoseTable{Poses: make([]Pose, 0, min(bytes.Count(data, []byte("Pose")), len(data)/8+1))}
	var raws [][]byte
	for {
		tok, ok, err := lx.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if !tok.is("Pose") {
			return nil, lx.errorf(tok.line, "expected Pose, found %q", clip(tok.text))
		}
		if len(pt.Poses) >= len(data)/4+1 {
			return nil, lx.errorf(tok.line, "too many poses")
		}
		n, err := lx.int("pose number", 0, 1<<30)
		if err != nil {
			return nil, err
		}
		p := Pose{Number: n, Source: -1, Line: tok.line}
		if _, _, err := lx.peek(); err != nil {
			return nil, err
		}
		if commentLine == tok.line && comment != nil {
			p.CommentRaw = []byte(strings.TrimSpace(string(comment)))
		}
		comment = nil
		if err := lx.expect("{"); err != nil {
			return nil, err
		}
		body, err := parseBlockBody(lx, st, "Pose", tok.line, 1)
		if err != nil {
			return nil, err
		}
		if err := p.fill(lx, &body); err != nil {
			return nil, err
		}
		pt.Poses = append(pt.Poses, p)
		raws = append(raws, p.CommentRaw)
	}
	comments, encs, enc := decodeComments(raws)
	pt.Encoding = enc
	for i := range pt.Poses {
		pt.Poses[i].Comment, pt.Poses[i].CommentEncoding = comments[i], encs[i]
	}
	seen := make(map[int]bool, len(pt.Poses))
	for _, p := range pt.Poses {
		if seen[p.Number] {
			pt.Warnings = append(pt.Warnings, fmt.Sprintf("%s: line %d: pose %d defined again", file, p.Line, p.Number))
		}
		seen[p.Number] = true
	}
	return pt, nil
}

// parseBlockBody reads the fields and blocks of a block whose "{" has been consumed, up to and
// including its "}".
func parseBlockBody(lx *lexer, st *strs, kind string, line, depth int) (Block, error) {
	b := Block{Kind: kind, Line: line}
	if depth > maxBlockDepth {
		return b, lx.errorf(line, "blocks nest deeper than %d", maxBlockDepth)
	}
	base := len(st.fields)
	defer func() { st.fields = st.fields[:base] }()
	for {
		tok, err := lx.need(`"}"`)
		if err != nil {
			return b, err
		}
		if tok.is("}") {
			b.Fields = st.keep(st.fields[base:])
			return b, nil
		}
		if tok.quoted || (len(tok.text) == 1 && isPunct(tok.text[0])) {
			return b, lx.errorf(tok.line, "expected a keyword in %s, found %q", kind, clip(tok.text))
		}
		nt, ok, err := lx.peek()
		if err != nil {
			return b, err
		}
		if ok && nt.is("{") {
			lx.next()
			sub, err := parseBlockBody(lx, st, st.str(tok.text), tok.line, depth+1)
			if err != nil {
				return b, err
			}
			b.Blocks = append(b.Blocks, sub)
			continue
		}
		f := Field{Key: st.str(tok.text), Line: tok.line}
		if isScalarKey(tok) {
			v, err := lx.need("a value")
			if err != nil {
				return b, err
			}
			if !v.quoted && len(v.text) == 1 && isPunct(v.text[0]) {
				return b, lx.errorf(v.line, "%s: expected a value, found %q", f.Key, v.text)
			}
			f.Values = st.one(st.str(v.text))
			st.fields = append(st.fields, f)
			continue
		}
		// Any other key takes the rest of its line; a list ending in a comma goes on.
		cont := false
		for {
			v, ok, err := lx.peek()
			if err != nil {
				return b, err
			}
			if !ok || (v.first && !cont) || v.is("{") || v.is("}") {
				break
			}
			lx.next()
			cont = v.is(",")
			if v.is(",") || v.is("=") {
				continue
			}
			f.Values = append(f.Values, st.str(v.text))
		}
		if f.Values == nil {
			f.Values = []string{}
		}
		st.fields = append(st.fields, f)
	}
}

// fill interprets a pose's body.
func (p *Pose) fill(lx *lexer, body *Block) error {
	p.Empty = len(body.Fields) == 0 && len(body.Blocks) == 0
	var haveStart, haveEnd bool
	for _, f := range body.Fields {
		val := ""
		if len(f.Values) > 0 {
			val = f.Values[0]
		}
		num := func(dst *int) error {
			n, ok := atoiString(val)
			if !ok {
				return lx.errorf(f.Line, "pose %d: %s %q is not an integer", p.Number, f.Key, clip([]byte(val)))
			}
			*dst = n
			return nil
		}
		var err error
		switch key := f.Key; {
		case strings.EqualFold(key, "source"):
			err = num(&p.Source)
		case strings.EqualFold(key, "start"):
			err = num(&p.Start)
			haveStart = true
		case strings.EqualFold(key, "end"):
			err = num(&p.End)
			haveEnd = true
		case strings.EqualFold(key, "loopstart"):
			err = num(&p.LoopStart)
		case strings.EqualFold(key, "loopend"):
			err = num(&p.LoopEnd)
		case strings.EqualFold(key, "effecttype"):
			p.EffectType = val
		case strings.EqualFold(key, "effectid"):
			p.EffectID = val
		case strings.EqualFold(key, "link"):
			p.Link = val
		default:
			p.Fields = append(p.Fields, f)
		}
		if err != nil {
			return err
		}
	}
	p.HasRange = haveStart && haveEnd
	for _, b := range body.Blocks {
		switch {
		case strings.EqualFold(b.Kind, "action") || strings.EqualFold(b.Kind, "blend"):
			w := Window{Speed: 1}
			for _, f := range b.Fields {
				val := ""
				if len(f.Values) > 0 {
					val = f.Values[0]
				}
				switch {
				case strings.EqualFold(f.Key, "start") || strings.EqualFold(f.Key, "end"):
					n, ok := atoiString(val)
					if !ok {
						return lx.errorf(f.Line, "pose %d: %s %s %q is not an integer", p.Number, b.Kind, f.Key, clip([]byte(val)))
					}
					if strings.EqualFold(f.Key, "start") {
						w.Start = n
					} else {
						w.End = n
					}
				case strings.EqualFold(f.Key, "speed"):
					s, err := strconv.ParseFloat(val, 64)
					if err != nil {
						return lx.errorf(f.Line, "pose %d: %s speed %q is not a number", p.Number, b.Kind, clip([]byte(val)))
					}
					w.Speed = s
				}
			}
			if strings.EqualFold(b.Kind, "action") {
				p.Actions = append(p.Actions, w)
			} else {
				p.Blends = append(p.Blends, w)
			}
		default:
			p.Blocks = append(p.Blocks, b)
		}
	}
	return nil
}
