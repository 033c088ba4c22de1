#!/usr/bin/env python3
"""Independent renderer of Layers+ table photos, written from the set-file spec
(formats.md section 2) alone.

Usage: render.py SET.json OUTDIR --n N --seed S [--workers W] [--start K]

Model: the table is the plane z=0 (millimetres, x right, y away from the viewer when
seen from above).  Every flat object (player card, layers, mission card, loose layer)
is a textured planar slab between two heights; it is drawn by warping its texture into
the image through the plane's homography (pinhole camera), with its side walls
obtained by drawing the slab's silhouette at several heights below the top face in a
dark wall colour, and a soft drop shadow cast on whatever lies below.  Rendering is
done at 2x and box-downsampled.  Light (white balance, exposure, gradient, shadow
band, glare) is applied in linear light, then blur, sensor noise and JPEG.
"""
import argparse
import json
import math
import os
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

W, H = 1920, 1080
SS = 2
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


def hex2rgb(h):
    h = h.lstrip("#")
    return tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))


def srgb_to_lin(x):
    x = np.asarray(x, np.float32)
    return np.where(x <= 0.04045, x / 12.92, ((x + 0.055) / 1.055) ** 2.4)


def lin_to_srgb(x):
    x = np.clip(x, 0.0, None)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)


# ----------------------------------------------------------------------------- game logic

def rot_cw(g):
    R, C = len(g), len(g[0])
    return ["".join(g[R - 1 - c][r] for c in range(R)) for r in range(C)]


def rot_k(g, k):
    for _ in range(k % 4):
        g = rot_cw(g)
    return g


def oriented(S, lid, side, k):
    lay = next(l for l in S["layers"] if l["id"] == lid)
    return rot_k(lay[side], k)


def visible_grid(S, stack):
    """stack: top first list of dicts layer/side/quarter_turns."""
    grids = [oriented(S, e["layer"], e["side"], e["quarter_turns"]) for e in stack]
    R, C = S["rows"], S["cols"]
    out = []
    for r in range(R):
        row = ""
        for c in range(C):
            ch = S["card"]
            for g in grids:
                if g[r][c] != ".":
                    ch = g[r][c]
                    break
            row += ch
        out.append(row)
    return out


def min_dist(vis, pattern):
    best = 99
    for k in range(4):
        p = rot_k(pattern, k)
        if len(p) != len(vis) or len(p[0]) != len(vis[0]):
            continue
        d = sum(a != b for ra, rb in zip(vis, p) for a, b in zip(ra, rb))
        best = min(best, d)
    return best


def all_solutions(S, mission):
    n = mission["layers"]
    R, C = S["rows"], S["cols"]
    card = S["card"]
    ors = []
    for lay in S["layers"]:
        for side in ("front", "back"):
            for k in range(4):
                ors.append((lay["id"], side, k, rot_k(lay[side], k)))
    sols = []
    for pk in range(4):
        P = rot_k(mission["pattern"], pk)

        def dfs(depth, used, covered, stack):
            if depth == n:
                for r in range(R):
                    for c in range(C):
                        if not covered[r][c] and P[r][c] != card:
                            return
                sols.append(list(stack))
                return
            for lid, side, k, g in ors:
                if lid in used:
                    continue
                ok = True
                newc = [row[:] for row in covered]
                for r in range(R):
                    for c in range(C):
                        if g[r][c] != "." and not covered[r][c]:
                            if g[r][c] != P[r][c]:
                                ok = False
                                break
                            newc[r][c] = True
                    if not ok:
                        break
                if not ok:
                    continue
                stack.append({"layer": lid, "side": side, "quarter_turns": k})
                dfs(depth + 1, used | {lid}, newc, stack)
                stack.pop()

        dfs(0, frozenset(), [[False] * C for _ in range(R)], [])
    return sols


def mutate(S, stack, rng):
    ids = [l["id"] for l in S["layers"]]
    st = [dict(e) for e in stack]
    kind = rng.choice(["flip", "turn", "swap", "replace", "drop", "add", "flipturn"])
    i = int(rng.integers(len(st)))
    if kind == "flip":
        st[i]["side"] = "back" if st[i]["side"] == "front" else "front"
    elif kind == "flipturn":
        st[i]["side"] = "back" if st[i]["side"] == "front" else "front"
        st[i]["quarter_turns"] = int(rng.integers(4))
    elif kind == "turn":
        st[i]["quarter_turns"] = (st[i]["quarter_turns"] + int(rng.integers(1, 4))) % 4
    elif kind == "swap" and len(st) > 1:
        j = int(rng.integers(len(st)))
        st[i], st[j] = st[j], st[i]
    elif kind == "replace":
        unused = [x for x in ids if x not in {e["layer"] for e in st}]
        if unused:
            st[i] = {"layer": str(rng.choice(unused)), "side": str(rng.choice(["front", "back"])),
                     "quarter_turns": int(rng.integers(4))}
    elif kind == "drop" and len(st) > 2:
        st.pop(i)
    elif kind == "add" and len(st) < 4:
        unused = [x for x in ids if x not in {e["layer"] for e in st}]
        if unused:
            e = {"layer": str(rng.choice(unused)), "side": str(rng.choice(["front", "back"])),
                 "quarter_turns": int(rng.integers(4))}
            st.insert(int(rng.integers(len(st) + 1)), e)
    return st, kind


