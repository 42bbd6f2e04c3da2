"""Import modelfs outputs into Blender and compare them with the .json metadata beside them.

Run inside Blender (3.4 is what Debian ships and what this was written against):

    blender -b --factory-startup --python-exit-code 1 \
        --python scripts/blender/check.py -- [--require-image-data] [--obj-importer new|legacy] DIR [DIR...]

Every *.gltf, *.glb and *.obj found under the DIRs (recursively) is imported into an empty scene
and compared with the metadata document beside it: X.mdx.gltf / X.mdx.obj is compared with
X.mdx.json (the names the modelfs mount serves beside each source X.mdx). A model whose .json is
an error document ({"error": ...}) is expected to fail and is skipped.

What is compared (want = the .json's "counts"):

glTF/GLB
  meshes      mesh objects                                   == counts.meshes
  vertices    vertices over all mesh objects                 == counts.vertices
  triangles   polygons over all mesh objects (all are tris)  == counts.triangles
              (with "shapes", each drawn as one object at each of its places: see drawn)
  bones       bones over all armatures                       == counts.joints
              (and an armature exists exactly when counts.joints > 0)
  nodes       bones + objects that stand for a source node   == counts.nodes
              (modelfs marks its own helper nodes with extras.kind "mesh" / "synthetic_root";
              the importer turns extras into custom properties, so those are left out)
  animations  distinct NLA track names                       == counts.animations
              Blender 3.4 makes one action per glTF animation *per animated object*, named
              "<animation>_<object>", and stashes each on an NLA track named after the animation
              (made unique); so the animations are the distinct track names, not the actions.
  bounds      the box around all mesh vertices in world space, rest pose, back in Y-up
              == .json "bounds" (to 1e-4 of the largest coordinate); catches a wrong axis
              conversion or bind pose (the importer moves skinned vertices into the bind pose).
  images      for every image node of every material: image.has_data after asking for its size
              (Blender decodes images lazily) — reported only, unless --require-image-data.
  motion      every animation played in Blender (its action on every object, the NLA muted)
              at MOTION_SAMPLES times: the world position of every joint (the head of the
              bone named after it) against the one the file itself defines, worked out here from
              the glTF specification (STEP, LINEAR with slerp, CUBICSPLINE); within
              MOTION_TOLERANCE of the model's size. This is what an artist sees: Blender drops
              CUBICSPLINE tangents and interpolates quaternion components linearly, so a file
              can be valid and still play differently in Blender.

  visibility  every step of every animation's "visibility" in the .json (a geoset the game
              shows or hides), played in Blender at the middle of the step: the mesh object's
              evaluated surface (shape keys, armature) has no area where the step hides it (up
              to HIDDEN_RESIDUE of its rest area in the default scene, HIDDEN_RESIDUE_POSED in
              other poses, for a mesh skinned to bones that move apart), and area where it
              shows it; and the first animation (the one Blender makes active on
              import) at its start agrees with each mesh's "visible". modelfs hides a mesh with
              a morph target "hidden" at weight 1, which Blender plays as a shape key.

  effects     baked particles and ribbons (objects under a node of extras kind "effect") are
              left out of the counts above; the first animation is played at EFFECT_MOMENTS
              moments spread over it, and the quads of the effect meshes Blender shows then
              (a sample's node has scale 0 but at its moment) must be within EFFECT_SLACK of the
              particles the simulator had alive (the .json's extras.effects[].animations[].live).

  Vertex counting: the importer is run with merge_vertices=False (its default, passed
  explicitly). It then makes exactly one Blender vertex per glTF vertex that some triangle
  references (it takes np.unique of each primitive's indices), so the vertex totals compare 1:1
  with the source's vertices. With merge_vertices=True it would weld vertices with equal
  position, normal and skin weights that differ only in UV (UVs live on loops in Blender), so the
  count would depend on the data: hce_orc.mdl's 494 become 265, a cube with per-face normals
  keeps its 24. Vertices no triangle uses are dropped, and mesh.validate() drops degenerate
  triangles (a vertex used twice) and triangles over the same vertices as another (effects
  repeat a triangle to draw an additive layer brighter): a mismatch is then explained by
  reading the file itself (see "file:" in the output).

OBJ (the importer File > Import > Wavefront (.obj) uses in 3.4, bpy.ops.wm.obj_import; the old
Python add-on bpy.ops.import_scene.obj with --obj-importer legacy)
  meshes      mesh objects                                   == counts.meshes
  vertices    vertices over all mesh objects                 == counts.vertices
  triangles   polygons over all mesh objects                 == counts.triangles
  bounds      as for glTF (the OBJ importer turns Y-up into Z-up the same way)
  The OBJ importer, too, keeps only vertices that a face uses, once per object, drops
  degenerate and repeated faces, and makes no object for an "o" without faces. The "mtllib" the
  .obj names must exist beside it (the importer only warns, and the materials are lost); as the
  importer reads it, a name may hold spaces.

Output: one PASS/FAIL/SKIP line per file with got/want numbers, indented notes (importer
messages, images, explanations) and a summary. Exit status 1 when any file fails to import or
mismatches, or when no file was found at all.
"""

import argparse
import base64
import json
import os
import re
import struct
import sys
import tempfile
import time

import numpy as np

# Debian's numpy 1.24 removed the deprecated alias np.bool; Blender 3.4's glTF importer still uses
# it (io_scene_gltf2/blender/imp/gltf2_blender_mesh.py, set_poly_smoothing: dtype=np.bool) and
# would fail on every mesh with "module 'numpy' has no attribute 'bool'". Restore the alias before
# anything imports the add-on. (Looked up in the module's namespace: hasattr(np, "bool") would
# itself print numpy's FutureWarning; numpy 2 defines np.bool again and is left alone.)
if "bool" not in vars(np):
    np.bool = bool

import bpy  # noqa: E402  (after the numpy fix on purpose)

MODEL_EXTS = (".gltf", ".glb", ".obj")

# Importer chatter that says nothing about the file.
NOISE = [
    re.compile(r"^Data are loaded, start creating Blender stuff$"),
    re.compile(r"^glTF import finished in "),
    re.compile(r"^OBJ import of '.*' took "),
    re.compile(r"^\(\s*[0-9.]+ sec \|\s*[0-9.]+ sec\) "),  # legacy OBJ importer progress
    re.compile(r"^Progress: "),
    re.compile(r"^$"),
]


