package meteor

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// FormatBNC is the format name used in errors about skeletons.
const FormatBNC = "meteor-bnc"

// maxJoints caps bones plus dummies of one skeleton.
const maxJoints = 4096

// maxPivot caps the magnitude of a pivot coordinate, so that world transforms stay finite.
const maxPivot = 1e7

// Joint is one bone or dummy of a skeleton, as the .bnc states it.
type Joint struct {
	Name   string
	Dummy  bool       // a "Dummey" entry: an attachment point, not a bone
	Parent string     // as written: a name, "NULL", or a bN / dN index reference
	Pivot  [3]float64 // translation relative to the parent, source axes
	Quat   [4]float64 // local rotation as written: w, x, y, z
	// Children is the bone's stated child count (-1 for dummies, which have none).
	Children int
	Line     int // line of the entry's name
}

// Skeleton is a parsed .bnc: bones in file order, then dummies in file order.
type Skeleton struct {
	Bones   int     // number of bones; Joints[:Bones] are bones, the rest dummies
	Joints  []Joint // bones, then dummies
	Parents []int   // resolved parent index into Joints, -1 for a root
	// Warnings lists tolerated oddities (stated counts or child counts that disagree).
	Warnings []string
}

// Dummies returns the number of dummies.
func (s *Skeleton) Dummies() int { return len(s.Joints) - s.Bones }

// Index returns the joint a parent reference names: an exact name first, then NULL (-1), then the
// bN / dN index forms. ok is false when nothing matches.
func (s *Skeleton) Index(ref string) (int, bool) {
	for i := range s.Joints {
		if s.Joints[i].Name == ref {
			return i, true
		}
	}
	if strings.EqualFold(ref, "NULL") {
		return -1, true
	}
	if len(ref) >= 2 && (ref[0] == 'b' || ref[0] == 'd' || ref[0] == 'B' || ref[0] == 'D') {
		n, ok := atoi([]byte(ref[1:]))
		if !ok || n < 0 || ref[1] == '+' || ref[1] == '-' {
			return 0, false
		}
		if lower(ref[0]) == 'b' && n < s.Bones {
			return n, true
		}
		if lower(ref[0]) == 'd' && n < s.Dummies() {
			return s.Bones + n, true
		}
	}
	return 0, false
}

