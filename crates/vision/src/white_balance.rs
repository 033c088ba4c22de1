//! White balance: a von Kries correction, one gain per channel in linear RGB, that maps the
//! colours measured in a photo back to the colours as printed.
//!
//! The gains also absorb the exposure, so a dim warm photo and a bright cool one are both
//! corrected by one diagonal matrix. Two ways to estimate it:
//!
//! - [`WhiteBalance::from_references`]: from parts whose true colour is known (the layer
//!   frame, the player card, a colour chart): pairs of (measured, expected). Preferred.
//! - [`WhiteBalance::from_palette`]: when the measured colours are only known to be drawn from
//!   a palette, alternate between labelling each colour with its nearest palette entry and
//!   refitting the gains to those labels (an ICP-style fit), from several starting casts.

use tablejudge_rules::{Grid, Srgb};
use thiserror::Error;

use crate::colour::{Clipped, Lab, LinRgb, Measured};

/// Below this, 8-bit quantisation dominates a measured value; at or above [`Clipped::LEVEL`],
/// it says nothing reliable about the gain.
const FLOOR: f32 = 0.002;

/// A diagonal (von Kries) correction in linear RGB: `corrected = gains ⊙ measured`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WhiteBalance {
    /// Gain per channel, `[r, g, b]`.
    pub gains: [f32; 3],
}

/// The outcome of [`WhiteBalance::from_palette`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaletteFit {
    /// The fitted correction.
    pub balance: WhiteBalance,
    /// Mean ΔE₀₀ from each corrected colour to its nearest palette entry (each capped at
    /// [`WhiteBalance::RESIDUAL_CAP`]); a large value means the palette does not explain the photo.
    pub residual: f32,
}

/// Why no correction could be estimated.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum WhiteBalanceError {
    #[error("no reference colours were given")]
    NoReferences,
    #[error(
        "channel {channel} has no usable reference: every measured value is clipped, black, \
         or expected to be black"
    )]
    UnusableChannel { channel: &'static str },
}

const CHANNELS: [&str; 3] = ["red", "green", "blue"];

impl WhiteBalance {
    /// No correction.
    pub const IDENTITY: WhiteBalance = WhiteBalance {
        gains: [1.0, 1.0, 1.0],
    };

    /// Cap of one colour's ΔE₀₀ in the palette fit's cost, so that one foreign object cannot
    /// pull the fit.
    pub const RESIDUAL_CAP: f32 = 20.0;

    /// Fits the gains to (measured, expected) pairs of known colours.
    ///
    /// Per channel the gain is the median of the ratios expected / measured, weighted by the
    /// measured value (bright parts have the smallest relative quantisation error); values that
    /// are clipped or nearly black are skipped. The median makes one wrong reference (a
    /// shadow on the frame) harmless when there are three or more.
    pub fn from_references(pairs: &[(Srgb, Srgb)]) -> Result<WhiteBalance, WhiteBalanceError> {
        let lin: Vec<(LinRgb, LinRgb)> = pairs
            .iter()
            .map(|&(m, e)| (LinRgb::from_srgb(m), LinRgb::from_srgb(e)))
            .collect();
        WhiteBalance::from_linear_references(&lin)
    }

    /// [`WhiteBalance::from_references`] on linear colours.
    pub fn from_linear_references(
        pairs: &[(LinRgb, LinRgb)],
    ) -> Result<WhiteBalance, WhiteBalanceError> {
        if pairs.is_empty() {
            return Err(WhiteBalanceError::NoReferences);
        }
        let mut gains = [1.0f32; 3];
        for (c, gain) in gains.iter_mut().enumerate() {
            let ratios: Vec<(f32, f32)> = pairs
                .iter()
                .map(|(m, e)| (m.to_array()[c], e.to_array()[c]))
                .filter(|&(m, e)| m > FLOOR && m < Clipped::LEVEL && e > FLOOR)
                .map(|(m, e)| (e / m, m))
                .collect();
            *gain = weighted_median(ratios).ok_or(WhiteBalanceError::UnusableChannel {
                channel: CHANNELS[c],
            })?;
        }
        Ok(WhiteBalance { gains })
    }

