//! Colour spaces: 8-bit sRGB ↔ linear sRGB ↔ CIE XYZ (D65) ↔ CIELAB, and the CIEDE2000
//! colour difference.
//!
//! The arithmetic is the `palette` crate's (IEC 61966-2-1 transfer curve and matrix, CIE 1976
//! L\*a\*b\* with the D65 white, CIEDE2000 per Sharma et al. 2005); this module gives it plain
//! types that the rest of the pipeline and the rules crate's [`Srgb`] share.

use ::palette::color_difference::Ciede2000;
use ::palette::white_point::D65;
use ::palette::{FromColor, LinSrgb as PLinSrgb, Srgb as PSrgb};
use tablejudge_rules::Srgb;

type PLab = ::palette::Lab<D65, f32>;
type PXyz = ::palette::Xyz<D65, f32>;

/// Linear-light sRGB (the sRGB primaries without the transfer curve); nominally 0..=1 per
/// channel, but values outside that range are kept (a white-balance gain may push them there).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct LinRgb {
    pub r: f32,
    pub g: f32,
    pub b: f32,
}

/// CIE 1931 XYZ relative to the D65 white, with Y = 1 for the white.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Xyz {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

/// CIE 1976 L\*a\*b\* relative to the D65 white (L\* in 0..=100).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Lab {
    pub l: f32,
    pub a: f32,
    pub b: f32,
}

impl LinRgb {
    /// A linear colour from its three channels.
    pub const fn new(r: f32, g: f32, b: f32) -> LinRgb {
        LinRgb { r, g, b }
    }

    /// The channels as `[r, g, b]`.
    pub const fn to_array(self) -> [f32; 3] {
        [self.r, self.g, self.b]
    }

    /// A colour from `[r, g, b]`.
    pub const fn from_array([r, g, b]: [f32; 3]) -> LinRgb {
        LinRgb { r, g, b }
    }

    /// Decodes an 8-bit sRGB colour (removes the transfer curve).
    pub fn from_srgb(c: Srgb) -> LinRgb {
        // 256 values per channel: decoded once by `palette`, then looked up (the photo
        // pipeline converts tens of thousands of samples per grid).
        static DECODED: std::sync::LazyLock<[f32; 256]> = std::sync::LazyLock::new(|| {
            std::array::from_fn(|v| {
                let l: PLinSrgb<f32> = PSrgb::new(v as u8, 0, 0).into_format::<f32>().into_linear();
                l.red
            })
        });
        LinRgb::new(
            DECODED[usize::from(c.r)],
            DECODED[usize::from(c.g)],
            DECODED[usize::from(c.b)],
        )
    }

    /// Encodes to 8-bit sRGB, clamping each channel to 0..=1 first (a camera clips the same way).
    pub fn to_srgb(self) -> Srgb {
        let clamped = PLinSrgb::new(
            self.r.clamp(0.0, 1.0),
            self.g.clamp(0.0, 1.0),
            self.b.clamp(0.0, 1.0),
        );
        let s: PSrgb<u8> = PSrgb::<f32>::from_linear(clamped).into_format();
        Srgb::new(s.red, s.green, s.blue)
    }

    /// Converts to XYZ (D65).
    pub fn to_xyz(self) -> Xyz {
        let x = PXyz::from_color(PLinSrgb::new(self.r, self.g, self.b));
        Xyz::new(x.x, x.y, x.z)
    }
}

impl Xyz {
    /// An XYZ colour from its three components.
    pub const fn new(x: f32, y: f32, z: f32) -> Xyz {
        Xyz { x, y, z }
    }

    /// Converts to linear sRGB (not clamped: colours outside the sRGB gamut go negative or above 1).
    pub fn to_linear(self) -> LinRgb {
        let l = PLinSrgb::from_color(PXyz::new(self.x, self.y, self.z));
        LinRgb::new(l.red, l.green, l.blue)
    }

    /// Converts to CIELAB (D65).
    pub fn to_lab(self) -> Lab {
        let l = PLab::from_color(PXyz::new(self.x, self.y, self.z));
        Lab::new(l.l, l.a, l.b)
    }
}