def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    p = argparse.ArgumentParser(prog="check.py", description="Import modelfs outputs into Blender and compare with the .json beside them.")
    p.add_argument("dirs", nargs="+", metavar="DIR")
    p.add_argument("--require-image-data", action="store_true", help="fail when a material image has no pixel data")
    p.add_argument("--obj-importer", choices=("new", "legacy"), default="new", help="new: wm.obj_import (3.4 default); legacy: import_scene.obj")
    return p.parse_args(argv)


def find_models(dirs):
    out = []
    for d in dirs:
        if os.path.isfile(d):
            out.append(d)
            continue
        if not os.path.isdir(d):
            raise SystemExit("check.py: %s is not a directory" % d)
        for dirpath, dirnames, filenames in os.walk(d):
            dirnames.sort()
            for f in sorted(filenames):
                if f.lower().endswith(MODEL_EXTS) and not f.startswith("."):
                    out.append(os.path.join(dirpath, f))
    return out


def orphan_error_documents(d, models):
    """The .json error documents under d that no model file in models stands beside (a model
    that failed to translate may be served with its .json only)."""
    if not os.path.isdir(d):
        return []
    stems = {os.path.splitext(m)[0] for m in models}
    out = []
    for dirpath, dirnames, filenames in os.walk(d):
        dirnames.sort()
        for f in sorted(filenames):
            p = os.path.join(dirpath, f)
            if f.lower().endswith(".json") and not f.startswith(".") and os.path.splitext(p)[0] not in stems:
                if read_error(p) is not None:
                    out.append(p)
    return out


def read_error(path):
    """The "error" of a .json error document, or None."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    return doc.get("error") if isinstance(doc, dict) else None


class Capture:
    """Collects what is written to the process's stdout and stderr (file descriptors 1 and 2,
    so the C++ OBJ importer's printf output is caught as well as Python's print)."""

    def __enter__(self):
        sys.stdout.flush()
        sys.stderr.flush()
        self.tmp = tempfile.TemporaryFile(mode="w+b")
        self.saved = (os.dup(1), os.dup(2))
        os.dup2(self.tmp.fileno(), 1)
        os.dup2(self.tmp.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(self.saved[0], 1)
        os.dup2(self.saved[1], 2)
        os.close(self.saved[0])
        os.close(self.saved[1])
        self.tmp.seek(0)
        text = self.tmp.read().decode("utf-8", "replace")
        self.tmp.close()
        self.lines = [ln.rstrip() for ln in text.splitlines()]
        self.messages = [ln for ln in self.lines if not any(n.search(ln.strip()) for n in NOISE)]
        return False


def reset_scene():
    """An empty scene with factory settings (the default importers enabled)."""
    with Capture():
        bpy.ops.wm.read_factory_settings(use_empty=True)
    # The importer fills the variant list only from a file that has variants: an earlier file's
    # list must not be taken for this one's.
    listed = getattr(bpy.data.scenes[0], "gltf2_KHR_materials_variants_variants", None)
    if listed is not None:
        listed.clear()


def metadata_path(model):
    """X.mdx.gltf -> X.mdx.json (and plain X.gltf -> X.json)."""
    return os.path.splitext(model)[0] + ".json"


# ---------------------------------------------------------------------------------------------
# Reading the files themselves, to explain a mismatch.

COMPONENTS = {5120: "b", 5121: "B", 5122: "h", 5123: "H", 5125: "I", 5126: "f"}
WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}


def load_gltf(path):
    """The glTF JSON and a function returning a buffer's bytes."""
    with open(path, "rb") as f:
        data = f.read()
    bin_chunk = None
    if data[:4] == b"glTF":
        (length,) = struct.unpack_from("<I", data, 8)
        off = 12
        doc = None
        while off < length:
            clen, ctype = struct.unpack_from("<II", data, off)
            chunk = data[off + 8:off + 8 + clen]
            if ctype == 0x4E4F534A:
                doc = json.loads(chunk)
            elif ctype == 0x004E4942:
                bin_chunk = chunk
            off += 8 + clen
    else:
        doc = json.loads(data)

    cache = {}

    def buffer(i):
        if i not in cache:
            uri = doc["buffers"][i].get("uri")
            if uri is None:
                cache[i] = bin_chunk
            elif uri.startswith("data:"):
                cache[i] = base64.b64decode(uri.split(",", 1)[1])
            else:
                with open(os.path.join(os.path.dirname(path), uri), "rb") as f:
                    cache[i] = f.read()
        return cache[i]

    return doc, buffer


def accessor(doc, buffer, i):
    a = doc["accessors"][i]
    n = WIDTH[a["type"]]
    fmt = COMPONENTS[a["componentType"]]
    if "bufferView" not in a:
        return np.zeros((a["count"], n))
    bv = doc["bufferViews"][a["bufferView"]]
    size = struct.calcsize(fmt)
    stride = bv.get("byteStride") or size * n
    start = bv.get("byteOffset", 0) + a.get("byteOffset", 0)
    raw = buffer(bv["buffer"])
    dt = np.dtype("<" + fmt)
    out = np.empty((a["count"], n), dtype=dt)
    for k in range(a["count"]):
        out[k] = np.frombuffer(raw, dtype=dt, count=n, offset=start + k * stride)
    if a.get("normalized"):  # integers standing for [-1, 1] or [0, 1], as the spec says
        top = {5120: 127.0, 5121: 255.0, 5122: 32767.0, 5123: 65535.0}[a["componentType"]]
        out = np.maximum(out / top, -1.0)
    return out


def repeated(faces):
    """How many of the faces (tuples of vertex indices, none degenerate) use the same vertices
    as one before them: Blender keeps one of each."""
    seen = set()
    n = 0
    for f in faces:
        k = frozenset(f)
        if k in seen:
            n += 1
        seen.add(k)
    return n


