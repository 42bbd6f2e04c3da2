package meteor

import (
	"encoding/binary"
	"fmt"
	"math"
	"path"
	"strings"

	"github.com/modelfs/modelfs/translate/scene"
)

// frames is one usable animation file.
type frames struct {
	file    string
	a       *Animation
	fps     float64
	dummies bool // the file's dummies match the skeleton's and are animated
}

// loadFrames reads and checks an animation file against the skeleton. It returns nil (with a
// warning) when the file is missing or unusable; missing reports that it does not exist.
func (b *builder) loadFrames(name string, quietMissing bool) (f *frames, missing bool) {
	found, data, err := companion(b.src, b.dir, name)
	switch {
	case err != nil:
		b.warn("animation file %s could not be read (%v)", name, err)
		return nil, false
	case data == nil:
		if !quietMissing {
			b.warn("animation file %s not found beside %s; no animations", name, path.Base(b.src.Name))
		}
		return nil, true
	}
	a, err := ParseAMB(data, found)
	if err != nil {
		b.warn("animation file unusable (%v)", err)
		return nil, false
	}
	b.warnings = append(b.warnings, a.Warnings...)
	if b.skel == nil {
		b.warn("animation file %s ignored: there is no skeleton to animate", found)
		return nil, false
	}
	if a.Bones != b.skel.Bones {
		b.warn("animation file %s has %d bones, the skeleton %s has %d; it is not used", found, a.Bones, b.skelFile, b.skel.Bones)
		return nil, false
	}
	f = &frames{file: found, a: a, fps: float64(a.FPS)}
	if a.FPS <= 0 || a.FPS > 1000 {
		b.warn("animation file %s: %d frames per second is implausible; %d used", found, a.FPS, defaultFPS)
		f.fps = defaultFPS
	}
	if a.Dummies != b.skel.Dummies() {
		b.warn("animation file %s has %d dummies, the skeleton has %d; dummies are not animated", found, a.Dummies, b.skel.Dummies())
		return f, false
	}
	f.dummies = true
	if a.Frames > 0 {
		mismatch := 0
		for d := 0; d < a.Dummies; d++ {
			tag := string(a.dummyTag(0, d))
			p, ok := b.skel.Index(tag)
			if !ok || p != b.skel.Parents[b.skel.Bones+d] {
				mismatch++
			}
		}
		if mismatch > 0 {
			b.warn("animation file %s: %d dummies name another parent than the skeleton does; the skeleton's parents are kept", found, mismatch)
		}
	}
	return f, false
}