impl Lab {
    /// A Lab colour from L\*, a\*, b\*.
    pub const fn new(l: f32, a: f32, b: f32) -> Lab {
        Lab { l, a, b }
    }

    /// Converts an 8-bit sRGB colour to Lab.
    pub fn from_srgb(c: Srgb) -> Lab {
        LinRgb::from_srgb(c).to_xyz().to_lab()
    }

    /// Converts a linear sRGB colour to Lab.
    pub fn from_linear(c: LinRgb) -> Lab {
        c.to_xyz().to_lab()
    }

    /// Converts to XYZ (D65).
    pub fn to_xyz(self) -> Xyz {
        let x = PXyz::from_color(PLab::new(self.l, self.a, self.b));
        Xyz::new(x.x, x.y, x.z)
    }

    /// Converts to 8-bit sRGB, clipping colours outside the gamut.
    pub fn to_srgb(self) -> Srgb {
        self.to_xyz().to_linear().to_srgb()
    }

    /// The CIEDE2000 colour difference ΔE₀₀ to `other` (kL = kC = kH = 1).
    ///
    /// About 1 is a just-noticeable difference. f32 reproduces the published test data to
    /// four decimals and is much faster than f64 (the number test calls this thousands of
    /// times per grid).
    pub fn delta_e(self, other: Lab) -> f32 {
        ciede2000(self, other).unwrap_or_else(|| palette_ciede2000(self, other))
    }

    /// Whether ΔE₀₀ to `other` is at most `limit`: the same answer as comparing
    /// [`Lab::delta_e`], but most pairs are settled by two bounds without the trigonometry.
    ///
    /// With S = ΔL'/S_L, C = ΔC'/S_C, H = ΔH'/S_H, ΔE₀₀² = S² + C² + H² + R_T·C·H and
    /// |R_T| ≤ 2, so S² ≤ ΔE₀₀² ≤ S² + 2(C² + H²). Every S is at least 1, S_L at most 1.75,
    /// and ΔC'² + ΔH'² = Δa'² + Δb'² with a' = (1 + G)·a, G ≤ ½; hence
    /// |ΔL|/S_L ≤ ΔE₀₀ ≤ √(ΔL² + 4.5·Δa² + 2·Δb²).
    pub fn within(self, other: Lab, limit: f32) -> bool {
        let [near] = self.within_each(other, [limit]);
        near
    }

    /// [`Lab::within`] for several limits at once, with the bounds and at most one ΔE₀₀
    /// computed once for all.
    pub fn within_each<const N: usize>(self, other: Lab, limits: [f32; N]) -> [bool; N] {
        // Rounding in the exact formula is far below this margin.
        const SLACK: f32 = 1e-3;
        let (dl, da, db) = (self.l - other.l, self.a - other.a, self.b - other.b);
        let upper_sq = dl * dl + 4.5 * da * da + 2.0 * db * db;
        let (mut lower, mut exact) = (None, None);
        limits.map(|limit| {
            if upper_sq <= (limit * (1.0 - SLACK)).powi(2) {
                return true;
            }
            if *lower.get_or_insert_with(|| lightness_term(self.l, other.l)) > limit * (1.0 + SLACK)
            {
                return false;
            }
            *exact.get_or_insert_with(|| self.delta_e(other)) <= limit
        })
    }
}

impl From<Srgb> for LinRgb {
    fn from(c: Srgb) -> LinRgb {
        LinRgb::from_srgb(c)
    }
}

impl From<Srgb> for Lab {
    fn from(c: Srgb) -> Lab {
        Lab::from_srgb(c)
    }
}

/// The channels of a measured colour that the sensor clipped. There the photo says only that
/// the true value is at least the measured one: a white card in an over-exposed photo reads
/// (255, 255, 255) whatever its exposure, and dividing by the exposure makes it look grey.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Clipped(pub [bool; 3]);

impl Clipped {
    /// Linear values at or above this (sRGB 240) are clipped or compressed by the camera's
    /// highlight roll-off (a white card at +½ EV reads (254, 251, 244)).
    pub const LEVEL: f32 = 0.87;