def gltf_file_stats(path):
    """Vertices, vertices referenced by a triangle, triangles, degenerate triangles and
    triangles repeating another of their primitive, as the file has them."""
    doc, buffer = load_gltf(path)
    verts = used = tris = degenerate = repeats = 0
    # Baked effects are counted apart (see effects_check).
    effects = {n["mesh"] for n in doc.get("nodes", []) if "mesh" in n and (n.get("extras") or {}).get("kind") == "effect"}
    for mi, mesh in enumerate(doc.get("meshes", [])):
        if mi in effects:
            continue
        for prim in mesh["primitives"]:
            count = doc["accessors"][prim["attributes"]["POSITION"]]["count"]
            verts += count
            if prim.get("mode", 4) != 4:
                continue
            if "indices" in prim:
                idx = accessor(doc, buffer, prim["indices"]).reshape(-1).astype(np.int64)
            else:
                idx = np.arange(count)
            t = idx.reshape(-1, 3)
            tris += len(t)
            bad = (t[:, 0] == t[:, 1]) | (t[:, 1] == t[:, 2]) | (t[:, 0] == t[:, 2])
            degenerate += int(np.sum(bad))
            repeats += repeated(map(tuple, t[~bad].tolist()))
            used += len(np.unique(idx))
    return verts, used, tris, degenerate, repeats


def obj_file_stats(path):
    verts = tris = degenerate = repeats = 0
    used = 0
    seen = set()
    faces = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "v":
                verts += 1
            elif parts[0] == "o":
                used += len(seen)  # the importer makes vertices per object
                repeats += repeated(faces)
                seen, faces = set(), []
            elif parts[0] == "f":
                idx = []
                for p in parts[1:]:
                    i = int(p.split("/")[0])
                    idx.append(i if i > 0 else verts + 1 + i)
                seen.update(idx)
                tris += max(len(idx) - 2, 0)
                if len(set(idx)) < len(idx):
                    degenerate += 1
                else:
                    faces.append(tuple(idx))
    used += len(seen)
    repeats += repeated(faces)
    return verts, used, tris, degenerate, repeats


def obj_mtllibs(path):
    """The material libraries the .obj names, as Blender 3.4's importer reads an "mtllib" line:
    the whole rest of the line when a file of that name is beside the .obj (a name may hold
    spaces), else each of its space-separated names."""
    libs = []
    here = os.path.dirname(path)
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("mtllib"):
                whole = line[len("mtllib"):].strip()
                if os.path.exists(os.path.join(here, whole)):
                    libs.append(whole)
                else:
                    libs += whole.split()
    return libs


# ---------------------------------------------------------------------------------------------
# Motion: does Blender play each animation as the glTF file defines it?

# Times sampled per animation: the middles of MOTION_SAMPLES equal parts of its duration, so that
# no sample falls exactly on a key (a jump is written as two keys one float step apart).
MOTION_SAMPLES = 40
# Largest joint offset allowed, as a share of the model's size (1e-3: 0.2 units on a 200-unit
# Warcraft III unit); anything the eye can see is far above it.
MOTION_TOLERANCE = 1e-3


def quat_matrix(q):
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def slerp(a, b, s):
    """glTF's shortest-path spherical linear interpolation (Appendix C)."""
    d = float(np.dot(a, b))
    if d < 0:
        b, d = -b, -d
    if d > 1 - 1e-9:
        q = a + (b - a) * s
    else:
        om = np.arccos(min(d, 1.0))
        q = (np.sin((1 - s) * om) * a + np.sin(s * om) * b) / np.sin(om)
    return q / np.linalg.norm(q)


def sample_sampler(interp, times, vals, t, rotation):
    """A glTF animation sampler at time t, as the specification defines it."""
    n = len(times)
    cubic = interp == "CUBICSPLINE"
    pts = vals.reshape(n, 3, -1)[:, 1] if cubic else vals
    if t <= times[0]:
        return pts[0]
    if t >= times[-1]:
        return pts[-1]
    k = int(np.searchsorted(times, t, side="right")) - 1
    if interp == "STEP":
        return pts[k]
    d = times[k + 1] - times[k]
    s = (t - times[k]) / d
    if not cubic:
        return slerp(pts[k], pts[k + 1], s) if rotation else pts[k] + (pts[k + 1] - pts[k]) * s
    v = vals.reshape(n, 3, -1)
    s2, s3 = s * s, s * s * s
    q = ((2 * s3 - 3 * s2 + 1) * v[k, 1] + (s3 - 2 * s2 + s) * d * v[k, 2]
         + (-2 * s3 + 3 * s2) * v[k + 1, 1] + (s3 - s2) * d * v[k + 1, 0])
    return q / np.linalg.norm(q) if rotation else q


class GltfMotion:
    """The world position of every node of a glTF file at a time of one of its animations,
    computed from the file alone."""

    def __init__(self, path):
        doc, buffer = load_gltf(path)
        self.doc = doc
        self.nodes = doc.get("nodes", [])
        self.children = [nd.get("children", []) for nd in self.nodes]
        scenes = doc.get("scenes", [])
        if scenes:
            self.roots = scenes[doc.get("scene", 0)].get("nodes", [])
        else:
            child = {c for cs in self.children for c in cs}
            self.roots = [i for i in range(len(self.nodes)) if i not in child]
        self.animations = []
        for a in doc.get("animations", []):
            chans = []
            for ch in a["channels"]:
                target = ch["target"]
                if target.get("node") is None or target["path"] not in ("translation", "rotation", "scale"):
                    continue
                smp = a["samplers"][ch["sampler"]]
                times = accessor(doc, buffer, smp["input"]).reshape(-1).astype(np.float64)
                vals = accessor(doc, buffer, smp["output"]).astype(np.float64)
                chans.append((target["node"], target["path"], smp.get("interpolation", "LINEAR"), times, vals))
            end = max((c[3][-1] for c in chans if len(c[3])), default=0.0)
            self.animations.append((a.get("name"), chans, end))

    def rest(self, i):
        nd = self.nodes[i]
        return (np.array(nd.get("translation", [0, 0, 0]), dtype=np.float64),
                np.array(nd.get("rotation", [0, 0, 0, 1]), dtype=np.float64),
                np.array(nd.get("scale", [1, 1, 1]), dtype=np.float64))

    def positions(self, anim, t):
        """World positions by node index at time t of animation anim (the rest pose for None)."""
        trs = {}
        for node, path, interp, times, vals in (self.animations[anim][1] if anim is not None else []):
            if node not in trs:
                trs[node] = list(self.rest(node))
            trs[node][("translation", "rotation", "scale").index(path)] = sample_sampler(interp, times, vals, t, path == "rotation")
        out = {}
        stack = [(r, np.eye(4)) for r in self.roots]
        while stack:
            i, parent = stack.pop()
            nd = self.nodes[i]
            if "matrix" in nd and i not in trs:
                local = np.array(nd["matrix"], dtype=np.float64).reshape(4, 4).T
            else:
                tr, rot, sc = trs.get(i) or self.rest(i)
                local = np.eye(4)
                local[:3, :3] = quat_matrix(rot) * sc
                local[:3, 3] = tr
            world = parent @ local
            out[i] = world[:3, 3]
            stack += [(c, world) for c in self.children[i]]
        return out