    /// This correction, fitted to references of which the brightest, `measured` (printed as
    /// `printed`), may be clipped. In a clipped channel this correction comes from the darker
    /// references alone, and flare only adds light to them, so it is a lower bound on the
    /// gain; the clipped reference gives an upper bound (its true value is at least the
    /// measured one). There `fallback`'s gain is taken, held within the two bounds.
    pub fn past_clipped_reference(
        self,
        measured: Srgb,
        printed: Srgb,
        fallback: &WhiteBalance,
    ) -> WhiteBalance {
        let (m, e) = (LinRgb::from_srgb(measured), LinRgb::from_srgb(printed));
        let clipped = Clipped::of(m).0;
        let gains = std::array::from_fn(|c| {
            if clipped[c] {
                let upper = e.to_array()[c] / m.to_array()[c];
                fallback.gains[c].clamp(self.gains[c].min(upper), upper)
            } else {
                self.gains[c]
            }
        });
        WhiteBalance { gains }
    }

    /// Fits the gains when every measured colour is assumed to be one of `palette`, without
    /// knowing which.
    ///
    /// From each of several starting casts (none, grey-world, brightest-is-white, and a coarse
    /// grid of warm to cool and green to magenta casts), it alternates: label each corrected
    /// colour with its nearest palette entry, refit the gains to those labels with
    /// [`WhiteBalance::from_linear_references`]; it keeps the fit with the smallest residual.
    /// With few distinct colours several casts can explain a photo equally well; use reference
    /// parts whenever the photo has them.
    pub fn from_palette(
        measured: &[Srgb],
        palette: &[Srgb],
    ) -> Result<PaletteFit, WhiteBalanceError> {
        if measured.is_empty() || palette.is_empty() {
            return Err(WhiteBalanceError::NoReferences);
        }
        let m: Vec<LinRgb> = measured.iter().map(|&c| LinRgb::from_srgb(c)).collect();
        let p: Vec<(LinRgb, Lab)> = palette
            .iter()
            .map(|&c| (LinRgb::from_srgb(c), Lab::from_srgb(c)))
            .collect();

        let mut starts = vec![WhiteBalance::IDENTITY];
        starts.extend(grey_world(&m, &p));
        starts.extend(brightest_is_white(&m, &p));
        // Casts from about 2500 K to 10000 K and a little green or magenta, in log-gain steps
        // (each start converges over a wide basin: a coarse grid finds the same fits).
        for i in -2..=2 {
            for j in -1..=1 {
                let warm = 0.6 * i as f32;
                let tint = 0.3 * j as f32;
                starts.push(WhiteBalance {
                    gains: [(-warm).exp(), tint.exp(), (warm).exp()],
                });
            }
        }

        let mut best: Option<PaletteFit> = None;
        // Most starts converge to one of a few label sets, hence to bit-identical gains: the
        // CIEDE2000 residual (the costly part) is computed once per distinct result.
        let mut seen: Vec<([u32; 3], f32)> = Vec::new();
        let mut settled = Vec::new();
        for start in starts {
            let balance = converge(start, &m, &p, &mut settled);
            let key = balance.gains.map(f32::to_bits);
            let residual = match seen.iter().find(|(k, _)| *k == key) {
                Some(&(_, r)) => r,
                None => {
                    let (_, r) = assign(&balance, &m, &p);
                    seen.push((key, r));
                    r
                }
            };
            let fit = PaletteFit { balance, residual };
            if best.is_none_or(|b| fit.residual < b.residual) {
                best = Some(fit);
            }
        }
        // `starts` is never empty, so `best` is set.
        best.ok_or(WhiteBalanceError::NoReferences)
    }