    /// The clipped channels of a colour as the camera measured it (before any correction).
    pub fn of(measured: LinRgb) -> Clipped {
        Clipped(measured.to_array().map(|v| v >= Clipped::LEVEL))
    }

    /// Whether any channel is clipped.
    pub fn any(self) -> bool {
        self.0.iter().any(|&c| c)
    }

    /// The colour `candidate` would have been measured as: `corrected` (the measurement after
    /// white balance, within 0..=1) with each clipped channel raised to the candidate's where
    /// the candidate is brighter.
    pub fn explain(self, corrected: LinRgb, candidate: LinRgb) -> LinRgb {
        let (m, c) = (corrected.to_array(), candidate.to_array());
        LinRgb::from_array(std::array::from_fn(|i| {
            let v = m[i].clamp(0.0, 1.0);
            if self.0[i] {
                v.max(c[i].min(1.0))
            } else {
                v
            }
        }))
    }
}

/// A corrected measurement, ready to be compared with printed colours: plain ΔE₀₀ where the
/// camera clipped nothing, [`Clipped::explain`]ed colours where it did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    corrected: LinRgb,
    lab: Lab,
    clipped: Clipped,
}

impl Measured {
    /// A measurement after correction (clamped to 8-bit sRGB as a camera would) and the
    /// channels the camera clipped before it.
    pub fn new(corrected: LinRgb, clipped: Clipped) -> Measured {
        Measured {
            corrected,
            lab: Lab::from_srgb(corrected.to_srgb()),
            clipped,
        }
    }

    /// The corrected measurement.
    pub fn corrected(&self) -> LinRgb {
        self.corrected
    }

    /// The Lab colour `printed` would have been measured as (see [`Clipped::explain`]).
    pub fn lab_for(&self, printed: LinRgb) -> Lab {
        if self.clipped.any() {
            Lab::from_linear(self.clipped.explain(self.corrected, printed))
        } else {
            self.lab
        }
    }

    /// ΔE₀₀ to a printed colour, given linear and as Lab. A clipped channel is a bound the
    /// printed colour must reach: ΔE₀₀ barely sees a red channel short by a third on a
    /// blue, so the shortfall is added on its own (see [`SHORTFALL_DE_PER_LOG`]).
    pub fn delta_e(&self, printed: LinRgb, printed_lab: Lab) -> f32 {
        let de = self.lab_for(printed).delta_e(printed_lab);
        let shortfall = self.shortfall(printed);
        if shortfall > 0.0 {
            de.hypot(SHORTFALL_DE_PER_LOG * shortfall)
        } else {
            de
        }
    }

    /// [`Measured::delta_e`] to `printed` (linear) lit as brightly as the measurement (by
    /// their channel sums), up to `max_light` times: a surface in shade (`max_light` 1), or
    /// one turned from or towards the lamp. Cheap (one ΔE₀₀), for many samples.
    pub fn delta_e_relit(&self, printed: LinRgb, max_light: f32) -> f32 {
        let sum = |c: LinRgb| c.r + c.g + c.b;
        let light = (sum(self.corrected) / sum(printed).max(f32::EPSILON)).clamp(0.0, max_light);
        let lit = LinRgb::from_array(printed.to_array().map(|c| c * light));
        self.delta_e(lit, Lab::from_linear(lit))
    }

    /// A lower bound of [`Measured::delta_e`] to `printed` from lightness alone: one cube
    /// root instead of a Lab conversion and ΔE₀₀. ΔE₀₀ ≥ |ΔL|/S_L (see [`Lab::within`]),
    /// and the clipped channels' shortfall only adds to it.
    pub fn delta_e_floor(&self, printed: LinRgb) -> f32 {
        let seen = if self.clipped.any() {
            lightness(self.clipped.explain(self.corrected, printed))
        } else {
            self.lab.l
        };
        // Shrunk a little for rounding: a floor must never exceed the exact value.
        lightness_term(seen, lightness(printed)) * (1.0 - 1e-3)
    }