def track_candidates(name, i):
    """The NLA track names the importer may give animation i named name, in the order its
    find_unused_name tries them: the name (or Anim_<i>), then with ".001", ".002", ...; each cut
    to 63 UTF-8 bytes."""
    name = name or "Anim_%d" % i
    for c in [name] + ["%s.%03d" % (name, k) for k in range(1, 1000)]:
        yield c.encode("utf-8")[:63].decode("utf-8", "ignore")


def track_names(names):
    """The NLA track name the importer gives each animation, by glTF animation order."""
    out, used = [], set()
    for i, name in enumerate(names):
        track = next(c for c in track_candidates(name, i) if c not in used)
        used.add(track)
        out.append(track)
    return out


def motion_check(path, bounds):
    """Plays every animation in Blender and compares the world position of every joint with the
    one the glTF file defines, at MOTION_SAMPLES times per animation; bounds (the .json's, or
    None) helps size the tolerance. Returns (ok, note)."""
    motion = GltfMotion(path)
    if not motion.animations:
        return True, None
    joints = sorted({j for sk in motion.doc.get("skins", []) for j in sk["joints"]})
    names = {}
    for i, nd in enumerate(motion.nodes):
        names.setdefault(nd.get("name"), []).append(i)
    bones = {}
    for o in bpy.data.objects:
        if o.type == "ARMATURE":
            for pb in o.pose.bones:
                bones.setdefault(pb.name, []).append((o, pb.name))
    # Joints the importer named after their node, each name standing for one node and one bone.
    pairs = []
    for j in joints:
        name = motion.nodes[j].get("name")
        if name and len(names[name]) == 1 and len(bones.get(name, [])) == 1:
            pairs.append((j, bones[name][0]))
    if not pairs:
        return True, "motion: no joint matched to a bone by name; not checked"
    rest = motion.positions(None, 0.0)
    size = 1.0
    if len(pairs) > 1:
        size = max(size, float(np.max(np.ptp(np.array([rest[j] for j, _ in pairs]), axis=0))))
    if bounds:
        size = max(size, float(np.max(np.array(bounds["max"]) - np.array(bounds["min"]))))
    tol = MOTION_TOLERANCE * size
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    owners = [o for o in bpy.data.objects if o.animation_data is not None]
    for o in owners:
        for tr in o.animation_data.nla_tracks:
            tr.mute = True
    # Tracks that only show or hide meshes (shape keys) move no joint.
    elsewhere = {tr.name for o in bpy.data.objects if o.type == "MESH" and o.data.shape_keys and o.data.shape_keys.animation_data
                 for tr in o.data.shape_keys.animation_data.nla_tracks}
    worst, played, missing = (0.0, None), 0, []
    # Only bones are measured: meshes left out of evaluation, each frame_set costs bones alone.
    shown = [o for o in bpy.data.objects if o.type == "MESH" and not o.hide_viewport]
    for o in shown:
        o.hide_viewport = True
    tracks = track_names([a[0] for a in motion.animations])
    for ai, ((name, _, end), track) in enumerate(zip(motion.animations, tracks)):
        strips = {}
        for o in owners:
            strips[o] = next((st for tr in o.animation_data.nla_tracks if tr.name == track for st in tr.strips if st.action), None)
        if not any(strips.values()):
            if track not in elsewhere:
                missing.append(track)
            continue
        played += 1
        for o, st in strips.items():
            o.animation_data.action = st.action if st else None
        # A bone the action has no curve for keeps whatever pose it was last given; in glTF it
        # rests. (Identity in pose space is the rest pose.)
        for arm in {a for _, (a, _) in pairs}:
            for pb in arm.pose.bones:
                pb.location = (0, 0, 0)
                pb.rotation_quaternion = (1, 0, 0, 0)
                pb.rotation_euler = (0, 0, 0)
                pb.scale = (1, 1, 1)
        for k in range(MOTION_SAMPLES):
            t = end * (k + 0.5) / MOTION_SAMPLES
            frame = t * fps
            scene.frame_set(int(np.floor(frame)), subframe=float(frame - np.floor(frame)))
            want = motion.positions(ai, t)
            depsgraph = bpy.context.evaluated_depsgraph_get()
            for j, (arm, bone) in pairs:
                ev = arm.evaluated_get(depsgraph)
                head = np.array(ev.matrix_world @ ev.pose.bones[bone].head)
                g = want[j]
                off = float(np.linalg.norm(head - np.array([g[0], -g[2], g[1]])))  # Y-up to Z-up
                if off > worst[0]:
                    worst = (off, (name, t, motion.nodes[j].get("name")))
    for o in owners:
        o.animation_data.action = None
    for o in shown:
        o.hide_viewport = False
    where = ""
    if worst[1]:
        where = " (animation %r at %.3fs, joint %r)" % worst[1]
    note = "motion: %d joints x %d animations x %d times: largest offset from the file's pose %.4g%s, tolerance %.4g" % (
        len(pairs), played, MOTION_SAMPLES, worst[0], where, tol)
    if missing:
        note += "; no NLA track for %s" % ", ".join(repr(m) for m in missing)
    return worst[0] <= tol and not missing, note


# The most of its rest area a hidden mesh may still show in Blender (see visibility_check): in
# the default scene, and in other poses. modelfs collapses a hidden mesh (a morph target, which
# acts before skinning) to where skinning takes all its vertices to one point in the default
# pose; a mesh skinned to bones that move apart spreads out again in poses that depart from
# that one. No displacement before skinning can undo bones moving apart: glTF's other way to
# hide a mesh (KHR_node_visibility) is not read by Blender 3.4. Measured worst: 37 % of a small
# Reforged mesh blended across a peon's hand bones in Walk.
HIDDEN_RESIDUE = 0.01
HIDDEN_RESIDUE_POSED = 0.5