def choose_stack(S, rng, want_match):
    missions = [m for m in S["missions"] if 2 <= m["layers"] <= 4]
    for _ in range(200):
        m = missions[int(rng.integers(len(missions)))]
        sols = all_solutions(S, m)
        assert sols, "mission %s unsolvable?" % m["id"]
        base = sols[int(rng.integers(len(sols)))]
        if want_match:
            return m, base, "solution"
        for _ in range(400):
            st, kind = mutate(S, base, rng)
            if rng.random() < 0.25:
                st, k2 = mutate(S, st, rng)
                kind += "+" + k2
            if not (2 <= len(st) <= 4) or len({e["layer"] for e in st}) != len(st):
                continue
            d = min_dist(visible_grid(S, st), m["pattern"])
            if 1 <= d <= 3:
                return m, st, kind
    raise RuntimeError("no near miss found")


# ----------------------------------------------------------------------------- noise / tables

def _hash(ix, iy, seed):
    h = ix.astype(np.uint32) * np.uint32(374761393) + iy.astype(np.uint32) * np.uint32(668265263) \
        + np.uint32((seed * 1442695) & 0xFFFFFFFF)
    h = (h ^ (h >> np.uint32(13))) * np.uint32(1274126177)
    h = h ^ (h >> np.uint32(16))
    return (h & np.uint32(0xFFFF)).astype(np.float32) * np.float32(1 / 65535.0)


def vnoise(x, y, seed):
    x = np.asarray(x, np.float32)
    y = np.asarray(y, np.float32)
    ix, iy = np.floor(x), np.floor(y)
    fx, fy = x - ix, y - iy
    ix, iy = ix.astype(np.int32), iy.astype(np.int32)
    sx, sy = fx * fx * (3 - 2 * fx), fy * fy * (3 - 2 * fy)
    a = _hash(ix, iy, seed)
    b = _hash(ix + 1, iy, seed)
    c = _hash(ix, iy + 1, seed)
    d = _hash(ix + 1, iy + 1, seed)
    return (a + (b - a) * sx) * (1 - sy) + (c + (d - c) * sx) * sy


def fbm(x, y, seed, octaves=4):
    s, amp, tot = 0, 1.0, 0
    for o in range(octaves):
        s = s + amp * vnoise(x * (2 ** o), y * (2 ** o), seed + 17 * o)
        tot += amp
        amp *= 0.5
    return s / tot


def table_texture(X, Y, rng):
    """X, Y: world mm arrays. Returns (h, w, 3) sRGB float 0..1 and a description."""
    kind = rng.choice(["plain", "wood", "wood", "check", "pattern", "busy"], p=None)
    seed = int(rng.integers(1 << 20))
    ang = rng.uniform(0, math.pi)
    U = X * math.cos(ang) + Y * math.sin(ang)
    V = -X * math.sin(ang) + Y * math.cos(ang)
    if kind == "plain":
        bases = [(200, 200, 195), (120, 120, 118), (60, 60, 62), (235, 232, 225), (150, 165, 175),
                 (45, 95, 60), (170, 150, 120), (90, 70, 60), (200, 190, 170), (30, 30, 35)]
        base = np.array(bases[int(rng.integers(len(bases)))], np.float32) / 255
        base = np.clip(base * rng.uniform(0.85, 1.1, 3), 0, 1)
        n = fbm(X / 150, Y / 150, seed) - 0.5
        fine = vnoise(X / 1.5, Y / 1.5, seed + 5) - 0.5
        img = base[None, None, :] * (1 + 0.08 * n[..., None] + 0.04 * fine[..., None])
        desc = "plain"
    elif kind == "wood":
        woods = [(196, 152, 100), (150, 100, 60), (100, 66, 42), (215, 185, 140), (125, 85, 55), (170, 120, 80)]
        base = np.array(woods[int(rng.integers(len(woods)))], np.float32) / 255
        plank = rng.uniform(90, 220)
        pid = np.floor(V / plank)
        poff = _hash(pid.astype(np.int64), np.zeros_like(pid, np.int64), seed)
        warp = fbm(U / 400 + poff * 13, V / 30, seed + 3, 3)
        grain = np.sin(2 * math.pi * (V / rng.uniform(3, 9) + 6 * warp + poff * 10))
        streak = fbm(U / 200, V / 2.5, seed + 9, 3) - 0.5
        shade = 1 + 0.10 * grain + 0.25 * streak + 0.15 * (poff - 0.5)
        img = base[None, None, :] * shade[..., None]
        img = img * np.array([1.0, 0.97, 0.93], np.float32)[None, None] ** (grain[..., None])
        seam = np.abs(V / plank - np.round(V / plank)) * plank
        img = img * np.where(seam < 1.0, 0.45, 1.0)[..., None]
        desc = "wood"
    elif kind == "check":
        cols = [(200, 40, 40), (40, 70, 160), (40, 120, 60), (30, 30, 30), (220, 150, 40), (120, 60, 130)]
        c = np.array(cols[int(rng.integers(len(cols)))], np.float32) / 255
        white = np.array([0.95, 0.94, 0.9], np.float32)
        per = rng.uniform(8, 35)
        sx = (np.mod(U / per, 1) < 0.5).astype(np.float32)
        sy = (np.mod(V / per, 1) < 0.5).astype(np.float32)
        t = 0.5 * (sx + sy)
        img = white[None, None] * (1 - t[..., None]) + c[None, None] * t[..., None]
        weave = 0.05 * (vnoise(U / 0.7, V / 0.7, seed + 4) - 0.5)
        img = img * (1 + weave[..., None] + 0.06 * (fbm(X / 80, Y / 80, seed) - 0.5)[..., None])
        desc = "check"
    elif kind == "pattern":
        sub = rng.choice(["dots", "stripes", "diamond"])
        pal = rng.uniform(0.1, 0.9, (2, 3)).astype(np.float32)
        per = rng.uniform(12, 45)
        if sub == "dots":
            fu, fv = np.mod(U / per, 1) - 0.5, np.mod(V / per, 1) - 0.5
            t = (fu * fu + fv * fv < 0.09).astype(np.float32)
        elif sub == "stripes":
            t = (np.mod(U / per, 1) < rng.uniform(0.2, 0.6)).astype(np.float32)
        else:
            t = ((np.abs(np.mod(U / per, 1) - 0.5) + np.abs(np.mod(V / per, 1) - 0.5)) < 0.3).astype(np.float32)
        img = pal[0][None, None] * (1 - t[..., None]) + pal[1][None, None] * t[..., None]
        img = img * (1 + 0.05 * (fbm(X / 60, Y / 60, seed) - 0.5)[..., None])
        desc = "pattern-" + sub
    else:
        # busy: patchwork of random vivid tiles with random circles
        per = rng.uniform(25, 70)
        iu, iv = np.floor(U / per).astype(np.int64), np.floor(V / per).astype(np.int64)
        r = _hash(iu, iv, seed)
        g = _hash(iu, iv, seed + 1)
        b = _hash(iu, iv, seed + 2)
        sat = rng.uniform(0.4, 0.85)
        img = np.stack([r, g, b], -1) * 0.8 + 0.1
        img = img * sat + img.mean(-1, keepdims=True) * (1 - sat)
        per2 = per * rng.uniform(0.5, 1.5)
        ju, jv = np.floor(U / per2 + 0.37), np.floor(V / per2 + 0.61)
        fu, fv = U / per2 + 0.37 - ju - 0.5, V / per2 + 0.61 - jv - 0.5
        ju, jv = ju.astype(np.int64), jv.astype(np.int64)
        rad = 0.15 + 0.3 * _hash(ju, jv, seed + 7)
        on = ((fu * fu + fv * fv) < rad * rad) & (_hash(ju, jv, seed + 8) < 0.6)
        cc = np.stack([_hash(ju, jv, seed + 9), _hash(ju, jv, seed + 10), _hash(ju, jv, seed + 11)], -1)
        cc = cc * sat + cc.mean(-1, keepdims=True) * (1 - sat)
        img = np.where(on[..., None], cc * 0.85 + 0.1, img)
        img = img * (1 + 0.05 * (fbm(X / 50, Y / 50, seed) - 0.5)[..., None])
        desc = "busy"
    return np.clip(img, 0, 1).astype(np.float32), desc


