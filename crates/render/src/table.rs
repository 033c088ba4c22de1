//! Procedural table surfaces and cheap noise.
//!
//! Patterns are band-limited by the pixel footprint (how many cells one pixel covers) so that
//! fine stripes fade to their average far from the camera instead of aliasing into moiré.

use serde::{Deserialize, Serialize};
use tablejudge_rules::Srgb;

use crate::light::{albedo, smoothstep};

/// A table or tablecloth, every random choice resolved. Lengths are in cell sizes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TableSpec {
    /// Wooden planks with grain along `angle_deg`.
    Wood {
        light: Srgb,
        dark: Srgb,
        plank_width: f64,
        grain: f64,
        angle_deg: f64,
    },
    /// Gingham or plaid tablecloth: two crossing stripe sets of `stripe` over `ground`.
    Checks {
        ground: Srgb,
        stripe: Srgb,
        period: f64,
        duty: f64,
        angle_deg: f64,
    },
    /// Striped cloth: bands of `a`, `b` and a thin `accent`.
    Stripes {
        a: Srgb,
        b: Srgb,
        accent: Srgb,
        period: f64,
        angle_deg: f64,
    },
    /// A printed cloth of small flowers on a ground.
    Floral {
        ground: Srgb,
        petal: Srgb,
        heart: Srgb,
        leaf: Srgb,
        spacing: f64,
        angle_deg: f64,
    },
    /// A plain surface (laminate, felt, painted) with mottling.
    Solid { colour: Srgb, mottle: f64 },
}