def mesh_area(obj, depsgraph):
    """The area of obj's evaluated surface (shape keys and armature applied), object space."""
    ev = obj.evaluated_get(depsgraph)
    me = ev.to_mesh()
    try:
        return float(sum(p.area for p in me.polygons))
    finally:
        ev.to_mesh_clear()


def visibility_check(doc):
    """Plays each animation's visibility steps (see the docstring) and returns (ok, note)."""
    anims = doc.get("animations", [])
    if not any(a.get("visibility") for a in anims):
        return True, None
    meshes = doc.get("meshes", [])
    objs = {}
    for o in bpy.data.objects:
        if o.type == "MESH":
            objs.setdefault(o.data.name, []).append(o)
    keys = {id(k): k for o in bpy.data.objects if o.type == "MESH" and o.data.shape_keys for k in [o.data.shape_keys]}
    owners = [o for o in bpy.data.objects if o.animation_data is not None] + [k for k in keys.values() if k.animation_data]
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    tracks = track_names([a["name"] for a in anims])
    checked, bad, worst = 0, [], 0.0
    for ai, (a, track) in enumerate(zip(anims, tracks)):
        for o in owners:
            st = next((st for tr in o.animation_data.nla_tracks if tr.name == track for st in tr.strips if st.action), None)
            o.animation_data.action = st.action if st else None
        steps = a.get("visibility") or []
        if ai == 0:
            # Blender shows the first animation on import: its start is the default scene.
            steps = steps + [{"mesh": i, "times": [0], "shown": [m["visible"]]} for i, m in enumerate(meshes)
                             if not any(v["mesh"] == i for v in steps)]
        # One frame_set per distinct time (each re-evaluates the whole model), then every
        # mesh stepping at that time is measured.
        at = {}
        for v in steps:
            m = meshes[v["mesh"]]
            found = objs.get(m["name"], [])
            if len(found) != 1:
                bad.append("animation %r: mesh %r: %d objects of that name" % (a["name"], m["name"], len(found)))
                continue
            obj = found[0]
            rest = sum(p.area for p in obj.data.polygons)
            if rest <= 0:
                continue
            times = v["times"]
            for k, shown in enumerate(v["shown"]):
                end = times[k + 1] if k + 1 < len(times) else max(a["duration"], times[k])
                t = (times[k] + end) / 2 if ai > 0 or k > 0 else times[k]
                at.setdefault(t, []).append((m, obj, rest, shown))
        for t in sorted(at):
            frame = t * fps
            scene.frame_set(int(np.floor(frame)), subframe=float(frame - np.floor(frame)))
            depsgraph = bpy.context.evaluated_depsgraph_get()
            for m, obj, rest, shown in at[t]:
                area = mesh_area(obj, depsgraph)
                checked += 1
                if not shown:
                    worst = max(worst, area / rest)
                if shown and area <= 1e-3 * rest:
                    bad.append("animation %r at %.3fs: mesh %r should show, area %.3g of %.3g" % (a["name"], t, m["name"], area, rest))
                # A mesh skinned to several bones collapses to one point in the default pose;
                # in others the bones carry its vertices apart (see HIDDEN_RESIDUE_POSED).
                limit = HIDDEN_RESIDUE if (ai == 0 and t == 0) else HIDDEN_RESIDUE_POSED
                if not shown and area > limit * rest:
                    bad.append("animation %r at %.3fs: mesh %r should be hidden, area %.3g of %.3g" % (a["name"], t, m["name"], area, rest))
    for o in owners:
        o.animation_data.action = None
    note = "visibility: %d steps played, %d wrong; largest residue of a hidden mesh %.2g %% of its area" % (checked, len(bad), 100 * worst)
    if bad:
        note += ": " + "; ".join(bad[:6])
    return not bad, note


EFFECT_MOMENTS = 8  # moments of the first baked animation at which particles are counted
EFFECT_SLACK = 0.2  # how far the visible quads may be from the simulator's live particles


def effects_check(doc):
    """Plays the default animation (the one Blender makes active on import, whose effects
    modelfs bakes by default) at EFFECT_MOMENTS moments spread over it, and counts the quads
    of the baked effect meshes Blender shows (a sample's node has scale 0 but at its moment):
    within EFFECT_SLACK of the particles the simulator had alive then (the .json's
    extras.effects[].animations[].live, per sample). Returns (ok, note)."""
    effects = (doc.get("extras") or {}).get("effects") or []
    anims = doc.get("animations", [])
    if not effects or not anims:
        return True, None
    first = anims[0]["name"]
    runs = [a for e in effects for a in e["animations"] if a["animation"] == first]
    if not runs:
        return True, "effects: none baked for %r" % first
    objs = [o for o in bpy.data.objects if o.type == "MESH" and is_effect(o)]
    tris = {o.name: len(o.data.polygons) for o in objs}
    # The first animation's actions on every object, as an artist who plays it has them.
    track = track_names([a["name"] for a in anims])[0]
    owners = [o for o in bpy.data.objects if o.animation_data is not None]
    for o in owners:
        st = next((st for tr in o.animation_data.nla_tracks if tr.name == track for st in tr.strips if st.action), None)
        o.animation_data.action = st.action if st else None
    scene = bpy.context.scene
    fps = scene.render.fps / scene.render.fps_base
    bad, lines = [], []
    dur = anims[0]["duration"]
    rate = max(r["fps"] for r in runs)
    for i in range(EFFECT_MOMENTS):
        want = 0.0
        # Half a sample into the sample of the moment, so that its step keys hold whatever
        # the rounding of frames.
        t = (int(dur * i / EFFECT_MOMENTS * rate) + 0.5) / rate
        for r in runs:
            k = min(int(t * r["fps"]), len(r["live"]) - 1)
            # Past the model's share of quads, every n-th particle is drawn ("thinned": n).
            want += r["live"][k] / r.get("thinned", 1)
        want = int(round(want))
        frame = t * fps
        scene.frame_set(int(np.floor(frame)), subframe=float(frame - np.floor(frame)))
        got = 0
        for o in objs:
            m = o.matrix_world
            if abs(m.to_3x3().determinant()) > 1e-12:
                got += tris[o.name] // 2
        lines.append("%d/%d" % (got, want))
        if abs(got - want) > max(EFFECT_SLACK * want, 2):
            bad.append("at %.3fs %d quads shown, %d alive" % (t, got, want))
    for o in owners:
        o.animation_data.action = None
    note = "effects of %r: quads shown/alive at %d moments: %s" % (first, EFFECT_MOMENTS, " ".join(lines))
    if bad:
        note += ": " + "; ".join(bad[:4])
    return not bad, note