// ParseBNC reads a skeleton (.bnc). Errors are *translate.FormatError naming file.
func ParseBNC(data []byte, file string) (*Skeleton, error) {
	lx := newLexer(data, FormatBNC, file)
	// Names are substrings of one copy of the file, not a copy each.
	src := string(data)
	str := func(b []byte) string {
		off := cap(data) - cap(b) // b is a slice of data, which ends where data ends
		return src[off : off+len(b)]
	}
	sk := &Skeleton{}
	wantBones, wantDummies := -1, -1
	var bones, dummies []Joint
	for {
		tok, ok, err := lx.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		switch {
		case tok.is("Bones:"):
			if wantBones, err = lx.int("bone count", 0, maxJoints); err != nil {
				return nil, err
			}
		case tok.is("Dummey:") || tok.is("Dummy:") || tok.is("Dummies:"):
			if wantDummies, err = lx.int("dummy count", 0, maxJoints); err != nil {
				return nil, err
			}
		case tok.is("bone") || tok.is("Dummey") || tok.is("Dummy"):
			if bones == nil && dummies == nil {
				// Room for the counts the header states (as far as the data can hold them),
				// dummies included, so that neither list grows nor joining them copies.
				most := len(data)/32 + 1
				bones = make([]Joint, 0, min(max(wantBones, 0)+max(wantDummies, 0), most))
				dummies = make([]Joint, 0, min(max(wantDummies, 0), most))
			}
			// The joint is read in place, in the zeroed room at the end of its list (never
			// used before): copying a Joint in costs a bulk write barrier while the GC runs.
			list := &bones
			if !tok.is("bone") {
				list = &dummies
			}
			if len(*list) == cap(*list) {
				*list = slices.Grow(*list, 1)
			}
			*list = (*list)[:len(*list)+1]
			if err := parseJoint(lx, str, &(*list)[len(*list)-1], list == &dummies, tok.line); err != nil {
				return nil, err
			}
			if len(bones)+len(dummies) > maxJoints {
				return nil, lx.errorf(tok.line, "more than %d bones and dummies", maxJoints)
			}
		default:
			return nil, lx.errorf(tok.line, "unexpected %q", clip(tok.text))
		}
	}
	if len(bones) == 0 {
		return nil, lx.errorf(lx.line, "no bones")
	}
	if wantBones >= 0 && wantBones != len(bones) {
		sk.Warnings = append(sk.Warnings, file+": header says "+strconv.Itoa(wantBones)+" bones, file has "+strconv.Itoa(len(bones)))
	}
	if wantDummies >= 0 && wantDummies != len(dummies) {
		sk.Warnings = append(sk.Warnings, file+": header says "+strconv.Itoa(wantDummies)+" dummies, file has "+strconv.Itoa(len(dummies)))
	}
	sk.Bones = len(bones)
	sk.Joints = append(bones, dummies...)
	seen := make(map[string]int, len(sk.Joints))
	for i, j := range sk.Joints {
		if k, dup := seen[j.Name]; dup {
			sk.Warnings = append(sk.Warnings, file+": line "+strconv.Itoa(j.Line)+": name "+strconv.Quote(j.Name)+" used twice; parents naming it mean entry "+strconv.Itoa(k))
			continue
		}
		seen[j.Name] = i
	}
	sk.Parents = make([]int, len(sk.Joints))
	for i, j := range sk.Joints {
		p, ok := -1, false
		if k, found := seen[j.Parent]; found {
			p, ok = k, true
		} else {
			p, ok = sk.Index(j.Parent)
		}
		if !ok {
			return nil, lx.errorf(j.Line, "%s's parent %q is no bone or dummy", j.Name, j.Parent)
		}
		if p == i {
			return nil, lx.errorf(j.Line, "%s is its own parent", j.Name)
		}
		sk.Parents[i] = p
	}
	children := make([]int, len(sk.Joints))
	for i := range sk.Joints {
		p, steps := sk.Parents[i], 0
		if p >= 0 && i < sk.Bones {
			children[p]++ // the stated counts leave out dummies
		}
		for p >= 0 {
			if steps++; steps > len(sk.Joints) || p == i {
				return nil, lx.errorf(sk.Joints[i].Line, "%s is its own ancestor", sk.Joints[i].Name)
			}
			p = sk.Parents[p]
		}
	}
	mismatched := 0
	for i, j := range sk.Joints {
		if !j.Dummy && j.Children != children[i] {
			mismatched++
		}
	}
	if mismatched > 0 {
		// The stated count is informative only.
		sk.Warnings = append(sk.Warnings, file+": "+strconv.Itoa(mismatched)+" bones state a child count that differs from the bones naming them as parent")
	}
	return sk, nil
}

// parseJoint reads the name and { … } body of one bone or dummy into j, which is zero.
func parseJoint(lx *lexer, str func([]byte) string, j *Joint, dummy bool, line int) error {
	j.Dummy, j.Children, j.Line = dummy, -1, line
	name, err := lx.need("a name")
	if err != nil {
		return err
	}
	if len(name.text) == 1 && isPunct(name.text[0]) && !name.quoted {
		return lx.errorf(name.line, "expected a name, found %q", name.text)
	}
	j.Name = str(name.text)
	if err := lx.expect("{"); err != nil {
		return err
	}
	var havePivot, haveQuat, haveParent bool
	for {
		tok, err := lx.need(`"}"`)
		if err != nil {
			return err
		}
		switch {
		case tok.is("}"):
			if !haveParent || !havePivot || !haveQuat {
				return lx.errorf(tok.line, "%s lacks its parent, pivot or quaternion", j.Name)
			}
			return nil
		case tok.is("parent"):
			p, err := lx.need("a parent")
			if err != nil {
				return err
			}
			j.Parent, haveParent = str(p.text), true
		case tok.is("pivot"):
			for k := range 3 {
				if j.Pivot[k], err = lx.float("pivot"); err != nil {
					return err
				}
				if math.Abs(j.Pivot[k]) > maxPivot {
					return lx.errorf(tok.line, "%s: pivot %g out of range (±%g)", j.Name, j.Pivot[k], maxPivot)
				}
			}
			havePivot = true
		case tok.is("quaternion"):
			for k := range 4 {
				if j.Quat[k], err = lx.float("quaternion"); err != nil {
					return err
				}
			}
			haveQuat = true
		case tok.is("children"):
			if j.Children, err = lx.int("child count", 0, maxJoints); err != nil {
				return err
			}
		default:
			return lx.errorf(tok.line, "%s: unexpected %q", j.Name, clip(tok.text))
		}
	}
}
