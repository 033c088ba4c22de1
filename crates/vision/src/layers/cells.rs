//! Settling where the stack's cell area is before its cells are read.
//!
//! A layer's frame is a band of one material, `frame_width` cells wide, around the cell area,
//! and the player card lies beyond it. The lattice fit can lock onto either edge of that band:
//! the inner one (frame against cells, the cell area) or the outer one (frame against card),
//! which is often the stronger edge (a light frame on a dark card). Read on the outer edge,
//! every cell sample is shifted by up to a frame width, and the "frame" and "card" references
//! for the white balance both land on the card, which makes the correction absurd.
//!
//! Which edge it is can be told without knowing the light: under a diagonal (von Kries) light
//! the per-channel ratio of two surfaces' linear values is the ratio of their printed values.
//! So for each side, both hypotheses (the located edge is the inner edge; it is the outer
//! edge) predict where the frame band and the card beyond it are; the one whose measured
//! frame/card ratio agrees with the printed ratio is taken, and the cell area is inset by a
//! frame width on the sides where the located edge was the outer one.

use tablejudge_rules::Srgb;

use crate::colour::LinRgb;
use crate::geom::{homography_4, rect};
use crate::rectify::{apply_homography, Homography, Quad};
use crate::refine::Lookup;

/// Per side (top, right, bottom, left): how far, in located cell units, the cell area lies
/// inside the located quad (0 or the frame width), and the corrected quad.
pub(super) fn settle_cell_area(
    look: &Lookup<'_>,
    ideal: &Quad,
    rows: usize,
    cols: usize,
    fw: f32,
    frame: Srgb,
    card: Srgb,
) -> (Quad, [bool; 4]) {
    let (r, c) = (rows as f32, cols as f32);
    let Some(g) = homography_4(&rect(0.0, 0.0, c, r), ideal) else {
        return (*ideal, [false; 4]);
    };
    let printed = log_ratio(LinRgb::from_srgb(frame), LinRgb::from_srgb(card));
    let mut inset = [0.0f32; 4];
    let mut outer = [false; 4];
    for (side, slot) in inset.iter_mut().enumerate() {
        // Read on the outer edge, the quad spans n + 2·fw true cells in n located units.
        let n = if side % 2 == 0 { r } else { c };
        let fw_outer = fw * n / (n + 2.0 * fw);
        let score = |d: f32, w: f32| -> Option<f32> {
            // Outward distance from the located edge; the boundary is at -d.
            let f = band(look, &g, side, rows, cols, -d + 0.3 * w, -d + 0.7 * w)?;
            let k = band(look, &g, side, rows, cols, -d + w + 0.1, -d + w + 0.3)?;
            let m = log_ratio(f, k);
            Some((0..3).map(|i| (m[i] - printed[i]).abs()).sum())
        };
        let (Some(a), Some(b)) = (score(0.0, fw), score(fw_outer, fw_outer)) else {
            continue;
        };
        // Only move when the outer-edge hypothesis explains the side clearly better: the
        // frame and card differ by a large factor in some channel, so a wrong hypothesis is
        // off by about that factor (ln 2 ≈ 0.7 is far outside printing and light variation).
        if b + 0.7 < a {
            *slot = fw_outer;
            outer[side] = true;
        }
    }
    if !outer.iter().any(|&o| o) {
        return (*ideal, outer);
    }
    let inner = rect(inset[3], inset[0], c - inset[1], r - inset[2]);
    let mut q = *ideal;
    for (o, &p) in q.iter_mut().zip(&inner) {
        match apply_homography(&g, p) {
            Some(v) => *o = v,
            None => return (*ideal, [false; 4]),
        }
    }
    (q, outer)
}

/// Per-channel `ln(a / b)`, with a floor against 8-bit quantisation of dark values.
fn log_ratio(a: LinRgb, b: LinRgb) -> [f32; 3] {
    let (a, b) = (a.to_array(), b.to_array());
    [0, 1, 2].map(|i| ((a[i].max(0.004)) / (b[i].max(0.004))).ln())
}

/// How far the measured frame/surround ratio is from the printed frame/card ratio: the largest
/// |ln| over the channels. Under a diagonal light the ratio of two surfaces is their printed
/// ratio, so a frame on its card is near 0 whatever the light; a lattice of tablecloth checks,
/// its "frame" and "surround" both cloth, is not.
pub(super) fn frame_card_ratio(
    frame: Srgb,
    surround: Srgb,
    printed_frame: Srgb,
    card: Srgb,
) -> f32 {
    let measured = log_ratio(LinRgb::from_srgb(frame), LinRgb::from_srgb(surround));
    let printed = log_ratio(LinRgb::from_srgb(printed_frame), LinRgb::from_srgb(card));
    (0..3)
        .map(|i| (measured[i] - printed[i]).abs())
        .fold(0.0f32, f32::max)
}

/// The per-channel median linear colour of a band `o0..o1` located units outside one side
/// (top, right, bottom, left), along its middle 70% (clear of corners).
fn band(
    look: &Lookup<'_>,
    g: &Homography,
    side: usize,
    rows: usize,
    cols: usize,
    o0: f32,
    o1: f32,
) -> Option<LinRgb> {
    let (r, c) = (rows as f32, cols as f32);
    let len = if side % 2 == 0 { cols } else { rows };
    let n = 4 * len;
    let mut ch: [Vec<f32>; 3] = Default::default();
    for depth in 0..3 {
        let o = o0 + (o1 - o0) * (depth as f32 + 0.5) / 3.0;
        for i in 0..n {
            let t = 0.15 + 0.7 * (i as f32 + 0.5) / n as f32;
            let lp = super::beside_side(side, t, o, r, c);
            if let Some(px) = apply_homography(g, lp).and_then(|p| look.srgb(p)) {
                let l = LinRgb::from_srgb(px).to_array();
                for k in 0..3 {
                    ch[k].push(l[k]);
                }
            }
        }
    }
    if ch[0].len() < n {
        return None;
    }
    let [a, b, cc] = ch.map(|mut v| {
        v.sort_by(f32::total_cmp);
        v[v.len() / 2]
    });
    Some(LinRgb::new(a, b, cc))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME: Srgb = Srgb::new(0x2b, 0x2b, 0x30);
    const CARD: Srgb = Srgb::new(0xf2, 0xef, 0xe6);

    /// `c` under a light with per-channel linear gains `k`.
    fn lit(c: Srgb, k: [f32; 3]) -> Srgb {
        let l = LinRgb::from_srgb(c).to_array();
        LinRgb::from_array([0, 1, 2].map(|i| l[i] * k[i])).to_srgb()
    }

    #[test]
    fn a_frame_on_its_card_keeps_the_printed_ratio_under_any_light() {
        for k in [
            [1.0, 1.0, 1.0],
            [0.9, 0.6, 0.3],
            [0.3, 0.5, 0.9],
            [0.25, 0.25, 0.25],
        ] {
            let r = frame_card_ratio(lit(FRAME, k), lit(CARD, k), FRAME, CARD);
            assert!(r < 0.3, "{k:?}: {r}");
        }
    }

    #[test]
    fn tablecloth_checks_do_not_keep_it() {
        // A "frame" of blue and grey checks beside cream cloth, under a warm light.
        let k = [0.9, 0.7, 0.5];
        let r = frame_card_ratio(
            lit(Srgb::new(120, 130, 170), k),
            lit(Srgb::new(240, 230, 200), k),
            FRAME,
            CARD,
        );
        assert!(r > 4f32.ln(), "{r}");
    }
}
