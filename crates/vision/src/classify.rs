//! Assigning a measured colour to the nearest palette entry, with a calibrated confidence.
//!
//! # Confidence model
//!
//! A measured colour is taken to be a palette colour plus measurement noise whose CIEDE2000
//! distance `d` has likelihood `exp(-d² / 2σ²)` (an isotropic Gaussian of scale σ, written in
//! ΔE₀₀ so that "near" means near to the eye). Besides the palette entries there is one more
//! hypothesis, "none of them" (a hand, a shadow, a foreign object), whose likelihood is flat:
//! it is the same as an entry at distance `τ = outlier_sigmas · σ`. With equal priors, the
//! confidence of the nearest entry `k` is its posterior probability
//!
//! ```text
//! confidence = exp(-d_k²/2σ²) / ( Σ_j exp(-d_j²/2σ²) + exp(-τ²/2σ²) )
//! ```
//!
//! so it falls when the second-best entry is almost as near (small margin) and when even the
//! best is far (large absolute distance). σ is the one number to calibrate: fit it from
//! colours whose true label is known with [`Classifier::fit_sigma`] (the maximum-likelihood
//! estimate under the same model), e.g. from the frame and player card of the same photo.
//!
//! A channel the camera clipped is censored, not measured: it says only that the truth is at
//! least that bright. [`Classifier::classify_clipped`] compares each entry with the colour it
//! would have been measured as, so an over-exposed white card reads as white, not grey, and
//! two entries both brighter than a clipped measurement stay a tie.

use serde::{Deserialize, Serialize};
use tablejudge_rules::{Grid, Key, Palette, Srgb};
use thiserror::Error;

use crate::colour::{Clipped, Lab, LinRgb, Measured};

/// One cell as read: its palette label (when a palette was given), its measured colour and how
/// sure the reader is, in 0..=1. The serde form is a cell of `tablejudge/observation@1`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    /// The nearest palette entry; `None` when no palette was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<Key>,
    /// The measured colour (after white balance).
    pub srgb: Srgb,
    /// Posterior probability that `label` is right (see the module docs); 0..=1.
    pub confidence: f32,
}

/// The parameters of the confidence model (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClassifierParams {
    /// Scale σ of the measurement noise, in ΔE₀₀.
    pub sigma: f32,
    /// Distance of the "none of them" hypothesis, in units of σ.
    pub outlier_sigmas: f32,
}

impl Default for ClassifierParams {
    /// σ = 4 ΔE₀₀, outliers beyond 3.5σ = 14 ΔE₀₀: a starting guess, not a measurement; fit σ
    /// with [`Classifier::fit_sigma`] from parts of the photo whose colour is known.
    fn default() -> Self {
        ClassifierParams {
            sigma: 4.0,
            outlier_sigmas: 3.5,
        }
    }
}

/// Why a classifier could not be built or calibrated.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ClassifyError {
    #[error("the palette has no colours")]
    EmptyPalette,
    #[error("sigma must be a positive finite number of ΔE, got {0}")]
    BadSigma(f32),
    #[error("outlier_sigmas must be positive and finite, got {0}")]
    BadOutlier(f32),
    #[error("no labelled samples to fit sigma from")]
    NoSamples,
    #[error("sample {index} is labelled {key}, which is not in the palette")]
    UnknownKey { index: usize, key: Key },
}

/// A nearest-palette-entry classifier in CIELAB with the module's confidence model.
#[derive(Clone, Debug, PartialEq)]
pub struct Classifier {
    entries: Vec<(Key, Lab, LinRgb)>,
    params: ClassifierParams,
}

impl Classifier {
    /// A classifier over every colour of `palette`.
    pub fn new(palette: &Palette, params: ClassifierParams) -> Result<Classifier, ClassifyError> {
        Classifier::from_swatches(palette.colors.iter().map(|(k, s)| (*k, s.srgb)), params)
    }

    /// A classifier over explicit (key, colour) pairs, e.g. a set file's `colors` table.
    pub fn from_swatches(
        swatches: impl IntoIterator<Item = (Key, Srgb)>,
        params: ClassifierParams,
    ) -> Result<Classifier, ClassifyError> {
        let entries: Vec<(Key, Lab, LinRgb)> = swatches
            .into_iter()
            .map(|(k, c)| (k, Lab::from_srgb(c), LinRgb::from_srgb(c)))
            .collect();
        if entries.is_empty() {
            return Err(ClassifyError::EmptyPalette);
        }
        check_params(params)?;
        Ok(Classifier { entries, params })
    }

    /// The confidence model's parameters.
    pub fn params(&self) -> ClassifierParams {
        self.params
    }

    /// The same palette with other parameters.
    pub fn with_params(&self, params: ClassifierParams) -> Result<Classifier, ClassifyError> {
        check_params(params)?;
        Ok(Classifier {
            entries: self.entries.clone(),
            params,
        })
    }

    /// Every palette entry with its ΔE₀₀ to `colour`, nearest first (ties by key).
    pub fn ranked(&self, colour: Srgb) -> Vec<(Key, f32)> {
        self.ranked_clipped(colour, Clipped::default())
    }

