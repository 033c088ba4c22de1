//! The light falling on the table and how the camera's white balance and exposure see it.
//!
//! Everything is linear light. A printed colour's albedo is its sRGB value decoded to linear;
//! under neutral light at the reference irradiance (1.0) with exposure 0 EV it comes out as
//! the printed sRGB again.

use serde::{Deserialize, Serialize};
use tablejudge_rules::Srgb;

/// sRGB's white point; the renderer treats a blackbody at this temperature as neutral.
pub const NEUTRAL_KELVIN: f64 = 6504.0;

/// sRGB byte to linear light.
pub fn srgb_to_linear(c: u8) -> f32 {
    let v = f32::from(c) / 255.0;
    if v <= 0.04045 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear light (clamped to 0..=1) to an sRGB byte.
pub fn linear_to_srgb(v: f32) -> u8 {
    let v = v.clamp(0.0, 1.0);
    let s = if v <= 0.003_130_8 {
        v * 12.92
    } else {
        1.055 * v.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0).round() as u8
}

/// A printed colour's linear albedo.
pub fn albedo(c: Srgb) -> [f32; 3] {
    [
        srgb_to_linear(c.r),
        srgb_to_linear(c.g),
        srgb_to_linear(c.b),
    ]
}

/// Linear sRGB of a blackbody at `kelvin` (Kim et al.'s Planckian locus fit, 1667–25000 K),
/// scaled so that green is 1.
fn planck_rgb(kelvin: f64) -> [f64; 3] {
    let t = kelvin.clamp(1667.0, 25000.0);
    let x = if t <= 4000.0 {
        -0.266_123_9e9 / t.powi(3) - 0.234_358_9e6 / t.powi(2) + 0.877_695_6e3 / t + 0.179_910
    } else {
        -3.025_846_9e9 / t.powi(3) + 2.107_037_9e6 / t.powi(2) + 0.222_634_7e3 / t + 0.240_390
    };
    let y = if t <= 2222.0 {
        -1.106_381_4 * x.powi(3) - 1.348_110_20 * x.powi(2) + 2.185_558_32 * x - 0.202_196_83
    } else if t <= 4000.0 {
        -0.954_947_6 * x.powi(3) - 1.374_185_93 * x.powi(2) + 2.091_370_15 * x - 0.167_488_67
    } else {
        3.081_758 * x.powi(3) - 5.873_386_7 * x.powi(2) + 3.751_129_9 * x - 0.370_014_83
    };
    let (cx, cz) = (x / y, (1.0 - x - y) / y);
    let r = 3.240_97 * cx - 1.537_383 - 0.498_611 * cz;
    let g = -0.969_244 * cx + 1.875_968 + 0.041_555 * cz;
    let b = 0.055_630 * cx - 0.203_977 + 1.056_972 * cz;
    [r / g, 1.0, b / g]
}

/// The colour of light at `kelvin` relative to neutral (6504 K): multiply a linear albedo by
/// it to get what a perfectly neutral camera would record. 2800 K is strongly red.
pub fn kelvin_to_linear_rgb(kelvin: f64) -> [f64; 3] {
    let (c, n) = (planck_rgb(kelvin), planck_rgb(NEUTRAL_KELVIN));
    [c[0] / n[0], c[1] / n[1], c[2] / n[2]]
}

/// A soft shadow on the table from something above it (an arm, a lamp shade's edge).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ShadowSpec {
    /// A capsule from `from` to `to` (table cells) of half-width `radius`: an arm or a hand.
    Arm {
        from: [f64; 2],
        to: [f64; 2],
        radius: f64,
        /// Width of the penumbra in cells.
        softness: f64,
        /// Fraction of the direct light blocked in the umbra.
        depth: f64,
    },
    /// Everything on the far side of a line: a lamp shade's or window frame's edge.
    Edge {
        point: [f64; 2],
        /// Direction (degrees) pointing into the shadow.
        normal_deg: f64,
        softness: f64,
        depth: f64,
    },
}

/// A specular reflection of a bright light: an elliptical blob on glossy surfaces.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GlareSpec {
    /// Centre on the table (cells).
    pub center: [f64; 2],
    /// Semi-axes (cells) of the blob's 1/e contour.
    pub radii: [f64; 2],
    pub angle_deg: f64,
    /// Added radiance at the centre on a fully glossy surface, in units of white.
    pub intensity: f64,
}

/// The light of one scene, every random choice resolved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LightSpec {
    /// Colour temperature of the illuminant.
    pub kelvin: f64,
    /// How much of the cast the camera's auto white balance removes: 0 none, 1 all.
    pub white_balance_correction: f64,
    /// Exposure relative to one that renders the reference irradiance as printed.
    pub exposure_ev: f64,
    /// Fraction of the light at the stack that is diffuse (sky, ceiling), the rest comes from
    /// the lamp and casts shadows.
    pub ambient: f64,
    /// The lamp: table position (cells) and height above the table (cells).
    pub lamp: [f64; 3],
    /// A linear brightness ramp across the table: relative change per cell along x and y
    /// (light from a window on one side).
    pub gradient: [f64; 2],
    /// Angular size of the lamp as seen from the table, radians: how soft its shadows are.
    pub lamp_size: f64,
    pub shadows: Vec<ShadowSpec>,
    pub glares: Vec<GlareSpec>,
}

