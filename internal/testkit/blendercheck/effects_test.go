package blendercheck

import (
	"encoding/json"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelfs/modelfs/internal/testkit/corpus"
)

// Thresholds of the effects comparison (issue 42): the union over the moments of the pixels
// the effect covers, as intersection over union, and the mean colour of those pixels per
// channel, as a share of full scale.
const (
	fxMinIoU     = 0.6
	fxMaxColour  = 0.15
	fxMoments    = 8
	fxPixelDelta = 0.1 // how much a pixel must change with the effect to count as the effect's
)

// fxSmall is the union, in pixels, below which an effect is too small to compare (in both
// renderers): a few pixels of a far particle.
const fxSmall = 50

// fxHeld lists the models measured outside the thresholds (scripts/effects-compare, issue 42),
// each held to what was measured (IoU at least iou, every colour channel within colour) so
// that it gets no worse, and why. Most are sparse emitters, whose few particles cover pixels
// that depend on the random numbers, which differ between the two renderers; the others are
// additive piles, which the game sums per pixel and the baker estimates per quad corner. A
// model back within the thresholds should leave the list.
var fxHeld = map[string]struct {
	iou, colour float64
	why         string
}{
	"Units/Swinger.mdl":                                                     {0.51, 0.45, fxFew + "; " + fxTeam},
	"Units/Swinger.mdx":                                                     {0.51, 0.45, fxFew + "; " + fxTeam},
	"wc3-fx/KonosubaWC3/map.w3x/A_P.blast2.MDX":                             {0.63, 0.49, "a faint particle of a rate track whose first key is at 36 ms: the simulator emits it, the game not (the time before a track's first key, issue 43)"},
	"wc3-fx/KonosubaWC3/map.w3x/Effect/File0.mdx":                           {0.20, 0.12, fxFew},
	"wc3-fx/KonosubaWC3/map.w3x/Effect/File00005617.mdx":                    {0.46, 0.62, fxFew},
	"wc3-fx/KonosubaWC3/map.w3x/Effect/MementoMori.mdx":                     {0.38, 0.38, fxFew},
	"wc3-fx/RunKittyRun/source.w3x/war3mapImported/DarknessLeechTarget.mdx": {0.92, 0.16, fxPile},
	"wc3-fx/RunKittyRun/source.w3x/war3mapImported/Divine Edict.mdx":        {0.59, 0.16, fxFew + "; " + fxPile},
	"wc3-fx/RunKittyRun/source.w3x/war3mapImported/Radiance Orange.mdx":     {0.59, 0.35, fxPile},
	"wc3-fx/RunKittyRun/source.w3x/war3mapImported/StarRegular.mdx":         {0.56, 0.12, fxFew},
	"wc3r/roguelike/map.w3x/SystemGeneric/pileofgold.mdx":                   {0.49, 0.09, fxFew},
}

const (
	fxFew  = "few particles or streaks: what they cover depends on the random numbers"
	fxPile = "an additive pile: the game sums it per pixel, the baker per quad corner"
	// The ribbon's material paints team colour under a picture the sample tree lacks: the
	// reference draws the team colour it is given, the .glb has no picture to paint under.
	fxTeam = "its ribbon's team colour is painted under a missing picture"
)

// fxModel is a Warcraft III model whose default animation has baked effects.
type fxModel struct {
	name, src, mount string
	doc              struct {
		Error  string `json:"error"`
		Source struct {
			Version int `json:"version"`
		} `json:"source"`
		Bounds   *struct{ Min, Max [3]float64 } `json:"bounds"`
		Textures []struct {
			Path     string  `json:"path"`
			Resolved *string `json:"resolved"`
		} `json:"textures"`
		Animations []struct {
			Name     string  `json:"name"`
			Duration float64 `json:"duration"`
			Loop     bool    `json:"looping"`
		} `json:"animations"`
		Extras struct {
			Emitters []struct {
				LifeSpan any `json:"lifeSpan"`
			} `json:"emitters"`
			Effects []struct {
				Name       string `json:"name"`
				Animations []struct {
					Animation string  `json:"animation"`
					FPS       float64 `json:"fps"`
					Bounds    *struct {
						Min, Max [3]float64
					} `json:"bounds"`
				} `json:"animations"`
			} `json:"effects"`
			View *[3]float64 `json:"effectsView"`
		} `json:"extras"`
	}
}