    /// [`Classifier::ranked`] for a corrected colour some of whose channels the camera
    /// clipped: each entry is compared with the colour it would have been measured as.
    pub fn ranked_clipped(&self, colour: Srgb, clipped: Clipped) -> Vec<(Key, f32)> {
        let measured = Measured::new(LinRgb::from_srgb(colour), clipped);
        let mut d: Vec<(Key, f32)> = self
            .entries
            .iter()
            .map(|&(k, e, e_lin)| (k, measured.delta_e(e_lin, e)))
            .collect();
        d.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        d
    }

    /// [`Classifier::ranked_clipped`] without the entries too far to weigh in the confidence:
    /// those whose lightness floor puts their likelihood under 2⁻²⁵ of the best one's. Added
    /// to a sum that is at least 1 (the best's own), such a term is below half its last bit
    /// and leaves it unchanged, wherever it falls in the ranking; so the confidence is the
    /// same to the last bit, and their CIEDE2000 is not computed.
    fn ranked_near(&self, colour: Srgb, clipped: Clipped) -> Vec<(Key, f32)> {
        let measured = Measured::new(LinRgb::from_srgb(colour), clipped);
        let floors: Vec<f32> = self
            .entries
            .iter()
            .map(|&(_, _, e_lin)| measured.delta_e_floor(e_lin))
            .collect();
        // The exact distance of the entry with the smallest floor bounds the best one's.
        let first = floors
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .map_or(0, |(i, _)| i);
        let (_, e, e_lin) = self.entries[first];
        let bound = measured.delta_e(e_lin, e);
        let two_s2 = 2.0 * self.params.sigma * self.params.sigma;
        // exp(-17.5) < 2⁻²⁵; the best distance is at most `bound`.
        let cutoff = (bound * bound + 17.5 * two_s2).sqrt();
        let mut d: Vec<(Key, f32)> = self
            .entries
            .iter()
            .zip(&floors)
            .filter(|&(_, &floor)| floor < cutoff)
            .map(|(&(k, e, e_lin), _)| (k, measured.delta_e(e_lin, e)))
            .collect();
        d.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        d
    }

    /// Reads one colour: the nearest entry and the posterior confidence of the module docs.
    pub fn classify(&self, colour: Srgb) -> Reading {
        self.classify_clipped(colour, Clipped::default())
    }

    /// [`Classifier::classify`] for a corrected colour with clipped channels (see
    /// [`Clipped`]): a white card in an over-exposed photo still reads as white.
    pub fn classify_clipped(&self, colour: Srgb, clipped: Clipped) -> Reading {
        let ranked = self.ranked_near(colour, clipped);
        // `entries` is non-empty by construction, so `ranked` has a first element.
        let (best, d_best) = ranked[0];
        let two_s2 = 2.0 * self.params.sigma * self.params.sigma;
        let tau = self.params.outlier_sigmas * self.params.sigma;
        // Likelihoods relative to the best one (exponents ≤ 0, so nothing overflows).
        let rel = |d: f32| (-(d * d - d_best * d_best) / two_s2).exp();
        let total: f32 = ranked.iter().map(|&(_, d)| rel(d)).sum::<f32>() + rel(tau);
        Reading {
            label: Some(best),
            srgb: colour,
            confidence: (1.0 / total).clamp(0.0, 1.0),
        }
    }

    /// Reads every cell of a grid of measured colours.
    pub fn classify_grid(&self, colours: &Grid<Srgb>) -> Grid<Reading> {
        colours.map(|&c| self.classify(c))
    }

    /// The maximum-likelihood σ for colours whose true key is known: under the model the
    /// distance to the true entry is a 3-D Gaussian radius, so σ² = Σ d² / 3n. Keeps
    /// `outlier_sigmas`. A floor of 0.5 ΔE₀₀ stops exact synthetic colours from making the
    /// classifier infinitely sure.
    pub fn fit_sigma(&self, samples: &[(Srgb, Key)]) -> Result<Classifier, ClassifyError> {
        if samples.is_empty() {
            return Err(ClassifyError::NoSamples);
        }
        let mut sum_sq = 0.0f64;
        for (index, &(colour, key)) in samples.iter().enumerate() {
            let lab = self
                .entries
                .iter()
                .find(|(k, _, _)| *k == key)
                .map(|(_, l, _)| *l)
                .ok_or(ClassifyError::UnknownKey { index, key })?;
            let d = f64::from(Lab::from_srgb(colour).delta_e(lab));
            sum_sq += d * d;
        }
        let sigma = ((sum_sq / (3.0 * samples.len() as f64)).sqrt() as f32).max(0.5);
        self.with_params(ClassifierParams {
            sigma,
            ..self.params
        })
    }
}

fn check_params(p: ClassifierParams) -> Result<(), ClassifyError> {
    if !(p.sigma.is_finite() && p.sigma > 0.0) {
        return Err(ClassifyError::BadSigma(p.sigma));
    }
    if !(p.outlier_sigmas.is_finite() && p.outlier_sigmas > 0.0) {
        return Err(ClassifyError::BadOutlier(p.outlier_sigmas));
    }
    Ok(())
}

/// Veil steps tried between none and the measured colour's smallest channel.
const VEIL_STEPS: usize = 32;

