//! Is a number printed beside a grid? (A mission card prints its `layers` number beside its
//! grid; a player card prints nothing.)
//!
//! Each margin is sampled on a column × depth lattice in the grid's own plane: columns along
//! the side, depths outward from the frame. *Body* is the material right outside the frame
//! (the card); *ink* is anything far from it. A printed number is ink **inside the card**:
//! nearer the frame than the card's edge, with body on both sides of it in its column. The
//! card's edge is a straight line in this plane (the card is a rectangle, and the lattice is
//! a homography of the card's plane), so it is found as the line on which the most columns
//! stop being body; a tablecloth pattern beyond the edge (a checkerboard whose light squares
//! look like card) then never counts, whatever its colours.

use crate::colour::Lab;
use crate::geom::{homography_4, rect};
use crate::rectify::{apply_homography, Quad};
use crate::refine::Lookup;
use crate::white_balance::WhiteBalance;
use tablejudge_rules::Srgb;

/// Depth samples per column, over [`REACH`] cells beyond the frame.
const DEPTHS: usize = 16;
/// How far out the margin is searched, in cells beyond the frame.
const REACH: f32 = 2.0;
/// Columns per cell along a side.
const PER_CELL: usize = 12;
/// ΔE₀₀ within which a sample is body, and beyond which it is ink.
const BODY_DE: f32 = 12.0;
const INK_DE: f32 = 30.0;

/// How much a compact glyph stands out in one margin: `(any, inside)`. Both are the fraction
/// of inked columns in the inkiest half-cell window of a side minus the fraction over the
/// whole side (a number is ink in one place of one side), maximised over the four sides.
/// `any` counts any enclosed ink in the band; `inside` only ink inside the card's edge.
pub(super) fn glyph_score(
    look: &Lookup<'_>,
    ideal: &Quad,
    rows: usize,
    cols: usize,
    fw: f32,
    wb: &WhiteBalance,
) -> (f32, f32) {
    let (r, c) = (rows as f32, cols as f32);
    let Some(g) = homography_4(&rect(0.0, 0.0, c, r), ideal) else {
        return (0.0, 0.0);
    };
    let (mut any, mut inside) = (0.0f32, 0.0f32);
    for side in 0..4 {
        let len = if side % 2 == 0 { cols } else { rows };
        let n = len * PER_CELL;
        let labs: Vec<[Option<Lab>; DEPTHS]> = (0..n)
            .map(|col| {
                let t = (col as f32 + 0.5) / n as f32;
                std::array::from_fn(|depth| {
                    let d = fw + 0.05 + REACH * (depth as f32 + 0.5) / DEPTHS as f32;
                    let lp = super::beside_side(side, t, d, r, c);
                    apply_homography(&g, lp)
                        .and_then(|p| look.rgb(p))
                        .map(|px| {
                            let b = px.map(|x| x.round().clamp(0.0, 255.0) as u8);
                            Lab::from_srgb(wb.apply(Srgb::new(b[0], b[1], b[2])))
                        })
                })
            })
            .collect();
        let Some(side_score) = score_side(&labs) else {
            continue;
        };
        any = any.max(side_score.0);
        inside = inside.max(side_score.1);
    }
    (any, inside)
}

/// `(any, inside)` for one side's samples, `labs[column][depth]`; `None` without samples.
fn score_side(labs: &[[Option<Lab>; DEPTHS]]) -> Option<(f32, f32)> {
    let body = near_median(labs)?;
    let is_body = |x: &Option<Lab>| x.is_some_and(|x| x.delta_e(body) <= BODY_DE);
    let is_ink = |x: &Option<Lab>| x.is_some_and(|x| x.delta_e(body) > INK_DE);
    let edge = card_edge(labs, &is_body);
    let inked = |within: &dyn Fn(usize) -> f32| -> Vec<bool> {
        labs.iter()
            .enumerate()
            .map(|(i, col)| {
                let limit = within(i);
                (1..DEPTHS - 1).any(|d| {
                    let beyond_end = (limit.floor() as usize).min(DEPTHS);
                    (d as f32) < limit - 1.0
                        && is_ink(&col[d])
                        && col[..d].iter().any(is_body)
                        && col[d + 1..beyond_end.max(d + 1)].iter().any(is_body)
                })
            })
            .collect()
    };
    let all = inked(&|_| DEPTHS as f32);
    let inner = inked(&|i| edge.at(i));
    Some((peak_over_typical(&all), peak_over_typical(&inner)))
}

