//! Lattices from cell blobs: for grids whose cells are separated by gaps (a colour chart's
//! patches on a black body), and as a second opinion for touching cells whose neighbours
//! differ.
//!
//! Many similar-size convex quads (cells) are linked into one integer lattice by walking from
//! each cell to its neighbours one pitch away along its own sides (each cell's sides give the
//! local directions, so perspective is handled), one homography is fitted from the lattice
//! coordinates to the cell centres (RANSAC), and every placement of an R×C block that contains
//! the observed cells becomes a candidate cell area.

use opencv::calib3d;
use opencv::core::{Mat, Point2f, Vector};
use opencv::prelude::*;

use crate::error::VisionError;
use crate::geom::{centre, dist, map_quad, rect, signed_area};
use crate::rectify::{Homography, Quad};

/// A convex quad found in the detection image, clockwise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Blob {
    pub quad: Quad,
    pub area: f32,
}

/// A candidate cell area found from a lattice: `quad`'s side 0→1 spans the columns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LatticeBlock {
    pub quad: Quad,
    /// Side of a cell blob as a fraction of the lattice pitch (1 for touching cells).
    pub fill: f32,
    /// How many observed cells the block contains.
    pub cells_seen: usize,
}

struct Cell {
    c: [f32; 2],
    u: [f32; 2],
    v: [f32; 2],
    area: f32,
}