// TestEffectsMatchTheGame draws the particles and ribbons of Warcraft III models at 8 moments
// of their default animation, with mdx-m3-viewer in Chromium (the reference) and from the
// mount's .glb in Blender, each with and without the effect, from the side the billboards are
// baked to face. The viewer's random numbers differ from the simulator's, so what is compared
// does not depend on them: the union over the moments of the pixels the effect changes (0.6
// IoU at least) and their mean colour (within 15 % per channel). CI draws 4 models;
// MODELFS_EFFECTS_ALL=1 (scripts/effects-compare) draws every one.
func TestEffectsMatchTheGame(t *testing.T) {
	bin := Binary(t)
	repo := corpus.RepoRoot(t)
	node, chromium := renderTools(t, repo)
	trees := drawnTrees(t, repo)
	var models []*fxModel
	for _, tree := range trees {
		models = append(models, fxModels(t, mount(t, tree))...)
	}
	sort.Slice(models, func(i, j int) bool { return models[i].name < models[j].name })
	if match := os.Getenv("MODELFS_EFFECTS_MATCH"); match != "" {
		models = slices.DeleteFunc(models, func(m *fxModel) bool {
			return !slices.ContainsFunc(strings.Split(match, "|"), func(s string) bool { return strings.Contains(m.name, s) })
		})
		os.Setenv("MODELFS_EFFECTS_ALL", "1")
	}
	if os.Getenv("MODELFS_EFFECTS_ALL") == "" && len(models) > 4 {
		// A few, spread over those whose default animation is short (the reference runs in
		// real steps): CI stays well under its budget.
		short := slices.DeleteFunc(slices.Clone(models), func(m *fxModel) bool { return m.doc.Animations[0].Duration > 3 })
		var few []*fxModel
		for i := 0; i < len(short); i += (len(short) + 3) / 4 {
			few = append(few, short[i])
		}
		models = few
	}
	if len(models) < 3 && os.Getenv("MODELFS_EFFECTS_MATCH") == "" {
		t.Fatalf("only %d models with effects to draw", len(models))
	}
	work := t.TempDir()
	team := teamPictures(t, work)
	var ref, got []fxJob
	for i, m := range models {
		j := m.job(work, i)
		for k, v := range team {
			j.Textures[k] = v
		}
		ref = append(ref, j)
		g := j
		g.Model, g.Out, g.Textures = filepath.Join(m.mount, filepath.FromSlash(m.name)+".glb"), filepath.Join(work, fmt.Sprintf("%02d-blender", i)), nil
		// Blender shows a sample from its moment on: half a sample in, whatever the rounding.
		g.Times = make([]float64, len(j.Times))
		for k, tm := range j.Times {
			g.Times[k] = tm + 0.5/m.fps()
		}
		got = append(got, g)
	}
	t.Setenv("CHROMIUM", chromium)
	runFxJobs(t, work, "game", ref, node, filepath.Join(repo, "tools", "mdx-parse", "render.mjs"))
	runFxJobs(t, work, "blender", got, bin, "-b", "--factory-startup", "--python-exit-code", "1",
		"--python", filepath.Join(repo, "scripts", "blender", "render.py"), "--")
	keep := keptImages()
	var ious []float64
	for i, m := range models {
		a, errA := effectPixels(ref[i].Out)
		b, errB := effectPixels(got[i].Out)
		if errA != nil || errB != nil {
			t.Errorf("%s: no images to compare: %v %v", m.name, errA, errB)
			continue
		}
		iou, diff := a.compare(b)
		ious = append(ious, iou)
		line := fmt.Sprintf("%s: effect union IoU %.3f (%d and %d pixels), mean colour differs by %.1f %.1f %.1f %%",
			m.name, iou, a.count, b.count, 100*diff[0], 100*diff[1], 100*diff[2])
		wantIoU, wantColour := fxMinIoU, fxMaxColour
		if max(a.count, b.count) < fxSmall {
			t.Log(line + " (too small to compare)")
			continue
		}
		if h, ok := fxHeld[m.name]; ok {
			if iou >= wantIoU && max(diff[0], diff[1], diff[2]) <= wantColour {
				line += " (within the thresholds again: take it off fxHeld)"
			}
			wantIoU, wantColour = h.iou, h.colour
			line += " (held to what was measured: " + h.why + ")"
		}
		pass := iou >= wantIoU && max(diff[0], diff[1], diff[2]) <= wantColour
		if pass && os.Getenv("MODELFS_EFFECTS_KEEP") == "" {
			t.Log(line)
			continue
		}
		dir := filepath.Join(keep, "effects", strings.NewReplacer("/", "_", "\\", "_").Replace(m.name))
		if err := os.MkdirAll(dir, 0o755); err == nil {
			for k := range fxMoments {
				for _, v := range []string{"fx", "plain"} {
					copyFile(fmt.Sprintf("%s-%d-%s.png", ref[i].Out, k, v), filepath.Join(dir, fmt.Sprintf("game-%d-%s.png", k, v)))
					copyFile(fmt.Sprintf("%s-%d-%s.png", got[i].Out, k, v), filepath.Join(dir, fmt.Sprintf("blender-%d-%s.png", k, v)))
				}
			}
		}
		if pass {
			t.Logf("%s; the images in %s", line, dir)
			continue
		}
		t.Errorf("%s (want IoU ≥ %.2f, colour within %.0f %%); the images in %s", line, wantIoU, 100*wantColour, dir)
	}
	sort.Float64s(ious)
	if len(ious) > 0 {
		t.Logf("%d models: median IoU %.3f, lowest %.3f", len(ious), ious[len(ious)/2], ious[0])
	}
}