/// The per-channel median of depths 1 to 3: the material right outside the frame (depth 0 can
/// still be frame when the located edge is a little inside it).
fn near_median(labs: &[[Option<Lab>; DEPTHS]]) -> Option<Lab> {
    let near: Vec<Lab> = labs
        .iter()
        .flat_map(|col| col[1..4].iter().flatten().copied())
        .collect();
    if near.is_empty() {
        return None;
    }
    let med = |f: fn(&Lab) -> f32| {
        let mut v: Vec<f32> = near.iter().map(f).collect();
        v.sort_by(f32::total_cmp);
        v[v.len() / 2]
    };
    Some(Lab {
        l: med(|x| x.l),
        a: med(|x| x.a),
        b: med(|x| x.b),
    })
}

/// A line `depth = a + b·column` in a side's sample lattice.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Line {
    a: f32,
    b: f32,
}

impl Line {
    fn at(&self, i: usize) -> f32 {
        self.a + self.b * i as f32
    }
}

/// The card's edge: the straight line across the side along which most columns change
/// colour (the median over columns of the ΔE₀₀ between the samples either side of the line),
/// when that change stands clearly above the side's typical sample-to-sample change. A card
/// edge changes colour along its whole length, however little (a cream cloth beside a white
/// card); a number or a tablecloth motif only in some columns. Without such a line the card
/// runs past the band, and the line is put at its end.
fn card_edge(labs: &[[Option<Lab>; DEPTHS]], is_body: &dyn Fn(&Option<Lab>) -> bool) -> Line {
    let n = labs.len();
    let beyond = Line {
        a: DEPTHS as f32,
        b: 0.0,
    };
    if n < 2 {
        return beyond;
    }
    // steps[col][d]: the change between depth d and d + 1, leaving body (the step onto the
    // card from the frame is not its edge).
    let steps: Vec<[f32; DEPTHS - 1]> = labs
        .iter()
        .map(|col| {
            std::array::from_fn(|d| match (col[d], col[d + 1]) {
                (Some(x), Some(y)) if is_body(&col[d]) => x.delta_e(y),
                _ => 0.0,
            })
        })
        .collect();
    let mut all: Vec<f32> = steps.iter().flat_map(|s| s.iter().copied()).collect();
    all.sort_by(f32::total_cmp);
    let typical = all[all.len() / 2];
    let mut along = vec![0.0f32; n];
    let mut best = (beyond, 0.0f32);
    // Lines from every step at the side's start to every step at its end.
    for i in 0..DEPTHS - 1 {
        for j in 0..DEPTHS - 1 {
            let (d0, d1) = (i as f32, j as f32);
            let line = Line {
                a: d0,
                b: (d1 - d0) / (n - 1) as f32,
            };
            for (k, slot) in along.iter_mut().enumerate() {
                let d = (line.at(k).round() as usize).min(DEPTHS - 2);
                *slot = steps[k][d];
            }
            let m = *along.select_nth_unstable_by(n / 2, f32::total_cmp).1;
            if m > best.1 {
                best = (line, m);
            }
        }
    }
    if best.1 >= 2.0 * typical + 3.0 {
        // The line sits on the step; the card ends one sample further.
        Line {
            a: best.0.a + 1.0,
            b: best.0.b,
        }
    } else {
        beyond
    }
}