fn sub(a: [f32; 2], b: [f32; 2]) -> [f32; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

impl Cell {
    fn new(b: &Blob) -> Cell {
        let q = &b.quad;
        let mid = |i: usize, j: usize| [(q[i][0] + q[j][0]) / 2.0, (q[i][1] + q[j][1]) / 2.0];
        Cell {
            c: centre(q),
            u: sub(mid(1, 2), mid(0, 3)),
            v: sub(mid(2, 3), mid(0, 1)),
            area: b.area,
        }
    }

    /// `d` in the basis (u, v): `d = α u + β v`.
    fn coords(&self, u: [f32; 2], v: [f32; 2], d: [f32; 2]) -> Option<[f32; 2]> {
        let det = u[0] * v[1] - u[1] * v[0];
        if det.abs() < 1e-6 {
            return None;
        }
        let _ = self;
        Some([
            (d[0] * v[1] - d[1] * v[0]) / det,
            (u[0] * d[1] - u[1] * d[0]) / det,
        ])
    }

    /// This cell's side vectors turned to agree best with `(u, v)` (corner order differs from
    /// blob to blob; all are clockwise, so only quarter turns are needed).
    fn aligned(&self, u: [f32; 2], v: [f32; 2]) -> ([f32; 2], [f32; 2]) {
        let neg = |a: [f32; 2]| [-a[0], -a[1]];
        let options = [
            (self.u, self.v),
            (self.v, neg(self.u)),
            (neg(self.u), neg(self.v)),
            (neg(self.v), self.u),
        ];
        let dot = |a: [f32; 2], b: [f32; 2]| a[0] * b[0] + a[1] * b[1];
        let mut best = options[0];
        let mut score = f32::NEG_INFINITY;
        for (a, b) in options {
            let s = dot(a, u) / (a[0].hypot(a[1]) * u[0].hypot(u[1]) + 1e-6)
                + dot(b, v) / (b[0].hypot(b[1]) * v[0].hypot(v[1]) + 1e-6);
            if s > score {
                score = s;
                best = (a, b);
            }
        }
        best
    }
}

/// The cells by the x of their centres, to find those near one without comparing every pair
/// (a checked tablecloth gives hundreds of cells).
struct ByX {
    xs: Vec<f32>,
    order: Vec<usize>,
}

impl ByX {
    fn new(cells: &[Cell]) -> ByX {
        let mut order: Vec<usize> = (0..cells.len()).collect();
        order.sort_by(|&a, &b| cells[a].c[0].total_cmp(&cells[b].c[0]));
        let xs = order.iter().map(|&i| cells[i].c[0]).collect();
        ByX { xs, order }
    }

    /// Into `out`, in ascending order (the order of a scan over all cells): the cells whose
    /// centre lies within `r` of `x` horizontally.
    fn near(&self, x: f32, r: f32, out: &mut Vec<usize>) {
        let lo = self.xs.partition_point(|&v| v < x - r);
        let hi = self.xs.partition_point(|&v| v <= x + r).max(lo);
        out.clear();
        out.extend_from_slice(&self.order[lo..hi]);
        out.sort_unstable();
    }
}

/// The lattice pitch in units of a cell's side: the median over cells of the nearest
/// similar-size neighbour that lies along one of the cell's own axes.
fn pitch_ratio(cells: &[Cell], by_x: &ByX) -> Option<f32> {
    let mut ratios = Vec::new();
    let mut near = Vec::new();
    for (i, a) in cells.iter().enumerate() {
        let mut best = f32::INFINITY;
        // Up to 2.2 sides away along either axis.
        let reach = 2.2 * (dist(a.u, [0.0; 2]) + dist(a.v, [0.0; 2])) + 1.0;
        by_x.near(a.c[0], reach, &mut near);
        for &j in &near {
            let b = &cells[j];
            if i == j || !(0.5..2.0).contains(&(b.area / a.area)) {
                continue;
            }
            if let Some([al, be]) = a.coords(a.u, a.v, sub(b.c, a.c)) {
                let (major, minor) = if al.abs() > be.abs() {
                    (al, be)
                } else {
                    (be, al)
                };
                if minor.abs() < 0.25 * major.abs() && (0.85..2.2).contains(&major.abs()) {
                    best = best.min(major.abs());
                }
            }
        }
        if best.is_finite() {
            ratios.push(best);
        }
    }
    if ratios.len() < 3 {
        return None;
    }
    ratios.sort_by(f32::total_cmp);
    Some(ratios[ratios.len() / 2])
}

/// Candidate R×C blocks from the blobs (small quads) found in an image of `width × height`.
pub fn lattice_blocks(
    blobs: &[Blob],
    rows: usize,
    cols: usize,
    width: f32,
    height: f32,
) -> Result<Vec<LatticeBlock>, VisionError> {
    let max_area = width * height / (rows * cols) as f32;
    let mut cells: Vec<Cell> = Vec::new();
    // The kept cells' centre x and index, sorted: a duplicate lies close by.
    let mut kept: Vec<(f32, usize)> = Vec::new();
    for b in blobs.iter().filter(|b| b.area <= max_area) {
        let c = Cell::new(b);
        // The same region found in two binary maps: keep the first. Such a twin is at most
        // 0.3 of its side away, and its area at most c's / 0.6.
        let r = 0.3 * (c.area / 0.6).max(0.0).sqrt() + 1.0;
        let lo = kept.partition_point(|&(x, _)| x < c.c[0] - r);
        let twin = kept[lo..]
            .iter()
            .take_while(|&&(x, _)| x <= c.c[0] + r)
            .any(|&(_, i)| {
                let o: &Cell = &cells[i];
                dist(o.c, c.c) <= 0.3 * o.area.sqrt() && (0.6..1.66).contains(&(c.area / o.area))
            });
        if !twin {
            let at = kept.partition_point(|&(x, _)| x < c.c[0]);
            kept.insert(at, (c.c[0], cells.len()));
            cells.push(c);
        }
    }
    let by_x = ByX::new(&cells);
    let Some(rho) = pitch_ratio(&cells, &by_x) else {
        return Ok(Vec::new());
    };
    let mut assigned: Vec<Option<usize>> = vec![None; cells.len()];
    let mut near = Vec::new();
    let mut out = Vec::new();
    let mut component = 0;
    for seed in 0..cells.len() {
        if assigned[seed].is_some() {
            continue;
        }
        // Breadth-first walk: (cell index, lattice coordinate, aligned axes).
        let mut members: Vec<(usize, [i32; 2])> = vec![(seed, [0, 0])];
        let mut queue = vec![(seed, [0i32, 0i32], cells[seed].u, cells[seed].v)];
        assigned[seed] = Some(component);
        while let Some((i, g, u, v)) = queue.pop() {
            let a = &cells[i];
            // A neighbour lies up to 1.25 pitches away along either axis.
            let reach = 1.25 * rho * (dist(u, [0.0; 2]) + dist(v, [0.0; 2])) + 1.0;
            by_x.near(a.c[0], reach, &mut near);
            for &j in &near {
                let b = &cells[j];
                if assigned[j].is_some() || !(0.5..2.0).contains(&(b.area / a.area)) {
                    continue;
                }
                let Some([al, be]) = a.coords(u, v, sub(b.c, a.c)) else {
                    continue;
                };
                let (x, y) = (al / rho, be / rho);
                let (rx, ry) = (x.round(), y.round());
                if (rx.abs() + ry.abs()) as i32 != 1
                    || (x - rx).abs() > 0.25
                    || (y - ry).abs() > 0.25
                {
                    continue;
                }
                assigned[j] = Some(component);
                let gj = [g[0] + rx as i32, g[1] + ry as i32];
                members.push((j, gj));
                let (uj, vj) = b.aligned(u, v);
                queue.push((j, gj, uj, vj));
            }
        }
        component += 1;
        if members.len() >= 4 {
            out.extend(blocks_of(&cells, &members, rows, cols, rho)?);
        }
    }
    Ok(out)
}

/// The lattice homography of one component and its block placements.
fn blocks_of(
    cells: &[Cell],
    members: &[(usize, [i32; 2])],
    rows: usize,
    cols: usize,
    rho: f32,
) -> Result<Vec<LatticeBlock>, VisionError> {
    let (mut x0, mut x1, mut y0, mut y1) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
    for &(_, [x, y]) in members {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    let positions: Vec<[i32; 2]> = members.iter().map(|&(_, g)| g).collect();
    if x0 == x1 || y0 == y1 || !four_in_general_position(&positions) {
        // A single row or column, or a line and one cell beside it, does not determine a
        // homography (RANSAC searched such sets in vain for up to 25 ms).
        return Ok(Vec::new());
    }
    let from: Vector<Point2f> = members
        .iter()
        .map(|&(_, [x, y])| Point2f::new(x as f32 + 0.5, y as f32 + 0.5))
        .collect();
    let to: Vector<Point2f> = members
        .iter()
        .map(|&(i, _)| Point2f::new(cells[i].c[0], cells[i].c[1]))
        .collect();
    let pitch = {
        let mut s: Vec<f32> = members.iter().map(|&(i, _)| cells[i].area.sqrt()).collect();
        s.sort_by(f32::total_cmp);
        s[s.len() / 2] * rho
    };
    let mut mask = Mat::default();
    let m = calib3d::find_homography(
        &from,
        &to,
        &mut mask,
        calib3d::RANSAC,
        f64::from(0.15 * pitch),
    )
    .map_err(VisionError::opencv("find_homography (lattice)"))?;
    if m.empty() {
        return Ok(Vec::new());
    }
    let mut h: Homography = [[0.0; 3]; 3];
    for (r, row) in h.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            // r, c < 3.
            *v = *m
                .at_2d::<f64>(r as i32, c as i32)
                .map_err(VisionError::opencv("reading a homography"))?;
        }
    }
    let inliers: Vec<[i32; 2]> = members
        .iter()
        .enumerate()
        .filter(|&(k, _)| mask.at::<u8>(k as i32).map(|v| *v != 0).unwrap_or(false))
        .map(|(_, &(_, g))| g)
        .collect();
    if inliers.len() < 4 {
        return Ok(Vec::new());
    }
    let fill = 1.0 / rho;
    let mut out = Vec::new();
    // Rows along the lattice's v axis, or (for a non-square grid) along its u axis.
    let orientations: &[(usize, usize, bool)] = if rows == cols {
        &[(cols, rows, false)]
    } else {
        &[(cols, rows, false), (rows, cols, true)]
    };
    for &(wide, tall, turned) in orientations {
        let (wide, tall) = (wide as i32, tall as i32);
        let xs = placements(x0, x1, wide);
        let ys = placements(y0, y1, tall);
        let mut blocks: Vec<LatticeBlock> = Vec::new();
        for &bx in &xs {
            for &by in &ys {
                let seen = inliers
                    .iter()
                    .filter(|g| (bx..bx + wide).contains(&g[0]) && (by..by + tall).contains(&g[1]))
                    .count();
                let b = rect(bx as f32, by as f32, (bx + wide) as f32, (by + tall) as f32);
                let Some(q) = map_quad(&h, &b) else { continue };
                if signed_area(&q) <= 0.0 {
                    continue; // the lattice came out mirrored: not a real grid
                }
                // Side 0→1 must span the columns: with rows along u, start at corner 1.
                let q = if turned { crate::geom::turn(&q, 1) } else { q };
                blocks.push(LatticeBlock {
                    quad: q,
                    fill,
                    cells_seen: seen,
                });
            }
        }
        // A large lattice (a checked tablecloth) has many placements: keep the best-covered.
        blocks.sort_by_key(|b| std::cmp::Reverse(b.cells_seen));
        blocks.truncate(12);
        out.extend(blocks);
    }
    Ok(out)
}