# ---------------------------------------------------------------------------------------------
# Import and compare.


def import_file(path, args):
    ext = os.path.splitext(path)[1].lower()
    if ext in (".gltf", ".glb"):
        return bpy.ops.import_scene.gltf(filepath=path, merge_vertices=False)
    if args.obj_importer == "new":
        return bpy.ops.wm.obj_import(filepath=path)
    return bpy.ops.import_scene.obj(filepath=path)


def is_traceback_echo(line):
    return (line.startswith("Error: Python: Traceback") or line.endswith("... truncated")
            or line == "Traceback (most recent call last):")


def import_error(e):
    """A one-line summary of an importer exception, and its full text. The glTF importer's
    RuntimeError holds a whole Python traceback; its last line is the real error."""
    text = str(e).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("Location:")]
    last = lines[-1] if lines else type(e).__name__
    return "%s (%s)" % (last, type(e).__name__), text


def material_images():
    """(material, image, has_data, filepath, width, height) for every image node of every material."""
    out = []
    for mat in bpy.data.materials:
        if not mat.use_nodes or mat.node_tree is None:
            continue
        for node in mat.node_tree.nodes:
            if node.type == "TEX_IMAGE" and node.image is not None:
                img = node.image
                # Blender loads pixels lazily: has_data stays False until something asks for
                # them. Asking for the size decodes the image (packed or from its file).
                w, h = img.size[:]
                out.append((mat.name, img.name, bool(img.has_data), img.filepath, w, h))
    return out


def imported_variants():
    """The variants Blender's glTF importer read (KHR_materials_variants): their names in index
    order, and per Blender mesh the name of the material each variant index shows."""
    sc = bpy.data.scenes[0]  # the importer keeps the list on the first scene, whatever is active
    listed = getattr(sc, "gltf2_KHR_materials_variants_variants", None)
    if listed is None:  # the importer registers the properties on the first file with variants
        return [], {}
    names = [v.name for v in sorted(listed, key=lambda v: v.variant_idx)]
    per_mesh = {}
    for me in bpy.data.meshes:
        shown = {}
        for entry in getattr(me, "gltf2_variant_mesh_data", []):
            for p in entry.variants:
                shown[p.variant.variant_idx] = entry.material.name if entry.material else None
        if shown:
            per_mesh[me.name] = shown
    return names, per_mesh


def variant_notes(doc):
    """(ok, notes, part): whether the variants Blender imported are the ones the .json lists,
    with one material per variant on every mesh whose look changes."""
    want = doc.get("variants", [])
    names, per_mesh = imported_variants()
    if not want and not names:
        return True, [], None
    notes = ["variants imported: %s" % ", ".join(names)]
    changing = sum(1 for i in range(len(doc["meshes"])) if any(v["materials"][i] is not None for v in want))
    ok = names == [v["name"] for v in want] and len(per_mesh) == changing
    for mesh, shown in sorted(per_mesh.items()):
        notes.append("mesh %r: %s" % (mesh, ", ".join("%s=%s" % (names[i] if i < len(names) else i, m) for i, m in sorted(shown.items()))))
        if sorted(shown) != list(range(len(want))):
            ok = False
    return ok, notes, "variants %d/%d on %d/%d mesh(es)" % (len(names), len(want), len(per_mesh), changing)


def rest_bounds(meshes):
    """The box around all mesh vertices in world space as the importer left them (the rest/bind
    pose: the armature deforms only through its modifier), turned back from Blender's Z-up to
    the .json's Y-up: (x, y, z) -> (x, z, -y). None without vertices."""
    pts = []
    for o in meshes:
        n = len(o.data.vertices)
        if n == 0:
            continue
        co = np.empty(n * 3, dtype=np.float64)
        o.data.vertices.foreach_get("co", co)
        co = co.reshape(n, 3)
        m = np.array(o.matrix_world, dtype=np.float64)
        w = co @ m[:3, :3].T + m[:3, 3]
        pts.append(np.stack([w[:, 0], w[:, 2], -w[:, 1]], axis=1))
    if not pts:
        return None
    a = np.concatenate(pts)
    return a.min(axis=0), a.max(axis=0)


def bounds_differ(got, want):
    """A note when the Blender box differs from the .json's by more than float noise."""
    if got is None or want is None:
        return None if got is None and want is None else "bounds: Blender %s, .json %s" % (got, want)
    wmin, wmax = np.array(want["min"], dtype=np.float64), np.array(want["max"], dtype=np.float64)
    tol = 1e-4 * max(1.0, float(np.max(np.abs(np.concatenate([wmin, wmax])))))
    if np.all(np.abs(got[0] - wmin) <= tol) and np.all(np.abs(got[1] - wmax) <= tol):
        return None
    return "bounds: Blender min %s max %s, .json min %s max %s (Y-up)" % (
        np.round(got[0], 4).tolist(), np.round(got[1], 4).tolist(), want["min"], want["max"])


def is_effect(o):
    """Whether o is baked effect geometry (extras kind "effect": an emitter's node, an
    animation's group under it, a sample's node), itself or through a parent."""
    while o is not None:
        if o.get("kind") == "effect":
            return True
        o = o.parent
    return False