    /// Corrects one linear colour (not clamped).
    pub fn apply_linear(&self, c: LinRgb) -> LinRgb {
        let [r, g, b] = self.gains;
        LinRgb::new(c.r * r, c.g * g, c.b * b)
    }

    /// Corrects one 8-bit colour, clipping to the sRGB range.
    pub fn apply(&self, c: Srgb) -> Srgb {
        self.apply_linear(LinRgb::from_srgb(c)).to_srgb()
    }

    /// Corrects one 8-bit colour, clipping like [`WhiteBalance::apply`], straight to Lab: no
    /// rounding to 8 bits on the way, and a third of the cost (no sRGB encoding).
    pub fn apply_lab(&self, c: Srgb) -> Lab {
        let [r, g, b] = self.apply_linear(LinRgb::from_srgb(c)).to_array();
        Lab::from_linear(LinRgb::new(
            r.clamp(0.0, 1.0),
            g.clamp(0.0, 1.0),
            b.clamp(0.0, 1.0),
        ))
    }

    /// Corrects every cell of a grid.
    pub fn apply_grid(&self, cells: &Grid<Srgb>) -> Grid<Srgb> {
        cells.map(|&c| self.apply(c))
    }
}

/// Per-channel gains that make the mean measured colour the mean palette colour.
fn grey_world(m: &[LinRgb], p: &[(LinRgb, Lab)]) -> Option<WhiteBalance> {
    let mean = |it: &mut dyn Iterator<Item = LinRgb>, n: usize| {
        let s = it.fold([0.0f32; 3], |a, c| [a[0] + c.r, a[1] + c.g, a[2] + c.b]);
        s.map(|v| v / n as f32)
    };
    let mm = mean(&mut m.iter().copied(), m.len());
    let pm = mean(&mut p.iter().map(|x| x.0), p.len());
    gains_from(mm, pm)
}

/// Per-channel gains that make the brightest measured colour the brightest palette colour.
fn brightest_is_white(m: &[LinRgb], p: &[(LinRgb, Lab)]) -> Option<WhiteBalance> {
    let luma = |c: &LinRgb| 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
    let bm = m.iter().max_by(|a, b| luma(a).total_cmp(&luma(b)))?;
    let bp = p
        .iter()
        .map(|x| &x.0)
        .max_by(|a, b| luma(a).total_cmp(&luma(b)))?;
    gains_from(bm.to_array(), bp.to_array())
}

fn gains_from(measured: [f32; 3], expected: [f32; 3]) -> Option<WhiteBalance> {
    let g = [0, 1, 2].map(|c| expected[c] / measured[c]);
    g.iter()
        .all(|v| v.is_finite() && *v > 0.0)
        .then_some(WhiteBalance { gains: g })
}

/// Label with the nearest palette entry, refit, repeat until the labels stop changing.
fn converge(
    start: WhiteBalance,
    m: &[LinRgb],
    p: &[(LinRgb, Lab)],
    settled: &mut Vec<(Vec<usize>, Option<WhiteBalance>)>,
) -> WhiteBalance {
    // After the first labelling the path depends on the labels alone, and most starts label
    // alike: each first labelling is followed once.
    let first = nearest(&start, m, p);
    if let Some((_, wb)) = settled.iter().find(|(labels, _)| *labels == first) {
        return wb.unwrap_or(start);
    }
    let wb = settle(first.clone(), m, p);
    settled.push((first, wb));
    wb.unwrap_or(start)
}

/// Refits to `labels` and relabels until the labels repeat (at most 12 fits); `None` when the
/// first fit has no usable channel.
fn settle(mut labels: Vec<usize>, m: &[LinRgb], p: &[(LinRgb, Lab)]) -> Option<WhiteBalance> {
    let fit = |labels: &[usize]| {
        let pairs: Vec<(LinRgb, LinRgb)> =
            m.iter().zip(labels).map(|(&c, &l)| (c, p[l].0)).collect();
        WhiteBalance::from_linear_references(&pairs)
    };
    let mut wb = fit(&labels).ok()?;
    for _ in 1..12 {
        let next = nearest(&wb, m, p);
        if next == labels {
            break;
        }
        labels = next;
        match fit(&labels) {
            Ok(next) => wb = next,
            // No usable channel: keep the last gains, whose residual still ranks this start.
            Err(_) => break,
        }
    }
    Some(wb)
}