/// How much better (ΔE₀₀) a darker colour beneath a veil must explain a cell than its label
/// does before the cell is doubtful.
const VEIL_MARGIN: f32 = 2.0;

/// Whether a colour other than `label`, under a glare veil, explains the measured cell
/// clearly better than `label` does (by [`VEIL_MARGIN`]); for a `washed`-out cell (clipped
/// brighter than the card around it), about as well (within [`VEIL_TIE`]).
///
/// A veil adds the lamp's light to every channel (the dichromatic reflection model), so a
/// violet under one can look pink and a blue sky blue; the lamp's colour is near neutral
/// after the white balance, but need not be exactly neutral ([`VEIL_TINTS`]).
/// Each printed colour (white-balanced linear) is compared, clipped channels as bounds, with
/// the measurement as that colour plus the veil that fits best, up to the measurement's
/// smallest channel. Only for cells that show a veil: without one, the lighter colour is
/// simply what is printed.
pub(crate) fn rival_under_veil(
    measured: &Measured,
    printed: &[(Key, LinRgb)],
    label: Key,
    washed: bool,
    tints: &[[f32; 3]],
) -> bool {
    let Some(&(_, own)) = printed.iter().find(|(k, _)| *k == label) else {
        return false;
    };
    let own = under_veil_min(measured, own, f32::INFINITY, tints);
    // Washed out, the cell shows almost nothing of what lies beneath: a colour that fits
    // about as well under the veil is rival enough.
    let margin = if washed { -VEIL_TIE } else { VEIL_MARGIN };
    let beat = own - margin;
    printed
        .iter()
        .any(|&(k, p)| k != label && under_veil_min(measured, p, beat, tints) < beat)
}

/// Reads a cell that lies mostly under a veil of the given colours (`tints`, measured from
/// its pixels): every printed colour's distance is the one under the veil that fits it best,
/// and the confidence is the posterior over those distances under `params`, as
/// [`Classifier::classify_clipped`] computes it for bare distances (no veil is the case of
/// a veil of nothing). `None` without printed colours.
pub(crate) fn classify_under_veil(
    measured: &Measured,
    printed: &[(Key, LinRgb)],
    tints: &[[f32; 3]],
    params: ClassifierParams,
) -> Option<(Key, f32)> {
    posterior(
        printed
            .iter()
            .map(|&(k, p)| (k, under_veil_min(measured, p, f32::INFINITY, tints))),
        params,
    )
}

/// Reads a cell as if every printed colour (white-balanced linear) lay in the shade that
/// matches the cell's brightness (see [`Measured::delta_e_relit`]), down to `min_light`
/// times its printed brightness: the bottom of a well. The nearest colour and its posterior,
/// as [`classify_under_veil`] gives them; a colour the cell is darker than that is no
/// candidate. `None` when no colour is.
pub(crate) fn classify_in_shade(
    measured: &Measured,
    printed: &[(Key, LinRgb)],
    min_light: f32,
    params: ClassifierParams,
) -> Option<(Key, f32)> {
    let sum = |c: LinRgb| c.r + c.g + c.b;
    let seen = sum(measured.corrected());
    let lit: Vec<(Key, f32)> = printed
        .iter()
        .filter(|&&(_, p)| seen >= min_light * sum(p))
        .map(|&(k, p)| (k, measured.delta_e_relit(p, 1.0)))
        .collect();
    posterior(lit, params)
}

/// The nearest of `distances` (ΔE₀₀ per key) and its posterior under `params`, with the
/// "none of them" hypothesis (see the module docs).
fn posterior(
    distances: impl IntoIterator<Item = (Key, f32)>,
    params: ClassifierParams,
) -> Option<(Key, f32)> {
    let d: Vec<(Key, f32)> = distances.into_iter().collect();
    let &(best, d_best) = d.iter().min_by(|a, b| a.1.total_cmp(&b.1))?;
    let two_s2 = 2.0 * params.sigma * params.sigma;
    let rel = |x: f32| (-(x * x - d_best * d_best) / two_s2).exp();
    let total =
        d.iter().map(|&(_, x)| rel(x)).sum::<f32>() + rel(params.outlier_sigmas * params.sigma);
    Some((best, (1.0 / total).clamp(0.0, 1.0)))
}

/// The colour other than `label` that, under a glare veil, explains the measured cell best,
/// when it does so clearly better than `label` (by [`VEIL_MARGIN`]; see
/// [`rival_under_veil`]): the likelier reading of a veiled cell.
pub(crate) fn best_under_veil(
    measured: &Measured,
    printed: &[(Key, LinRgb)],
    label: Key,
    tints: &[[f32; 3]],
) -> Option<Key> {
    let &(_, own) = printed.iter().find(|(k, _)| *k == label)?;
    let beat = under_veil_min(measured, own, f32::INFINITY, tints) - VEIL_MARGIN;
    printed
        .iter()
        .filter(|&&(k, _)| k != label)
        .fold((None, beat), |(best, cap), &(k, p)| {
            let d = under_veil_min(measured, p, cap, tints);
            if d < cap {
                (Some(k), d)
            } else {
                (best, cap)
            }
        })
        .0
}