# ----------------------------------------------------------------------------- camera

class Camera:
    def __init__(self, f, C, R, scale):
        self.f, self.C, self.R, self.s = f, np.asarray(C, float), R, scale
        self.K = np.array([[f * scale, 0, W * scale / 2], [0, f * scale, H * scale / 2], [0, 0, 1]])

    def project(self, P):
        P = np.atleast_2d(np.asarray(P, float))
        pc = (P - self.C) @ self.R.T
        uv = pc @ self.K.T
        return uv[:, :2] / uv[:, 2:3]

    def plane_h(self, O, a, b):
        """homography mapping (lx, ly, 1) of a plane X = O + lx*a + ly*b into the image."""
        M = np.stack([a, b, np.asarray(O, float) - self.C], 1)
        return self.K @ self.R @ M


def make_camera(target, tilt, az, roll, D, f, scale):
    d = np.array([math.cos(az), math.sin(az), 0.0])
    ez = np.array([0, 0, 1.0])
    fwd = math.sin(tilt) * d - math.cos(tilt) * ez
    up = math.cos(tilt) * d + math.sin(tilt) * ez
    yc = -up
    xc = np.cross(yc, fwd)
    cr, sr = math.cos(roll), math.sin(roll)
    xr = cr * xc + sr * yc
    yr = -sr * xc + cr * yc
    R = np.stack([xr, yr, fwd], 0)
    C = np.asarray(target, float) - D * fwd
    return Camera(f, C, R, scale)


# ----------------------------------------------------------------------------- objects

class Obj:
    """A flat slab: RGBA texture (PIL), tpm texture px per mm, centre (x,y), angle phi,
    bottom z0, top z1, wall colour (0..1 sRGB)."""

    def __init__(self, tex, tpm, cx, cy, phi, z0, z1, wall, shade=1.0, shadow=0.6, name=""):
        self.tex, self.tpm = tex, tpm
        self.cx, self.cy, self.phi, self.z0, self.z1 = cx, cy, phi, z0, z1
        self.wall = np.asarray(wall, np.float32)
        self.shade, self.shadow, self.name = shade, shadow, name
        self.Lx, self.Ly = tex.size[0] / tpm, tex.size[1] / tpm

    def axes(self):
        a = np.array([math.cos(self.phi), math.sin(self.phi), 0.0])
        b = np.array([math.sin(self.phi), -math.cos(self.phi), 0.0])
        return a, b

    def world(self, lx, ly, z):
        a, b = self.axes()
        return np.array([self.cx, self.cy, z]) + lx * a + ly * b

    def tex_h(self, cam, z, dx=0.0, dy=0.0):
        a, b = self.axes()
        Hl = cam.plane_h(np.array([self.cx + dx, self.cy + dy, z]), a, b)
        M = np.array([[1 / self.tpm, 0, -self.Lx / 2], [0, 1 / self.tpm, -self.Ly / 2], [0, 0, 1]])
        return Hl @ M