// fps is the sampling rate of the model's default animation.
func (m *fxModel) fps() float64 {
	for _, e := range m.doc.Extras.Effects {
		for _, a := range e.Animations {
			if a.Animation == m.doc.Animations[0].Name && a.FPS > 0 {
				return a.FPS
			}
		}
	}
	return 15
}

// fxJob is renderJob with moments.
type fxJob struct {
	renderJob
	Times     []float64 `json:"times"`
	Preroll   float64   `json:"preroll"`
	Animation string    `json:"animation"`
}

// job frames the model and its effects, seen from the side the billboards face, at 8
// moments of its default animation (at samples of the bake).
func (m *fxModel) job(work string, i int) fxJob {
	d := &m.doc
	an := d.Animations[0]
	lo, hi := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	grow := func(a, b [3]float64) {
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], a[k]), max(hi[k], b[k])
		}
	}
	if d.Bounds != nil {
		grow(d.Bounds.Min, d.Bounds.Max)
	}
	for _, e := range d.Extras.Effects {
		for _, a := range e.Animations {
			if a.Animation == an.Name && a.Bounds != nil {
				grow(a.Bounds.Min, a.Bounds.Max)
			}
		}
	}
	// glTF's Y-up back to the game's Z-up: (x, y, z) → (x, −z, y).
	wlo := [3]float64{lo[0], -hi[2], lo[1]}
	whi := [3]float64{hi[0], -lo[2], hi[1]}
	var center [3]float64
	diag := 0.0
	for k := range 3 {
		center[k] = (wlo[k] + whi[k]) / 2
		diag += (whi[k] - wlo[k]) * (whi[k] - wlo[k])
	}
	eye := [3]float64{1, 0, 0}
	if v := d.Extras.View; v != nil {
		eye = [3]float64{v[0], -v[2], v[1]}
	}
	textures := map[string]string{}
	for _, tx := range d.Textures {
		if tx.Resolved != nil && tx.Path != "" {
			textures[tx.Path] = filepath.Join(m.src, filepath.FromSlash(*tx.Resolved))
		}
	}
	fps := m.fps()
	j := fxJob{renderJob: renderJob{Model: filepath.Join(m.src, filepath.FromSlash(m.name)), Textures: textures,
		Center: center, Half: max(0.55*math.Sqrt(diag), 1), Eye: eye, Out: filepath.Join(work, fmt.Sprintf("%02d-game", i))},
		Animation: an.Name}
	for k := range fxMoments {
		sample := math.Floor(an.Duration * float64(k) / fxMoments * fps)
		j.Times = append(j.Times, sample/fps)
	}
	if an.Loop && an.Duration > 0 {
		life := 0.0
		for _, e := range d.Extras.Emitters {
			if v, ok := e.LifeSpan.(float64); ok {
				life = max(life, v)
			}
		}
		j.Preroll = math.Ceil(min(life, 10)/an.Duration) * an.Duration
	}
	return j
}