impl LightSpec {
    /// Neutral, even, shadowless light: what the `clean` degradation uses.
    pub fn neutral(center: [f64; 2]) -> LightSpec {
        LightSpec {
            kelvin: NEUTRAL_KELVIN,
            white_balance_correction: 1.0,
            exposure_ev: 0.0,
            ambient: 1.0,
            lamp: [center[0], center[1], 1.0e6],
            gradient: [0.0, 0.0],
            lamp_size: 0.05,
            shadows: Vec::new(),
            glares: Vec::new(),
        }
    }

    /// Multiplier from linear albedo × irradiance to the camera's linear output: the
    /// illuminant's colour after partial white balance, times the exposure.
    pub fn cast(&self) -> [f32; 3] {
        let c = kelvin_to_linear_rgb(self.kelvin);
        let gain = 2f64.powf(self.exposure_ev);
        let keep = 1.0 - self.white_balance_correction.clamp(0.0, 1.0);
        // A white-balancing camera scales channels so that grey stays grey on average; the
        // residual cast is the illuminant to the power of what it failed to remove, with
        // green fixed as cameras do.
        c.map(|v| (v.powf(keep) * gain) as f32)
    }
}

/// Smooth step of `x` from 0 at `a` to 1 at `b`.
#[inline]
pub(crate) fn smoothstep(a: f64, b: f64, x: f64) -> f64 {
    let t = ((x - a) / (b - a)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// A `LightSpec` prepared for per-sample evaluation.
#[derive(Clone, Debug)]
pub(crate) struct Lighting {
    pub cast: [f32; 3],
    pub ambient: f64,
    pub direct: f64,
    lamp: [f64; 3],
    /// Lamp irradiance factor at the reference point, so it contributes `direct` there.
    lamp_norm: f64,
    reference: [f64; 2],
    gradient: [f64; 2],
    /// Unit vector from the table towards the lamp (from the reference point), z up (< 0).
    pub to_lamp: [f64; 3],
    pub lamp_size: f64,
    /// Shadow bands with their trigonometry done: `Edge` normals as unit vectors.
    shadows: Vec<ShadowSpec>,
    edge_normals: Vec<[f64; 2]>,
    glares: Vec<([f64; 2], [f64; 4], f64, f64)>,
}

impl Lighting {
    /// Prepares `spec`, normalised so that an unshadowed point at `reference` on the table
    /// receives irradiance 1.
    pub fn new(spec: &LightSpec, reference: [f64; 2]) -> Lighting {
        let ambient = spec.ambient.clamp(0.0, 1.0);
        let lamp = spec.lamp;
        let raw = |p: [f64; 2]| {
            let (dx, dy, h) = (lamp[0] - p[0], lamp[1] - p[1], lamp[2].max(1e-3));
            let d2 = dx * dx + dy * dy + h * h;
            // Cosine at the surface over squared distance.
            h / (d2 * d2.sqrt())
        };
        let (dx, dy, h) = (
            lamp[0] - reference[0],
            lamp[1] - reference[1],
            lamp[2].max(1e-3),
        );
        let n = (dx * dx + dy * dy + h * h).sqrt();
        let glares = spec
            .glares
            .iter()
            .map(|g| {
                let (c, s) = (
                    g.angle_deg.to_radians().cos(),
                    g.angle_deg.to_radians().sin(),
                );
                let (a, b) = (g.radii[0].max(1e-3), g.radii[1].max(1e-3));
                // Rotation into the blob's axes, pre-divided by its radii.
                let m = [c / a, s / a, -s / b, c / b];
                let reach = 3.0 * a.max(b);
                (g.center, m, g.intensity, reach)
            })
            .collect();
        Lighting {
            cast: spec.cast(),
            ambient,
            direct: 1.0 - ambient,
            lamp,
            lamp_norm: 1.0 / raw(reference),
            reference,
            gradient: spec.gradient,
            to_lamp: [dx / n, dy / n, -h / n],
            lamp_size: spec.lamp_size.max(1e-3),
            shadows: spec.shadows.clone(),
            edge_normals: spec
                .shadows
                .iter()
                .map(|s| match s {
                    ShadowSpec::Edge { normal_deg, .. } => {
                        let (sn, cs) = normal_deg.to_radians().sin_cos();
                        [cs, sn]
                    }
                    ShadowSpec::Arm { .. } => [0.0, 0.0],
                })
                .collect(),
            glares,
        }
    }

    /// Lamp irradiance at table point `p` relative to the reference (1 there).
    #[inline]
    pub fn lamp_falloff(&self, p: [f64; 2]) -> f64 {
        let (dx, dy, h) = (
            self.lamp[0] - p[0],
            self.lamp[1] - p[1],
            self.lamp[2].max(1e-3),
        );
        let d2 = dx * dx + dy * dy + h * h;
        h / (d2 * d2.sqrt()) * self.lamp_norm
    }

    /// The window-light ramp at `p`, 1 at the reference point.
    #[inline]
    pub fn ramp(&self, p: [f64; 2]) -> f64 {
        let r = 1.0
            + self.gradient[0] * (p[0] - self.reference[0])
            + self.gradient[1] * (p[1] - self.reference[1]);
        r.max(0.15)
    }

    /// Fraction of the lamp's light that reaches `p` past arm and edge shadows (1 = none).
    #[inline]
    pub fn band_visibility(&self, p: [f64; 2]) -> f64 {
        let mut v = 1.0;
        for (s, n) in self.shadows.iter().zip(&self.edge_normals) {
            match *s {
                ShadowSpec::Arm {
                    from,
                    to,
                    radius,
                    softness,
                    depth,
                } => {
                    let (ax, ay) = (to[0] - from[0], to[1] - from[1]);
                    let (px, py) = (p[0] - from[0], p[1] - from[1]);
                    let len2 = (ax * ax + ay * ay).max(1e-9);
                    let t = ((px * ax + py * ay) / len2).clamp(0.0, 1.0);
                    let (ex, ey) = (px - t * ax, py - t * ay);
                    let d = (ex * ex + ey * ey).sqrt() - radius;
                    let s = softness.max(1e-3);
                    v *= 1.0 - depth * (1.0 - smoothstep(-s, s, d));
                }
                ShadowSpec::Edge {
                    point,
                    softness,
                    depth,
                    ..
                } => {
                    let d = (p[0] - point[0]) * n[0] + (p[1] - point[1]) * n[1];
                    let s = softness.max(1e-3);
                    v *= 1.0 - depth * smoothstep(-s, s, d);
                }
            }
        }
        v
    }

    /// Specular glare radiance at table point `p` on a fully glossy surface (units of white).
    #[inline]
    pub fn glare(&self, p: [f64; 2]) -> f64 {
        let mut g = 0.0;
        for &(c, m, intensity, reach) in &self.glares {
            let (dx, dy) = (p[0] - c[0], p[1] - c[1]);
            if dx.abs() > reach || dy.abs() > reach {
                continue;
            }
            let (u, v) = (m[0] * dx + m[1] * dy, m[2] * dx + m[3] * dy);
            let r2 = u * u + v * v;
            // A bright core with a softer halo, like a reflected lamp.
            g += intensity * ((-r2 * r2).exp() * 0.8 + (-r2 * 0.5).exp() * 0.2);
        }
        g
    }

    /// Total unoccluded irradiance at table point `p` (ambient + lamp, ramp and bands).
    #[inline]
    pub fn irradiance(&self, p: [f64; 2], ambient_visibility: f64, lamp_visibility: f64) -> f64 {
        let ramp = self.ramp(p);
        ramp * (self.ambient * ambient_visibility
            + self.direct * lamp_visibility * self.band_visibility(p) * self.lamp_falloff(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warm_light_is_red_and_cool_light_is_blue() {
        let warm = kelvin_to_linear_rgb(2800.0);
        assert!(warm[0] / warm[2] > 2.0, "{warm:?}");
        let cool = kelvin_to_linear_rgb(7500.0);
        assert!(cool[0] / cool[2] < 1.0, "{cool:?}");
        let n = kelvin_to_linear_rgb(NEUTRAL_KELVIN);
        assert!(n.iter().all(|v| (v - 1.0).abs() < 1e-9));
    }

    #[test]
    fn white_balance_removes_part_of_the_cast() {
        let mut l = LightSpec::neutral([0.0, 0.0]);
        l.kelvin = 2800.0;
        l.white_balance_correction = 0.0;
        let raw = l.cast();
        l.white_balance_correction = 0.6;
        let partial = l.cast();
        assert!(raw[0] / raw[2] > partial[0] / partial[2]);
        assert!(partial[0] / partial[2] > 1.1);
    }

    #[test]
    fn srgb_round_trips_through_linear() {
        for c in 0..=255u8 {
            assert_eq!(linear_to_srgb(srgb_to_linear(c)), c);
        }
    }

    #[test]
    fn irradiance_is_one_at_the_reference_and_falls_off() {
        let mut l = LightSpec::neutral([0.0, 0.0]);
        l.ambient = 0.3;
        l.lamp = [2.0, 1.0, 30.0];
        let lit = Lighting::new(&l, [5.0, 5.0]);
        assert!((lit.irradiance([5.0, 5.0], 1.0, 1.0) - 1.0).abs() < 1e-9);
        assert!(lit.irradiance([40.0, 40.0], 1.0, 1.0) < 0.9);
        l.shadows.push(ShadowSpec::Edge {
            point: [0.0, 0.0],
            normal_deg: 0.0,
            softness: 0.5,
            depth: 0.8,
        });
        let lit = Lighting::new(&l, [5.0, 5.0]);
        assert!(lit.band_visibility([-3.0, 0.0]) > 0.99);
        assert!((lit.band_visibility([3.0, 0.0]) - 0.2).abs() < 1e-9);
    }
}