// animations cuts the animation frames into one animation per usable pose.
func (b *builder) animations() {
	own := b.own
	if b.ownRead {
		b.warnings = append(b.warnings, b.ownWarnings...)
	} else {
		own, _ = b.loadFrames(b.char+".amb", false)
	}
	posFile, posData, err := companion(b.src, b.dir, b.char+".pos")
	var table *PoseTable
	switch {
	case err != nil:
		b.warn("action table %s could not be read (%v)", b.char+".pos", err)
	case posData == nil:
		if own != nil {
			b.warn("action table %s not found; the whole of %s is one animation", b.char+".pos", own.file)
		}
	default:
		table, err = ParsePOS(posData, posFile)
		if err != nil {
			b.warn("action table unusable (%v)", err)
			table = nil
		} else {
			b.warnings = append(b.warnings, table.Warnings...)
		}
	}
	if own != nil {
		b.s.Extras["animationFile"] = scene.Extras{"file": own.file, "frames": own.a.Frames, "fps": own.fps, "first": own.a.First, "last": own.a.Last}
	}
	if table == nil {
		if own != nil && own.a.Frames > 0 {
			recs := make([]int, own.a.Frames)
			for i := range recs {
				recs[i] = i
			}
			a := b.clip(own, recs, nil)
			a.Name = wholeAnimationKey
			a.Start, a.End = float64(own.a.First)/own.fps, float64(own.a.Last)/own.fps
			a.Extras = scene.Extras{"file": own.file, "frames": []int32{own.a.First, own.a.Last}}
			b.s.Animations = append(b.s.Animations, a)
		}
		return
	}
	b.s.Extras["poseFile"] = posFile
	b.s.Extras["commentEncoding"] = table.Encoding
	var shared *frames
	sharedTried, sharedMissing := false, false
	poses := make([]PoseInfo, len(table.Poses))
	animIndex := make([]int, len(table.Poses))
	counts := map[string]int{}
	for i := range table.Poses {
		p := &table.Poses[i]
		status := ""
		var src *frames
		switch {
		case p.Empty:
			status = PoseEmpty
		case !p.HasRange:
			status = PoseNoRange
		case p.Source != 0 && p.Source != 1:
			status = PoseBadSource
		case p.End < p.Start:
			status = PoseBadRange
		case p.Source == 1:
			src = own
		default:
			if !sharedTried {
				sharedTried = true
				if b.skel != nil {
					shared, sharedMissing = b.loadFrames(SharedAnimation, true)
				} else {
					sharedMissing = true
				}
			}
			src = shared
			if src == nil && sharedMissing {
				status = PoseNeedsShared
			}
		}
		var anim *scene.Animation
		if status == "" {
			switch {
			case src == nil && b.skel == nil:
				status = PoseNoAnimation
			case src == nil:
				status = PoseBadAnimation
			default:
				recs, ok := poseRecords(src.a, p.Start, p.End)
				if !ok {
					status = PosePastEnd
					b.warn("%s line %d: pose %d names frames %d–%d, beyond what %s holds (%d–%d); skipped",
						posFile, p.Line, p.Number, p.Start, p.End, src.file, src.a.First, src.a.Last)
					break
				}
				a := b.clip(src, recs, p)
				anim = &a
				status = PoseAnimated
			}
		}
		counts[status]++
		in := &poses[i]
		*in = poseInfo(p)
		in.Status = status
		if src != nil {
			in.SourceFile = src.file
		} else if p.Source == 0 {
			in.SourceFile = SharedAnimation
		}
		if anim != nil {
			animIndex[i] = len(b.s.Animations)
			in.Animation = &animIndex[i]
			anim.Name = fmt.Sprintf("Pose%d", p.Number)
			if p.Comment != "" {
				anim.Name += " " + p.Comment
			}
			anim.Loop = p.Looping()
			anim.Start, anim.End = float64(p.Start)/src.fps, float64(p.End)/src.fps
			anim.Extras = scene.Extras{"pose": p.Number, "file": src.file, "frames": []int{p.Start, p.End}}
			if p.Comment != "" {
				anim.Extras["comment"] = p.Comment
			}
			if p.Looping() {
				anim.Extras["loopFrames"] = []int{p.LoopStart, p.LoopEnd}
				if t0, ok := frameTime(anim, p, p.LoopStart); ok {
					if t1, ok := frameTime(anim, p, p.LoopEnd); ok {
						anim.Extras["loopTimes"] = []float32{t0, t1}
					}
				}
			}
			if len(p.Actions) > 0 {
				anim.Extras["actions"] = windowsExtras(p.Actions)
			}
			if p.Link != "" {
				anim.Extras["link"] = p.Link
			}
			b.s.Animations = append(b.s.Animations, *anim)
		}
	}
	b.s.Extras["poses"] = poses
	b.s.Extras["poseCounts"] = counts
	if n := counts[PoseNeedsShared]; n > 0 {
		b.warn("%d poses use the shared %s, which is not beside %s; they are skipped (listed under extras.poses)", n, SharedAnimation, path.Base(b.src.Name))
	}
	if own == nil && counts[PoseAnimated] == 0 && b.skel != nil {
		b.warn("no pose could be animated; the model is a static skinned model")
	}
}