/// Whether a colour other than `label`, in shade, explains the measured cell clearly better
/// than `label` does (by [`SHADE_MARGIN`]; printed colours white-balanced linear): the
/// bottom of a deep well lies in its walls' shade, and a salmon there passes for red. The
/// shade is the one that matches the cell's brightness (see [`Measured::delta_e_relit`]), so
/// a cell that fits its label plainly has no rival.
pub(crate) fn rival_in_shade(measured: &Measured, printed: &[(Key, LinRgb)], label: Key) -> bool {
    let Some(&(_, own)) = printed.iter().find(|(k, _)| *k == label) else {
        return false;
    };
    let own = measured.delta_e(own, Lab::from_linear(own));
    let beat = own - SHADE_MARGIN;
    own > POOR_FIT
        && printed
            .iter()
            .any(|&(k, p)| k != label && measured.delta_e_relit(p, 1.0) < beat)
}

/// A label this far (ΔE₀₀) from its cell fits it poorly: two of the classifier's σ.
const POOR_FIT: f32 = 8.0;

/// How much better (ΔE₀₀) a colour in shade must explain a cell than its label does before
/// the cell is doubtful: as for a veil.
const SHADE_MARGIN: f32 = VEIL_MARGIN;

/// Within this ΔE₀₀ of the label's fit, a colour beneath the veil of a washed-out cell is a
/// rival.
const VEIL_TIE: f32 = 1.0;

/// ΔE₀₀ from `measured` to `printed` (white-balanced linear) under the neutral veil that
/// fits best, from none up to the measurement's smallest channel (see
/// [`rival_under_veil`]).
pub(crate) fn under_veil_delta_e(measured: &Measured, printed: LinRgb, tints: &[[f32; 3]]) -> f32 {
    under_veil_min(measured, printed, f32::INFINITY, tints)
}

/// The least of `cap` and the ΔE₀₀ from `measured` to any of `printed` (white-balanced
/// linear) under the veil that fits it best (see [`under_veil_delta_e`]).
pub(crate) fn nearest_under_veil(
    measured: &Measured,
    printed: impl IntoIterator<Item = LinRgb>,
    cap: f32,
    tints: &[[f32; 3]],
) -> f32 {
    printed
        .into_iter()
        .fold(cap, |best, p| under_veil_min(measured, p, best, tints))
}

/// The veil colours to try for a cell (per-channel gains, green 1): around the `tilt` its
/// pixels show (see [`crate::sample::VeilLight::tilt`]), give or take [`TILT_TOLERANCE`], or
/// every one of [`VEIL_TINTS`] when they show none.
pub(crate) fn veil_tints(tilt: Option<f32>) -> Vec<[f32; 3]> {
    let gains = |t: f32| [(-t).exp(), 1.0, t.exp()];
    match tilt {
        Some(t) => [t - TILT_TOLERANCE, t, t + TILT_TOLERANCE]
            .map(gains)
            .to_vec(),
        None => VEIL_TINTS.map(gains).to_vec(),
    }
}

/// How far a veil's true tilt may lie from the one measured from a cell's pixels: the
/// veiled pixels' median carries the noise and JPEG error of a few levels.
const TILT_TOLERANCE: f32 = 0.1;

/// [`under_veil_delta_e`], or `cap` when no veil brings it below `cap`. Veils whose lightness
/// alone keeps them at `cap` or beyond (or beyond the best so far) are not converted to Lab.
fn under_veil_min(measured: &Measured, printed: LinRgb, cap: f32, tints: &[[f32; 3]]) -> f32 {
    let seen = measured.corrected().to_array();
    tints
        .iter()
        .flat_map(|&tint| {
            let most = (0..3)
                .map(|c| seen[c] / tint[c])
                .fold(f32::INFINITY, f32::min)
                .max(0.0);
            (0..=VEIL_STEPS).map(move |i| {
                let v = most * i as f32 / VEIL_STEPS as f32;
                let p = printed.to_array();
                LinRgb::from_array(std::array::from_fn(|c| p[c] + v * tint[c]))
            })
        })
        .fold(cap, |best, under| {
            if measured.delta_e_floor(under) >= best {
                best
            } else {
                best.min(measured.delta_e(under, Lab::from_linear(under)))
            }
        })
}