def proj_bbox(Ht, w, h, canvas_shape):
    cs = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], float) @ Ht.T
    cs = cs[:, :2] / cs[:, 2:3]
    x0 = max(int(math.floor(cs[:, 0].min())) - 2, 0)
    y0 = max(int(math.floor(cs[:, 1].min())) - 2, 0)
    x1 = min(int(math.ceil(cs[:, 0].max())) + 2, canvas_shape[1])
    y1 = min(int(math.ceil(cs[:, 1].max())) + 2, canvas_shape[0])
    return x0, y0, x1, y1


def warp(tex, Ht, canvas_shape, bbox=None):
    """warp PIL texture by homography Ht (texture -> canvas).  Returns (x0, y0, array) or None."""
    w, h = tex.size
    x0, y0, x1, y1 = bbox if bbox is not None else proj_bbox(Ht, w, h, canvas_shape)
    if x1 <= x0 or y1 <= y0:
        return None
    T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float) @ Ht
    Hi = np.linalg.inv(T)
    Hi = Hi / Hi[2, 2]
    out = tex.transform((x1 - x0, y1 - y0), Image.PERSPECTIVE, tuple(Hi.flatten()[:8]), Image.BILINEAR)
    return x0, y0, np.asarray(out, np.float32) / 255.0


def draw_obj(canvas, obj, cam, light_dir):
    sh = canvas.shape
    alpha_tex = obj.tex.getchannel("A")
    # drop shadow on what lies below
    if obj.shadow > 0:
        off = 1.2 + 0.8 * (obj.z1 - obj.z0)
        r = warp(alpha_tex, obj.tex_h(cam, obj.z0, off * light_dir[0], off * light_dir[1]), sh)
        if r:
            x0, y0, a = r
            ai = Image.fromarray((a * 255).astype(np.uint8))
            # blur radius ~ 1.5 mm in pixels
            pxmm = np.linalg.norm(cam.project([obj.world(1, 0, obj.z0)]) - cam.project([obj.world(0, 0, obj.z0)]))
            ai = ai.filter(ImageFilter.GaussianBlur(float(max(1.0, 1.5 * float(pxmm)))))
            a = np.asarray(ai, np.float32)[..., None] / 255.0
            canvas[y0:y0 + a.shape[0], x0:x0 + a.shape[1]] *= (1 - obj.shadow * a)
    # side walls: silhouette drawn at several heights from z0 to z1
    p0 = cam.project([obj.world(0, 0, obj.z0)])[0]
    p1 = cam.project([obj.world(0, 0, obj.z1)])[0]
    corners = [obj.world(sx * obj.Lx / 2, sy * obj.Ly / 2, 0) for sx in (-1, 1) for sy in (-1, 1)]
    disp = 0
    for c in corners:
        q0 = cam.project([c + [0, 0, obj.z0]])[0]
        q1 = cam.project([c + [0, 0, obj.z1]])[0]
        disp = max(disp, np.linalg.norm(q1 - q0), np.linalg.norm(p1 - p0))
    m = int(math.ceil(disp / 1.0)) + 1
    A = None
    b0 = proj_bbox(obj.tex_h(cam, obj.z0), obj.tex.size[0], obj.tex.size[1], sh)
    b1 = proj_bbox(obj.tex_h(cam, obj.z1), obj.tex.size[0], obj.tex.size[1], sh)
    bb = (min(b0[0], b1[0]), min(b0[1], b1[1]), max(b0[2], b1[2]), max(b0[3], b1[3]))
    for i in range(m):
        z = obj.z0 + (obj.z1 - obj.z0) * i / m
        r = warp(alpha_tex, obj.tex_h(cam, z), sh, bb)
        if r:
            x0, y0, a = r
            if A is None:
                A, ax0, ay0 = np.ones_like(a), x0, y0
            A *= 1 - a
    if A is not None:
        A = (1 - A)[..., None]
        sub = canvas[ay0:ay0 + A.shape[0], ax0:ax0 + A.shape[1]]
        sub *= (1 - A)
        sub += A * (obj.wall * 0.85)[None, None]
    r = warp(obj.tex, obj.tex_h(cam, obj.z1), sh)
    if r:
        x0, y0, a = r
        al = a[..., 3:4]
        sub = canvas[y0:y0 + a.shape[0], x0:x0 + a.shape[1]]
        sub *= (1 - al)
        sub += al * (a[..., :3] * obj.shade)