// poseRecords returns the records of frames start…end, or false when one is missing.
func poseRecords(a *Animation, start, end int) ([]int, bool) {
	if end-start+1 > a.Frames || end < start {
		return nil, false
	}
	recs := make([]int, 0, end-start+1)
	for f := start; f <= end; f++ {
		r, ok := a.Record(f)
		if !ok {
			return nil, false
		}
		recs = append(recs, r)
	}
	return recs, true
}

// frameTime returns the time of frame f within the clip of pose p, when f is in its window.
func frameTime(a *scene.Animation, p *Pose, f int) (float32, bool) {
	k := f - p.Start
	if k < 0 || len(a.Channels) == 0 || k >= len(a.Channels[0].Times) {
		return 0, false
	}
	return a.Channels[0].Times[k], true
}

// speedAt returns the speed multiplier of frame f: that of the last Action window holding it.
func speedAt(actions []Window, f int) float64 {
	s := 1.0
	for _, w := range actions {
		if f >= w.Start && f <= w.End && w.Speed > 0 && !math.IsInf(w.Speed, 0) {
			s = min(max(w.Speed, minSpeed), maxSpeed)
		}
	}
	return s
}

// clip builds the channels of the given records: root translation, every bone's rotation, and
// each dummy's translation and rotation. Keys are 1/fps apart, divided by the speed of the
// Action window the frame lies in.
func (b *builder) clip(f *frames, recs []int, p *Pose) scene.Animation {
	a := f.a
	n := len(recs)
	times := make([]float32, n)
	t := 0.0
	var actions []Window
	if p != nil {
		actions = sortWindows(p.Actions)
	}
	for k := range recs {
		times[k] = float32(t)
		if k > 0 && times[k] <= times[k-1] {
			times[k] = math.Nextafter32(times[k-1], math.MaxFloat32)
		}
		step := 1 / f.fps
		if p != nil {
			step /= speedAt(actions, p.Start+k)
		}
		t += step
	}
	// The channels: root translation, each bone's rotation, then each dummy's translation and
	// rotation. They are filled frame by frame, reading each record of the file once in order
	// (channel by channel would stride through the whole file once per channel), into one
	// array of values that the channels share.
	nb, nd := a.Bones, 0
	if f.dummies {
		nd = a.Dummies
	}
	nch := 1 + nb + 2*nd
	vals := make([]float32, n*(3+4*nb+7*nd))
	chans := make([]scene.Channel, nch)
	off := 0
	for c := range chans {
		ch := &chans[c]
		ch.Path, ch.Interp, ch.Times = scene.PathTranslation, scene.Linear, times
		switch {
		case c == 0:
			ch.Node = 0
		case c <= nb:
			ch.Node, ch.Path = c-1, scene.PathRotation
		default:
			d := (c - 1 - nb) / 2
			ch.Node = b.skel.Bones + d
			if (c-1-nb)%2 == 1 {
				ch.Path = scene.PathRotation
			}
		}
		w := ch.Path.Width() * n
		ch.Values = vals[off : off+w : off+w]
		off += w
	}
	// prev holds each rotation channel's previous key, to keep consecutive keys in one
	// hemisphere.
	if cap(b.prevQuat) < nch {
		b.prevQuat = make([]quat, nch)
	}
	prev := b.prevQuat[:nch]
	for k, r := range recs {
		rec := a.data[ambHeader+r*a.stride : ambHeader+(r+1)*a.stride]
		putPos(chans[0].Values, k, rec[8:])
		for bone := range nb {
			putRot(chans[1+bone].Values, k, rec[20+16*bone:], &prev[1+bone])
		}
		for d := range nd {
			o := 20 + 16*a.Bones + 33*d + 5
			putPos(chans[1+nb+2*d].Values, k, rec[o:])
			putRot(chans[2+nb+2*d].Values, k, rec[o+12:], &prev[2+nb+2*d])
		}
	}
	return scene.Animation{Duration: times[n-1], Channels: chans}
}

// f32at reads the little-endian float32 at b[i:].
func f32at(b []byte, i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[i:])) }