    /// The entry of `printed` (each linear and as Lab) nearest by [`Measured::delta_e`], and
    /// its distance: the first of equals, as a minimum over all of them would give. An entry
    /// whose [`Measured::delta_e_floor`] already reaches the best so far cannot be nearer, so
    /// its ΔE₀₀ is not computed.
    pub fn nearest(&self, printed: &[(LinRgb, Lab)]) -> Option<(usize, f32)> {
        let mut best: Option<(usize, f32)> = None;
        for (i, &(lin, lab)) in printed.iter().enumerate() {
            if let Some((_, b)) = best {
                if self.delta_e_floor(lin).total_cmp(&b).is_ge() {
                    continue;
                }
            }
            let d = self.delta_e(lin, lab);
            if best.is_none_or(|(_, b)| d.total_cmp(&b).is_lt()) {
                best = Some((i, d));
            }
        }
        best
    }

    /// How far (natural log of the ratio) `printed` falls short of the bound in the clipped
    /// channel where it falls shortest; 0 where it reaches every bound.
    fn shortfall(&self, printed: LinRgb) -> f32 {
        let (m, c) = (self.corrected.to_array(), printed.to_array());
        (0..3)
            .filter(|&i| self.clipped.0[i])
            .map(|i| (m[i].clamp(0.0, 1.0) / c[i].max(1e-3)).ln())
            .fold(0.0, f32::max)
    }
}

/// ΔE₀₀'s lightness term |ΔL*|/S_L for two lightnesses: a lower bound of ΔE₀₀ itself (see
/// [`Lab::within`]).
/// `palette`'s CIEDE2000, for the pairs [`ciede2000`] leaves to it.
fn palette_ciede2000(x: Lab, y: Lab) -> f32 {
    let p = |c: Lab| ::palette::Lab::<D65, f32>::new(c.l, c.a, c.b);
    p(x).difference(p(y))
}

/// CIEDE2000 (Sharma et al. 2005) with at most one arctangent, one exponential and one sine
/// where `palette` takes two arctangents and six sines and cosines: ΔH′ comes from the cross
/// and dot products of the two (a′, b′) vectors, and the mean hue h̄′ from their bisector,
/// whose multiples in T follow from its cosine and sine. The rotation term needs h̄′ itself
/// only near 275°: 140° away its factor is below e⁻³¹, far under f32's precision. `None`
/// where a hue is undefined (zero chroma) or the two hues are nearly opposite (the bisector
/// is lost in rounding): `palette`'s formula takes those.
fn ciede2000(x: Lab, y: Lab) -> Option<f32> {
    const POW25_7: f32 = 6_103_515_625.0;
    let pow7 = |v: f32| {
        let v2 = v * v;
        v2 * v2 * v2 * v
    };
    let c_bar = ((x.a * x.a + x.b * x.b).sqrt() + (y.a * y.a + y.b * y.b).sqrt()) / 2.0;
    let c7 = pow7(c_bar);
    let g = 0.5 * (1.0 - (c7 / (c7 + POW25_7)).sqrt());
    let (a1, a2) = (x.a * (1.0 + g), y.a * (1.0 + g));
    let (c1, c2) = ((a1 * a1 + x.b * x.b).sqrt(), (a2 * a2 + y.b * y.b).sqrt());
    if c1 == 0.0 || c2 == 0.0 {
        return None;
    }
    // Unit hue vectors; their sum bisects the hues the short way round, as h̄′ does.
    let (u1, u2) = ([a1 / c1, x.b / c1], [a2 / c2, y.b / c2]);
    let bisector = [u1[0] + u2[0], u1[1] + u2[1]];
    let len = bisector[0].hypot(bisector[1]);
    if len < 1e-3 {
        return None;
    }
    let (cos1, sin1) = (bisector[0] / len, bisector[1] / len);
    // ΔH′ = 2·√(C₁′C₂′)·sin(Δh′/2), signed like sin Δh′ (the cross product), squared as
    // 2(C₁′C₂′ − dot), or 2·cross²/(C₁′C₂′ + dot) where close hues would cancel.
    let (cross, dot) = (a1 * y.b - x.b * a2, a1 * a2 + x.b * y.b);
    let cc = c1 * c2;
    let dh_sq = if dot > 0.0 {
        2.0 * cross * cross / (cc + dot)
    } else {
        2.0 * (cc - dot)
    };
    let dh = dh_sq.sqrt().copysign(cross);
    // cos and sin of 2h̄′, 3h̄′, 4h̄′.
    let (cos2, sin2) = (cos1 * cos1 - sin1 * sin1, 2.0 * sin1 * cos1);
    let (cos3, sin3) = (cos2 * cos1 - sin2 * sin1, sin2 * cos1 + cos2 * sin1);
    let (cos4, sin4) = (cos2 * cos2 - sin2 * sin2, 2.0 * sin2 * cos2);
    let (c30, s30) = (30f32.to_radians().cos(), 30f32.to_radians().sin());
    let (c6, s6) = (6f32.to_radians().cos(), 6f32.to_radians().sin());
    let (c63, s63) = (63f32.to_radians().cos(), 63f32.to_radians().sin());
    let t = 1.0 - 0.17 * (cos1 * c30 + sin1 * s30) + 0.24 * cos2 + 0.32 * (cos3 * c6 - sin3 * s6)
        - 0.20 * (cos4 * c63 + sin4 * s63);
    let c_bar_p = (c1 + c2) / 2.0;
    let (c275, s275) = (275f32.to_radians().cos(), 275f32.to_radians().sin());
    let r_t = if cos1 * c275 + sin1 * s275 > 140f32.to_radians().cos() {
        let h_bar = sin1.atan2(cos1).to_degrees().rem_euclid(360.0);
        let d_theta = 30.0 * (-((h_bar - 275.0) / 25.0).powi(2)).exp();
        let c7 = pow7(c_bar_p);
        -2.0 * (c7 / (c7 + POW25_7)).sqrt() * (2.0 * d_theta).to_radians().sin()
    } else {
        0.0
    };
    let l_bar = (x.l + y.l) / 2.0 - 50.0;
    let s_l = 1.0 + 0.015 * l_bar * l_bar / (20.0 + l_bar * l_bar).sqrt();
    let s_c = 1.0 + 0.045 * c_bar_p;
    let s_h = 1.0 + 0.015 * c_bar_p * t;
    let (l, c, h) = ((y.l - x.l) / s_l, (c2 - c1) / s_c, dh / s_h);
    Some((l * l + c * c + h * h + r_t * c * h).max(0.0).sqrt())
}