/// Colours of the veil tried, as log blue/red tilts of neutral: the lamp that makes the glare
/// need not be the light the white balance corrected for (a cool window over a warm room, a
/// warm lamp in daylight), so its glare may be bluish or orange after the balance.
const VEIL_TINTS: [f32; 5] = [-0.5, -0.25, 0.0, 0.25, 0.5];

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The classic 24-patch chart (a copy of shared/palettes/colorchecker-classic.json).
    pub(crate) fn classic() -> Palette {
        let json = include_str!("../testdata/colorchecker-classic.json");
        Palette::from_json(json, "colorchecker-classic.json").unwrap()
    }

    fn key(c: char) -> Key {
        Key::new(c).unwrap()
    }

    #[test]
    fn every_palette_colour_reads_as_itself_with_high_confidence() {
        let p = classic();
        let c = Classifier::new(&p, ClassifierParams::default()).unwrap();
        for (k, s) in &p.colors {
            let r = c.classify(s.srgb);
            assert_eq!(r.label, Some(*k), "{}", s.name);
            assert_eq!(r.srgb, s.srgb);
            // 0.9, not more: purplish blue and blue are only about 7 ΔE₀₀ apart.
            assert!(r.confidence > 0.9, "{}: {}", s.name, r.confidence);
        }
    }

    #[test]
    fn confidence_falls_with_small_margin_and_with_large_distance() {
        let red = Srgb::new(0xd6, 0x28, 0x39);
        let orange = Srgb::new(0xd6, 0x7e, 0x2c);
        let c = Classifier::from_swatches(
            [(key('r'), red), (key('o'), orange)],
            ClassifierParams::default(),
        )
        .unwrap();
        let sure = c.classify(red).confidence;
        // Half-way between red and orange (in Lab): either could be right.
        let (lr, lo) = (Lab::from_srgb(red), Lab::from_srgb(orange));
        let mid = Lab::new(
            (lr.l + lo.l) / 2.0,
            (lr.a + lo.a) / 2.0,
            (lr.b + lo.b) / 2.0,
        );
        let between = c.classify(mid.to_srgb());
        assert!(between.confidence < 0.7, "{between:?}");
        assert!(between.confidence < sure);
        // A blue far from both: still labelled, but the reader says it does not know.
        let blue = c.classify(Srgb::new(0x20, 0x30, 0xc0));
        assert!(blue.confidence < 0.05, "{blue:?}");
        assert!(sure > 0.99);
    }

    /// What a camera records at `exposure` times the light that puts white at 1: clipped at 1.
    fn over_exposed(c: Srgb, exposure: f32) -> (Srgb, Clipped) {
        let l = LinRgb::from_srgb(c);
        let raw = LinRgb::new(l.r * exposure, l.g * exposure, l.b * exposure);
        (raw.to_srgb(), Clipped::of(LinRgb::from_srgb(raw.to_srgb())))
    }

    #[test]
    fn clipped_channels_count_only_as_lower_bounds() {
        // Some of the reference Layers+ set's colours: a warm white card, sky blue, pink,
        // mustard, red.
        let swatches = [
            ('w', 0xf2, 0xef, 0xe6),
            ('c', 0x8d, 0xbc, 0xdf),
            ('p', 0xe0, 0x84, 0xdf),
            ('y', 0xd2, 0xad, 0x34),
            ('r', 0xb5, 0x1e, 0x2d),
        ]
        .map(|(k, r, g, b)| (key(k), Srgb::new(r, g, b)));
        let c = Classifier::from_swatches(swatches, ClassifierParams::default()).unwrap();
        // One EV over: the white balance from the frame halves every channel.
        let undo = |m: Srgb| {
            let l = LinRgb::from_srgb(m);
            LinRgb::new(l.r / 2.0, l.g / 2.0, l.b / 2.0).to_srgb()
        };
        for (k, colour) in swatches {
            let (raw, clipped) = over_exposed(colour, 2.0);
            let r = c.classify_clipped(undo(raw), clipped);
            assert_eq!(r.label, Some(k), "{k}: {raw} {clipped:?}");
            assert!(r.confidence > 0.99, "{k}: {r:?}");
        }
        // Taken at face value, the white card reads as a grey that no entry explains.
        let (raw, clipped) = over_exposed(swatches[0].1, 2.0);
        assert_eq!(clipped, Clipped([true; 3]));
        assert!(c.classify(undo(raw)).confidence < 0.9);
        // A channel clipped darker than an entry is still evidence against it: the clipped
        // white is not sky blue, whose red lies far below what was measured.
        let ranked = c.ranked_clipped(undo(raw), clipped);
        assert_eq!(ranked[0], (key('w'), 0.0));
        assert!(ranked[1].1 > 15.0, "{ranked:?}");
    }

    #[test]
    fn two_entries_above_a_clipped_measurement_stay_undecided() {
        let white = Srgb::new(0xf3, 0xf3, 0xf2);
        let light_grey = Srgb::new(0xc8, 0xc8, 0xc8);
        let c = Classifier::from_swatches(
            [(key('w'), white), (key('n'), light_grey)],
            ClassifierParams::default(),
        )
        .unwrap();
        // At +2 EV both clip to (255, 255, 255): the photo cannot tell them apart.
        let (raw, clipped) = over_exposed(white, 4.0);
        assert_eq!(over_exposed(light_grey, 4.0).0, raw);
        let undo = |m: Srgb| {
            let l = LinRgb::from_srgb(m);
            LinRgb::new(l.r / 4.0, l.g / 4.0, l.b / 4.0).to_srgb()
        };
        let r = c.classify_clipped(undo(raw), clipped);
        assert!(r.confidence <= 0.5, "{r:?}");
    }

    proptest::proptest! {
        /// Leaving out the entries too far to weigh changes no reading, to the last bit.
        #[test]
        fn the_far_entries_left_out_change_no_confidence(
            rgb in proptest::array::uniform3(proptest::num::u8::ANY),
            clipped in proptest::array::uniform3(proptest::bool::ANY),
            sigma in 1.0f32..8.0,
        ) {
            let c = Classifier::new(&classic(), ClassifierParams { sigma, outlier_sigmas: 4.5 })
                .unwrap();
            let colour = Srgb::new(rgb[0], rgb[1], rgb[2]);
            let clipped = Clipped(clipped);
            // The confidence as the module docs define it, over every entry.
            let ranked = c.ranked_clipped(colour, clipped);
            let (best, d_best) = ranked[0];
            let two_s2 = 2.0 * sigma * sigma;
            let rel = |d: f32| (-(d * d - d_best * d_best) / two_s2).exp();
            let total: f32 = ranked.iter().map(|&(_, d)| rel(d)).sum::<f32>() + rel(4.5 * sigma);
            let r = c.classify_clipped(colour, clipped);
            proptest::prop_assert_eq!(r.label, Some(best));
            proptest::prop_assert_eq!(r.confidence.to_bits(), (1.0 / total).clamp(0.0, 1.0).to_bits());
        }
    }

    #[test]
    fn ranked_lists_every_entry_nearest_first() {
        let p = classic();
        let c = Classifier::new(&p, ClassifierParams::default()).unwrap();
        let r = c.ranked(Srgb::new(0xaf, 0x36, 0x3c));
        assert_eq!(r.len(), 24);
        assert_eq!(r[0], (key('o'), 0.0));
        assert!(r.windows(2).all(|w| w[0].1 <= w[1].1));
    }

    #[test]
    fn bad_inputs_are_rejected() {
        let p = classic();
        let empty = Palette {
            name: "empty".into(),
            colors: Default::default(),
        };
        let d = ClassifierParams::default();
        assert_eq!(Classifier::new(&empty, d), Err(ClassifyError::EmptyPalette));
        let bad = ClassifierParams { sigma: 0.0, ..d };
        assert_eq!(Classifier::new(&p, bad), Err(ClassifyError::BadSigma(0.0)));
        let c = Classifier::new(&p, d).unwrap();
        assert_eq!(c.fit_sigma(&[]), Err(ClassifyError::NoSamples));
        assert_eq!(
            c.fit_sigma(&[(Srgb::new(0, 0, 0), key('z'))]),
            Err(ClassifyError::UnknownKey {
                index: 0,
                key: key('z')
            })
        );
    }

    /// Gaussian noise in Lab, clipped to 8-bit sRGB like a camera.
    fn noisy(rng: &mut ChaCha8Rng, c: Srgb, s: f32) -> Srgb {
        let mut g = || {
            // Box–Muller from two uniforms; rand's normal distribution lives in another crate.
            let (u, v): (f32, f32) = (rng.gen_range(1e-7..1.0), rng.gen_range(0.0..1.0));
            (-2.0 * u.ln()).sqrt() * (std::f32::consts::TAU * v).cos() * s
        };
        let l = Lab::from_srgb(c);
        Lab::new(l.l + g(), l.a + g(), l.b + g()).to_srgb()
    }

    /// Calibration: after fitting σ on one sample, the stated confidence matches the observed
    /// accuracy on another (expected calibration error over ten bins).
    #[test]
    fn fitted_confidence_is_calibrated() {
        let p = classic();
        let base = Classifier::new(&p, ClassifierParams::default()).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let noise = 6.0;
        let draw = |rng: &mut ChaCha8Rng, n: usize| -> Vec<(Srgb, Key)> {
            (0..n)
                .map(|i| {
                    let (k, s) = p.colors.iter().nth(i % p.colors.len()).unwrap();
                    (noisy(rng, s.srgb, noise), *k)
                })
                .collect()
        };
        let fitted = base.fit_sigma(&draw(&mut rng, 480)).unwrap();
        let test = draw(&mut rng, 2400);
        let mut bins = [(0.0f64, 0.0f64, 0usize); 10];
        let mut wrong = 0;
        for (colour, truth) in &test {
            let r = fitted.classify(*colour);
            let b = ((r.confidence * 10.0) as usize).min(9);
            let correct = r.label == Some(*truth);
            wrong += usize::from(!correct);
            bins[b].0 += f64::from(r.confidence);
            bins[b].1 += f64::from(u8::from(correct));
            bins[b].2 += 1;
        }
        // The noise must be large enough that confidence has something to say.
        assert!(wrong > 50, "only {wrong} errors: the test is too easy");
        let ece: f64 = bins
            .iter()
            .map(|&(conf, acc, _)| (conf - acc).abs())
            .sum::<f64>()
            / test.len() as f64;
        eprintln!(
            "sigma {} ece {ece:.4} errors {wrong}",
            fitted.params().sigma
        );
        assert!(
            ece < 0.05,
            "expected calibration error {ece:.3}, bins {bins:?}"
        );
        // An overconfident σ (same outlier distance) is measurably worse calibrated: the check
        // above can fail.
        let overconfident = fitted
            .with_params(ClassifierParams {
                sigma: fitted.params().sigma / 4.0,
                outlier_sigmas: fitted.params().outlier_sigmas * 4.0,
            })
            .unwrap();
        let mean_conf: f64 = test
            .iter()
            .map(|(c, _)| f64::from(overconfident.classify(*c).confidence))
            .sum::<f64>()
            / test.len() as f64;
        let accuracy = 1.0 - wrong as f64 / test.len() as f64;
        assert!(mean_conf - accuracy > 0.05, "{mean_conf} vs {accuracy}");
    }

    fn hex(h: &str) -> Srgb {
        h.parse::<Srgb>().expect("a colour")
    }

    /// Printed colours (white-balanced linear) from key and hex pairs.
    fn printed_of(pairs: &[(char, &str)]) -> Vec<(Key, LinRgb)> {
        pairs
            .iter()
            .map(|&(k, h)| (key(k), LinRgb::from_srgb(hex(h))))
            .collect()
    }

    /// The reference set's stack colours and card, printed.
    fn reference_printed() -> Vec<(Key, LinRgb)> {
        printed_of(&[
            ('w', "#f2efe6"),
            ('b', "#2160b7"),
            ('c', "#8dbcdf"),
            ('f', "#257627"),
            ('g', "#38d453"),
            ('o', "#695621"),
            ('p', "#e084df"),
            ('r', "#b51e2d"),
            ('s', "#e18264"),
            ('v', "#9327b0"),
            ('y', "#d2ad34"),
        ])
    }

    /// σ 4 ΔE₀₀ and outliers at 4.5σ, as `LayersReadOptions::default` sets them.
    fn layers_params() -> ClassifierParams {
        ClassifierParams {
            sigma: 4.0,
            outlier_sigmas: 4.5,
        }
    }

    #[test]
    fn a_darker_colour_beneath_a_veil_is_a_rival() {
        let any = veil_tints(None);
        let printed = printed_of(&[
            ('b', "#2160b7"),
            ('c', "#8dbcdf"),
            ('r', "#b51e2d"),
            ('s', "#e18264"),
            ('v', "#9327b0"),
            ('p', "#e084df"),
        ]);
        let seen = |c: LinRgb| Measured::new(c, Clipped::of(c));
        let veiled = |h: &str, v: f32| {
            seen(LinRgb::from_array(
                LinRgb::from_srgb(hex(h)).to_array().map(|c| c + v),
            ))
        };
        let plain = |h: &str| seen(LinRgb::from_srgb(hex(h)));
        let rival = |m: &Measured, k: char| rival_under_veil(m, &printed, key(k), false, &any);
        // A blue under a veil reads nearest sky blue, but is blue beneath it.
        assert!(rival(&veiled("#2160b7", 0.25), 'c'));
        // Sky blue itself, with or without a light veil, has no darker rival.
        assert!(!rival(&plain("#8dbcdf"), 'c'));
        assert!(!rival(&veiled("#8dbcdf", 0.03), 'c'));
        // Violet under a veil taken for pink; pink as printed is pink.
        assert!(rival(&veiled("#9327b0", 0.3), 'p'));
        assert!(!rival(&plain("#e084df"), 'p'));
        // Red under a veil strong enough to clip its red channel, taken for salmon.
        let clipped = veiled("#b51e2d", 0.45);
        assert!(Clipped::of(clipped.corrected()).0[0], "{clipped:?}");
        assert!(rival(&clipped, 's'));
        assert!(!rival(&plain("#e18264"), 's'));
        // The rival that fits best is the likelier reading; none where there is no rival.
        let best = |m: &Measured, k: char| best_under_veil(m, &printed, key(k), &any);
        assert_eq!(best(&veiled("#2160b7", 0.25), 'c'), Some(key('b')));
        assert_eq!(best(&veiled("#9327b0", 0.3), 'p'), Some(key('v')));
        assert_eq!(best(&clipped, 's'), Some(key('r')));
        assert_eq!(best(&plain("#e084df"), 'p'), None);
        assert_eq!(best(&veiled("#8dbcdf", 0.03), 'c'), None);
    }

    #[test]
    fn a_lighter_colour_in_shade_is_a_rival() {
        let printed = printed_of(&[
            ('w', "#f2efe6"),
            ('f', "#257627"),
            ('g', "#38d453"),
            ('o', "#695621"),
            ('y', "#d2ad34"),
            ('r', "#b51e2d"),
            ('s', "#e18264"),
        ]);
        let seen = |c: LinRgb| Measured::new(c, Clipped::of(c));
        let nearest = |m: &Measured| {
            printed
                .iter()
                .min_by(|a, b| {
                    m.delta_e(a.1, Lab::from_linear(a.1))
                        .total_cmp(&m.delta_e(b.1, Lab::from_linear(b.1)))
                })
                .map(|&(k, _)| k)
                .unwrap()
        };
        // Salmon at the bottom of a deep well, in a fifth of the light: nearest red, which it
        // is not.
        let salmon = LinRgb::from_srgb(hex("#e18264")).to_array();
        let shaded = seen(LinRgb::from_array(salmon.map(|c| 0.2 * c)));
        let label = nearest(&shaded);
        assert_ne!(label, key('s'));
        assert!(rival_in_shade(&shaded, &printed, label));
        // Every colour as printed, and a little off, has none: its label fits it plainly.
        for &(k, c) in &printed {
            assert!(!rival_in_shade(&seen(c), &printed, k), "{k}");
            let off = seen(LinRgb::from_array(c.to_array().map(|v| 0.9 * v + 0.01)));
            assert!(!rival_in_shade(&off, &printed, nearest(&off)), "{k} off");
        }
    }

    #[test]
    fn the_card_in_a_well_s_shade_is_the_card_where_no_other_colour_in_shade_fits() {
        let (printed, params) = (reference_printed(), layers_params());
        let in_light = |h: &str, light: f32| {
            let c = LinRgb::from_array(LinRgb::from_srgb(hex(h)).to_array().map(|v| v * light));
            Measured::new(c, Clipped::of(c))
        };
        let plain =
            Classifier::from_swatches(printed.iter().map(|&(k, c)| (k, c.to_srgb())), params)
                .unwrap();
        // The card in 60% of the light (a grey): a plain read is unsure of it ("none of
        // them" is near), in shade it is surely the card.
        let grey = in_light("#f2efe6", 0.6);
        let unsure = plain.classify_clipped(grey.corrected().to_srgb(), Clipped::default());
        assert_eq!(unsure.label, Some(key('w')));
        assert!(unsure.confidence < 0.998, "{}", unsure.confidence);
        let (k, sure) = classify_in_shade(&grey, &printed, 0.3, params).unwrap();
        assert_eq!(k, key('w'));
        assert!(sure > 0.999, "{sure}");
        // Sky blue in shade stays sky blue, never the card.
        let (k, _) = classify_in_shade(&in_light("#8dbcdf", 0.6), &printed, 0.3, params).unwrap();
        assert_eq!(k, key('c'));
        // Darker than any well leaves the card: a near-black cell is not the card in shade.
        let dark = in_light("#f2efe6", 0.1);
        let read = classify_in_shade(&dark, &printed, 0.3, params);
        assert!(read.is_none_or(|(k, _)| k != key('w')), "{read:?}");
    }

    #[test]
    fn a_veil_of_measured_colour_tells_which_colour_lies_beneath() {
        let (printed, params) = (reference_printed(), layers_params());
        let neutral = veil_tints(Some(0.0));
        let under = |h: &str, v: f32, tint: [f32; 3]| {
            let p = LinRgb::from_srgb(hex(h)).to_array();
            let c = LinRgb::from_array(std::array::from_fn(|i| p[i] + v * tint[i]));
            Measured::new(c, Clipped::of(c))
        };
        // Forest green under a neutral veil a third of white: far from every printed colour as
        // seen, but forest green beneath a neutral veil, and nothing else is.
        let green = under("#257627", 0.3, [1.0; 3]);
        let (k, sure) = classify_under_veil(&green, &printed, &neutral, params).unwrap();
        assert_eq!(k, key('f'));
        assert!(sure > 0.998, "{sure}");
        // A cool lamp's bluish veil over blue: blue beneath the veil the pixels show.
        let bluish = [0.8, 1.0, 1.25];
        let blue = under("#2160b7", 0.3, bluish);
        let measured = veil_tints(Some(1.25f32.ln()));
        let (k, _) = classify_under_veil(&blue, &printed, &measured, params).unwrap();
        assert_eq!(k, key('b'));
        // Washed almost white, many colours fit beneath: never sure.
        let washed = under("#9327b0", 0.9, [1.0; 3]);
        let (_, sure) = classify_under_veil(&washed, &printed, &neutral, params).unwrap();
        assert!(sure < 0.9, "{sure}");
        // A colour seen as printed (no veil) reads as itself.
        let plain = under("#2160b7", 0.0, [1.0; 3]);
        let (k, sure) = classify_under_veil(&plain, &printed, &neutral, params).unwrap();
        assert_eq!(k, key('b'));
        assert!(sure > 0.99, "{sure}");
    }

    #[test]
    fn a_veil_may_be_tinted_and_a_washed_out_cell_hides_its_colour() {
        let any = veil_tints(None);
        let printed = printed_of(&[
            ('b', "#2160b7"),
            ('c', "#8dbcdf"),
            ('r', "#b51e2d"),
            ('w', "#f2efe6"),
        ]);
        let lin = |h: &str| LinRgb::from_srgb(hex(h)).to_array();
        let seen = |c: [f32; 3]| {
            let c = LinRgb::from_array(c);
            Measured::new(c, Clipped::of(c))
        };
        // A lamp cooler than the light the balance corrected for: a bluish veil over blue
        // reads sky blue, and blue beneath it is a rival.
        let tint = [0.8, 1.0, 1.25];
        let under = |h: &str, v: f32| {
            let p = lin(h);
            seen(std::array::from_fn(|c| p[c] + v * tint[c]))
        };
        assert!(rival_under_veil(
            &under("#2160b7", 0.3),
            &printed,
            key('c'),
            false,
            &any
        ));
        // Red under that veil is red beneath it, which no neutral veil could explain.
        let beneath = LinRgb::from_array(lin("#b51e2d"));
        assert!(under_veil_delta_e(&under("#b51e2d", 0.4), beneath, &any) < 1.0);
        // Red washed out by glare (every channel clipped) reads as the card; a colour that
        // fits as well beneath the veil makes it doubtful, but only when it is washed out
        // past the card around it.
        let red = lin("#b51e2d");
        let washed = seen(red.map(|c| (c + 0.9).min(1.0)));
        assert!(rival_under_veil(&washed, &printed, key('w'), true, &any));
        assert!(!rival_under_veil(&washed, &printed, key('w'), false, &any));
        // The card itself, plainly seen, has no rival.
        assert!(!rival_under_veil(
            &seen(lin("#f2efe6")),
            &printed,
            key('w'),
            true,
            &any
        ));
    }
}