// putPos converts the translation x, y, z at the start of src and stores it as key k of vals.
func putPos(vals []float32, k int, src []byte) {
	v := convPos32([3]float32{f32at(src, 0), f32at(src, 4), f32at(src, 8)})
	d := vals[3*k : 3*k+3]
	d[0], d[1], d[2] = v[0], v[1], v[2]
}

// putRot converts the rotation w, x, y, z at the start of src and stores it as key k of vals,
// negated when that keeps it in the hemisphere of the previous key, *prev, which it updates.
func putRot(vals []float32, k int, src []byte, prev *quat) {
	q := convQuat(float64(f32at(src, 0)), float64(f32at(src, 4)), float64(f32at(src, 8)), float64(f32at(src, 12)))
	if k > 0 && q[0]*prev[0]+q[1]*prev[1]+q[2]*prev[2]+q[3]*prev[3] < 0 {
		q = quat{-q[0], -q[1], -q[2], -q[3]}
	}
	*prev = q
	d := vals[4*k : 4*k+4]
	d[0], d[1], d[2], d[3] = float32(q[0]), float32(q[1]), float32(q[2]), float32(q[3])
}

func windowsExtras(ws []Window) []scene.Extras {
	out := make([]scene.Extras, len(ws))
	for i, w := range ws {
		out[i] = scene.Extras{"start": w.Start, "end": w.End, "speed": w.Speed}
	}
	return out
}

// PoseInfo describes one pose of the action table in the metadata (scene extras "poses").
// Optional numbers are nil when the pose does not state them.
type PoseInfo struct {
	Number          int      `json:"number"`
	Line            int      `json:"line"`
	Comment         string   `json:"comment,omitempty"`
	CommentEncoding string   `json:"commentEncoding,omitempty"`
	CommentRaw      string   `json:"commentRaw,omitempty"` // hex, when part of the comment stayed undecoded
	Empty           bool     `json:"empty,omitempty"`
	Source          *int     `json:"source,omitempty"`
	SourceFile      string   `json:"sourceFile,omitempty"`
	Start           *int     `json:"start,omitempty"`
	End             *int     `json:"end,omitempty"`
	LoopStart       *int     `json:"loopStart,omitempty"`
	LoopEnd         *int     `json:"loopEnd,omitempty"`
	Looping         bool     `json:"looping"`
	Link            string   `json:"link,omitempty"`
	EffectType      string   `json:"effectType,omitempty"`
	EffectID        string   `json:"effectId,omitempty"`
	Actions         []Window `json:"actions,omitempty"`
	Blends          []Window `json:"blends,omitempty"`
	Blocks          []Block  `json:"blocks,omitempty"`
	Fields          []Field  `json:"fields,omitempty"`
	Status          string   `json:"status"`
	// Animation is the index of the pose's animation, nil when it has none.
	Animation *int `json:"animation"`
}

// poseInfo describes p; the pointers point into p, which the scene keeps.
func poseInfo(p *Pose) PoseInfo {
	in := PoseInfo{Number: p.Number, Line: p.Line, Comment: p.Comment, CommentEncoding: p.CommentEncoding, Empty: p.Empty}
	if strings.Contains(p.Comment, `\x`) {
		in.CommentRaw = fmt.Sprintf("%x", p.CommentRaw)
	}
	if p.Empty {
		return in
	}
	if p.Source >= 0 {
		in.Source = &p.Source
	}
	if p.HasRange {
		in.Start, in.End = &p.Start, &p.End
	}
	if p.LoopStart != 0 || p.LoopEnd != 0 {
		in.LoopStart, in.LoopEnd = &p.LoopStart, &p.LoopEnd
	}
	in.Looping = p.Looping()
	in.Link, in.EffectType, in.EffectID = p.Link, p.EffectType, p.EffectID
	in.Actions, in.Blends, in.Blocks, in.Fields = p.Actions, p.Blends, p.Blocks, p.Fields
	return in
}