def scene_counts(kind, ignore_empty_meshes=False):
    meshes = [o for o in bpy.data.objects if o.type == "MESH" and not is_effect(o)]
    if ignore_empty_meshes:
        meshes = [o for o in meshes if len(o.data.vertices) or len(o.data.polygons)]
    got = {
        "meshes": len(meshes),
        "vertices": sum(len(o.data.vertices) for o in meshes),
        "triangles": sum(len(o.data.polygons) for o in meshes),
    }
    extra = {"non_tri_polygons": sum(1 for o in meshes for p in o.data.polygons if p.loop_total != 3),
             "bounds": rest_bounds(meshes)}
    if kind == "gltf":
        armatures = [o for o in bpy.data.objects if o.type == "ARMATURE"]
        bones = sum(len(a.data.bones) for a in armatures)
        others = 0
        for o in bpy.data.objects:
            k = o.get("kind")
            if k in ("mesh", "synthetic_root") or is_effect(o):
                continue
            if k is not None or o.type in ("EMPTY", "LIGHT", "CAMERA"):
                others += 1
        tracks = {}  # NLA track name -> last frame over its actions
        actions = set()
        for o in bpy.data.objects:
            for owner in (o, getattr(o.data, "shape_keys", None)):
                ad = getattr(owner, "animation_data", None)
                if ad is None:
                    continue
                for t in ad.nla_tracks:
                    for s in t.strips:
                        if s.action:
                            actions.add(s.action.name)
                            tracks[t.name] = max(tracks.get(t.name, 0.0), s.action.frame_range[1])
        got.update(bones=bones, nodes=bones + others, animations=len(tracks))
        roots = [o.name for o in bpy.data.objects if o.get("kind") == "synthetic_root"]
        extra.update(armatures=len(armatures), actions=len(actions), tracks=tracks, roots=roots)
    return got, extra


def animation_notes(animations, tracks):
    """Notes (not failures) on animations whose NLA track is missing or whose keys in Blender
    end more than a frame away from the .json's duration. The importer puts glTF time t at frame
    t * fps from frame 0, so an animation's last frame / fps is its duration."""
    fps = bpy.context.scene.render.fps / bpy.context.scene.render.fps_base
    notes = []
    used = set()
    for i, a in enumerate(animations):
        track = next((c for c in track_candidates(a["name"], i) if c in tracks and c not in used), None)
        if track is None:
            notes.append("animation %r: no NLA track of that name" % a["name"])
            continue
        used.add(track)
        end = tracks[track] / fps
        if abs(end - a["duration"]) > 1.0 / fps:
            notes.append("animation %r: keys end at %.3fs in Blender, .json says %.3fs" % (a["name"], end, a["duration"]))
    return notes


def drawn(doc, kind):
    """The mesh objects, vertices and triangles Blender makes when the scene has shapes (meshes
    drawn as one glTF mesh, at each of their instance nodes): a glTF shape is one object per
    place it is drawn; the OBJ writes each of its meshes at each place that has a size (a node
    scaled to nothing, as a WMO's other doodad sets are, is left out of it)."""
    shapes = doc.get("shapes") or []
    if not shapes:
        return {}
    meshes = doc["meshes"]
    nodes = doc.get("nodes") or []

    def sized(n):
        while n is not None and 0 <= n < len(nodes):
            if 0 in nodes[n].get("scale", [1, 1, 1]):
                return False
            n = nodes[n].get("parent")
        return True

    in_shape = set()
    got = {"meshes": 0, "vertices": 0, "triangles": 0}
    for sh in shapes:
        places = len(sh["instances"]) or 1
        if kind == "obj" and sh["instances"]:
            places = len([n for n in sh["instances"] if sized(n)])
        got["meshes"] += places * (1 if kind == "gltf" else len(sh["meshes"]))
        for m in sh["meshes"]:
            in_shape.add(m)
            got["vertices"] += places * meshes[m]["vertices"]
            got["triangles"] += places * meshes[m]["triangles"]
    for i, m in enumerate(meshes):
        if i not in in_shape:
            got["meshes"] += 1
            got["vertices"] += m["vertices"]
            got["triangles"] += m["triangles"]
    return got