/// The nearest palette entry of each corrected colour by Euclidean distance in CIELAB (ΔE₇₆):
/// a tenth of the cost of CIEDE2000, and the same choice except between near ties, which
/// the final CIEDE2000 residual of each start still ranks.
fn nearest(wb: &WhiteBalance, m: &[LinRgb], p: &[(LinRgb, Lab)]) -> Vec<usize> {
    m.iter()
        .map(|&c| {
            let measured = Measured::new(wb.apply_linear(c), Clipped::of(c));
            let d2 = |(e_lin, e): &(LinRgb, Lab)| {
                let lab = measured.lab_for(*e_lin);
                let (dl, da, db) = (lab.l - e.l, lab.a - e.a, lab.b - e.b);
                dl * dl + da * da + db * db
            };
            // Each distance once (`min_by` on the entries would compute two per comparison).
            p.iter()
                .map(d2)
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map_or(0, |(i, _)| i)
        })
        .collect()
}

/// The nearest palette entry of each corrected colour, and the mean capped ΔE₀₀.
fn assign(wb: &WhiteBalance, m: &[LinRgb], p: &[(LinRgb, Lab)]) -> (Vec<usize>, f32) {
    let mut total = 0.0;
    let labels = m
        .iter()
        .map(|&c| {
            // Clamped like a camera would, so a gain cannot push a colour out of gamut.
            let measured = Measured::new(wb.apply_linear(c), Clipped::of(c));
            let (i, d) = measured.nearest(p).unwrap_or((0, f32::INFINITY));
            total += d.min(WhiteBalance::RESIDUAL_CAP);
            i
        })
        .collect();
    (labels, total / m.len() as f32)
}