/// Fraction of inked columns in the inkiest half-cell window away from the side's ends,
/// minus the fraction of inked columns elsewhere on the side (more than a cell from that
/// window): a number is one island of ink, where a tablecloth pattern repeats.
fn peak_over_typical(inked: &[bool]) -> f32 {
    let n = inked.len();
    let window = PER_CELL / 2;
    let Some((start, peak)) = (window..n.saturating_sub(2 * window))
        .map(|s| {
            let k = inked[s..s + window].iter().filter(|&&b| b).count();
            (s, k as f32 / window as f32)
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
    else {
        return 0.0;
    };
    let near = start.saturating_sub(PER_CELL)..(start + window + PER_CELL).min(n);
    let (mut far, mut far_inked) = (0usize, 0usize);
    for (i, &b) in inked.iter().enumerate() {
        if !near.contains(&i) {
            far += 1;
            far_inked += usize::from(b);
        }
    }
    peak - far_inked as f32 / far.max(1) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    const CARD: Lab = Lab {
        l: 95.0,
        a: 0.0,
        b: 3.0,
    };
    const INK: Lab = Lab {
        l: 15.0,
        a: 0.0,
        b: 0.0,
    };
    const CLOTH: Lab = Lab {
        l: 60.0,
        a: 40.0,
        b: 60.0,
    };

    fn side(f: impl Fn(usize, usize) -> Lab) -> Vec<[Option<Lab>; DEPTHS]> {
        (0..4 * PER_CELL)
            .map(|i| std::array::from_fn(|d| Some(f(i, d))))
            .collect()
    }

    #[test]
    fn a_number_inside_the_card_is_a_glyph() {
        // Card everywhere; a number 2 depths out, 5 columns wide, 5 deep.
        let labs = side(|i, d| {
            if (20..25).contains(&i) && (2..7).contains(&d) {
                INK
            } else {
                CARD
            }
        });
        let (any, inside) = score_side(&labs).unwrap();
        assert!(inside > 0.6 && any > 0.6, "{any} {inside}");
    }

    #[test]
    fn a_checkerboard_beyond_the_card_edge_is_not_a_glyph() {
        // Card for 4 depths, then a checkerboard of card-coloured and cloth squares.
        let labs = side(|i, d| {
            if d < 4 || ((i / 6) + (d - 4) / 3) % 2 == 0 {
                CARD
            } else {
                CLOTH
            }
        });
        let (_, inside) = score_side(&labs).unwrap();
        assert!(inside < 0.2, "{inside}");
    }

    #[test]
    fn a_slanted_card_edge_is_found_even_against_a_cloth_like_the_card() {
        // The card ends on a slanted line (depth 4 at the start, 12 at the end); beyond it a
        // cloth only a little darker than the card, with a motif.
        let near_cloth = Lab {
            l: 88.0,
            a: 2.0,
            b: 8.0,
        };
        let scene = |number: bool| {
            side(|i, d| {
                let edge = 4.0 + 8.0 * i as f32 / 47.0;
                if (d as f32) < edge {
                    if number && (30..35).contains(&i) && (2..5).contains(&d) {
                        INK
                    } else {
                        CARD
                    }
                } else if (12..18).contains(&i) && (8..13).contains(&d) {
                    CLOTH
                } else {
                    near_cloth
                }
            })
        };
        let labs = scene(false);
        let body = near_median(&labs).unwrap();
        let e = card_edge(&labs, &|x: &Option<Lab>| {
            x.is_some_and(|x| x.delta_e(body) <= BODY_DE)
        });
        assert!(
            (e.at(0) - 4.0).abs() <= 1.0 && (e.at(47) - 12.0).abs() <= 1.0,
            "{e:?}"
        );
        // The motif beyond the edge looks like a number until the edge is known.
        let (any, inside) = score_side(&scene(false)).unwrap();
        assert!(any > 0.6 && inside < 0.2, "motif: {any} {inside}");
        let (_, inside) = score_side(&scene(true)).unwrap();
        assert!(inside > 0.6, "number: {inside}");
    }
}