def check_file(path, args, root):
    rel = os.path.relpath(path, root) if root else path
    ext = os.path.splitext(path)[1].lower()
    kind = "gltf" if ext in (".gltf", ".glb") else "obj"
    meta = metadata_path(path)
    notes = []
    if not os.path.exists(meta):
        return "FAIL", rel, "no %s beside it" % os.path.basename(meta), notes
    try:
        with open(meta, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return "FAIL", rel, "cannot read %s: %s" % (os.path.basename(meta), e), notes
    if "error" in doc:
        return "SKIP", rel, "error document: %s" % doc["error"], notes
    if kind == "obj":  # after the error document: a model that failed has no .obj to read
        missing = [m for m in obj_mtllibs(path) if not os.path.exists(os.path.join(os.path.dirname(path), m))]
        if missing:
            return "FAIL", rel, "its mtllib %s is not beside it" % ", ".join(missing), notes
    want = doc["counts"]

    reset_scene()
    t0 = time.monotonic()
    err = None
    with Capture() as cap:
        try:
            result = import_file(os.path.abspath(path), args)
            if "FINISHED" not in result:
                err = "importer returned %s" % sorted(result)
        except Exception as e:  # the importers raise RuntimeError with their report
            err = import_error(e)
    dt = time.monotonic() - t0
    if err:
        # The report repeats the traceback the importer printed: show its end once.
        tb = [ln.strip() for ln in str(err[1]).splitlines() if ln.strip()]
        notes += ["blender: " + m.strip() for m in cap.messages if m.strip() not in tb and not is_traceback_echo(m.strip())]
        notes += ["traceback: " + ln for ln in tb[-7:]]
        return "FAIL", rel, "import failed: " + err[0], notes
    notes += ["blender: " + m.strip() for m in cap.messages]

    # The legacy OBJ importer makes one (empty) mesh object even from a file without geometry.
    legacy_empty = kind == "obj" and args.obj_importer == "legacy" and obj_file_stats(path)[0] == 0
    got, extra = scene_counts(kind, ignore_empty_meshes=legacy_empty)
    keys = ["meshes", "vertices", "triangles"]
    if kind == "gltf":
        keys += ["bones", "nodes", "animations"]
    wanted = dict(want)
    wanted["bones"] = want["joints"]
    wanted.update(drawn(doc, kind))
    bad = [k for k in keys if got[k] != wanted[k]]
    if kind == "gltf":
        if (extra["armatures"] > 0) != (want["joints"] > 0):
            bad.append("armature")
            notes.append("%d armature(s) for %d joint(s)" % (extra["armatures"], want["joints"]))
    diff = bounds_differ(extra["bounds"], doc.get("bounds"))
    if diff:
        notes.append(diff)
        bad.append("bounds")
    if extra["non_tri_polygons"]:
        notes.append("%d polygon(s) are not triangles" % extra["non_tri_polygons"])
        bad.append("non-triangles")

    if kind == "gltf":
        ok, vnotes, vpart = variant_notes(doc)
        notes += vnotes
        if not ok:
            bad.append("variants")
        notes += animation_notes(doc["animations"], extra["tracks"])
        # The root added above the model's roots is named after the model, so that Blender's
        # armature and actions are too ("Walk_Footman"), not all alike across models.
        stem = os.path.splitext(os.path.splitext(os.path.basename(path))[0])[0]
        for r in extra["roots"]:
            if not r.startswith(stem):
                notes.append("root object %r is not named after the model %r" % (r, stem))
                bad.append("root name")
        ok, note = motion_check(path, doc.get("bounds"))
        if note:
            notes.append(note)
        if not ok:
            bad.append("motion")
        ok, note = visibility_check(doc)
        if note:
            notes.append(note)
        if not ok:
            bad.append("visibility")
        ok, note = effects_check(doc)
        if note:
            notes.append(note)
        if not ok:
            bad.append("effects")

    parts = ["%s %d/%d" % (k, got[k], wanted[k]) for k in keys]
    if kind == "gltf":
        parts.append("(actions %d)" % extra["actions"])
        if vpart:
            parts.append(vpart)
    # Images: every texture a material uses whose file exists (the .json gives it an "image")
    # must come in with pixel data, through the .gltf's URI, the .glb's buffer or the .mtl's map_Kd.
    imgs = material_images()
    distinct = {i[1]: i for i in imgs}
    with_data = sum(1 for i in distinct.values() if i[2])
    textures = doc.get("textures", [])
    # Blender makes only the materials a mesh shows: by default, or in a variant (glTF only;
    # OBJ has the default look alone).
    materials = doc.get("materials", [])
    shown = {m["material"] for m in doc.get("meshes", []) if m.get("material") is not None}
    if kind == "gltf":
        shown |= {i for v in doc.get("variants", []) for i in v["materials"] if i is not None}
    want_images = len({materials[i]["texture"] for i in shown if i < len(materials)
                       and materials[i].get("texture") is not None and materials[i]["texture"] < len(textures)
                       and textures[materials[i]["texture"]].get("image")})
    parts.append("images %d/%d, %d with data" % (len(distinct), want_images, with_data))
    for mat, name, has_data, fp, w, h in imgs:
        notes.append("image %r of material %r: has_data=%s size=%dx%d filepath=%r" % (name, mat, has_data, w, h, fp))
    if args.require_image_data and (with_data < len(distinct) or len(distinct) < want_images):
        bad.append("image data")
    parts.append("%.2fs" % dt)

    if {"vertices", "triangles"} & set(bad):
        try:
            verts, used, tris, degenerate, repeats = (gltf_file_stats if kind == "gltf" else obj_file_stats)(path)
            notes.append("file: %d vertices, %d of them used by a triangle; %d triangles, %d degenerate, %d repeating another"
                         " (Blender drops unused vertices, degenerate triangles and repeats)" % (verts, used, tris, degenerate, repeats))
            # The source's degenerate triangles, and triangles drawn twice over the same
            # vertices (effects stack an additive layer so to make it brighter): the game draws
            # them as they are, a Blender mesh cannot hold them, and what it shows is the rest.
            # (Blender 3.4's OBJ importer keeps a few degenerate faces: seen, four faces whose
            # last two corners are one vertex, in the second object of a file, while it dropped
            # the same kind in the first.)
            dropped = tris - got["triangles"]
            if kind == "obj":
                explained = repeats <= dropped <= degenerate + repeats
            else:
                explained = dropped == degenerate + repeats
            if "triangles" in bad and explained and tris == wanted["triangles"]:
                bad.remove("triangles")
                notes.append("triangles: the difference is the file's degenerate and repeated triangles, which Blender drops")
            # The source's own vertices that no triangle uses (Reforged exporters leave some):
            # Blender drops them, and what it shows is the whole of what the file draws.
            if "vertices" in bad and got["vertices"] == used and verts == wanted["vertices"]:
                bad.remove("vertices")
                notes.append("vertices: the difference is the file's unused vertices, which Blender drops")
        except Exception as e:
            notes.append("file: cannot read it myself: %s" % e)
    if bad:
        return "FAIL", rel, "  ".join(parts) + "  mismatch: " + ", ".join(bad), notes
    return "PASS", rel, "  ".join(parts), notes


def main():
    args = parse_args()
    t0 = time.monotonic()
    print("check.py: Blender %s, numpy %s, glTF importer %s, OBJ importer %s" % (
        bpy.app.version_string, np.__version__, gltf_addon_version(),
        "wm.obj_import" if args.obj_importer == "new" else "import_scene.obj"))
    if args.obj_importer == "new" and not hasattr(bpy.ops.wm, "obj_import"):
        print("check.py: this Blender has no wm.obj_import; use --obj-importer legacy")
        sys.exit(1)
    tally = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    failed = []
    for d in args.dirs:
        models = find_models([d])
        root = d if os.path.isdir(d) else None
        for path in orphan_error_documents(d, models):
            tally["SKIP"] += 1
            print("SKIP %s  error document, no model file beside it: %s" % (path, read_error(path)), flush=True)
        for path in models:
            try:
                status, rel, text, notes = check_file(path, args, root)
            except Exception as e:  # a bug here must not hide the other files
                status, rel, text, notes = "FAIL", path, "checker error: %s: %s" % (type(e).__name__, e), []
            shown = os.path.join(d, rel) if root else rel
            tally[status] += 1
            if status == "FAIL":
                failed.append(shown)
            print("%s %s  %s" % (status, shown, text), flush=True)
            for n in notes:
                print("    " + n, flush=True)
    total = sum(tally.values())
    print("summary: %d file(s): %d passed, %d failed, %d skipped (error documents) in %.1fs" % (
        total, tally["PASS"], tally["FAIL"], tally["SKIP"], time.monotonic() - t0))
    for f in failed:
        print("failed: " + f)
    if total == 0:
        print("check.py: no .gltf, .glb or .obj file under %s" % " ".join(args.dirs))
        sys.exit(1)
    if tally["FAIL"]:
        sys.exit(1)


def gltf_addon_version():
    try:
        import io_scene_gltf2
        return ".".join(str(v) for v in io_scene_gltf2.bl_info["version"])
    except Exception:
        return "?"


main()