/// The weighted median of `(value, weight)` pairs; `None` when there are none.
fn weighted_median(mut v: Vec<(f32, f32)>) -> Option<f32> {
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let half = v.iter().map(|x| x.1).sum::<f32>() / 2.0;
    let mut acc = 0.0;
    for &(value, weight) in &v {
        acc += weight;
        if acc >= half {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::tests::classic;
    use crate::classify::{Classifier, ClassifierParams};
    use tablejudge_rules::Key;

    /// A camera left on daylight white balance under 2800 K light: the Planckian locus at
    /// 2800 K (Kim et al.'s fit, x = 0.4514, y = 0.4087) in linear sRGB, normalised to red.
    const CAST_2800K: [f32; 3] = [1.0, 0.438, 0.117];

    /// What such a camera records for a printed colour at the given exposure.
    fn photograph(c: Srgb, exposure: f32) -> Srgb {
        let l = LinRgb::from_srgb(c);
        let [r, g, b] = CAST_2800K;
        LinRgb::new(l.r * r * exposure, l.g * g * exposure, l.b * b * exposure).to_srgb()
    }

    fn accuracy(classifier: &Classifier, chart: &[(Key, Srgb)], wb: &WhiteBalance) -> usize {
        chart
            .iter()
            .filter(|&&(k, measured)| classifier.classify(wb.apply(measured)).label == Some(k))
            .count()
    }

    fn chart_under_cast(exposure: f32) -> Vec<(Key, Srgb)> {
        classic()
            .colors
            .iter()
            .map(|(k, s)| (*k, photograph(s.srgb, exposure)))
            .collect()
    }

    #[test]
    fn reference_parts_recover_the_chart_under_warm_light() {
        let p = classic();
        let classifier = Classifier::new(&p, ClassifierParams::default()).unwrap();
        for exposure in [0.6, 1.0] {
            let chart = chart_under_cast(exposure);
            let uncorrected = accuracy(&classifier, &chart, &WhiteBalance::IDENTITY);
            assert!(uncorrected < 12, "{uncorrected}/24 without correction");
            // The two parts a Layers+ photo always shows: a light card and a dark frame.
            let card = Srgb::new(0xf2, 0xef, 0xe6);
            let frame = Srgb::new(0x2b, 0x2b, 0x30);
            let refs = [
                (photograph(card, exposure), card),
                (photograph(frame, exposure), frame),
            ];
            let wb = WhiteBalance::from_references(&refs).unwrap();
            assert_eq!(accuracy(&classifier, &chart, &wb), 24, "{wb:?}");
        }
    }

    #[test]
    fn the_palette_alone_recovers_the_chart_under_warm_light() {
        let p = classic();
        let classifier = Classifier::new(&p, ClassifierParams::default()).unwrap();
        let palette: Vec<Srgb> = p.colors.values().map(|s| s.srgb).collect();
        for exposure in [0.5, 0.8, 1.05] {
            let chart = chart_under_cast(exposure);
            assert!(accuracy(&classifier, &chart, &WhiteBalance::IDENTITY) < 12);
            // Shuffled and repeated, as the cells of a real grid would be.
            let measured: Vec<Srgb> = (0..48).map(|i| chart[(i * 7) % 24].1).collect();
            let fit = WhiteBalance::from_palette(&measured, &palette).unwrap();
            assert_eq!(accuracy(&classifier, &chart, &fit.balance), 24, "{fit:?}");
            assert!(fit.residual < 3.0, "{fit:?}");
            // The gains undo the cast up to the exposure.
            let g = fit.balance.gains;
            assert!((g[0] / g[1] - CAST_2800K[1]).abs() < 0.05, "{g:?}");
        }
    }

    #[test]
    fn an_over_exposed_palette_is_fitted_from_its_unclipped_channels() {
        // The reference Layers+ set's colours: its cells, card and frame.
        let printed: Vec<(Key, Srgb)> = crate::layers::tests::set("reference")
            .colors()
            .iter()
            .map(|(&k, s)| (k, s.srgb))
            .collect();
        let palette: Vec<Srgb> = printed.iter().map(|p| p.1).collect();
        let classifier =
            Classifier::from_swatches(printed.iter().copied(), ClassifierParams::default())
                .unwrap();
        // One EV over, neutral light: the card, pink, sky blue and salmon clip.
        let raw = |c: Srgb| {
            let l = LinRgb::from_srgb(c);
            LinRgb::new(2.0 * l.r, 2.0 * l.g, 2.0 * l.b).to_srgb()
        };
        let measured: Vec<Srgb> = (0..36).map(|i| raw(palette[(i * 5) % 12])).collect();
        assert!(measured.iter().any(|&m| m == Srgb::new(255, 255, 255)));
        let fit = WhiteBalance::from_palette(&measured, &palette).unwrap();
        for g in fit.balance.gains {
            assert!((g - 0.5).abs() < 0.03, "{fit:?}");
        }
        for &(k, c) in &printed {
            let m = raw(c);
            let clipped = Clipped::of(LinRgb::from_srgb(m));
            let r = classifier.classify_clipped(fit.balance.apply(m), clipped);
            assert_eq!(r.label, Some(k), "{k}: measured {m}, {r:?}");
            assert!(r.confidence > 0.95, "{k}: {r:?}");
        }
    }

    #[test]
    fn a_clipped_card_bounds_the_gain_between_the_frame_and_itself() {
        // A white card clipped in red and green, a dark frame brightened by flare: the fit to
        // both takes red and green from the frame alone (a lower bound on the gain) and blue
        // from the card.
        let (frame_seen, frame) = (Srgb::new(60, 58, 60), Srgb::new(43, 43, 48));
        let (card_seen, card) = (Srgb::new(250, 246, 228), Srgb::new(242, 239, 230));
        let refs = WhiteBalance::from_references(&[(frame_seen, frame), (card_seen, card)])
            .expect("usable references");
        let lin = |c: Srgb| LinRgb::from_srgb(c).to_array();
        let upper = [0, 1].map(|c| lin(card)[c] / lin(card_seen)[c]);
        let lower = [0, 1].map(|c| lin(frame)[c] / lin(frame_seen)[c]);
        assert!(
            (refs.gains[0] - lower[0]).abs() < 1e-4,
            "{refs:?} {lower:?}"
        );
        let mid = [0, 1].map(|c| (lower[c] + upper[c]) / 2.0);
        let fallback = |r: f32, g: f32| WhiteBalance { gains: [r, g, 5.0] };
        // Within the bounds the fallback is taken; outside them, the nearer bound.
        let b = refs.past_clipped_reference(card_seen, card, &fallback(mid[0], mid[1]));
        assert_eq!(b.gains, [mid[0], mid[1], refs.gains[2]]);
        let b = refs.past_clipped_reference(card_seen, card, &fallback(0.01, 10.0));
        assert_eq!(b.gains, [refs.gains[0], upper[1], refs.gains[2]]);
        // An unclipped card leaves the fit as it was.
        let dim = Srgb::new(200, 198, 190);
        assert_eq!(
            refs.past_clipped_reference(dim, card, &fallback(0.01, 10.0)),
            refs
        );
    }

    #[test]
    fn a_wrong_reference_is_outvoted_by_the_median() {
        let white = Srgb::new(0xf3, 0xf3, 0xf2);
        let grey = Srgb::new(0xa0, 0xa0, 0xa0);
        let dark = Srgb::new(0x55, 0x55, 0x55);
        let mut refs: Vec<(Srgb, Srgb)> = [white, grey, dark]
            .iter()
            .map(|&c| (photograph(c, 0.9), c))
            .collect();
        // A shadow falls on the grey reference.
        refs[1].0 = photograph(Srgb::new(0x40, 0x40, 0x40), 0.9);
        let wb = WhiteBalance::from_references(&refs).unwrap();
        let back = wb.apply(photograph(grey, 0.9));
        assert!(crate::colour::delta_e_srgb(back, grey) < 1.5, "{back}");
    }

    #[test]
    fn unusable_references_are_reported() {
        assert_eq!(
            WhiteBalance::from_references(&[]),
            Err(WhiteBalanceError::NoReferences)
        );
        let clipped = Srgb::new(255, 255, 120);
        assert_eq!(
            WhiteBalance::from_references(&[(clipped, Srgb::new(200, 200, 200))]),
            Err(WhiteBalanceError::UnusableChannel { channel: "red" })
        );
        assert!(WhiteBalance::from_palette(&[], &[clipped]).is_err());
    }

    #[test]
    fn correcting_straight_to_lab_agrees_with_correcting_to_8_bits() {
        let wb = WhiteBalance {
            gains: [0.6, 1.1, 1.9],
        };
        for c in [
            Srgb::new(0x73, 0x52, 0x44),
            Srgb::new(250, 250, 250),
            Srgb::new(0, 10, 200),
        ] {
            let d = wb.apply_lab(c).delta_e(Lab::from_srgb(wb.apply(c)));
            // Only the rounding to 8 bits differs.
            assert!(d < 0.5, "{c}: {d}");
        }
    }

    #[test]
    fn identity_changes_nothing_and_gains_apply_per_channel() {
        let c = Srgb::new(0x73, 0x52, 0x44);
        assert_eq!(WhiteBalance::IDENTITY.apply(c), c);
        let half_red = WhiteBalance {
            gains: [0.5, 1.0, 1.0],
        };
        let out = half_red.apply(Srgb::new(255, 128, 0));
        // Half the light of full red is about 188 in 8-bit sRGB.
        assert_eq!(out, Srgb::new(188, 128, 0));
        let grid = Grid::filled(2, 3, c);
        assert_eq!(WhiteBalance::IDENTITY.apply_grid(&grid), grid);
    }
}