// fxModels lists the Warcraft III models of a mounted tree whose default animation has baked
// effects and that the reference renderer can draw.
func fxModels(t *testing.T, mnt string) []*fxModel {
	t.Helper()
	var out []*fxModel
	err := filepath.WalkDir(mnt, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if ext := strings.ToLower(filepath.Ext(p)); ext != ".mdx" && ext != ".mdl" {
			return nil
		}
		rel, _ := filepath.Rel(mnt, p)
		m := &fxModel{name: filepath.ToSlash(rel), src: mnt, mount: mnt}
		data, err := os.ReadFile(p + ".json")
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, &m.doc); err != nil {
			return fmt.Errorf("%s.json: %v", rel, err)
		}
		switch {
		case m.doc.Error != "" || len(m.doc.Animations) == 0:
		case m.doc.Source.Version > 1000:
			t.Logf("%s: not drawn: version %d, which the reference renderer does not read", rel, m.doc.Source.Version)
		default:
			for _, e := range m.doc.Extras.Effects {
				for _, a := range e.Animations {
					if a.Animation == m.doc.Animations[0].Name && a.Bounds != nil {
						out = append(out, m)
						return nil
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runFxJobs runs a renderer on jobs with moments.
func runFxJobs(t *testing.T, dir, name string, jobs []fxJob, bin string, args ...string) {
	t.Helper()
	spec, err := json.Marshal(map[string]any{"size": renderSize, "jobs": jobs})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, name+"-fx-jobs.json")
	if err := os.WriteFile(file, spec, 0o644); err != nil {
		t.Fatal(err)
	}
	runSpec(t, name, file, len(jobs), bin, args...)
}

// effect is what one renderer drew of a model's effect over the moments.
type effect struct {
	union []bool
	count int        // pixels in the union
	mean  [3]float64 // mean colour (over black, 0 to 1) of the effect's pixels, over the moments
}

// effectPixels reads the moments out-i-fx.png and out-i-plain.png: a pixel is the effect's
// where the two differ by more than fxPixelDelta (premultiplied, any channel or alpha).
func effectPixels(out string) (*effect, error) {
	var e effect
	var sum [3]float64
	n := 0
	for k := range fxMoments {
		fx, err := readPNG(fmt.Sprintf("%s-%d-fx.png", out, k))
		if err != nil {
			return nil, err
		}
		plain, err := readPNG(fmt.Sprintf("%s-%d-plain.png", out, k))
		if err != nil {
			return nil, err
		}
		if e.union == nil {
			e.union = make([]bool, len(fx.Pix)/4)
		}
		for i := 0; i+3 < len(fx.Pix) && i+3 < len(plain.Pix); i += 4 {
			if !differs(fx, plain, i) {
				continue
			}
			e.union[i/4] = true
			a := float64(fx.Pix[i+3]) / 255
			for c := range 3 {
				sum[c] += float64(fx.Pix[i+c]) / 255 * a
			}
			n++
		}
	}
	for _, on := range e.union {
		if on {
			e.count++
		}
	}
	if n > 0 {
		for c := range 3 {
			e.mean[c] = sum[c] / float64(n)
		}
	}
	return &e, nil
}

// differs tells whether pixel i (byte offset) of a and b differ by more than fxPixelDelta.
func differs(a, b *image.NRGBA, i int) bool {
	pa, pb := float64(a.Pix[i+3])/255, float64(b.Pix[i+3])/255
	if math.Abs(pa-pb) > fxPixelDelta {
		return true
	}
	for c := range 3 {
		if math.Abs(float64(a.Pix[i+c])/255*pa-float64(b.Pix[i+c])/255*pb) > fxPixelDelta {
			return true
		}
	}
	return false
}

// compare returns the IoU of the two unions and the difference of the mean colours.
func (e *effect) compare(o *effect) (iou float64, diff [3]float64) {
	inter, union := 0, 0
	for i := range e.union {
		if i >= len(o.union) {
			break
		}
		if e.union[i] || o.union[i] {
			union++
		}
		if e.union[i] && o.union[i] {
			inter++
		}
	}
	if union == 0 {
		iou = 1
	} else {
		iou = float64(inter) / float64(union)
	}
	for c := range 3 {
		diff[c] = math.Abs(e.mean[c] - o.mean[c])
	}
	return iou, diff
}
