//! Ray casting flat objects on a table in linear light: what every kind of scene shares.

use crate::camera::{Camera, CameraSpec};
use crate::degrade::Linear;
use crate::light::{LightSpec, Lighting};
use crate::objects::{Hit, Object};
use crate::table::Table;

const TILE: usize = 16;

/// Casts rays at the objects on a table under one light, seen by one camera.
pub(crate) struct Renderer<'a> {
    pub(crate) cam: Camera,
    pub(crate) light: Lighting,
    pub(crate) table: Table,
    pub(crate) objects: &'a [Object],
    /// All objects, highest top first.
    pub(crate) order: Vec<u16>,
    pub(crate) table_gloss: f64,
    /// Horizontal shift of a shadow per unit of height (away from the lamp).
    pub(crate) shadow_step: [f64; 2],
    /// Unit horizontal direction towards the lamp and its horizontal share.
    pub(crate) lamp_flat: [f64; 2],
    pub(crate) lamp_horizontal: f64,
}

impl<'a> Renderer<'a> {
    /// A renderer of `objects`; `reference` is the table point whose light is the exposure's
    /// reference (what the scene is about).
    pub(crate) fn new(
        camera: &CameraSpec,
        light: &LightSpec,
        table: Table,
        table_gloss: f64,
        reference: [f64; 2],
        objects: &'a [Object],
    ) -> Renderer<'a> {
        let cam = Camera::new(camera);
        let light = Lighting::new(light, reference);
        let up = (-light.to_lamp[2]).max(0.05);
        let flat = (light.to_lamp[0].powi(2) + light.to_lamp[1].powi(2)).sqrt();
        let mut order: Vec<u16> = (0..objects.len() as u16).collect();
        order.sort_by(|&a, &b| {
            objects[usize::from(b)]
                .top
                .total_cmp(&objects[usize::from(a)].top)
        });
        Renderer {
            cam,
            table,
            objects,
            order,
            table_gloss,
            shadow_step: [light.to_lamp[0] / up, light.to_lamp[1] / up],
            lamp_flat: if flat > 1e-9 {
                [light.to_lamp[0] / flat, light.to_lamp[1] / flat]
            } else {
                [0.0, 0.0]
            },
            lamp_horizontal: flat,
            light,
        }
    }

    /// Ambient and lamp visibility at table point `p`, `h` above the table, from the objects
    /// above it among `cands` (highest first), except `skip`.
    pub(crate) fn occlusion(&self, cands: &[u16], skip: usize, p: [f64; 2], h: f64) -> (f64, f64) {
        let (mut amb, mut lamp) = (1.0, 1.0);
        let lamp_on = self.light.direct > 0.0;
        for &j in cands {
            let o = &self.objects[usize::from(j)];
            if o.top <= h + 1e-9 {
                break;
            }
            if usize::from(j) == skip {
                continue;
            }
            let dz = o.top - h;
            // Ambient occlusion: a sheet close above blocks part of the sky.
            let c = o.coverage(p, 1.2 * dz + 0.01);
            amb *= 1.0 - 0.45 * c;
            if lamp_on {
                let q = [
                    p[0] + self.shadow_step[0] * dz,
                    p[1] + self.shadow_step[1] * dz,
                ];
                lamp *= 1.0 - o.coverage(q, self.light.lamp_size * dz + 0.004);
            }
        }
        (amb, lamp)
    }

    /// Linear radiance of a top surface.
    #[allow(clippy::too_many_arguments)] // Hot path: the parts of a hit, unpacked.
    pub(crate) fn shade(
        &self,
        cands: &[u16],
        skip: usize,
        p: [f64; 2],
        h: f64,
        alb: [f32; 3],
        gloss: f64,
    ) -> [f32; 3] {
        let l = &self.light;
        let (amb, lamp) = self.occlusion(cands, skip, p, h);
        let band = if l.direct > 0.0 {
            l.band_visibility(p)
        } else {
            1.0
        };
        let direct = if l.direct > 0.0 {
            l.direct * lamp * band * l.lamp_falloff(p)
        } else {
            0.0
        };
        let e = (l.ramp(p) * (l.ambient * amb + direct)) as f32;
        let g = (l.glare(p) * gloss * lamp * band) as f32;
        [0, 1, 2].map(|i| l.cast[i] * (alb[i] * e + g))
    }

    /// Whether the camera sees the top of object `obj` at world point `p` on it: inside the
    /// picture, and nothing in front of it.
    pub(crate) fn sees_top(&self, obj: usize, p: [f64; 2]) -> bool {
        let (w, h) = (f64::from(self.cam.width), f64::from(self.cam.height));
        let target = [p[0], p[1], -self.objects[obj].top];
        let inside = self
            .cam
            .project(target)
            .is_some_and(|q| q[0] >= -0.5 && q[1] >= -0.5 && q[0] <= w - 0.5 && q[1] <= h - 0.5);
        let d = [
            target[0] - self.cam.pos[0],
            target[1] - self.cam.pos[1],
            target[2] - self.cam.pos[2],
        ];
        let first = self.order.iter().find_map(|&k| {
            self.objects[usize::from(k)]
                .hit(self.cam.pos, d)
                .map(|(hit, _, _)| (usize::from(k), hit))
        });
        inside && matches!(first, Some((k, Hit::Top)) if k == obj)
    }

    /// Linear radiance of a cut edge seen along `d`.
    fn shade_wall(&self, o: &Object, p: [f64; 2], d: [f64; 3]) -> [f32; 3] {
        let l = &self.light;
        let n = (d[0] * d[0] + d[1] * d[1]).sqrt().max(1e-9);
        // The wall faces back towards the camera.
        let facing = (-(d[0] * self.lamp_flat[0] + d[1] * self.lamp_flat[1]) / n).max(0.0);
        let direct =
            l.direct * l.band_visibility(p) * l.lamp_falloff(p) * facing * self.lamp_horizontal;
        let e = (l.ramp(p) * (0.5 * l.ambient + direct)) as f32;
        [0, 1, 2].map(|i| l.cast[i] * o.edge[i] * e)
    }

    /// One ray through pixel position `(px, py)`: its radiance and the id of what it hit.
    pub(crate) fn sample(&self, cands: &[u16], px: f64, py: f64) -> ([f32; 3], u32) {
        let d = self.cam.ray(px, py);
        if d[2] < 1e-6 {
            // Above the horizon (cannot happen with tilts up to 40°): a dim wall.
            return ([0.05; 3], u32::MAX);
        }
        let pos = self.cam.pos;
        let norm2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        for &i in cands {
            let i = usize::from(i);
            let o = &self.objects[i];
            if let Some((hit, p, l)) = o.hit(pos, d) {
                let id = (i as u32 + 1) << 16;
                return match hit {
                    Hit::Top => {
                        let t = (-o.top - pos[2]) / d[2];
                        let fp = t * norm2 / (self.cam.f * d[2]);
                        let (alb, sub) = o.shape.surface(l, fp, o.seed);
                        (self.shade(cands, i, p, o.top, alb, o.gloss), id | sub)
                    }
                    Hit::Wall => (self.shade_wall(o, p, d), id | 0xffff),
                };
            }
        }
        let t = -pos[2] / d[2];
        let p = [pos[0] + t * d[0], pos[1] + t * d[1]];
        let fp = (t * norm2 / (self.cam.f * d[2])).min(50.0);
        let alb = self.table.albedo(p[0], p[1], fp);
        (
            self.shade(cands, usize::MAX, p, 0.0, alb, self.table_gloss),
            0,
        )
    }

    /// The convex outline in pixels (clockwise or not) of everything an object, its shadow and
    /// its contact darkening can touch, and how far real edges may bow outside it (lens
    /// distortion between the sampled points); `None` when part of it is behind the camera.
    fn outline(&self, o: &Object) -> Option<(Vec<[f64; 2]>, f64)> {
        let b = o.shape.bounds();
        let m = 1.2 * o.top + 0.06;
        let e = [b[0] - m, b[1] - m, b[2] + m, b[3] + m];
        let mut pts = Vec::with_capacity(24);
        for (fx, fy) in [
            (0.0, 0.0),
            (0.5, 0.0),
            (1.0, 0.0),
            (1.0, 0.5),
            (1.0, 1.0),
            (0.5, 1.0),
            (0.0, 1.0),
            (0.0, 0.5),
        ] {
            let l = [e[0] + fx * (e[2] - e[0]), e[1] + fy * (e[3] - e[1])];
            let wp = o.to_world(l);
            let s = [
                wp[0] - self.shadow_step[0] * o.top,
                wp[1] - self.shadow_step[1] * o.top,
            ];
            for p in [
                [wp[0], wp[1], 0.0],
                [wp[0], wp[1], -o.top],
                [s[0], s[1], 0.0],
            ] {
                pts.push(self.cam.project(p)?);
            }
        }
        let pad = 3.0 + 0.02 * self.cam.k1.abs() * f64::from(self.cam.width);
        Some((convex_hull(pts), pad))
    }
}