/// Whether some four distinct points of `points` have no three on a line, which a homography
/// needs. Without such four, all distinct points but at most one lie on one line, and that line
/// passes through two of the first three distinct points.
fn four_in_general_position(points: &[[i32; 2]]) -> bool {
    let mut distinct = points.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() < 4 {
        return false;
    }
    let cross = |a: [i32; 2], b: [i32; 2], p: [i32; 2]| {
        i64::from(b[0] - a[0]) * i64::from(p[1] - a[1])
            - i64::from(b[1] - a[1]) * i64::from(p[0] - a[0])
    };
    let off_line =
        |a: [i32; 2], b: [i32; 2]| distinct.iter().filter(|&&p| cross(a, b, p) != 0).count();
    let (d0, d1, d2) = (distinct[0], distinct[1], distinct[2]);
    [(d0, d1), (d0, d2), (d1, d2)]
        .iter()
        .all(|&(a, b)| off_line(a, b) >= 2)
}

/// Block origins along one axis for a block of `len` cells and observed cells `lo..=hi`: all
/// origins that contain the observed span, or, when the span is longer, all inside it.
fn placements(lo: i32, hi: i32, len: i32) -> Vec<i32> {
    let (a, b) = if hi - lo < len {
        (hi - len + 1, lo)
    } else {
        (lo, hi - len + 1)
    };
    (a..=b).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::homography_4;
    use crate::rectify::apply_homography;

    proptest::proptest! {
        /// `ByX::near` finds exactly the cells a scan over all of them would, in its order.
        #[test]
        fn cells_near_an_x_are_those_a_full_scan_finds(
            xs in proptest::collection::vec(0.0f32..400.0, 0..60),
            x in -20.0f32..420.0,
            r in 0.0f32..80.0,
        ) {
            let cells: Vec<Cell> = xs
                .iter()
                .map(|&cx| Cell { c: [cx, 0.0], u: [1.0, 0.0], v: [0.0, 1.0], area: 1.0 })
                .collect();
            let mut near = Vec::new();
            ByX::new(&cells).near(x, r, &mut near);
            let scan: Vec<usize> = (0..cells.len())
                .filter(|&i| (cells[i].c[0] - x).abs() <= r)
                .collect();
            proptest::prop_assert_eq!(near, scan);
        }
    }

    #[test]
    fn four_points_in_general_position_need_two_off_every_line() {
        // A column of three and one cell beside it (a duplicate changes nothing).
        let t_shape = [[0, 0], [-1, 0], [-1, -1], [-1, 1], [-1, 0]];
        assert!(!four_in_general_position(&t_shape));
        assert!(!four_in_general_position(&[
            [0, 0],
            [1, 1],
            [2, 2],
            [3, 3],
            [0, 1]
        ]));
        assert!(!four_in_general_position(&[[0, 0], [1, 0], [0, 1]]));
        // A plus: its four arms have no three on a line.
        assert!(four_in_general_position(&[
            [0, 0],
            [1, 0],
            [-1, 0],
            [0, 1],
            [0, -1]
        ]));
        assert!(four_in_general_position(&[
            [0, 0],
            [1, 0],
            [2, -1],
            [0, -1],
            [2, 0]
        ]));
    }

    /// Why such sets are turned away: a line and one point off it do not determine a
    /// homography. A homology whose axis is the line and whose centre is the point fixes all
    /// of them and yet moves the plane.
    #[test]
    fn a_line_and_one_point_fit_many_homographies() {
        let t_shape = [[0.0f32, 0.0], [-1.0, 0.0], [-1.0, -1.0], [-1.0, 1.0]];
        let identity: Homography = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        // Axis x = -1, centre (0, 0), ratio 2: I + (2 - 1)·c·aᵀ with a = (1, 0, 1).
        let homology: Homography = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 2.0]];
        for p in t_shape {
            let (a, b) = (
                apply_homography(&identity, p).unwrap(),
                apply_homography(&homology, p).unwrap(),
            );
            assert!(dist(a, b) < 1e-6, "{p:?}: {a:?} vs {b:?}");
        }
        let moved = apply_homography(&homology, [1.0, 0.0]).unwrap();
        assert!(dist(moved, [1.0, 0.0]) > 0.5, "{moved:?}");
    }

    /// The patches of a 4×6 chart (patch 0.8 of the pitch) seen in perspective, two missing.
    #[test]
    fn a_gapped_chart_lattice_is_recovered_with_missing_patches() {
        let view: Quad = [[140.0, 60.0], [520.0, 95.0], [580.0, 330.0], [90.0, 300.0]];
        let h = homography_4(&rect(0.0, 0.0, 6.0, 4.0), &view).unwrap();
        let mut blobs = Vec::new();
        for r in 0..4 {
            for c in 0..6 {
                if (r, c) == (3, 5) || (r, c) == (0, 2) {
                    continue; // a black patch on the black body, and one lost to glare
                }
                let (x, y) = (c as f32 + 0.1, r as f32 + 0.1);
                let q = map_quad(&h, &rect(x, y, x + 0.8, y + 0.8)).unwrap();
                // Corner order differs between blobs, as contours give them.
                let q = crate::geom::turn(&q, (r + c) % 4);
                blobs.push(Blob {
                    quad: q,
                    area: signed_area(&q),
                });
            }
        }
        let blocks = lattice_blocks(&blobs, 4, 6, 640.0, 400.0).unwrap();
        let best = blocks.iter().max_by_key(|b| b.cells_seen).unwrap();
        assert_eq!(best.cells_seen, 22);
        assert!((best.fill - 0.8).abs() < 0.05, "{}", best.fill);
        // The block is the whole chart, up to a half turn.
        let matches = |q: &Quad| (0..4).all(|i| dist(q[i], view[i]) < 2.0);
        assert!(
            matches(&best.quad) || matches(&crate::geom::turn(&best.quad, 2)),
            "{:?}",
            best.quad
        );
    }
}