/// 32-bit integer hash of a lattice point (xxhash-like avalanche).
#[inline]
pub(crate) fn hash2(x: i32, y: i32, seed: u32) -> u32 {
    let mut h = (x as u32)
        .wrapping_mul(0x27d4_eb2d)
        .wrapping_add((y as u32).wrapping_mul(0x1656_67b1))
        .wrapping_add(seed.wrapping_mul(0x9e37_79b9));
    h ^= h >> 15;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

#[inline]
fn unit(h: u32) -> f64 {
    f64::from(h >> 8) / f64::from(1u32 << 24)
}

/// `x.floor()` without the libm call baseline x86-64 makes of it (hot in every texture).
#[inline]
pub(crate) fn ffloor(x: f64) -> f64 {
    let i = x as i64 as f64;
    if i > x {
        i - 1.0
    } else {
        i
    }
}

/// `sin(2π t)` to within 0.001, without libm (a corrected parabola).
#[inline]
pub(crate) fn sin_turns(t: f64) -> f64 {
    let x = (t - ffloor(t + 0.5)) * std::f64::consts::TAU;
    const B: f64 = 4.0 / std::f64::consts::PI;
    const C: f64 = -4.0 / (std::f64::consts::PI * std::f64::consts::PI);
    let y = B * x + C * x * x.abs();
    0.225 * (y * y.abs() - y) + y
}

/// Smooth value noise in 0..1 with unit feature size.
#[inline]
pub(crate) fn vnoise(x: f64, y: f64, seed: u32) -> f64 {
    let (fx, fy) = (ffloor(x), ffloor(y));
    let (ix, iy) = (fx as i32, fy as i32);
    let (tx, ty) = (x - fx, y - fy);
    let (sx, sy) = (tx * tx * (3.0 - 2.0 * tx), ty * ty * (3.0 - 2.0 * ty));
    let a = unit(hash2(ix, iy, seed));
    let b = unit(hash2(ix + 1, iy, seed));
    let c = unit(hash2(ix, iy + 1, seed));
    let d = unit(hash2(ix + 1, iy + 1, seed));
    let top = a + (b - a) * sx;
    let bottom = c + (d - c) * sx;
    top + (bottom - top) * sy
}

/// A band of duty `duty` in each unit period of `t`, antialiased over filter width `w`
/// (in periods); fades to the average `duty` once the period is below the filter.
#[inline]
fn band(t: f64, duty: f64, w: f64) -> f64 {
    let f = t - ffloor(t);
    let d = if f < duty {
        f.min(duty - f)
    } else {
        -(f - duty).min(1.0 - f)
    };
    let sharp = (0.5 + d / w.max(1e-6)).clamp(0.0, 1.0);
    let fade = smoothstep(0.3, 0.8, w);
    sharp + (duty - sharp) * fade
}

#[inline]
fn mix(a: [f32; 3], b: [f32; 3], t: f64) -> [f32; 3] {
    let t = t as f32;
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

#[inline]
fn scale(a: [f32; 3], s: f64) -> [f32; 3] {
    let s = s as f32;
    [a[0] * s, a[1] * s, a[2] * s]
}

/// A `TableSpec` prepared for shading: linear colours and rotation.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    kind: TableSpec,
    cols: [[f32; 3]; 4],
    rot: [f64; 2],
    seed: u32,
}

impl Table {
    pub fn new(spec: &TableSpec, seed: u32) -> Table {
        let (cols, angle) = match *spec {
            TableSpec::Wood {
                light,
                dark,
                angle_deg,
                ..
            } => ([albedo(light), albedo(dark), [0.0; 3], [0.0; 3]], angle_deg),
            TableSpec::Checks {
                ground,
                stripe,
                angle_deg,
                ..
            } => (
                [albedo(ground), albedo(stripe), [0.0; 3], [0.0; 3]],
                angle_deg,
            ),
            TableSpec::Stripes {
                a,
                b,
                accent,
                angle_deg,
                ..
            } => ([albedo(a), albedo(b), albedo(accent), [0.0; 3]], angle_deg),
            TableSpec::Floral {
                ground,
                petal,
                heart,
                leaf,
                angle_deg,
                ..
            } => (
                [albedo(ground), albedo(petal), albedo(heart), albedo(leaf)],
                angle_deg,
            ),
            TableSpec::Solid { colour, .. } => {
                ([albedo(colour), [0.0; 3], [0.0; 3], [0.0; 3]], 0.0)
            }
        };
        let a = angle.to_radians();
        Table {
            kind: spec.clone(),
            cols,
            rot: [a.cos(), a.sin()],
            seed,
        }
    }

    /// Linear albedo of the table at `(x, y)` (cells), seen with a pixel footprint of `fp`
    /// cells.
    pub fn albedo(&self, x: f64, y: f64, fp: f64) -> [f32; 3] {
        let u = x * self.rot[0] + y * self.rot[1];
        let v = -x * self.rot[1] + y * self.rot[0];
        let seed = self.seed;
        // Broad unevenness every real surface has (stains, fading, weave density).
        let broad = 0.92 + 0.16 * vnoise(x * 0.07, y * 0.07, seed ^ 0x51);
        let c = match self.kind {
            TableSpec::Wood {
                plank_width, grain, ..
            } => {
                let plank = ffloor(v / plank_width);
                let ph = hash2(plank as i32, 7, seed);
                let tone = 0.85 + 0.3 * unit(ph);
                let shift = unit(ph.rotate_left(9)) * 100.0;
                let warp = 2.5 * vnoise((u + shift) * 0.05, v * 0.6, seed ^ 0x77);
                let t = v * grain + warp;
                let rings = (0.5 + 0.5 * sin_turns(t)).powi(3);
                let ring_fade = 1.0 - smoothstep(0.25, 0.6, fp * grain);
                let fine = vnoise((u + shift) * 0.4, v * 25.0, seed ^ 0x99);
                let fine_fade = 1.0 - smoothstep(0.02, 0.06, fp);
                let mut d = 0.45 * rings * ring_fade + 0.2 * (1.0 - ring_fade);
                d += 0.2 * (fine - 0.5) * fine_fade;
                let seam = 1.0
                    - band(
                        v / plank_width + 0.004 / plank_width,
                        0.008,
                        fp / plank_width,
                    );
                let c = mix(self.cols[0], self.cols[1], d.clamp(0.0, 1.0));
                scale(c, tone * (0.55 + 0.45 * seam))
            }
            TableSpec::Checks { period, duty, .. } => {
                let w = fp / period;
                let bx = band(u / period, duty, w);
                let by = band(v / period, duty, w);
                // Where stripes cross the dye doubles up.
                let t = (bx + by) * 0.5 + bx * by * 0.3;
                let weave_fade = 1.0 - smoothstep(0.03, 0.08, fp);
                let weave = if weave_fade > 0.0 {
                    sin_turns(u * 6.4) * sin_turns(v * 6.4) * 0.06 * weave_fade
                } else {
                    0.0
                };
                scale(mix(self.cols[0], self.cols[1], t.min(1.0)), 1.0 + weave)
            }
            TableSpec::Stripes { period, .. } => {
                let w = fp / period;
                let t = v / period;
                let b = band(t, 0.45, w);
                let accent = band(t + 0.5, 0.06, w);
                let c = mix(self.cols[0], self.cols[1], b);
                let c = mix(c, self.cols[2], accent);
                let weave_fade = 1.0 - smoothstep(0.03, 0.08, fp);
                scale(c, 1.0 + 0.05 * sin_turns(u * 8.0) * weave_fade)
            }
            TableSpec::Floral { spacing, .. } => self.floral(u, v, spacing, fp),
            TableSpec::Solid { mottle, .. } => {
                let m = vnoise(x * 0.35, y * 0.35, seed ^ 0x33) - 0.5;
                let fine_fade = 1.0 - smoothstep(0.03, 0.08, fp);
                let g = (vnoise(x * 12.0, y * 12.0, seed ^ 0x44) - 0.5) * fine_fade;
                scale(self.cols[0], 1.0 + mottle * m + 0.06 * g)
            }
        };
        scale(c, broad)
    }

    fn floral(&self, u: f64, v: f64, spacing: f64, fp: f64) -> [f32; 3] {
        let (gx, gy) = (ffloor(u / spacing), ffloor(v / spacing));
        let h = hash2(gx as i32, gy as i32, self.seed ^ 0xf10);
        let (jx, jy) = (unit(h) - 0.5, unit(h.rotate_left(11)) - 0.5);
        let cx = (gx + 0.5 + 0.3 * jx) * spacing;
        let cy = (gy + 0.5 + 0.3 * jy) * spacing;
        let (dx, dy) = (u - cx, v - cy);
        let size = spacing * (0.22 + 0.1 * unit(h.rotate_left(5)));
        let r = (dx * dx + dy * dy).sqrt();
        let aa = fp.max(1e-4);
        let mut c = self.cols[0];
        // A leaf beside the flower: an ellipse offset and tilted.
        let la = unit(h.rotate_left(17)) * std::f64::consts::TAU;
        let (lx, ly) = (dx - la.cos() * size * 1.3, dy - la.sin() * size * 1.3);
        let (lu, lv) = (
            lx * la.cos() + ly * la.sin(),
            -lx * la.sin() + ly * la.cos(),
        );
        let leaf = (lu / (size * 0.7)).powi(2) + (lv / (size * 0.3)).powi(2);
        c = mix(
            c,
            self.cols[3],
            1.0 - smoothstep(1.0 - aa / size, 1.0 + aa / size, leaf),
        );
        if r < size * 1.05 + aa {
            let petals = 5.0 + (h % 3) as f64;
            let phase = unit(h.rotate_left(23)) * 6.0;
            let theta = dy.atan2(dx);
            let edge = size * (0.6 + 0.4 * ((petals * theta + phase).cos()).abs());
            c = mix(c, self.cols[1], 1.0 - smoothstep(edge - aa, edge + aa, r));
            let heart = size * 0.28;
            c = mix(c, self.cols[2], 1.0 - smoothstep(heart - aa, heart + aa, r));
        }
        // Far away the print blurs into the ground tinted by the flowers.
        let fade = smoothstep(0.15, 0.5, fp / spacing);
        mix(c, mix(self.cols[0], self.cols[1], 0.25), fade)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_is_smooth_bounded_and_seeded() {
        let a = vnoise(3.3, 4.4, 1);
        assert!((0.0..=1.0).contains(&a));
        assert!((vnoise(3.3001, 4.4, 1) - a).abs() < 1e-2);
        assert_ne!(vnoise(3.3, 4.4, 2), a);
        assert_eq!(vnoise(3.3, 4.4, 1), a);
    }

    #[test]
    fn fast_floor_and_sine_agree_with_libm() {
        for i in -400..400 {
            let x = i as f64 * 0.37 + 0.01;
            assert_eq!(ffloor(x), x.floor());
            assert!((sin_turns(x) - (x * std::f64::consts::TAU).sin()).abs() < 2e-3);
        }
        assert_eq!(ffloor(-2.0), -2.0);
    }

    #[test]
    fn bands_fade_to_their_average_when_too_fine_to_see() {
        assert_eq!(band(0.1, 0.5, 0.01), 1.0);
        assert_eq!(band(0.7, 0.5, 0.01), 0.0);
        assert!((band(0.1, 0.5, 2.0) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn every_kind_of_table_shades_to_plausible_albedo() {
        let s = Srgb::new(200, 120, 60);
        let kinds = [
            TableSpec::Wood {
                light: s,
                dark: Srgb::new(90, 50, 20),
                plank_width: 6.0,
                grain: 1.5,
                angle_deg: 10.0,
            },
            TableSpec::Checks {
                ground: Srgb::new(240, 240, 240),
                stripe: Srgb::new(200, 30, 30),
                period: 1.5,
                duty: 0.5,
                angle_deg: 0.0,
            },
            TableSpec::Stripes {
                a: s,
                b: Srgb::new(20, 40, 120),
                accent: Srgb::new(250, 250, 250),
                period: 2.0,
                angle_deg: 45.0,
            },
            TableSpec::Floral {
                ground: Srgb::new(30, 40, 90),
                petal: Srgb::new(240, 200, 200),
                heart: Srgb::new(250, 220, 40),
                leaf: Srgb::new(40, 120, 40),
                spacing: 2.0,
                angle_deg: 0.0,
            },
            TableSpec::Solid {
                colour: s,
                mottle: 0.2,
            },
        ];
        for k in kinds {
            let t = Table::new(&k, 9);
            for (x, y) in [(0.0, 0.0), (3.7, -2.2), (100.0, 40.0)] {
                for fp in [0.01, 0.3, 3.0] {
                    let c = t.albedo(x, y, fp);
                    assert!(c.iter().all(|v| (0.0..=1.2).contains(v)), "{k:?} {c:?}");
                }
            }
        }
    }
}