def paper_noise(size, rng, amp):
    n = rng.normal(0, amp, (size[1] // 4 + 1, size[0] // 4 + 1)).astype(np.float32)
    img = Image.fromarray(((n + 0.5) * 255).clip(0, 255).astype(np.uint8)).resize(size, Image.BILINEAR)
    return np.asarray(img, np.float32) / 255.0 - 0.5


def layer_texture(S, grid, cs, tpm, rng):
    R, C = S["rows"], S["cols"]
    fw = S.get("frame_width", 0.3) * cs
    Lx, Ly = C * cs + 2 * fw, R * cs + 2 * fw
    w, h = int(round(Lx * tpm)), int(round(Ly * tpm))
    fr = hex2rgb(S["colors"][S["frame"]]["srgb"])
    wall = tuple(int(v * 0.35) for v in fr)
    img = Image.new("RGBA", (w, h), wall + (0,))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle([0, 0, w - 1, h - 1], radius=int(1.2 * tpm), fill=fr + (255,))
    for r in range(R):
        for c in range(C):
            x0 = (fw + c * cs) * tpm
            y0 = (fw + r * cs) * tpm
            x1 = (fw + (c + 1) * cs) * tpm - 1
            y1 = (fw + (r + 1) * cs) * tpm - 1
            k = grid[r][c]
            if k == ".":
                d.rectangle([x0, y0, x1, y1], fill=wall + (0,))
            else:
                d.rectangle([x0, y0, x1, y1], fill=hex2rgb(S["colors"][k]["srgb"]) + (255,))
    a = np.asarray(img).astype(np.float32)
    a[..., :3] *= 1 + paper_noise((w, h), rng, 0.03)[..., None]
    return Image.fromarray(a.clip(0, 255).astype(np.uint8), "RGBA"), np.array(wall, np.float32) / 255


def card_texture(S, Lx, Ly, tpm, rng):
    w, h = int(round(Lx * tpm)), int(round(Ly * tpm))
    col = hex2rgb(S["colors"][S["card"]]["srgb"])
    img = Image.new("RGBA", (w, h), col + (0,))
    ImageDraw.Draw(img).rounded_rectangle([0, 0, w - 1, h - 1], radius=int(rng.uniform(2, 5) * tpm), fill=col + (255,))
    a = np.asarray(img).astype(np.float32)
    a[..., :3] *= 1 + paper_noise((w, h), rng, 0.04)[..., None]
    return Image.fromarray(a.clip(0, 255).astype(np.uint8), "RGBA")


def mission_texture(S, mission, csm, tpm, rng):
    R, C = S["rows"], S["cols"]
    fw = S.get("frame_width", 0.3) * csm
    mg = 0.3 * csm
    side = 1.1 * csm
    Lx = C * csm + 2 * fw + 2 * mg + side
    Ly = R * csm + 2 * fw + 2 * mg
    w, h = int(round(Lx * tpm)), int(round(Ly * tpm))
    col = hex2rgb(S["colors"][S["card"]]["srgb"])
    fr = hex2rgb(S["colors"][S["frame"]]["srgb"])
    img = Image.new("RGBA", (w, h), col + (0,))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle([0, 0, w - 1, h - 1], radius=int(3 * tpm), fill=col + (255,))
    gx0, gy0 = mg * tpm, mg * tpm
    d.rectangle([gx0, gy0, gx0 + (C * csm + 2 * fw) * tpm, gy0 + (R * csm + 2 * fw) * tpm], fill=fr + (255,))
    for r in range(R):
        for c in range(C):
            x0 = gx0 + (fw + c * csm) * tpm
            y0 = gy0 + (fw + r * csm) * tpm
            d.rectangle([x0, y0, x0 + csm * tpm - 1, y0 + csm * tpm - 1],
                        fill=hex2rgb(S["colors"][mission["pattern"][r][c]]["srgb"]) + (255,))
    font = ImageFont.truetype(FONT, int(0.8 * csm * tpm))
    tx = gx0 + (C * csm + 2 * fw) * tpm + side * tpm / 2
    ty = gy0 + (R * csm + 2 * fw) * tpm / 2
    d.text((tx, ty), str(mission["layers"]), fill=fr + (255,), font=font, anchor="mm")
    a = np.asarray(img).astype(np.float32)
    a[..., :3] *= 1 + paper_noise((w, h), rng, 0.03)[..., None]
    return Image.fromarray(a.clip(0, 255).astype(np.uint8), "RGBA"), Lx, Ly


# ----------------------------------------------------------------------------- light

def kelvin_rgb(T):
    """approximate blackbody colour (Tanner Helland fit), linear-ish 0..1"""
    t = T / 100.0
    r = 255 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    b = 255 if t >= 66 else (0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
    v = np.clip(np.array([r, g, b], float), 0, 255) / 255
    return srgb_to_lin(v)


# ----------------------------------------------------------------------------- scene

def render_scene(S, idx, seed, outdir):
    rng = np.random.default_rng([seed, idx, 7919])
    want_match = (idx % 2 == 0)
    mission, stack, how = choose_stack(S, rng, want_match)
    vis = visible_grid(S, stack)
    d = min_dist(vis, mission["pattern"])
    matches = d == 0
    assert matches == want_match
    if not matches:
        assert 1 <= d <= 3, d

    R, C = S["rows"], S["cols"]
    fwc = S.get("frame_width", 0.3)
    cs = 100.0 / (max(R, C) + 2 * fwc) * rng.uniform(0.9, 1.1)  # cell size mm; layer ~ 100 mm
    G = C * cs
    Lsz = (C + 2 * fwc) * cs
    thick = rng.uniform(1.2, 2.2) * float(os.environ.get("TJ_DEBUG_THICK_SCALE", "1"))
    card_t = rng.uniform(0.4, 0.9)
    tpm = 10.0
    light_ang = rng.uniform(0, 2 * math.pi)
    light_dir = (math.cos(light_ang), math.sin(light_ang))

    # ---- layout (world mm)
    phi_s = rng.uniform(0, 2 * math.pi)
    objs = []
    margin_x, margin_y = rng.uniform(0.4, 0.9) * cs, rng.uniform(0.4, 1.2) * cs
    # debugging knobs (do not change the random stream): scale the player-card margin
    msc = float(os.environ.get("TJ_DEBUG_MARGIN_SCALE", "1"))
    margin_x, margin_y = margin_x * msc, margin_y * msc
    card_tex = card_texture(S, Lsz + 2 * margin_x, Lsz + 2 * margin_y, tpm, rng)
    pc = Obj(card_tex, tpm, rng.normal(0, 3), rng.normal(0, 3), phi_s + math.radians(rng.normal(0, 2)),
             0.0, card_t, np.array(hex2rgb(S["colors"][S["card"]]["srgb"])) / 255 * 0.55, shadow=0.45, name="player")
    card_half = 0.5 * math.hypot(Lsz + 2 * margin_x, Lsz + 2 * margin_y)

    mission_in = rng.random() < 0.8
    loose = rng.random() < 0.3
    used_dirs = []
    mtex, mLx, mLy = mission_texture(S, mission, cs * rng.uniform(0.6, 0.95), tpm, rng)
    mis_obj = None
    ang_m = rng.uniform(0, 2 * math.pi)
    dist_m = card_half + 0.5 * math.hypot(mLx, mLy) + rng.uniform(5, 70)
    mis_obj = Obj(mtex, tpm, dist_m * math.cos(ang_m), dist_m * math.sin(ang_m),
                  phi_s + rng.choice([0, 1, 2, 3]) * math.pi / 2 + math.radians(rng.normal(0, 12)) if rng.random() < 0.6
                  else rng.uniform(0, 2 * math.pi),
                  0.0, card_t * 0.7, np.array(hex2rgb(S["colors"][S["card"]]["srgb"])) / 255 * 0.5, shadow=0.4,
                  name="mission")
    used_dirs.append(ang_m)
    loose_obj = None
    if loose:
        ids = [l["id"] for l in S["layers"] if l["id"] not in {e["layer"] for e in stack}]
        if ids:
            lid = str(rng.choice(ids))
            side = str(rng.choice(["front", "back"]))
            k = int(rng.integers(4))
            ltex, lwall = layer_texture(S, oriented(S, lid, side, k), cs, tpm, rng)
            ang_l = ang_m + rng.uniform(0.6 * math.pi, 1.4 * math.pi)
            dist_l = card_half + 0.5 * Lsz * 1.42 + rng.uniform(5, 80)
            loose_obj = Obj(ltex, tpm, dist_l * math.cos(ang_l), dist_l * math.sin(ang_l), rng.uniform(0, 2 * math.pi),
                            0.0, thick, lwall, shadow=0.5, name="loose:%s:%s:%d" % (lid, side, k))
            loose_obj.info = {"layer": lid, "side": side, "quarter_turns": k}

    # stack layers (bottom first), with small misalignment
    scx, scy = pc.cx + rng.normal(0, 2.5), pc.cy + rng.normal(0, 2.5)
    phi_st = pc.phi + math.radians(rng.normal(0, 2))
    layer_objs = []
    nst = len(stack)
    for j, e in enumerate(reversed(stack)):
        g = oriented(S, e["layer"], e["side"], e["quarter_turns"])
        tex, wall = layer_texture(S, g, cs, tpm, rng)
        mis = np.clip(rng.normal(0, 0.025 * cs, 2), -0.06 * cs, 0.06 * cs)
        dphi = math.radians(float(np.clip(rng.normal(0, 0.9), -2, 2)))
        z0 = card_t + j * thick
        o = Obj(tex, tpm, scx + mis[0], scy + mis[1], phi_st + dphi, z0, z0 + thick, wall,
                shade=rng.uniform(0.97, 1.03), shadow=0.45, name="layer:%s" % e["layer"])
        o.grid = g
        layer_objs.append(o)
    top = layer_objs[-1]

    # ---- camera
    f = rng.uniform(1350, 1750)
    for attempt in range(200):
        tilt = math.radians(rng.uniform(0, 40))
        az = rng.uniform(0, 2 * math.pi)
        roll = math.radians(rng.normal(0, 8)) if rng.random() < 0.8 else rng.uniform(-math.pi, math.pi)
        frac = rng.uniform(0.15, 0.40)
        if mission_in:
            lam = rng.uniform(0.25, 0.6)
            tgt = np.array([lam * mis_obj.cx, lam * mis_obj.cy, 0.0])
        else:
            tgt = np.array([rng.normal(0, 20), rng.normal(0, 20), 0.0])
        D = f * Lsz / (frac * W)
        cam = make_camera(tgt, tilt, az, roll, D, f, 1)
        gc = grid_corners(top, cam, G)
        fc = cam.project([top.world(sx * Lsz / 2, sy * Lsz / 2, top.z1) for sx in (-1, 1) for sy in (-1, 1)])
        m = 25
        if not ((fc[:, 0] > m).all() and (fc[:, 0] < W - m).all() and (fc[:, 1] > m).all() and (fc[:, 1] < H - m).all()):
            continue
        wfrac = (fc[:, 0].max() - fc[:, 0].min()) / W
        if not (0.13 <= wfrac <= 0.45):
            continue
        mc = mis_corners(mis_obj, cam)
        inview = bool(((mc[:, 0] > 0) & (mc[:, 0] < W) & (mc[:, 1] > 0) & (mc[:, 1] < H)).all())
        if mission_in and not inview and attempt < 150:
            continue
        break
    else:
        raise RuntimeError("no camera")
    mc = mis_corners(mis_obj, cam)
    mission_card_in_view = bool(((mc[:, 0] > 0) & (mc[:, 0] < W) & (mc[:, 1] > 0) & (mc[:, 1] < H)).all())
    # mission partially visible in other cases is fine; if not wanted, move it off-view when possible
    cam2 = make_camera(tgt, tilt, az, roll, D, f, SS)

    # ---- table
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float64)
    Ht = cam.plane_h(np.zeros(3), np.array([1.0, 0, 0]), np.array([0, 1.0, 0]))
    Hi = np.linalg.inv(Ht)
    P = np.stack([xs + 0.5, ys + 0.5, np.ones_like(xs)], -1) @ Hi.T
    X, Y = P[..., 0] / P[..., 2], P[..., 1] / P[..., 2]
    tab, tdesc = table_texture(X, Y, rng)
    tab_img = Image.fromarray((tab * 255).astype(np.uint8)).resize((W * SS, H * SS), Image.BILINEAR)
    canvas = np.asarray(tab_img, np.float32) / 255.0
    canvas = canvas.copy()

    draw_obj(canvas, pc, cam2, light_dir)
    if os.environ.get("TJ_DEBUG_NO_MISSION") != "1":
        draw_obj(canvas, mis_obj, cam2, light_dir)
    else:
        mission_card_in_view = False
    if loose_obj is not None:
        draw_obj(canvas, loose_obj, cam2, light_dir)
    for o in layer_objs:
        draw_obj(canvas, o, cam2, light_dir)

    # downsample 2x (box)
    img = canvas.reshape(H, SS, W, SS, 3).mean(axis=(1, 3))

    # ---- self-check geometry: projected cell centres carry the visible colour
    pal = {k: np.array(hex2rgb(v["srgb"]), np.float32) / 255 for k, v in S["colors"].items()}
    keys = list(pal)
    palarr = np.stack([pal[k] for k in keys])
    bad = []
    for r in range(R):
        for c in range(C):
            lx, ly = (c + 0.5) * cs - G / 2, (r + 0.5) * cs - G / 2
            src = None
            for o in reversed(layer_objs):
                if o.grid[r][c] != ".":
                    src = o
                    break
            if src is None:
                p = cam.project([layer_objs[0].world(lx, ly, card_t)])[0]
            else:
                p = cam.project([src.world(lx, ly, src.z1)])[0]
            xi, yi = int(p[0]), int(p[1])
            patch = img[yi - 1:yi + 2, xi - 1:xi + 2].reshape(-1, 3).mean(0)
            k = keys[int(np.argmin(((palarr - patch[None]) ** 2).sum(1)))]
            if k != vis[r][c]:
                bad.append((r, c, vis[r][c], k))
    if bad:
        raise AssertionError("scene %d: geometry self-check failed %s" % (idx, bad))

    if os.environ.get("TJ_DEBUG_DUMP"):
        Image.fromarray((np.clip(img, 0, 1) * 255 + 0.5).astype(np.uint8)).save(
            os.path.join(outdir, "scene_%04d.prelight.png" % idx))
        dbg = {}
        for r in range(R):
            for c in range(C):
                lx, ly = (c + 0.5) * cs - G / 2, (r + 0.5) * cs - G / 2
                src = next((o for o in reversed(layer_objs) if o.grid[r][c] != "."), None)
                p = cam.project([(src or layer_objs[0]).world(lx, ly, src.z1 if src else card_t)])[0]
                xi, yi = int(p[0]), int(p[1])
                patch = img[yi - 4:yi + 5, xi - 4:xi + 5].reshape(-1, 3).mean(0)
                dbg["%d,%d" % (r, c)] = "#%02x%02x%02x" % tuple(int(v * 255 + 0.5) for v in patch)
        json.dump(dbg, open(os.path.join(outdir, "scene_%04d.prelight.json" % idx), "w"))

    # ---- light, in linear space
    lin = srgb_to_lin(img)
    T = float(np.exp(rng.uniform(math.log(2800), math.log(7000))))
    ill = kelvin_rgb(T) / kelvin_rgb(6500)
    awb = rng.uniform(0.35, 0.75)  # fraction of the cast the camera's auto white balance leaves
    cast = ill ** awb
    cast = cast / cast[1]
    ev = rng.uniform(-1, 1)
    gain = 2 ** ev
    ys1, xs1 = np.mgrid[0:H, 0:W].astype(np.float32)
    ga = rng.uniform(0, 2 * math.pi)
    gs = rng.uniform(0.1, 0.45)
    grad = 1 + gs * (((xs1 - W / 2) * math.cos(ga) + (ys1 - H / 2) * math.sin(ga)) / W)
    vig = 1 - rng.uniform(0.05, 0.3) * (((xs1 - W / 2) ** 2 + (ys1 - H / 2) ** 2) / (W / 2) ** 2)
    light = (grad * vig)[..., None] * np.ones(3, np.float32)
    effects = {"kelvin": round(T), "awb_residual": round(float(awb), 2), "ev": round(float(ev), 2),
               "gradient": round(float(gs), 2), "table": tdesc}
    if rng.random() < 0.3:
        sa = rng.uniform(0, 2 * math.pi)
        dist = (xs1 - W / 2) * math.cos(sa) + (ys1 - H / 2) * math.sin(sa) - rng.uniform(-500, 500)
        width = rng.uniform(150, 600)
        soft = rng.uniform(20, 90)
        band = 1 / (1 + np.exp(-dist / soft)) * 1 / (1 + np.exp((dist - width) / soft))
        depth = rng.uniform(0.35, 0.6)
        tint = np.array([1.0, 1.0, 1.12], np.float32)
        light = light * (1 - depth * band[..., None] * (2 - tint)[None, None])
        effects["shadow_band"] = round(float(depth), 2)
    lin = lin * light * cast[None, None] * gain
    if rng.random() < 0.25:
        if rng.random() < 0.5:
            cx, cy = gc.mean(0) + rng.normal(0, 60, 2)
        else:
            cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        sx, sy = rng.uniform(15, 70), rng.uniform(15, 70)
        amp = rng.uniform(0.4, 1.5)
        th = rng.uniform(0, math.pi)
        dx, dy = xs1 - cx, ys1 - cy
        u = dx * math.cos(th) + dy * math.sin(th)
        v = -dx * math.sin(th) + dy * math.cos(th)
        spot = amp * np.exp(-0.5 * ((u / sx) ** 2 + (v / sy) ** 2))
        lin = lin + spot[..., None] * np.array([1.0, 1.0, 0.97], np.float32)
        effects["glare"] = [round(float(cx)), round(float(cy)), round(float(amp), 2)]
    # soft highlight roll-off then sRGB
    lin = np.where(lin > 0.8, 0.8 + 0.2 * np.tanh((lin - 0.8) / 0.2), lin)
    out = lin_to_srgb(lin)
    out8 = Image.fromarray((np.clip(out, 0, 1) * 255 + 0.5).astype(np.uint8))
    blur = rng.uniform(0.3, 1.3)
    out8 = out8.filter(ImageFilter.GaussianBlur(blur))
    arr = np.asarray(out8, np.float32)
    shot = rng.uniform(0.3, 2.0)
    read = rng.uniform(1.0, 3.0)
    sigma = np.sqrt(shot * arr + read ** 2)
    noise = rng.normal(0, 1, arr.shape).astype(np.float32) * sigma
    cn = rng.normal(0, 1, (H // 2, W // 2, 3)).astype(np.float32)
    cn = np.asarray(Image.fromarray(((cn * 20 + 128).clip(0, 255)).astype(np.uint8)).resize((W, H), Image.BILINEAR),
                    np.float32) - 128
    arr = arr + noise + cn / 20 * read
    q = int(rng.integers(70, 96))
    effects.update({"blur": round(float(blur), 2), "noise_read": round(float(read), 2), "jpeg_quality": q})
    name = "scene_%04d" % idx
    Image.fromarray(np.clip(arr + 0.5, 0, 255).astype(np.uint8)).save(os.path.join(outdir, name + ".jpg"),
                                                                       quality=q)

    truth = {
        "set": S["name"], "mission": mission["id"], "matches": bool(matches), "visible": vis,
        "stack": stack, "mission_card_in_view": mission_card_in_view,
        "stack_corners_px": [[round(float(x) - 0.5, 2), round(float(y) - 0.5, 2)] for x, y in gc],
        "extra": {
            "how": how, "min_cell_diff": int(d), "pattern": mission["pattern"],
            "tilt_deg": round(math.degrees(tilt), 1), "stack_width_frac": round(float(wfrac), 3),
            "loose_layer": getattr(loose_obj, "info", None), "effects": effects,
            "cell_mm": round(cs, 2), "layer_thickness_mm": round(thick, 2),
            "card_margin_cells": [round(margin_x / cs, 2), round(margin_y / cs, 2)],
        },
    }
    # truth self-check
    assert visible_grid(S, truth["stack"]) == vis
    assert (min_dist(vis, mission["pattern"]) == 0) == truth["matches"]
    with open(os.path.join(outdir, name + ".truth.json"), "w") as fh:
        json.dump(truth, fh, indent=1)
    return name


def grid_corners(top, cam, G):
    pts = [top.world(-G / 2, -G / 2, top.z1), top.world(G / 2, -G / 2, top.z1),
           top.world(G / 2, G / 2, top.z1), top.world(-G / 2, G / 2, top.z1)]
    return cam.project(pts)


def mis_corners(o, cam):
    return cam.project([o.world(sx * o.Lx / 2, sy * o.Ly / 2, o.z1) for sx in (-1, 1) for sy in (-1, 1)])


def _job(args):
    setpath, idx, seed, outdir = args
    S = json.load(open(setpath))
    return render_scene(S, idx, seed, outdir)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("set")
    ap.add_argument("outdir")
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    S = json.load(open(a.set))
    assert S["rows"] == S["cols"], "quarter turns of non-square layers not supported"
    jobs = [(a.set, i, a.seed, a.outdir) for i in range(a.start, a.start + a.n)]
    if a.workers > 1:
        with ProcessPoolExecutor(a.workers) as ex:
            for name in ex.map(_job, jobs):
                print(name, flush=True)
    else:
        for j in jobs:
            print(_job(j), flush=True)


if __name__ == "__main__":
    main()