/// The convex hull of `pts` (Andrew's monotone chain), counter-clockwise in x-right/y-up terms.
fn convex_hull(mut pts: Vec<[f64; 2]>) -> Vec<[f64; 2]> {
    pts.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    let cross = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let mut hull: Vec<[f64; 2]> = Vec::with_capacity(pts.len() + 1);
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &[f64; 2]>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for &p in iter {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

/// Whether the pixel rectangle `r` = [x0, y0, x1, y1] comes within `pad` of convex `poly`
/// (separating axes: the rectangle's own axes, then each polygon edge).
fn rect_meets_polygon(r: [f64; 4], poly: &[[f64; 2]], pad: f64) -> bool {
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for p in poly {
        lo = [lo[0].min(p[0]), lo[1].min(p[1])];
        hi = [hi[0].max(p[0]), hi[1].max(p[1])];
    }
    if hi[0] + pad < r[0] || hi[1] + pad < r[1] || lo[0] - pad > r[2] || lo[1] - pad > r[3] {
        return false;
    }
    let n = poly.len();
    if n < 3 {
        return true;
    }
    // Orientation of the hull decides which side of an edge is outside.
    let area: f64 = (0..n)
        .map(|i| {
            let (a, b) = (poly[i], poly[(i + 1) % n]);
            a[0] * b[1] - a[1] * b[0]
        })
        .sum();
    let sign = if area >= 0.0 { 1.0 } else { -1.0 };
    let corners = [[r[0], r[1]], [r[2], r[1]], [r[2], r[3]], [r[0], r[3]]];
    (0..n).all(|i| {
        let (a, b) = (poly[i], poly[(i + 1) % n]);
        let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
        let len = (ex * ex + ey * ey).sqrt().max(1e-9);
        // Outward normal for a positively oriented polygon.
        let (nx, ny) = (sign * ey / len, -sign * ex / len);
        let nearest = corners
            .iter()
            .map(|c| (c[0] - a[0]) * nx + (c[1] - a[1]) * ny)
            .fold(f64::INFINITY, f64::min);
        nearest <= pad
    })
}

/// Casts one ray per pixel, then four more wherever neighbouring pixels hit different things
/// (antialiasing where it matters, at a fraction of full supersampling's cost).
pub(crate) fn rasterise(r: &Renderer) -> Linear {
    let (w, h) = (r.cam.width as usize, r.cam.height as usize);
    let (tx, ty) = (w.div_ceil(TILE), h.div_ceil(TILE));
    let mut tiles: Vec<Vec<u16>> = vec![Vec::new(); tx * ty];
    for &i in &r.order {
        let outline = r.outline(&r.objects[usize::from(i)]);
        for ty_ in 0..ty {
            for tx_ in 0..tx {
                let rect = [
                    (tx_ * TILE) as f64 - 0.5,
                    (ty_ * TILE) as f64 - 0.5,
                    ((tx_ + 1) * TILE) as f64 - 0.5,
                    ((ty_ + 1) * TILE) as f64 - 0.5,
                ];
                // Behind the camera in part: be safe, it may touch any tile.
                let meets = outline
                    .as_ref()
                    .is_none_or(|(poly, pad)| rect_meets_polygon(rect, poly, *pad));
                if meets {
                    tiles[ty_ * tx + tx_].push(i);
                }
            }
        }
    }
    let mut img = Linear::new(w, h);
    let mut ids = vec![0u32; w * h];
    // Tiles that see only the table (no object, shadow or contact darkening) are shaded on a
    // lattice of every other pixel and interpolated: the table is most of the picture, its
    // texture is smooth at that scale, and the lens blurs more than this anyway.
    let (lw, lh) = (w / 2 + 2, h / 2 + 2);
    let mut lattice: Vec<Option<[f32; 3]>> = vec![None; lw * lh];
    let mut at = |i: usize, j: usize| -> [f32; 3] {
        *lattice[j * lw + i].get_or_insert_with(|| r.sample(&[], (2 * i) as f64, (2 * j) as f64).0)
    };
    for y in 0..h {
        let trow = (y / TILE) * tx;
        for x in 0..w {
            let cands = &tiles[trow + x / TILE];
            let o = (y * w + x) * 3;
            if cands.is_empty() {
                let (i, j) = (x / 2, y / 2);
                let (fx, fy) = ((x % 2) as f32 * 0.5, (y % 2) as f32 * 0.5);
                let (a, b) = (at(i, j), at(i + 1, j));
                let (c, d) = (at(i, j + 1), at(i + 1, j + 1));
                for k in 0..3 {
                    let top = a[k] + (b[k] - a[k]) * fx;
                    let bottom = c[k] + (d[k] - c[k]) * fx;
                    img.data[o + k] = top + (bottom - top) * fy;
                }
                continue;
            }
            let (c, id) = r.sample(cands, x as f64, y as f64);
            img.data[o..o + 3].copy_from_slice(&c);
            ids[y * w + x] = id;
        }
    }
    let mut edge = vec![false; w * h];
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            if x + 1 < w && ids[i] != ids[i + 1] {
                edge[i] = true;
                edge[i + 1] = true;
            }
            if y + 1 < h && ids[i] != ids[i + w] {
                edge[i] = true;
                edge[i + w] = true;
            }
        }
    }
    // A rotated grid: four sub-samples whose x and y offsets are all different.
    const SUB: [(f64, f64); 4] = [
        (-0.375, -0.125),
        (0.125, -0.375),
        (0.375, 0.125),
        (-0.125, 0.375),
    ];
    for y in 0..h {
        for x in 0..w {
            if !edge[y * w + x] {
                continue;
            }
            let cands = &tiles[(y / TILE) * tx + x / TILE];
            let o = (y * w + x) * 3;
            let mut acc = [img.data[o], img.data[o + 1], img.data[o + 2]];
            for (dx, dy) in SUB {
                let (c, _) = r.sample(cands, x as f64 + dx, y as f64 + dy);
                acc = [acc[0] + c[0], acc[1] + c[1], acc[2] + c[2]];
            }
            img.data[o..o + 3].copy_from_slice(&acc.map(|v| v * 0.2));
        }
    }
    img
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_meet_only_polygons_they_touch() {
        let diamond = convex_hull(vec![
            [10.0, 0.0],
            [20.0, 10.0],
            [10.0, 20.0],
            [0.0, 10.0],
            [10.0, 10.0],
        ]);
        assert_eq!(diamond.len(), 4);
        assert!(rect_meets_polygon([8.0, 8.0, 12.0, 12.0], &diamond, 0.0));
        // In the diamond's bounding box but outside it, past its top-left edge.
        assert!(!rect_meets_polygon([0.0, 0.0, 3.0, 3.0], &diamond, 0.0));
        assert!(rect_meets_polygon([0.0, 0.0, 3.0, 3.0], &diamond, 3.0));
        assert!(!rect_meets_polygon([30.0, 30.0, 40.0, 40.0], &diamond, 1.0));
    }
}
