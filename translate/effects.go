package translate

import (
	"github.com/modelfs/modelfs/translate/codec"
	"github.com/modelfs/modelfs/translate/fx"
	"github.com/modelfs/modelfs/translate/scene"
)

// DefaultEffects is the mode without the option. Stand is what a player sees of a model at
// rest, and costs a fraction of all (see the README for the sizes measured).
const DefaultEffects = fx.Stand

// bakeEffects bakes the scene's emitters as src's options ask, and reports whether it did.
func bakeEffects(src codec.Source, s *scene.Scene) bool {
	if len(s.Emitters) == 0 {
		return false
	}
	mode := DefaultEffects
	if v, ok := src.Options[codec.Effects.Name]; ok {
		if m, err := fx.ParseMode(v); err == nil {
			mode = m
		}
	}
	fx.Bake(s, fx.Options{Mode: mode})
	return s.Effects.Nodes > 0
}

// withoutEffects is s as the outputs that describe the model or show its rest pose see it (the
// .json, OBJ): without the baked effects' nodes, meshes, shapes and channels. The baked
// effects are summed up in its extras ("effects"). s itself is not changed.
func withoutEffects(s *scene.Scene) *scene.Scene {
	if s.Effects.Nodes == 0 && s.Effects.Meshes == 0 && s.Effects.Shapes == 0 {
		return s
	}
	nodes, meshes, shapes := s.Models()
	t := *s
	t.Nodes, t.Meshes, t.Shapes = s.Nodes[:nodes:nodes], s.Meshes[:meshes:meshes], s.Shapes[:shapes:shapes]
	t.Animations = make([]scene.Animation, len(s.Animations))
	for i, a := range s.Animations {
		keep := 0
		for _, c := range a.Channels {
			if c.Node < nodes {
				keep++
			}
		}
		if keep < len(a.Channels) {
			cs := make([]scene.Channel, 0, keep)
			for _, c := range a.Channels {
				if c.Node < nodes {
					cs = append(cs, c)
				}
			}
			a.Channels = cs
		}
		t.Animations[i] = a
	}
	t.Effects = scene.Effects{View: s.Effects.View}
	return &t
}