fn lightness_term(l1: f32, l2: f32) -> f32 {
    let mean = (l1 + l2) / 2.0 - 50.0;
    let s_l = 1.0 + 0.015 * mean * mean / (20.0 + mean * mean).sqrt();
    (l1 - l2).abs() / s_l
}

/// CIE L* (D65) of a linear sRGB colour, within 0..=100 as in [`Lab::from_linear`]: its
/// luminance through the cube-root curve, without a* and b* (two fewer cube roots).
fn lightness(c: LinRgb) -> f32 {
    let y = c.to_xyz().y;
    const EPSILON: f32 = 216.0 / 24389.0;
    const KAPPA: f32 = 24389.0 / 27.0;
    let l = if y > EPSILON {
        116.0 * y.cbrt() - 16.0
    } else {
        KAPPA * y
    };
    l.clamp(0.0, 100.0)
}

/// ΔE₀₀ per natural-log unit by which a printed colour falls short of a clipped channel's
/// bound: 10% short costs 4, one σ of a read colour (white balance and shading move a
/// colour by about that much); a third short, 16.
const SHORTFALL_DE_PER_LOG: f32 = 40.0;

/// CIEDE2000 ΔE₀₀ between two 8-bit sRGB colours.
pub fn delta_e_srgb(a: Srgb, b: Srgb) -> f32 {
    Lab::from_srgb(a).delta_e(Lab::from_srgb(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f32, tol: f32) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn a_colour_relit_within_bounds_matches_itself_in_shade() {
        let red = LinRgb::from_srgb(Srgb::new(181, 30, 45));
        let seen = |k: f32| {
            let c = LinRgb::from_array(red.to_array().map(|v| k * v));
            Measured::new(c, Clipped::of(c))
        };
        // In a third of the light: red in shade.
        assert!(seen(0.3).delta_e_relit(red, 1.0) < 0.5);
        // Shade never brightens: twice as bright matches only where more light is allowed.
        let bright = seen(2.0);
        assert!(bright.delta_e_relit(red, 1.0) > 5.0, "{bright:?}");
        assert!(bright.delta_e_relit(red, 2.0) < 0.5);
    }

    /// Sharma, Wu & Dalal (2005), "The CIEDE2000 color-difference formula: implementation
    /// notes, supplementary test data, and mathematical observations", Table 1 (pair number,
    /// Lab 1, Lab 2, ΔE₀₀). Pairs 7–12 probe the hue-angle discontinuities.
    const SHARMA: [(u8, [f32; 3], [f32; 3], f32); 14] = [
        (1, [50.0, 2.6772, -79.7751], [50.0, 0.0, -82.7485], 2.0425),
        (2, [50.0, 3.1571, -77.2803], [50.0, 0.0, -82.7485], 2.8615),
        (4, [50.0, -1.3802, -84.2814], [50.0, 0.0, -82.7485], 1.0000),
        (7, [50.0, 0.0, 0.0], [50.0, -1.0, 2.0], 2.3669),
        (8, [50.0, -1.0, 2.0], [50.0, 0.0, 0.0], 2.3669),
        (9, [50.0, 2.4900, -0.0010], [50.0, -2.4900, 0.0009], 7.1792),
        (11, [50.0, 2.4900, -0.0010], [50.0, -2.4900, 0.0011], 7.2195),
        (12, [50.0, 2.4900, -0.0010], [50.0, -2.4900, 0.0012], 7.2195),
        (17, [50.0, 2.5, 0.0], [73.0, 25.0, -18.0], 27.1492),
        (18, [50.0, 2.5, 0.0], [61.0, -5.0, 29.0], 22.8977),
        (19, [50.0, 2.5, 0.0], [56.0, -27.0, -3.0], 31.9030),
        (21, [50.0, 2.5, 0.0], [50.0, 3.1736, 0.5854], 1.0000),
        (
            25,
            [60.2574, -34.0099, 36.2677],
            [60.4626, -34.1751, 39.4387],
            1.2644,
        ),
        (
            34,
            [22.7233, 20.0904, -46.6940],
            [23.0331, 14.9730, -42.5619],
            2.0373,
        ),
    ];

    #[test]
    fn ciede2000_matches_sharma_test_data() {
        for (n, [l1, a1, b1], [l2, a2, b2], want) in SHARMA {
            let (x, y) = (Lab::new(l1, a1, b1), Lab::new(l2, a2, b2));
            let got = x.delta_e(y);
            assert!(close(got, want, 1e-4), "pair {n}: {got} != {want}");
            // The formula is symmetric.
            assert!(close(y.delta_e(x), got, 1e-5), "pair {n} reversed");
        }
    }

    #[test]
    fn srgb_primaries_have_their_published_xyz_and_lab() {
        // IEC 61966-2-1 matrix columns, and Lab of the primaries (D65).
        let cases = [
            (
                Srgb::new(255, 0, 0),
                [0.4124, 0.2126, 0.0193],
                [53.24, 80.09, 67.20],
            ),
            (
                Srgb::new(0, 255, 0),
                [0.3576, 0.7152, 0.1192],
                [87.73, -86.18, 83.18],
            ),
            (
                Srgb::new(0, 0, 255),
                [0.1805, 0.0722, 0.9505],
                [32.30, 79.19, -107.86],
            ),
            (
                Srgb::new(255, 255, 255),
                [0.9505, 1.0, 1.089],
                [100.0, 0.0, 0.0],
            ),
        ];
        for (c, xyz, lab) in cases {
            let x = LinRgb::from_srgb(c).to_xyz();
            for (got, want) in [x.x, x.y, x.z].into_iter().zip(xyz) {
                assert!(close(got, want, 2e-3), "{c} XYZ {x:?} vs {xyz:?}");
            }
            let l = Lab::from_srgb(c);
            for (got, want) in [l.l, l.a, l.b].into_iter().zip(lab) {
                assert!(close(got, want, 0.05), "{c} Lab {l:?} vs {lab:?}");
            }
        }
    }

    #[test]
    fn transfer_curve_matches_the_standard() {
        // 50% grey (128) is about 21.6% linear light; the linear toe is below 0.04045.
        assert!(close(
            LinRgb::from_srgb(Srgb::new(128, 128, 128)).r,
            0.2158,
            1e-3
        ));
        assert!(close(
            LinRgb::from_srgb(Srgb::new(10, 10, 10)).g,
            10.0 / 255.0 / 12.92,
            1e-5
        ));
        assert_eq!(
            LinRgb::new(1.7, -0.2, 0.5).to_srgb(),
            Srgb::new(255, 0, 188)
        );
    }

    #[test]
    fn every_grey_and_some_colours_round_trip_through_lab() {
        let mut colours: Vec<Srgb> = (0..=255).map(|v| Srgb::new(v, v, v)).collect();
        colours.extend([
            Srgb::new(0xd6, 0x28, 0x39),
            Srgb::new(0x08, 0x85, 0xa1),
            Srgb::new(0xe7, 0xc7, 0x1f),
            Srgb::new(0x5e, 0x3c, 0x6c),
        ]);
        for c in colours {
            assert_eq!(Lab::from_srgb(c).to_srgb(), c);
            assert_eq!(LinRgb::from_srgb(c).to_srgb(), c);
            assert_eq!(Lab::from_srgb(c).delta_e(Lab::from_srgb(c)), 0.0);
        }
    }

    proptest::proptest! {
        /// The bounds behind `within` hold, so it answers exactly as `delta_e` does.
        #[test]
        fn within_agrees_with_delta_e(
            l1 in 0.0f32..100.0, a1 in -110.0f32..110.0, b1 in -110.0f32..110.0,
            l2 in 0.0f32..100.0, a2 in -110.0f32..110.0, b2 in -110.0f32..110.0,
            near in 0.0f32..1.0, limit in 0.5f32..60.0,
        ) {
            let x = Lab::new(l1, a1, b1);
            // Also a pair close together, where the upper bound does the work.
            let y = Lab::new(l1 + near * (l2 - l1) * 0.1, a1 + (a2 - a1) * 0.1, b1 + (b2 - b1) * 0.1);
            for other in [y, Lab::new(l2, a2, b2)] {
                proptest::prop_assert_eq!(
                    x.within(other, limit),
                    x.delta_e(other) <= limit,
                    "{:?} {:?} {} (ΔE₀₀ {})", x, other, limit, x.delta_e(other)
                );
            }
        }
    }

    proptest::proptest! {
        /// `within_each` answers for each limit as `within` does.
        #[test]
        fn within_each_agrees_with_within(
            l1 in 0.0f32..100.0, a1 in -110.0f32..110.0, b1 in -110.0f32..110.0,
            dl in -40.0f32..40.0, da in -40.0f32..40.0, db in -40.0f32..40.0,
            lo in 0.5f32..30.0, hi in 0.5f32..60.0,
        ) {
            let (x, y) = (Lab::new(l1, a1, b1), Lab::new(l1 + dl, a1 + da, b1 + db));
            proptest::prop_assert_eq!(
                x.within_each(y, [lo, hi]),
                [x.within(y, lo), x.within(y, hi)]
            );
        }
    }

    proptest::proptest! {
        /// The trigonometry-sparing formula agrees with `palette`'s, far and near, hues
        /// opposite and chroma zero included.
        #[test]
        fn ciede2000_agrees_with_palette(
            l1 in 0.0f32..100.0, a1 in -110.0f32..110.0, b1 in -110.0f32..110.0,
            dl in -40.0f32..40.0, da in -60.0f32..60.0, db in -60.0f32..60.0,
            scale in proptest::sample::select(vec![1.0f32, 0.1, 0.001, 0.0]),
            opposite in proptest::bool::weighted(0.1),
        ) {
            let x = Lab::new(l1, a1, b1);
            let y = if opposite {
                Lab::new(l1 + dl, -a1 * (1.0 + scale), -b1 * (1.0 + scale))
            } else {
                Lab::new(l1 + dl * scale, a1 + da * scale, b1 + db * scale)
            };
            let (fast, slow) = (x.delta_e(y), palette_ciede2000(x, y));
            proptest::prop_assert!(
                (fast - slow).abs() <= 2e-4 + 2e-5 * slow,
                "{x:?} {y:?}: {fast} against {slow}"
            );
        }
    }

    proptest::proptest! {
        /// The lightness floor never exceeds the clipped-aware ΔE₀₀ it bounds.
        #[test]
        fn delta_e_floor_is_below_delta_e(
            m in proptest::array::uniform3(-0.1f32..1.2),
            p in proptest::array::uniform3(-0.1f32..1.5),
            clipped in proptest::array::uniform3(proptest::bool::ANY),
        ) {
            let measured = Measured::new(LinRgb::from_array(m), Clipped(clipped));
            let printed = LinRgb::from_array(p);
            let exact = measured.delta_e(printed, Lab::from_linear(printed));
            proptest::prop_assert!(measured.delta_e_floor(printed) <= exact);
        }
    }

    proptest::proptest! {
        /// The nearest entry is the one a minimum over every distance gives.
        #[test]
        fn nearest_is_the_minimum_over_all(
            m in proptest::array::uniform3(-0.1f32..1.2),
            clipped in proptest::array::uniform3(proptest::bool::ANY),
            printed in proptest::collection::vec(proptest::array::uniform3(0.0f32..1.0), 1..12),
        ) {
            let measured = Measured::new(LinRgb::from_array(m), Clipped(clipped));
            let printed: Vec<(LinRgb, Lab)> = printed
                .iter()
                .map(|&p| (LinRgb::from_array(p), Lab::from_linear(LinRgb::from_array(p))))
                .collect();
            let all = printed
                .iter()
                .map(|&(lin, lab)| measured.delta_e(lin, lab))
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(&b.1));
            proptest::prop_assert_eq!(measured.nearest(&printed), all);
        }
    }

    #[test]
    fn lightness_is_lab_l() {
        let colours = [
            [0.0, 0.0, 0.0],
            [1.0, 1.0, 1.0],
            [0.2, 0.5, 0.9],
            [0.001, 0.002, 0.0005],
            [0.0, 1.5, 0.9],
            [-0.01, -0.01, -0.01],
        ];
        for c in colours {
            let c = LinRgb::from_array(c);
            assert!((lightness(c) - Lab::from_linear(c).l).abs() < 1e-3);
        }
    }

    #[test]
    fn delta_e_orders_colours_as_a_person_would() {
        let red = Srgb::new(0xd6, 0x28, 0x39);
        let darker_red = Srgb::new(0xc6, 0x20, 0x30);
        let orange = Srgb::new(0xd6, 0x7e, 0x2c);
        assert!(delta_e_srgb(red, darker_red) < delta_e_srgb(red, orange));
    }

    #[test]
    fn a_clipped_channel_is_a_bound_a_printed_colour_must_reach() {
        // A white card over-exposed in every channel, balanced to (175, 190, 214): only
        // colours at least that bright in every channel explain it.
        let measured = Measured::new(
            LinRgb::from_srgb(Srgb::new(175, 190, 214)),
            Clipped([true; 3]),
        );
        let d = |c: Srgb| measured.delta_e(LinRgb::from_srgb(c), Lab::from_srgb(c));
        let (card, sky) = (Srgb::new(242, 239, 230), Srgb::new(141, 188, 223));
        assert_eq!(d(card), 0.0);
        // Sky blue falls a third short in red: far, though plain ΔE₀₀ of the explained
        // colour says under 10.
        let explained = measured.lab_for(LinRgb::from_srgb(sky));
        assert!(explained.delta_e(Lab::from_srgb(sky)) < 10.0);
        assert!(d(sky) > 18.0, "{}", d(sky));
        // Unclipped, the same numbers are a plain measurement.
        let plain = Measured::new(
            LinRgb::from_srgb(Srgb::new(175, 190, 214)),
            Clipped::default(),
        );
        let plain_d = plain.delta_e(LinRgb::from_srgb(sky), Lab::from_srgb(sky));
        assert_eq!(
            plain_d,
            Lab::from_srgb(Srgb::new(175, 190, 214)).delta_e(Lab::from_srgb(sky))
        );
    }
}
