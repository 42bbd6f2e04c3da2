"""Render glTF models in headless Blender for comparison with the game's own renderer.

    blender -b --factory-startup --python-exit-code 1 --python scripts/blender/render.py -- JOBS.json

JOBS.json is the file tools/mdx-parse/render.mjs reads ({"size", "jobs": [{"model", "center",
"half", "eye", "out"}]}), with "model" a .glb or .gltf. Each is imported as an artist imports it
(File > Import > glTF, which makes the first animation active: the game's default pose, as
modelfs puts it first), shown at frame 0 of that animation, and rendered with an orthographic
camera looking at "center" from the direction "eye" (Warcraft III axes, which are Blender's:
the importer turns glTF's Y-up back into Z-up), "half" being half the side of the square it sees.

The light is chosen to match the game's: a uniform white world (a surface shows its colour,
as the game's diffuse shading lit from the camera does) and no specular reflection (the
game's standard shader has none). Eevee, the engine of Blender's Material Preview, which is what
an artist looks at (Blender 3.4 makes its own OpenGL context in the background, software
rendering where there is no GPU; Cycles would also do, but it multiplies the colour of an
opaque material's texture by the texture's alpha, which glTF and the game ignore); Standard
view transform, so that a texture's colour comes out as it went in; transparent film. Prints
one line per job: "RENDERED out" or "FAILED out: reason".
"""

import json
import math
import sys

import bpy
import numpy as np
from mathutils import Vector

# Debian's numpy 1.24 removed np.bool, which Blender 3.4's glTF importer still uses (see
# check.py).
try:
    np.bool
except AttributeError:
    np.bool = bool


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def setup(size, center, half, eye):
    scene = bpy.context.scene
    scene.render.engine = "BLENDER_EEVEE"
    scene.eevee.taa_render_samples = 16
    scene.render.film_transparent = True
    scene.render.resolution_x = scene.render.resolution_y = size
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGBA"
    scene.render.image_settings.color_depth = "8"
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.look = "None"
    world = bpy.data.worlds.new("white")
    world.use_nodes = True
    bg = world.node_tree.nodes.get("Background")
    bg.inputs[0].default_value = (1, 1, 1, 1)
    bg.inputs[1].default_value = 1.0
    scene.world = world
    cam_data = bpy.data.cameras.new("reference")
    cam_data.type = "ORTHO"
    cam_data.ortho_scale = 2 * half
    c = Vector(center)
    d = Vector(eye).normalized()
    dist = 10 * half + 1000
    cam_data.clip_start = 1
    cam_data.clip_end = 2 * dist
    cam = bpy.data.objects.new("reference", cam_data)
    cam.location = c + d * dist
    cam.rotation_euler = (-d).to_track_quat("-Z", "Y").to_euler()
    scene.collection.objects.link(cam)
    scene.camera = cam


def no_specular():
    for mat in bpy.data.materials:
        if not mat.use_nodes:
            continue
        for node in mat.node_tree.nodes:
            if node.type == "BSDF_PRINCIPLED":
                node.inputs["Specular"].default_value = 0.0


def is_effect(o):
    """Whether o is baked effect geometry (extras kind "effect"), itself or through a parent."""
    while o is not None:
        if o.get("kind") == "effect":
            return True
        o = o.parent
    return False


def play(track):
    """Every object plays the animation the importer put on NLA tracks named track."""
    for o in bpy.data.objects:
        ad = o.animation_data
        if ad is None:
            continue
        st = next((st for t in ad.nla_tracks if t.name == track for st in t.strips if st.action), None)
        ad.action = st.action if st else None


def moments(job):
    """Renders job's moments ("times", seconds into the animation named "animation", the
    default one, whose effects modelfs bakes): OUT-i-fx.png with the baked effects,
    OUT-i-plain.png without them."""
    play(job["animation"])
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    effects = [o for o in bpy.data.objects if is_effect(o)]
    for i, t in enumerate(job["times"]):
        frame = t * fps
        scene.frame_set(int(math.floor(frame)), subframe=float(frame - math.floor(frame)))
        for o in effects:
            o.hide_render = False
        scene.render.filepath = "%s-%d-fx.png" % (job["out"], i)
        bpy.ops.render.render(write_still=True)
        for o in effects:
            o.hide_render = True
        scene.render.filepath = "%s-%d-plain.png" % (job["out"], i)
        bpy.ops.render.render(write_still=True)


def main():
    argv = sys.argv[sys.argv.index("--") + 1:]
    spec = json.load(open(argv[0], encoding="utf-8"))
    size = spec.get("size", 256)
    failed = 0
    for job in spec["jobs"]:
        try:
            reset()
            bpy.ops.import_scene.gltf(filepath=job["model"], merge_vertices=False)
            setup(size, job["center"], job["half"], job["eye"])
            no_specular()
            if job.get("times"):
                moments(job)
                print("RENDERED %s" % job["out"], flush=True)
                continue
            # The model alone, as the reference draws it: the baked effects are compared apart
            # (with "times").
            for o in bpy.data.objects:
                if is_effect(o):
                    o.hide_render = True
            bpy.context.scene.frame_set(0)
            bpy.context.scene.render.filepath = job["out"]
            bpy.ops.render.render(write_still=True)
            print("RENDERED %s" % job["out"], flush=True)
        except Exception as e:  # reported per job; the others still render
            failed += 1
            print("FAILED %s: %s" % (job["out"], e), flush=True)
    sys.exit(1 if failed else 0)


main()
